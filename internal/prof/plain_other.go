//go:build !amd64 || race

package prof

import (
	"sync/atomic"
	"unsafe"
)

const fast = false

func publish(p *uint64, v uint64)                    { atomic.StoreUint64(p, v) }
func publishPtr(p *unsafe.Pointer, v unsafe.Pointer) { atomic.StorePointer(p, v) }
func load(p *uint64) uint64                          { return atomic.LoadUint64(p) }
func loadPtr(p *unsafe.Pointer) unsafe.Pointer       { return atomic.LoadPointer(p) }
func plainAdd(p *uint64, v uint64)                   { atomic.AddUint64(p, v) }
