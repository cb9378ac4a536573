//go:build !amd64 || race

package prof

import (
	"sync/atomic"
	"unsafe"
)

const fast = false

func publish(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
func publishComm(p **Comm, v *Comm) {
	atomic.StorePointer((*unsafe.Pointer)(unsafe.Pointer(p)), unsafe.Pointer(v))
}
func load(p *uint64) uint64        { return atomic.LoadUint64(p) }
func loadComm(p **Comm) *Comm      { return loadCommAtomic(p) }
func plainAdd(p *uint64, v uint64) { atomic.AddUint64(p, v) }
