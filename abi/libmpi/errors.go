package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"
#include <stdio.h>

static void call_comm_errh(void *fn, uintptr_t comm, int code) {
	MPI_Comm c = (MPI_Comm)comm;
	((MPI_Comm_errhandler_function *)fn)(&c, &code);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
)

// ABI error classes mpigo raises itself (mpi.h); the device's classes map onto the
// ABI's numbers in abiClass.
const (
	errBuffer      = 1
	errCount       = 2
	errType        = 3
	errTag         = 4
	errComm        = 5
	errRank        = 6
	errRequest     = 7
	errRoot        = 8
	errGroup       = 9
	errOp          = 10
	errTopology    = 11
	errArg         = 13
	errTruncate    = 15
	errOther       = 16
	errIntern      = 17
	errPending     = 18
	errInStatus    = 19
	errInfoKey     = 31
	errInfoNokey   = 32
	errInfoValue   = 33
	errInfo        = 34
	errKeyval      = 36
	errNoMem       = 39
	errUnsupported = 55
	errErrhandler  = 61
	lastCode       = 0x3fff
)

// abiNames are the ABI's class names, by number.
var abiNames = [...]string{"MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE",
	"MPI_ERR_TAG", "MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_REQUEST", "MPI_ERR_ROOT",
	"MPI_ERR_GROUP", "MPI_ERR_OP", "MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS", "MPI_ERR_ARG",
	"MPI_ERR_UNKNOWN", "MPI_ERR_TRUNCATE", "MPI_ERR_OTHER", "MPI_ERR_INTERN",
	"MPI_ERR_PENDING", "MPI_ERR_IN_STATUS", "MPI_ERR_ACCESS", "MPI_ERR_AMODE",
	"MPI_ERR_ASSERT", "MPI_ERR_BAD_FILE", "MPI_ERR_BASE", "MPI_ERR_CONVERSION",
	"MPI_ERR_DISP", "MPI_ERR_DUP_DATAREP", "MPI_ERR_FILE_EXISTS", "MPI_ERR_FILE_IN_USE",
	"MPI_ERR_FILE", "MPI_ERR_INFO_KEY", "MPI_ERR_INFO_NOKEY", "MPI_ERR_INFO_VALUE",
	"MPI_ERR_INFO", "MPI_ERR_IO", "MPI_ERR_KEYVAL", "MPI_ERR_LOCKTYPE", "MPI_ERR_NAME",
	"MPI_ERR_NO_MEM", "MPI_ERR_NOT_SAME", "MPI_ERR_NO_SPACE", "MPI_ERR_NO_SUCH_FILE",
	"MPI_ERR_PORT", "MPI_ERR_QUOTA", "MPI_ERR_READ_ONLY", "MPI_ERR_RMA_ATTACH",
	"MPI_ERR_RMA_CONFLICT", "MPI_ERR_RMA_RANGE", "MPI_ERR_RMA_SHARED", "MPI_ERR_RMA_SYNC",
	"MPI_ERR_SERVICE", "MPI_ERR_SIZE", "MPI_ERR_SPAWN", "MPI_ERR_UNSUPPORTED_DATAREP",
	"MPI_ERR_UNSUPPORTED_OPERATION", "MPI_ERR_WIN", "MPI_ERR_RMA_FLAVOR",
	"MPI_ERR_PROC_ABORTED", "MPI_ERR_VALUE_TOO_LARGE", "MPI_ERR_SESSION",
	"MPI_ERR_ERRHANDLER"}

// coreToABI maps the device's class numbers that differ from the ABI's.
var coreToABI = map[core.ErrorClass]int32{
	core.ClassInStatus:   errInStatus,
	core.ClassPending:    errPending,
	core.ClassInfo:       errInfo,
	core.ClassInfoKey:    errInfoKey,
	core.ClassInfoValue:  errInfoValue,
	core.ClassInfoNokey:  errInfoNokey,
	core.ClassNoMem:      errNoMem,
	core.ClassBase:       24,
	core.ClassKeyval:     errKeyval,
	core.ClassProcFailed: 58, // MPI_ERR_PROC_ABORTED: the nearest class the ABI has
}

// abiClass is the ABI's number for a device class; added classes keep theirs.
func abiClass(c core.ErrorClass) int32 {
	if v, ok := coreToABI[c]; ok {
		return v
	}
	return int32(c)
}

// coreClass is the device's class for an ABI class number (the inverse of abiClass).
func coreClass(c int32) core.ErrorClass {
	for k, v := range coreToABI {
		if v == c {
			return k
		}
	}
	return core.ErrorClass(c)
}

// abiError is an error this package raises with an ABI class the device has no
// class for (MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_ERRHANDLER, ...).
type abiError struct {
	class int32
	msg   string
}

func (e *abiError) Error() string { return e.msg }

func errorf(class int32, op, format string, a ...any) error {
	return &abiError{class: class, msg: "MPI_" + op + ": " + fmt.Sprintf(format, a...)}
}

// codeOf is the error code C receives for err.
func codeOf(err error) int32 {
	var ae *abiError
	if errors.As(err, &ae) {
		return ae.class
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		if ce.Code != 0 {
			return int32(ce.Code)
		}
		return abiClass(ce.Class)
	}
	return errOther
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
// error handler of the communicator ch (MPI_COMM_SELF's where ch is not a live
// communicator) runs, and the code is returned.
func fail(op string, ch uintptr, err error) int32 {
	if err == nil {
		return 0
	}
	return raise(op, ch, err)
}

func raise(op string, ch uintptr, err error) int32 {
	code := codeOf(err)
	msg := err.Error()
	if !strings.HasPrefix(msg, "MPI_") {
		// The device's words begin "mpi: Call: "; C programmers know the call as MPI_Call.
		msg = strings.TrimPrefix(msg, "mpi: ")
		if i := strings.Index(msg, ": "); i > 0 && !strings.Contains(msg[:i], " ") {
			msg = msg[i+2:]
		}
		msg = "MPI_" + op + ": " + msg
	}
	recordMsg(code, msg)
	c := commOf(ch)
	if c == nil {
		c, ch = commOf(hCommSelf), hCommSelf
	}
	return invoke(c, ch, code, msg)
}

// invoke runs c's error handler for code.
func invoke(c *comm, ch uintptr, code int32, msg string) int32 {
	eh := hErrhFatal
	if c != nil {
		eh = int(c.errh.Load())
	}
	switch eh {
	case hErrhReturn:
		return code
	case hErrhFatal, hErrhAbort:
		fmt.Fprintf(os.Stderr, "mpigo: rank %d: %s (error code %d, %s)\n", core.WorldRank(), msg, code, className(code))
		exit := int(code)
		if exit <= 0 || exit > 255 {
			exit = 1
		}
		core.Abort(exit, msg)
	}
	h := errhandlers.get(uintptr(eh))
	if h == nil || h.fn == nil {
		return code
	}
	C.call_comm_errh(h.fn, C.uintptr_t(ch), C.int(code))
	return code
}

func className(code int32) string {
	if code >= 0 && int(code) < len(abiNames) {
		return abiNames[code]
	}
	return fmt.Sprintf("code %d", code)
}

// unsupported is what the stubs of zstubs.c return: MPI_ERR_UNSUPPORTED_OPERATION
// through the error handler, naming the procedure.
//
//export mpigo_unsupported
func mpigo_unsupported(name *C.char, comm uintptr) int32 {
	n := C.GoString(name)
	err := &abiError{class: errUnsupported, msg: n + ": not implemented by mpigo (its C ABI has no " + n + " yet)"}
	return raise(strings.TrimPrefix(n, "MPI_"), comm, err)
}

// errhandler is an error handler a program made from a C function.
type errhandler struct {
	fn unsafe.Pointer // MPI_Comm_errhandler_function *
}

var errhandlers table[errhandler]

func validErrh(h uintptr) bool {
	switch h {
	case hErrhFatal, hErrhReturn, hErrhAbort:
		return true
	}
	return errhandlers.get(h) != nil
}

//export PMPI_Comm_create_errhandler
func PMPI_Comm_create_errhandler(fn unsafe.Pointer, eh unsafe.Pointer) int32 {
	const op = "Comm_create_errhandler"
	if fn == nil {
		return fail(op, 0, errorf(errArg, op, "comm_errhandler_fn is NULL"))
	}
	if eh == nil {
		return fail(op, 0, errorf(errArg, op, "errhandler is NULL"))
	}
	setHandle(eh, errhandlers.add(&errhandler{fn: fn}))
	return 0
}

//export PMPI_Comm_set_errhandler
func PMPI_Comm_set_errhandler(ch uintptr, eh uintptr) int32 {
	const op = "Comm_set_errhandler"
	c := commOf(ch)
	if c == nil {
		return fail(op, 0, errorf(errComm, op, "comm is not a communicator"))
	}
	if !validErrh(eh) {
		return fail(op, ch, errorf(errArg, op, "errhandler %#x is not an error handler", eh))
	}
	c.errh.Store(int64(eh))
	return 0
}

//export PMPI_Comm_get_errhandler
func PMPI_Comm_get_errhandler(ch uintptr, eh unsafe.Pointer) int32 {
	const op = "Comm_get_errhandler"
	c := commOf(ch)
	if c == nil {
		return fail(op, 0, errorf(errComm, op, "comm is not a communicator"))
	}
	setHandle(eh, uintptr(c.errh.Load()))
	return 0
}

//export PMPI_Errhandler_free
func PMPI_Errhandler_free(eh unsafe.Pointer) int32 {
	const op = "Errhandler_free"
	if eh == nil {
		return fail(op, 0, errorf(errArg, op, "errhandler is NULL"))
	}
	h := *(*uintptr)(eh)
	if !validErrh(h) {
		return fail(op, 0, errorf(errArg, op, "errhandler %#x is not an error handler", h))
	}
	// A handler still set on a communicator keeps working: the table entry stays
	// until no communicator refers to it, which is not tracked, so user handlers are
	// kept (they are a pointer each).
	setHandle(eh, hErrhNull)
	return 0
}

//export PMPI_Comm_call_errhandler
func PMPI_Comm_call_errhandler(ch uintptr, code int32) int32 {
	const op = "Comm_call_errhandler"
	c := commOf(ch)
	if c == nil {
		return fail(op, 0, errorf(errComm, op, "comm is not a communicator"))
	}
	invoke(c, ch, code, "MPI_Comm_call_errhandler: "+errorText(code))
	return 0
}

// errorText is the text of an error code: the class's name, what the latest error of
// the class said, or an added code's string.
func errorText(code int32) string {
	if code >= 0 && int(code) < len(abiNames) {
		s := abiNames[code]
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
	if s == nil || n == nil {
		return fail(op, 0, errorf(errArg, op, "string or resultlen is NULL"))
	}
	if !(code >= 0 && int(code) < len(abiNames)) && code < 1001 || code > 1018 && code <= lastCode {
		if _, err := core.ClassOfCode(op, core.ErrorCode(code)); err != nil {
			return fail(op, 0, errorf(errArg, op, "%d is not an error code", code))
		}
	}
	putCString(s, 512, errorText(code), n)
	return 0
}

//export PMPI_Error_class
func PMPI_Error_class(code int32, class unsafe.Pointer) int32 {
	const op = "Error_class"
	if class == nil {
		return fail(op, 0, errorf(errArg, op, "errorclass is NULL"))
	}
	if code >= 0 && int(code) < len(abiNames) {
		setInt(class, int(code))
		return 0
	}
	c, err := core.ClassOfCode(op, core.ErrorCode(code))
	if err != nil {
		return fail(op, 0, errorf(errArg, op, "%d is not an error code", code))
	}
	setInt(class, int(abiClass(c)))
	return 0
}

//export PMPI_Add_error_class
func PMPI_Add_error_class(class unsafe.Pointer) int32 {
	c, err := core.AddClass("Add_error_class")
	if err != nil {
		return fail("Add_error_class", 0, err)
	}
	setInt(class, int(c))
	return 0
}

//export PMPI_Add_error_code
func PMPI_Add_error_code(class int32, code unsafe.Pointer) int32 {
	c, err := core.AddCode("Add_error_code", coreClass(class))
	if err != nil {
		return fail("Add_error_code", 0, err)
	}
	setInt(code, int(c))
	return 0
}

//export PMPI_Add_error_string
func PMPI_Add_error_string(code int32, s unsafe.Pointer) int32 {
	return fail("Add_error_string", 0, core.AddString("Add_error_string", core.ErrorCode(code), cstr(s)))
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
