package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"

static int call_query(void *fn, void *extra, MPI_Status *st) {
	return ((MPI_Grequest_query_function *)fn)(extra, st);
}
static int call_free(void *fn, void *extra) {
	return ((MPI_Grequest_free_function *)fn)(extra);
}
static int call_cancel(void *fn, void *extra, int complete) {
	return ((MPI_Grequest_cancel_function *)fn)(extra, complete);
}
*/
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// Generalized requests (MPI 4.1 section 13.2) with C callbacks, on the device's
// (core.StartGrequest): the query function fills a C MPI_Status, read back into the
// device's status; a callback's nonzero return is the error of the call that ran it.
// And MPI_Request_get_status_all/any/some, which look without freeing.

//export PMPI_Grequest_start
func PMPI_Grequest_start(query, free, cancel, extra, out unsafe.Pointer) int32 {
	const op = "Grequest_start"
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "request is NULL"))
	}
	fns := core.Grequest{}
	if query != nil {
		fns.Query = func(st *core.Status) error {
			var cs C.MPI_Status
			s := (*cstatus)(unsafe.Pointer(&cs))
			s.source, s.tag = C.MPI_ANY_SOURCE, C.MPI_ANY_TAG // until the query says
			if rc := C.call_query(query, extra, &cs); rc != 0 {
				return errorf(int32(rc), op, "the query function returned %d", int(rc))
			}
			st.Source, st.Tag = rankIn(s.source), tagIn(s.tag)
			st.Count = int64(uint32(s.countLo)) | int64(s.countHi)<<32
			st.Cancelled = s.cancelled != 0
			return nil
		}
	}
	if free != nil {
		fns.Free = func() error {
			if rc := C.call_free(free, extra); rc != 0 {
				return errorf(int32(rc), op, "the free function returned %d", int(rc))
			}
			return nil
		}
	}
	if cancel != nil {
		fns.Cancel = func(complete bool) error {
			if rc := C.call_cancel(cancel, extra, C.int(boolInt(complete))); rc != 0 {
				return errorf(int32(rc), op, "the cancel function returned %d", int(rc))
			}
			return nil
		}
	}
	addPending(core.StartGrequest(fns), nil, 0, nil, out)
	return 0
}

//export PMPI_Grequest_complete
func PMPI_Grequest_complete(h uintptr) int32 {
	const op = "Grequest_complete"
	r := reqOf(h)
	if r == nil {
		return fail(op, 0, badHandle(op, "request", h, kRequest))
	}
	if !r.x.IsGrequest() {
		return fail(op, 0, errorf(errRequest, op, "request %#x is not a generalized request", h))
	}
	return fail(op, 0, r.x.GrequestComplete(op))
}

// --- partitioned point-to-point (MPI 4.1 chapter 4), on core.PartInit ---

func pinit(op string, send bool, buf unsafe.Pointer, parts int32, count int64, dh uintptr, peer, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	c, r := commArg(op, ch, out, mNB)
	if c == nil {
		return r
	}
	if parts < 1 || count < 0 {
		return fail(op, ch, errorf(errArg, op, "partitions %d must be positive and count %d not negative", parts, count))
	}
	b, err := cbuf(op, buf, int64(parts)*count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	call := prof.PrecvInit
	if send {
		call = prof.PsendInit
	}
	n := int(b.Len())
	defer prof.Exit(call, c.enterTimed(call, rankIn(peer), tagIn(tag), n), n)
	x, err := c.c.PartInit(op, send, b, int(parts), rankIn(peer), tagIn(tag))
	if err != nil {
		return fail(op, ch, err)
	}
	addStartable(c, ch, x, out)
	return 0
}

//export PMPI_Psend_init
func PMPI_Psend_init(buf unsafe.Pointer, parts int32, count int64, dh uintptr, dest, tag int32, ch, info uintptr, out unsafe.Pointer) int32 {
	return pinit("Psend_init", true, buf, parts, count, dh, dest, tag, ch, out)
}

//export PMPI_Psend_init_c
func PMPI_Psend_init_c(buf unsafe.Pointer, parts int32, count int64, dh uintptr, dest, tag int32, ch, info uintptr, out unsafe.Pointer) int32 {
	return pinit("Psend_init_c", true, buf, parts, count, dh, dest, tag, ch, out)
}

//export PMPI_Precv_init
func PMPI_Precv_init(buf unsafe.Pointer, parts int32, count int64, dh uintptr, src, tag int32, ch, info uintptr, out unsafe.Pointer) int32 {
	return pinit("Precv_init", false, buf, parts, count, dh, src, tag, ch, out)
}

//export PMPI_Precv_init_c
func PMPI_Precv_init_c(buf unsafe.Pointer, parts int32, count int64, dh uintptr, src, tag int32, ch, info uintptr, out unsafe.Pointer) int32 {
	return pinit("Precv_init_c", false, buf, parts, count, dh, src, tag, ch, out)
}

func partReq(op string, h uintptr) (*request, int32) {
	r := reqOf(h)
	if r == nil {
		return nil, fail(op, 0, badHandle(op, "request", h, kRequest))
	}
	if r.x == nil || !r.x.IsPersistent() {
		return nil, fail(op, 0, errorf(errRequest, op, "request %#x is not a partitioned request", h))
	}
	return r, 0
}

// pready marks partitions lo to hi ready, recorded as call (prof.None: not, a part
// of Pready_list).
func pready(call prof.Call, op string, lo, hi int32, h uintptr) int32 {
	r, rc := partReq(op, h)
	if r == nil {
		return rc
	}
	if call != prof.None {
		defer prof.Exit(call, enterReq(call, r), 0)
	}
	return fail(op, r.ch, r.x.Pready(op, int(lo), int(hi)+1)) // the device's hi is exclusive
}

//export PMPI_Pready
func PMPI_Pready(part int32, h uintptr) int32 { return pready(prof.Pready, "Pready", part, part, h) }

//export PMPI_Pready_range
func PMPI_Pready_range(lo, hi int32, h uintptr) int32 {
	return pready(prof.PreadyRange, "Pready_range", lo, hi, h)
}

//export PMPI_Pready_list
func PMPI_Pready_list(n int32, parts unsafe.Pointer, h uintptr) int32 {
	const op = "Pready_list"
	// One call, whose pready calls are its parts.
	defer prof.Exit(prof.PreadyList, enterReq(prof.PreadyList, reqOf(h)), 0)
	// The request and the list are checked even where no partition is named, and
	// before any is marked.
	r, rc := partReq(op, h)
	if r == nil {
		return rc
	}
	if n < 0 {
		return fail(op, r.ch, errorf(errCount, op, "length %d is negative", n))
	}
	if err := nullArray(op, "array_of_partitions", parts, int(n)); err != nil {
		return fail(op, r.ch, err)
	}
	for _, p := range ints(parts, int(n)) {
		if rc := pready(prof.None, op, p, p, h); rc != 0 {
			return rc
		}
	}
	return 0
}

//export PMPI_Parrived
func PMPI_Parrived(h uintptr, part int32, flag unsafe.Pointer) int32 {
	const op = "Parrived"
	r, rc := partReq(op, h)
	if r == nil {
		return rc
	}
	if err := nullOut(op, "flag", flag); err != nil {
		return fail(op, r.ch, err)
	}
	defer prof.Exit(prof.Parrived, enterReq(prof.Parrived, r), 0)
	ok, err := r.x.Parrived(op, int(part))
	setBool(flag, ok)
	return fail(op, r.ch, err)
}
