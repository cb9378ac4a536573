package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// The classes this package raises, by short names. They are the device's classes,
// whose numbers are the ABI's (internal/core/zclasses.go, generated from mpi.h's
// source): a class passes to C as it is.
const (
	errBuffer        = core.ClassBuffer
	errCount         = core.ClassCount
	errType          = core.ClassType
	errComm          = core.ClassComm
	errRank          = core.ClassRank
	errRequest       = core.ClassRequest
	errGroup         = core.ClassGroup
	errOp            = core.ClassOp
	errTopology      = core.ClassTopology
	errArg           = core.ClassArg
	errTruncate      = core.ClassTruncate
	errOther         = core.ClassOther
	errPending       = core.ClassPending
	errInStatus      = core.ClassInStatus
	errInfoKey       = core.ClassInfoKey
	errInfoNokey     = core.ClassInfoNokey
	errInfoValue     = core.ClassInfoValue
	errInfo          = core.ClassInfo
	errKeyval        = core.ClassKeyval
	errNoMem         = core.ClassNoMem
	errFile          = core.ClassFile
	errSession       = core.ClassSession
	errValueTooLarge = core.ClassValueTooLarge
	errABI           = core.ClassABI
)

// errorf is the error of code for the call op: a class, or a code C handed back (a
// callback's return value), which C then receives again as it was.
func errorf[T ~int | ~int32](code T, op, format string, a ...any) error {
	e := &core.Error{Class: core.ErrorClass(code), Op: op, Msg: fmt.Sprintf(format, a...)}
	if c := int32(code); !isClass(c) {
		e.Class, e.Code = core.ClassOther, core.ErrorCode(c)
		if k, err := core.ClassOfCode(op, e.Code); err == nil {
			e.Class = k // an added code
		} else if isErrCode(c) {
			e.Class = core.ErrorClass(classOfCode(c))
		}
	}
	return e
}

// codeOf is the error code C receives for err: an added code, else its class.
func codeOf(err error) int32 {
	var ce *core.Error
	if errors.As(err, &ce) {
		if ce.Code != 0 {
			return int32(ce.Code)
		}
		return int32(ce.Class)
	}
	return int32(errOther)
}

// lastMsg holds, per class, the message of the latest error of that class: a code
// returned to C is the class itself (so that programs that compare the code with a
// class work), and MPI_Error_string adds what the latest error of the class said,
// which names the call.
var lastMsg struct {
	sync.Mutex
	m map[int32]string
}

func recordMsg(code int32, msg string) {
	lastMsg.Lock()
	if lastMsg.m == nil {
		lastMsg.m = map[int32]string{}
	}
	lastMsg.m[code] = msg
	lastMsg.Unlock()
}

// fail is the one seam every call's error passes: nil is MPI_SUCCESS; otherwise the
// error handler of the communicator ch (MPI_COMM_SELF's, or the initial handler,
// where ch is not a live communicator: errors with no valid object) runs, and the
// code is returned. On success it costs one comparison.
func fail(op string, ch uintptr, err error) int32 {
	if err == nil {
		return 0
	}
	return raise(op, ch, err)
}

// nullOut is the error of a call op given NULL where it must write a result or read
// an argument: names lists the pointers ps by the C binding's names, comma-separated,
// and the first NULL one is named (MPI_ERR_ARG, as MPICH's "Null pointer in
// parameter"), else nil. Writing or reading through such a pointer would end the
// process with a Go panic, and skipping it would succeed without an answer or with an
// argument never read; an export checks its pointers with it before acting, so that a
// refused call has done nothing. (The NULLs the ABI defines as sentinels,
// MPI_STATUS_IGNORE and its kin, MPI_BOTTOM, MPI_ARGV_NULL, are not refused here;
// MPI_T's procedures ignore a NULL output, as the standard has them do, and do not use
// this.)
func nullOut(op, names string, ps ...unsafe.Pointer) error {
	for i, p := range ps {
		if p != nil {
			continue
		}
		name := names
		for ; i > 0; i-- {
			_, name, _ = strings.Cut(name, ",")
		}
		name, _, _ = strings.Cut(name, ",")
		return errorf(errArg, op, "%s is NULL", strings.TrimSpace(name))
	}
	return nil
}

// nullArray is nullOut for an array that receives or holds n entries: NULL is refused
// only where something would be written or read.
func nullArray(op, name string, p unsafe.Pointer, n int) error {
	if p == nil && n > 0 {
		return errorf(errArg, op, "%s is NULL", name)
	}
	return nil
}

// nullArrays is nullArray for the arrays ps of n entries each (a side of a v or w
// collective), named by names as nullOut's are.
func nullArrays(op string, n int, names string, ps ...unsafe.Pointer) error {
	if n <= 0 {
		return nil
	}
	return nullOut(op, names, ps...)
}

func raise(op string, ch uintptr, err error) int32 {
	if kindOf(ch) == kFile || ch == hFileNull {
		// A file's request, or a call of the I/O chapter: the file's handler, or
		// MPI_FILE_NULL's for a call without a file (a stub's fh may be it too).
		return raiseFile(op, ch, err)
	}
	ce := cerror(op, err)
	if c := commOf(ch); c != nil {
		c.x.Errh.Raise(ce.op, ch, c.x.What, ce)
	} else {
		noObject(ce)
	}
	return ce.code
}

// noObject runs the handler of an error with no valid object (MPI 4.1 section 9.3):
// MPI_COMM_SELF's while the world model runs, else the initial one.
func noObject(ce *cError) {
	mpir.NoObject(&self.x.Errh, &initialErrh).Raise(ce.op, uintptr(hCommSelf), self.x.What, ce)
}

// initialErrh is the initial error handler, MPI's default: MPI_ERRORS_ARE_FATAL.
var initialErrh mpir.Errh

func init() { initialErrh.Init(mpir.ErrorsAreFatal) }

// cError is an error as C sees it: the code it returns (newCode's) and the words
// MPI_Error_string gives for it, which name the call. The handlers get it: a C
// function is passed its code, a fatal handler prints it and exits with its class.
type cError struct {
	op   string // the call, as C knows it: MPI_Send
	code int32  // what the call returns: a user's handler may change it
	msg  string
	err  error // the device's error, which holds the class
}

func (e *cError) Error() string {
	return fmt.Sprintf("%s (error code %d, %s)", e.msg, e.code, className(classOfCode(e.code)))
}

func (e *cError) Unwrap() error { return e.err }

// cerror gives err of op its code and words.
func cerror(op string, err error) *cError {
	code, msg := errMessage(op, err)
	return &cError{op: "MPI_" + op, code: code, msg: msg, err: err}
}

// codeErr is the cError of a code C passed in (MPI_x_call_errhandler), for op.
func codeErr(op string, code int32) *cError {
	return &cError{op: "MPI_" + op, code: code, msg: "MPI_" + op + ": " + errorText(code), err: errorf(code, op, "")}
}

// cCode is the code a C handler function is passed for err.
func cCode(err error) int32 {
	var ce *cError
	if errors.As(err, &ce) {
		return ce.code
	}
	return codeOf(err)
}

// errMessage is the code C receives for err and the text MPI_Error_string gives for it,
// which names the call.
func errMessage(op string, err error) (int32, string) {
	class := codeOf(err)
	msg := err.Error()
	if !strings.HasPrefix(msg, "MPI_") {
		// The device's words begin "mpi: Call: "; C programmers know the call as MPI_Call.
		msg = strings.TrimPrefix(msg, "mpi: ")
		if i := strings.Index(msg, ": "); i > 0 && !strings.Contains(msg[:i], " ") {
			msg = msg[i+2:]
		}
		msg = "MPI_" + op + ": " + msg
	}
	recordMsg(class, msg)
	return newCode(class, msg), msg
}

// Error codes. A code returned to C names one error: its class in the low
// codeClassBits bits above codeBase, and a slot of a ring of the latest errors' messages, so that
// MPI_Error_string of the code gives that call's message and MPI_Error_class its
// class, as MPICH's codes do. MPI_ERR_IN_STATUS and MPI_ERR_PENDING (which programs
// compare statuses with), the classes above the ABI's (MPIX_ERR_PROC_FAILED) and the
// classes and codes a program added stay themselves. A code whose slot a later error
// took says its class only. The codes lie between MPI_ERR_LASTCODE and the first code
// a program can add (core's firstAdded).
const (
	codeBase      = core.LastCode + 1
	codeSlots     = 1 << 16
	codeClassBits = 6
)

var codeRing struct {
	sync.Mutex
	next int
	msgs [codeSlots]struct {
		code int32
		msg  string
	}
}

func newCode(class int32, msg string) int32 {
	if class <= 0 || class >= 1<<codeClassBits || !core.ErrorClass(class).Predefined() ||
		class == int32(errInStatus) || class == int32(errPending) {
		return class
	}
	codeRing.Lock()
	slot := codeRing.next
	codeRing.next = (slot + 1) % codeSlots
	code := int32(int(codeBase) + slot<<codeClassBits | int(class))
	codeRing.msgs[slot].code, codeRing.msgs[slot].msg = code, msg
	codeRing.Unlock()
	return code
}

// isErrCode reports whether code is one newCode made.
func isErrCode(code int32) bool {
	return code >= int32(codeBase) && code < int32(codeBase)+codeSlots<<codeClassBits
}

// classOfCode is the class of a code newCode made, or code itself.
func classOfCode(code int32) int32 {
	if isErrCode(code) {
		return code & (1<<codeClassBits - 1)
	}
	return code
}

func className(code int32) string {
	if c := core.ErrorClass(code); c.Predefined() {
		return c.String()
	}
	return fmt.Sprintf("code %d", code)
}

// isClass reports whether code is a predefined class.
func isClass(code int32) bool { return core.ErrorClass(code).Predefined() }

// unsupported is what the stubs of zstubs.c return: MPI_ERR_UNSUPPORTED_OPERATION
// through the error handler, naming the procedure.
//
//export mpigo_unsupported
func mpigo_unsupported(name *C.char, comm uintptr) int32 {
	n := C.GoString(name)
	op := strings.TrimPrefix(n, "MPI_")
	return raise(op, comm, errorf(core.ClassUnsupportedOperation, op, "not implemented by mpigo (its C ABI has no %s yet)", n))
}

// errorText is the text of an error code: the class's name, what the latest error of
// the class said, or an added code's string.
func errorText(code int32) string {
	if isErrCode(code) {
		slot := (code - int32(codeBase)) >> codeClassBits
		codeRing.Lock()
		e := codeRing.msgs[slot]
		codeRing.Unlock()
		name := className(classOfCode(code))
		if e.code == code {
			return name + ": " + e.msg
		}
		return name + " (the message of this error was overwritten by later ones)"
	}
	if isClass(code) {
		s := className(code)
		if code == 0 {
			return s + ": no error"
		}
		lastMsg.Lock()
		m := lastMsg.m[code]
		lastMsg.Unlock()
		if m != "" {
			s += ": " + m
		}
		return s
	}
	if s, err := core.CodeString("Error_string", core.ErrorCode(code)); err == nil {
		return s
	}
	return fmt.Sprintf("unknown error code %d", code)
}

//export PMPI_Error_string
func PMPI_Error_string(code int32, s unsafe.Pointer, n unsafe.Pointer) int32 {
	const op = "Error_string"
	if err := nullOut(op, "string, resultlen", s, n); err != nil {
		return fail(op, 0, err)
	}
	if !isErrCode(code) && !isClass(code) && code < 1001 || code > 1018 && code <= int32(core.LastCode) {
		if _, err := core.ClassOfCode(op, core.ErrorCode(code)); err != nil {
			return fail(op, 0, errorf(errArg, op, "%d is not an error code", code))
		}
	}
	putCString(s, C.MPI_MAX_ERROR_STRING, errorText(code), n)
	return 0
}

//export PMPI_Error_class
func PMPI_Error_class(code int32, class unsafe.Pointer) int32 {
	const op = "Error_class"
	if class == nil {
		return fail(op, 0, errorf(errArg, op, "errorclass is NULL"))
	}
	if isErrCode(code) || isClass(code) {
		setInt(class, int(classOfCode(code)))
		return 0
	}
	c, err := core.ClassOfCode(op, core.ErrorCode(code))
	if err != nil {
		return fail(op, 0, errorf(errArg, op, "%d is not an error code", code))
	}
	setInt(class, int(c))
	return 0
}

//export PMPI_Add_error_class
func PMPI_Add_error_class(class unsafe.Pointer) int32 {
	if err := nullOut("Add_error_class", "errorclass", class); err != nil {
		return fail("Add_error_class", 0, err)
	}
	c, err := core.AddClass("Add_error_class")
	if err != nil {
		return fail("Add_error_class", 0, err)
	}
	setInt(class, int(c))
	return 0
}

//export PMPI_Add_error_code
func PMPI_Add_error_code(class int32, code unsafe.Pointer) int32 {
	if err := nullOut("Add_error_code", "errorcode", code); err != nil {
		return fail("Add_error_code", 0, err)
	}
	c, err := core.AddCode("Add_error_code", core.ErrorClass(class))
	if err != nil {
		return fail("Add_error_code", 0, err)
	}
	setInt(code, int(c))
	return 0
}

//export PMPI_Add_error_string
func PMPI_Add_error_string(code int32, s unsafe.Pointer) int32 {
	const op = "Add_error_string"
	if err := nullOut(op, "string", s); err != nil {
		return fail(op, 0, err)
	}
	return fail(op, 0, core.AddString(op, core.ErrorCode(code), cstr(s)))
}

//export PMPI_Remove_error_class
func PMPI_Remove_error_class(class int32) int32 {
	return fail("Remove_error_class", 0, core.RemoveClass("Remove_error_class", core.ErrorClass(class)))
}

//export PMPI_Remove_error_code
func PMPI_Remove_error_code(code int32) int32 {
	return fail("Remove_error_code", 0, core.RemoveCode("Remove_error_code", core.ErrorCode(code)))
}

//export PMPI_Remove_error_string
func PMPI_Remove_error_string(code int32) int32 {
	return fail("Remove_error_string", 0, core.RemoveString("Remove_error_string", core.ErrorCode(code)))
}

// goPMPI_Pcontrol is MPI_Pcontrol's Go half (handles.c has the variadic C entry).
//
//export goPMPI_Pcontrol
func goPMPI_Pcontrol(level int32) int32 {
	return fail("Pcontrol", 0, mpir.Pcontrol("Pcontrol", int(level)))
}
