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
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
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
// error handler of the communicator ch (MPI_COMM_SELF's where ch is not a live
// communicator) runs, and the code is returned.
func fail(op string, ch uintptr, err error) int32 {
	if err == nil {
		return 0
	}
	return raise(op, ch, err)
}

func raise(op string, ch uintptr, err error) int32 {
	code, msg := errMessage(op, err)
	c := commOf(ch)
	if c == nil {
		c, ch = commOf(hCommSelf), hCommSelf
	}
	return invoke(c, ch, code, msg)
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

// invoke runs c's error handler for code.
func invoke(c *comm, ch uintptr, code int32, msg string) int32 {
	eh := int64(hErrhFatal)
	if c != nil {
		eh = c.errh.Load()
	}
	return invokeWith(eh, ch, code, msg)
}

// invokeWith runs error handler eh of the object h (a communicator or a window: their
// C handler functions take a pointer to the handle and one to the code alike).
func invokeWith(eh int64, h uintptr, code int32, msg string) int32 {
	prof.OnError() // the program may exit on it: a profiled rank writes what it has
	switch eh {
	case hErrhReturn:
		return code
	case hErrhFatal, hErrhAbort:
		class := classOfCode(code)
		fmt.Fprintf(os.Stderr, "mpigo: rank %d: %s (error code %d, %s)\n", core.WorldRank(), msg, code, className(class))
		exit := int(class)
		if exit <= 0 || exit > 255 {
			exit = 1
		}
		core.Abort(exit, msg)
	}
	x := errhandlers.get(uintptr(eh))
	if x == nil || x.fn == nil {
		return code
	}
	C.call_comm_errh(x.fn, C.uintptr_t(h), C.int(code))
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

// errhandler is an error handler a program made from a C function. It is counted:
// the handle MPI_x_create_errhandler and MPI_x_get_errhandler give, and each
// communicator or window it is set on; its entry goes when the count reaches zero.
type errhandler struct {
	fn    unsafe.Pointer // MPI_Comm_errhandler_function * (or Win's, File's, Session's: the same ABI)
	refs  atomic.Int32
	users atomic.Int32 // the handles the program holds: create and each get give one, free takes one
	freed atomic.Bool  // users reached zero: no longer set on anything
	kind  int8         // ehComm, ehWin, ehFile or ehSession: what it may be set on
}

var errhandlers = table[errhandler]{kind: kErrh}

func validErrh(h uintptr) bool {
	switch h {
	case hErrhFatal, hErrhReturn, hErrhAbort:
		return true
	}
	x := errhandlers.get(h)
	return x != nil && !x.freed.Load()
}

func refErrh(h uintptr) {
	if x := errhandlers.get(h); x != nil {
		x.refs.Add(1)
	}
}

// userRef counts a handle the program gets (MPI_x_get_errhandler), which it frees.
func userRef(h uintptr) {
	if x := errhandlers.get(h); x != nil {
		x.refs.Add(1)
		x.users.Add(1)
	}
}

func unrefErrh(h uintptr) {
	if x := errhandlers.get(h); x != nil && x.refs.Add(-1) == 0 {
		errhandlers.remove(h)
	}
}

//export PMPI_Comm_create_errhandler
func PMPI_Comm_create_errhandler(fn unsafe.Pointer, eh unsafe.Pointer) int32 {
	return createErrh("Comm_create_errhandler", fn, eh, ehComm)
}

//export PMPI_Comm_set_errhandler
func PMPI_Comm_set_errhandler(ch uintptr, eh uintptr) int32 {
	const op = "Comm_set_errhandler"
	c := commOf(ch)
	if c == nil {
		return fail(op, 0, badHandle(op, "comm", ch, kComm))
	}
	if err := errhFits(op, eh, ehComm); err != nil {
		return fail(op, ch, err)
	}
	refErrh(eh)
	unrefErrh(uintptr(c.errh.Swap(int64(eh))))
	return 0
}

//export PMPI_Comm_get_errhandler
func PMPI_Comm_get_errhandler(ch uintptr, eh unsafe.Pointer) int32 {
	const op = "Comm_get_errhandler"
	c := commOf(ch)
	if c == nil {
		return fail(op, 0, badHandle(op, "comm", ch, kComm))
	}
	h := uintptr(c.errh.Load())
	userRef(h) // the caller frees what it gets (MPI 4.1 9.3)
	setHandle(eh, h)
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
		return fail(op, 0, badHandle(op, "errhandler", h, kErrh))
	}
	// A handler still set on a communicator or window keeps working: its entry goes
	// with the last reference. Each handle the program got (create, get) is freed
	// once; the handler can be set on no new object once all are.
	if x := errhandlers.get(h); x != nil {
		for {
			u := x.users.Load()
			if u <= 0 {
				break
			}
			if x.users.CompareAndSwap(u, u-1) {
				if u == 1 {
					x.freed.Store(true)
				}
				unrefErrh(h)
				break
			}
		}
	}
	setHandle(eh, hErrhNull)
	return 0
}

//export PMPI_Comm_call_errhandler
func PMPI_Comm_call_errhandler(ch uintptr, code int32) int32 {
	const op = "Comm_call_errhandler"
	c := commOf(ch)
	if c == nil {
		return fail(op, 0, badHandle(op, "comm", ch, kComm))
	}
	invoke(c, ch, code, "MPI_Comm_call_errhandler: "+errorText(code))
	return 0
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
	if s == nil || n == nil {
		return fail(op, 0, errorf(errArg, op, "string or resultlen is NULL"))
	}
	if !isErrCode(code) && !isClass(code) && code < 1001 || code > 1018 && code <= int32(core.LastCode) {
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
	c, err := core.AddClass("Add_error_class")
	if err != nil {
		return fail("Add_error_class", 0, err)
	}
	setInt(class, int(c))
	return 0
}

//export PMPI_Add_error_code
func PMPI_Add_error_code(class int32, code unsafe.Pointer) int32 {
	c, err := core.AddCode("Add_error_code", core.ErrorClass(class))
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
