package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"

static int call_errh(void *fn, uintptr_t obj, int code) {
	MPI_Comm c = (MPI_Comm)obj;
	((MPI_Comm_errhandler_function *)fn)(&c, &code);
	return code;
}
*/
import "C"

import (
	"errors"
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

// Error handlers: handles of internal/mpir's handlers, whose semantics (kinds,
// freeing, the predefined handlers, inheritance, which object's handler runs) are
// written there once for both faces. Here a handler made from a C function calls it
// through a trampoline with the object's handle and the error's code; the four C
// handler function types (communicator, window, file, session) have the same ABI.
//
// A handler's handle is an entry of errhandlers while the program holds a reference
// to it (MPI_x_create_errhandler and MPI_x_get_errhandler give one,
// MPI_Errhandler_free takes one): a freed handler still set on objects lives on in
// them, and MPI_x_get_errhandler gives it a handle again.

var (
	errhandlers = table[mpir.Errhandler]{kind: kErrh}
	errhMu      sync.Mutex // orders the giving and taking of a handler's handle (its Face)
)

// errhOf is the handler of handle h, nil for one that names none.
func errhOf(h uintptr) *mpir.Errhandler {
	switch h {
	case hErrhReturn:
		return mpir.ErrorsReturn
	case hErrhFatal:
		return mpir.ErrorsAreFatal
	case hErrhAbort:
		return mpir.ErrorsAbort
	case hErrhNull:
		return nil
	}
	return errhandlers.get(h)
}

// errhHandle is x's handle, given again if the program had freed every one it held.
func errhHandle(x *mpir.Errhandler) uintptr {
	switch x {
	case mpir.ErrorsReturn:
		return hErrhReturn
	case mpir.ErrorsAreFatal:
		return hErrhFatal
	case mpir.ErrorsAbort:
		return hErrhAbort
	}
	errhMu.Lock()
	defer errhMu.Unlock()
	if h, ok := x.Face.(uintptr); ok {
		return h
	}
	h := errhandlers.add(x)
	x.Face = h
	return h
}

// errhArg is the handler a call was passed as eh, or the error of op
// (MPI_ERR_ERRHANDLER) for a handle that names none.
func errhArg(op string, eh uintptr, k mpir.Kind) (*mpir.Errhandler, error) {
	x := errhOf(eh)
	if x == nil {
		return nil, badHandle(op, "errhandler", eh, kErrh)
	}
	return x, x.Fits(op, k)
}

// createErrh is MPI_x_create_errhandler for objects of kind k.
func createErrh(op string, fn, eh unsafe.Pointer, k mpir.Kind) int32 {
	if fn == nil {
		return fail(op, 0, errorf(errArg, op, "the handler function is NULL"))
	}
	if eh == nil {
		return fail(op, 0, errorf(errArg, op, "errhandler is NULL"))
	}
	x := mpir.NewErrhandler(k, func(obj any, err error) {
		h, _ := obj.(uintptr)
		code := int32(C.call_errh(fn, C.uintptr_t(h), C.int(cCode(err))))
		// The code is in and out (MPI 4.1 section 9.3: "the error code to be returned
		// by the MPI routine that raised the error"): the call returns what the
		// handler left there, MPI_SUCCESS too, as MPICH and Open MPI do.
		var ce *cError
		if errors.As(err, &ce) {
			ce.code = code
		}
	})
	setHandle(eh, errhHandle(x))
	return 0
}

// setErrh is MPI_x_set_errhandler on the object whose handler is e (of kind k);
// failed raises an error on the object.
func setErrh(op string, e *mpir.Errh, k mpir.Kind, eh uintptr) error {
	x, err := errhArg(op, eh, k)
	if err != nil {
		return err
	}
	_, err = e.Set(op, k, x)
	return err
}

// getErrh is MPI_x_get_errhandler of the object whose handler is e: a new reference
// for the program, which it frees.
func getErrh(op string, e *mpir.Errh, out unsafe.Pointer) error {
	if out == nil {
		return errorf(errArg, op, "errhandler is NULL")
	}
	x := e.Get()
	x.Retain()
	setHandle(out, errhHandle(x))
	return nil
}

//export PMPI_Errhandler_free
func PMPI_Errhandler_free(eh unsafe.Pointer) int32 {
	const op = "Errhandler_free"
	if eh == nil {
		return fail(op, 0, errorf(errArg, op, "errhandler is NULL"))
	}
	h := *(*uintptr)(eh)
	x := errhOf(h)
	if x == nil {
		return fail(op, 0, badHandle(op, "errhandler", h, kErrh))
	}
	if err := x.Free(op); err != nil {
		return fail(op, 0, err)
	}
	if x.Freed() {
		errhMu.Lock()
		errhandlers.remove(h)
		x.Face = nil
		errhMu.Unlock()
	}
	setHandle(eh, hErrhNull)
	return 0
}

//export PMPI_Comm_create_errhandler
func PMPI_Comm_create_errhandler(fn unsafe.Pointer, eh unsafe.Pointer) int32 {
	return createErrh("Comm_create_errhandler", fn, eh, mpir.KindComm)
}

//export PMPI_Comm_set_errhandler
func PMPI_Comm_set_errhandler(ch uintptr, eh uintptr) int32 {
	const op = "Comm_set_errhandler"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	return fail(op, ch, setErrh(op, &c.x.Errh, mpir.KindComm, eh))
}

//export PMPI_Comm_get_errhandler
func PMPI_Comm_get_errhandler(ch uintptr, eh unsafe.Pointer) int32 {
	const op = "Comm_get_errhandler"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	return fail(op, ch, getErrh(op, &c.x.Errh, eh))
}

//export PMPI_Comm_call_errhandler
func PMPI_Comm_call_errhandler(ch uintptr, code int32) int32 {
	const op = "Comm_call_errhandler"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	c.x.Errh.Raise("MPI_"+op, ch, c.x.What, codeErr(op, code))
	return 0
}
