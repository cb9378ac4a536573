package main

/*
#include "p2pshort.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// The Go side of MPI_Send's short way in C (p2pshort.c): where it finds the engine's
// words and the record's gate, which MPI_Init gives it once the world exists and
// MPI_Finalize takes back first. The words themselves the engine and the shm
// transport keep (internal/p2p/outside.go); nothing here copies them.

// showP2P gives p2pshort.c the world's engine: MPI_Init succeeded.
func showP2P() {
	C.mpigo_p2p.ctx = C.uint32_t(core.World.Ctx())
	C.mpigo_p2p.gate = C.uintptr_t(prof.Gate())
	atomic.StoreUintptr((*uintptr)(unsafe.Pointer(&C.mpigo_p2p.eng)), core.Outside())
}

// hideP2P sends every MPI_Send through Go: MPI_Finalize begins.
func hideP2P() { atomic.StoreUintptr((*uintptr)(unsafe.Pointer(&C.mpigo_p2p.eng)), 0) }

// What p2pshort.h says of Go's memory holds.
var (
	_ [0]struct{} = [unsafe.Sizeof(C.mpigo_link{}) - unsafe.Sizeof(prof.Link{})]struct{}{}
	_ [0]struct{} = [C.MPIGO_GATE_INCALL - prof.GateInCall]struct{}{}
	_ [0]struct{} = [prof.GateInCall - C.MPIGO_GATE_INCALL]struct{}{}
	_ [0]struct{} = [unsafe.Sizeof(C.mpigo_ring{}) - 128]struct{}{}
	_ [0]struct{} = [unsafe.Sizeof(C.mpigo_eng{}) - 64]struct{}{}
)

// cellConsts are p2pshort.h's compact cell constants, which a test compares with the
// shm transport's (this package may not import it).
func cellConsts() (inline, compact int) { return C.MPIGO_INLINE, C.MPIGO_COMPACT }

// mpigo_short_sends is how many sends p2pshort.c did itself, for C programs that
// check which way a send took (abi/testdata/p2pshort.c).
//
//export mpigo_short_sends
func mpigo_short_sends() int64 {
	n := uint64(0)
	h := &C.mpigo_short_calls[C.MPIGO_C_SEND].hist
	for i := range h {
		n += atomic.LoadUint64((*uint64)(unsafe.Pointer(&h[i])))
	}
	return int64(n)
}
