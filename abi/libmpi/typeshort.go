package main

/*
#include "typeshort.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

// The Go side of the datatype calls' short ways in C (typeshort.c): the commit mark
// of the types Go made, and the types C made.
//
//   - addType and removeType keep a slot's word in C.mpigo_type_state (the handle
//     while the slot holds it, 0 when free), so that MPI_Type_commit may mark it
//     (MPIGO_TYPE_COMMITTED) without crossing; dtOf commits the engine's type when it
//     finds the mark (the engine compiles at first use anyway). addType writes the
//     type's size, lb and extent (C.mpigo_type_geom) before the word, for the
//     queries C answers.
//   - A handle of kind kTypeC is a record of C.mpigo_ctypes made by a constructor in
//     C, which holds the handle. Its first lookup in Go (cType) builds the engine's
//     type from the record, as the Go half of the constructor would have, and marks
//     the record Go's (state 2): from then on C leaves its MPI_Type_free to Go, which
//     releases the record.
//
// Records are made and released below MPI_THREAD_MULTIPLE only (typeshort.c's here),
// where calls do not overlap; the words C and Go share are read and written atomically.

const typeCommitted = C.MPIGO_TYPE_COMMITTED

// typeState is the C word of Go's datatype handle h, nil above the C table.
func typeState(h uintptr) *uint32 {
	if i := slotOf(h); kindOf(h) == kType && i < C.MPIGO_TYPE_SLOTS {
		return (*uint32)(unsafe.Pointer(&C.mpigo_type_state[i]))
	}
	return nil
}

// addType registers a datatype a program made and returns its handle.
func addType(d *dtype) uintptr {
	h := types.add(d)
	if s := typeState(h); s != nil {
		g := &C.mpigo_type_geom[slotOf(h)]
		g.size, g.lb, g.extent = C.int64_t(d.t.Size()), C.int64_t(d.t.LB()), C.int64_t(d.t.Extent())
		atomic.StoreUint32(s, uint32(h)) // after the geometry, which C reads once it sees h
	}
	return h
}

// removeType unregisters a freed datatype handle.
func removeType(h uintptr) {
	if kindOf(h) == kTypeC {
		cTypes.Lock()
		i := slotOf(h)
		cTypes.d[i].Store(nil)
		C.mpigo_ctype_release(C.int32_t(i))
		cTypes.Unlock()
		return
	}
	if s := typeState(h); s != nil {
		atomic.StoreUint32(s, 0)
	}
	types.remove(h)
}

// committedInC says whether MPI_Type_commit marked Go's handle h in C.
func committedInC(h uintptr) bool {
	s := typeState(h)
	return s != nil && atomic.LoadUint32(s) == uint32(h)|typeCommitted
}

// cTypes are the dtypes of the records Go has taken over, by record.
var cTypes struct {
	sync.Mutex
	d [C.MPIGO_CTYPES]atomic.Pointer[dtype]
}

// cRecord is the record of handle h of kind kTypeC while it holds h, else nil.
func cRecord(h uintptr) *C.mpigo_ctype {
	i := slotOf(h)
	if kindOf(h) != kTypeC || i >= C.MPIGO_CTYPES {
		return nil
	}
	r := &C.mpigo_ctypes[i]
	if uintptr(r.h) != h || atomic.LoadInt32((*int32)(unsafe.Pointer(&r.state))) == 0 {
		return nil
	}
	return r
}

// cTypeMade says whether handle h's record has held a type.
func cTypeMade(h uintptr) bool {
	i := slotOf(h)
	return kindOf(h) == kTypeC && i < C.MPIGO_CTYPES && C.mpigo_ctypes[i].h != 0
}

// cType is the datatype of handle h of kind kTypeC, built from its record at the
// first lookup; nil when h is no live record.
func cType(h uintptr) *dtype {
	r := cRecord(h)
	if r == nil {
		return nil
	}
	i := slotOf(h)
	state := (*int32)(unsafe.Pointer(&r.state))
	d := cTypes.d[i].Load()
	if d == nil {
		cTypes.Lock()
		defer cTypes.Unlock()
		if d = cTypes.d[i].Load(); d == nil {
			if atomic.LoadInt32(state) != 1 {
				return nil
			}
			if d = fromRecord(r); d == nil {
				return nil
			}
			d.m.Handle = h
			cTypes.d[i].Store(d)
			atomic.StoreInt32(state, 2)
		}
	}
	if !d.t.IsCommitted() && atomic.LoadInt32((*int32)(unsafe.Pointer(&r.committed))) != 0 {
		_ = d.t.Commit()
	}
	return d
}

// fromRecord builds the type C recorded, as the constructor's Go half would.
func fromRecord(r *C.mpigo_ctype) *dtype {
	oh := uintptr(r.old)
	if oh < 0x200 || oh >= 0x300 || predefT[oh-0x200] == nil {
		return nil
	}
	old := predefT[oh-0x200].m
	count, bl, stride := int64(r.count), int64(r.bl), int64(r.stride)
	var m *mpir.Datatype
	var err error
	switch r.comb {
	case C.MPIGO_CT_CONTIGUOUS:
		m, err = mpir.TypeContiguous("Type_contiguous", count, old, false)
	case C.MPIGO_CT_VECTOR:
		m, err = mpir.TypeVector("Type_vector", count, bl, stride, old, false)
	case C.MPIGO_CT_HVECTOR:
		m, err = mpir.TypeHvector("Type_create_hvector", count, bl, stride, old, false)
	default:
		return nil
	}
	if err != nil {
		// C takes only arguments the constructor accepts.
		panic("mpigo: a datatype made in C: " + err.Error())
	}
	return &dtype{t: m.Type(), m: m}
}
