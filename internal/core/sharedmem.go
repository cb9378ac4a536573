package core

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/transport/shm"
)

// SharedMem is memory for MPI_Alloc_mem, size bytes aligned to align, that the ranks
// of the node may map (shm.Alloc): transfers to and from it on the node then copy
// without pinning pages. It is nil where the face should allocate as it would
// otherwise: small or over-aligned requests, or none to be had.
func SharedMem(size, align int) unsafe.Pointer { return shm.Alloc(size, align) }

// FreeSharedMem gives back memory SharedMem returned and reports true, or reports
// false if p is not such memory (MPI_Free_mem).
func FreeSharedMem(p unsafe.Pointer) bool { return shm.Free(p) }

// SharedMemBytes is how many bytes this process has copied through mappings of other
// ranks' SharedMem memory (the performance variable shm_mapped_bytes).
func SharedMemBytes() uint64 { return shm.MappedBytes() }
