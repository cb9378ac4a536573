package mpi

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// allocated holds the start of every slice AllocMem gave and FreeMem has not taken
// back, as addresses: it does not keep the memory alive, and a cleanup forgets an
// address once the collector has freed its memory. Each allocation has its own number,
// so a late cleanup cannot forget a newer allocation at a reused address.
var allocated struct {
	sync.Mutex
	n  uint64
	at map[uintptr]uint64
}

// allocation names one allocation, for its cleanup.
type allocation struct {
	at uintptr
	n  uint64
}

// minAlloc keeps every allocation out of Go's allocator for tiny objects, which packs
// several into one block whose cleanups may never run.
const minAlloc = 16

// AllocMem returns size bytes of memory for message buffers (MPI_Alloc_mem), zeroed.
// By default it is ordinary Go memory that the collector manages: mpigo's transports
// need no special memory, and one-sided windows take it as they take any slice. Give
// it back with FreeMem when done; memory left unreferenced without FreeMem is collected
// all the same.
//
// info may be nil. Of its hints AllocMem takes "mpi_minimum_memory_alignment" (MPI 4.1):
// a power of two the slice's address is then a multiple of (beyond Go's own alignment,
// at most 1 GiB); and mpigo's "mpigo_node_mapped", "true" or "false" (the default): with
// "true", an allocation aligned to at most a page is memory the other ranks of the node
// map on their first transfer to or from it, so that its large messages on the node,
// and one-sided operations on windows over it, cost plain copies instead of
// cross-memory copies that pin every page (C's MPI_Alloc_mem gives such memory by
// default). The collector does not manage that memory: it stays until FreeMem, and the
// slice must not be used after. Where such memory cannot be had (no bytes,
// over-aligned, the setting shm_alloc_mem off) the hint gives ordinary Go memory. A size below 0 is an error of class ErrArg, a
// hint's value outside its rule one of class ErrInfoValue, memory the system cannot
// give one of class ErrNoMem.
func AllocMem(size int, info *Info) ([]byte, error) {
	if err := Self.check("AllocMem"); err != nil {
		return nil, err
	}
	if size < 0 {
		return nil, Self.fail("AllocMem", errorf(ClassArg, "AllocMem", "size = %d: want 0 or more bytes", size))
	}
	h, err := mpir.AllocHints("AllocMem", info.obj(), false)
	if err != nil {
		return nil, Self.fail("AllocMem", err)
	}
	if h.Mapped {
		if p := core.SharedMem(size, h.Align); p != nil {
			return unsafe.Slice((*byte)(p), size), nil
		}
	}
	b, err := allocate(size, h.Align)
	if err != nil {
		return nil, Self.fail("AllocMem", err)
	}
	return b, nil
}

// allocate makes the slice, aligned to align, and records its start. Asking the
// runtime for more than it can ever give panics; that becomes ErrNoMem.
func allocate(size, align int) (b []byte, err error) {
	align = max(align, 1)
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, errorf(ClassNoMem, "AllocMem", "cannot allocate %d bytes: %v", size, r)
		}
	}()
	raw := make([]byte, max(size, minAlloc)+align-1)
	off := 0
	if rem := int(uintptr(unsafe.Pointer(&raw[0])) % uintptr(align)); rem != 0 {
		off = align - rem
	}
	b = raw[off : off+size : off+max(size, minAlloc)]
	at := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	allocated.Lock()
	if allocated.at == nil {
		allocated.at = map[uintptr]uint64{}
	}
	allocated.n++
	a := allocation{at, allocated.n}
	allocated.at[at] = a.n
	allocated.Unlock()
	runtime.AddCleanup(&raw[0], forget, a)
	return b, nil
}

// forget drops an allocation whose memory the collector freed.
func forget(a allocation) {
	allocated.Lock()
	if allocated.at[a.at] == a.n {
		delete(allocated.at, a.at)
	}
	allocated.Unlock()
}

// FreeMem gives back memory AllocMem returned (MPI_Free_mem); b must not be used
// after. b must be the slice AllocMem gave (any length, but starting where it
// started), given back once: anything else is an error of class ErrBase.
func FreeMem(b []byte) error {
	if err := Self.check("FreeMem"); err != nil {
		return err
	}
	if cap(b) == 0 {
		return Self.fail("FreeMem", errorf(ClassBase, "FreeMem", "the slice is empty, with no capacity: AllocMem gives none such"))
	}
	if core.FreeSharedMem(unsafe.Pointer(unsafe.SliceData(b))) {
		return nil
	}
	at := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	allocated.Lock()
	_, ok := allocated.at[at]
	delete(allocated.at, at)
	allocated.Unlock()
	if !ok {
		return Self.fail("FreeMem", errorf(ClassBase, "FreeMem", "the slice does not start where one AllocMem returned does, or was given back already"))
	}
	return nil
}
