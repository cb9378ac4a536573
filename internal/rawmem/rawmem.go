// Package rawmem allocates memory that a caller overwrites whole before anyone reads
// it (a message's receive buffer, the out-of-band slices of a value), without Go's
// zeroing: for a large buffer the zeroing costs about as much as the copy that then
// fills it (docs/BENCHMARKS.md, value messages: allocation of receive buffers), and a
// value received in its own new memory paid both.
//
// Contract: Bytes(n) is n bytes of Go heap memory that holds no pointers, with
// undefined contents, kept alive and freed by the collector as any []byte. Use it only
// for memory every byte of which is written before it is read, and never for memory
// that is to hold pointers.
//
// It calls the runtime's allocator through go:linkname: runtime.mallocgc, which the
// runtime marks "Do not remove or change the type signature" for the widely used
// packages that reach it this way (go.dev/issue/67401). Should a Go release break
// that promise, the build fails here, loudly, and make is the fallback.
package rawmem

import "unsafe"

//go:linkname mallocgc runtime.mallocgc
func mallocgc(size uintptr, typ unsafe.Pointer, needzero bool) unsafe.Pointer

// minRaw: below this, make's zeroing costs little and small allocations take the
// ordinary path.
const minRaw = 32 << 10

// Bytes returns n bytes of pointer-free memory, not zeroed when n is large.
func Bytes(n int) []byte {
	if n < minRaw {
		return make([]byte, n)
	}
	return unsafe.Slice((*byte)(mallocgc(uintptr(n), nil, false)), n)
}
