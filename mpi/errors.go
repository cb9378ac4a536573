package mpi

import "github.com/mpigo/mpigo/internal/core"

// ErrorClass is an MPI error class (MPI_ERR_*), with the numbers MPICH and Open MPI use.
type ErrorClass = core.ErrorClass

// Error is an error from an MPI call: its class, the call, what went wrong, and the
// cause from below, if any. Its text says each once.
type Error = core.Error

// The error classes.
const (
	ClassSuccess    = core.ClassSuccess
	ClassBuffer     = core.ClassBuffer
	ClassCount      = core.ClassCount
	ClassType       = core.ClassType
	ClassTag        = core.ClassTag
	ClassComm       = core.ClassComm
	ClassRank       = core.ClassRank
	ClassRequest    = core.ClassRequest
	ClassRoot       = core.ClassRoot
	ClassGroup      = core.ClassGroup
	ClassOp         = core.ClassOp
	ClassTopology   = core.ClassTopology
	ClassDims       = core.ClassDims
	ClassArg        = core.ClassArg
	ClassUnknown    = core.ClassUnknown
	ClassTruncate   = core.ClassTruncate
	ClassOther      = core.ClassOther
	ClassIntern     = core.ClassIntern
	ClassInStatus   = core.ClassInStatus
	ClassPending    = core.ClassPending
	ClassProcFailed = core.ClassProcFailed
	ClassInfo       = core.ClassInfo
	ClassInfoKey    = core.ClassInfoKey
	ClassInfoValue  = core.ClassInfoValue
	ClassInfoNokey  = core.ClassInfoNokey
	ClassNoMem      = core.ClassNoMem
	ClassBase       = core.ClassBase
	ClassKeyval     = core.ClassKeyval
)

// One sentinel per class, for errors.Is(err, mpi.ErrTruncate).
var (
	ErrBuffer     = core.ErrBuffer
	ErrCount      = core.ErrCount
	ErrType       = core.ErrType
	ErrTag        = core.ErrTag
	ErrComm       = core.ErrComm
	ErrRank       = core.ErrRank
	ErrRequest    = core.ErrRequest
	ErrRoot       = core.ErrRoot
	ErrGroup      = core.ErrGroup
	ErrOp         = core.ErrOp
	ErrTopology   = core.ErrTopology
	ErrDims       = core.ErrDims
	ErrArg        = core.ErrArg
	ErrUnknown    = core.ErrUnknown
	ErrTruncate   = core.ErrTruncate
	ErrOther      = core.ErrOther
	ErrIntern     = core.ErrIntern
	ErrInStatus   = core.ErrInStatus
	ErrPending    = core.ErrPending
	ErrProcFailed = core.ErrProcFailed
	ErrInfo       = core.ErrInfo
	ErrInfoKey    = core.ErrInfoKey
	ErrInfoValue  = core.ErrInfoValue
	ErrInfoNokey  = core.ErrInfoNokey
	ErrNoMem      = core.ErrNoMem
	ErrBase       = core.ErrBase
	ErrKeyval     = core.ErrKeyval
)

// ClassOf returns the MPI error class of err: ClassSuccess for nil, ClassOther for an
// error that did not come from an MPI call.
func ClassOf(err error) ErrorClass { return core.ClassOf(err) }

// ErrorCode is an MPI error code. Every class is also a code, ErrorCode(class);
// AddErrorCode makes finer codes of a class, which NewError turns into errors.
type ErrorCode = core.ErrorCode

const (
	// LastErrorCode is MPI_ERR_LASTCODE: every predefined class is at or below it, every
	// class or code AddErrorClass and AddErrorCode make is above it.
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
	errorf   = core.Errorf
	mapErr   = core.MapErr
	typeErr  = core.TypeErr
	groupErr = core.GroupErr
)
