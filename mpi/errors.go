package mpi

import "github.com/mpigo/mpigo/internal/core"

// ErrorClass is an MPI error class (MPI_ERR_*). The classes have the numbers of the
// MPI 5.0 standard's ABI, which a C program of the ABI sees too (zclasses.go).
type ErrorClass = core.ErrorClass

// Error is an error from an MPI call: its class, the call, what went wrong, and the
// cause from below, if any. Its text says each once.
type Error = core.Error

// ClassProcFailed is the class of an operation that failed because a peer process
// died (MPIX_ERR_PROC_FAILED, of the fault-tolerance proposal; not a class of the
// standard, whose ABI has no number for it: this is MPICH's and Open MPI's).
const ClassProcFailed = core.ClassProcFailed

// ErrProcFailed is ClassProcFailed's sentinel, for errors.Is.
var ErrProcFailed = core.ErrProcFailed

// ClassOf returns the MPI error class of err: ClassSuccess for nil, ClassOther for an
// error that did not come from an MPI call.
func ClassOf(err error) ErrorClass { return core.ClassOf(err) }

// ErrorCode is an MPI error code. Every class is also a code, ErrorCode(class);
// AddErrorCode makes finer codes of a class, which NewError turns into errors.
type ErrorCode = core.ErrorCode

const (
	// LastErrorCode is MPI_ERR_LASTCODE (the standard ABI's value): every predefined
	// class is at or below it, every class or code AddErrorClass and AddErrorCode make
	// is above it.
	LastErrorCode = core.LastCode
	// MaxErrorString is MPI_MAX_ERROR_STRING, the longest string (in bytes)
	// AddErrorString takes.
	MaxErrorString = core.MaxErrorString
)

// AddErrorClass makes a new error class, local to this process: other ranks may number
// theirs differently, so give it the same string everywhere (MPI_Add_error_class). It
// may be called at any time, before Init and after Finalize too; KeyLastUsedCode then
// reports it.
func AddErrorClass() (ErrorClass, error) {
	c, err := core.AddClass("AddErrorClass")
	return c, Self.fail("AddErrorClass", err)
}

// AddErrorCode makes a new error code of class, a predefined class or one AddErrorClass
// made (MPI_Add_error_code).
func AddErrorCode(class ErrorClass) (ErrorCode, error) {
	c, err := core.AddCode("AddErrorCode", class)
	return c, Self.fail("AddErrorCode", err)
}

// AddErrorString gives a class or code that AddErrorClass or AddErrorCode made its
// text, at most MaxErrorString bytes, replacing any it had (MPI_Add_error_string). Pass
// ErrorCode(class) for a class. Predefined classes keep their texts.
func AddErrorString(code ErrorCode, s string) error {
	return Self.fail("AddErrorString", core.AddString("AddErrorString", code, s))
}

// RemoveErrorClass removes a class AddErrorClass made, and its string; its codes must
// be removed first (MPI_Remove_error_class).
func RemoveErrorClass(class ErrorClass) error {
	return Self.fail("RemoveErrorClass", core.RemoveClass("RemoveErrorClass", class))
}

// RemoveErrorCode removes a code AddErrorCode made; its string must be removed first
// (MPI_Remove_error_code).
func RemoveErrorCode(code ErrorCode) error {
	return Self.fail("RemoveErrorCode", core.RemoveCode("RemoveErrorCode", code))
}

// RemoveErrorString removes the string AddErrorString gave a class or code
// (MPI_Remove_error_string).
func RemoveErrorString(code ErrorCode) error {
	return Self.fail("RemoveErrorString", core.RemoveString("RemoveErrorString", code))
}

// ErrorString is the text of an error code or class (MPI_Error_string): for a
// predefined class its name and meaning ("MPI_ERR_TRUNCATE: message truncated"); for an
// added class or code the string AddErrorString gave it, empty if none. An error value
// says more: its Error method names the call and what went wrong.
func ErrorString(code ErrorCode) (string, error) {
	s, err := core.CodeString("ErrorString", code)
	return s, Self.fail("ErrorString", err)
}

// ErrorClassOf is the class of an error code (MPI_Error_class); a class is its own.
// ClassOf gives the class of an error value.
func ErrorClassOf(code ErrorCode) (ErrorClass, error) {
	c, err := core.ClassOfCode("ErrorClassOf", code)
	return c, Self.fail("ErrorClassOf", err)
}

// NewError makes an error of code, predefined or added, saying msg: its class is the
// code's, errors.Is(err, NewError(code, "")) matches it, and CodeOf gives the code back.
// An error handler can be given it (Comm.CallErrHandler). A code that does not exist
// gives an error of class ClassArg saying so.
func NewError(code ErrorCode, msg string) *Error { return core.NewCodeError("NewError", code, msg) }

// CodeOf is the error code of err: the code NewError gave it, else its class (see
// ClassOf).
func CodeOf(err error) ErrorCode { return core.CodeOf(err) }

var (
	errorf  = core.Errorf
	mapErr  = core.MapErr
	typeErr = core.TypeErr
)
