//go:build !amd64 || race

package prof

import "sync/atomic"

func publish(p *uint64, v uint64)  { atomic.StoreUint64(p, v) }
func load(p *uint64) uint64        { return atomic.LoadUint64(p) }
func plainAdd(p *uint64, v uint64) { atomic.AddUint64(p, v) }
