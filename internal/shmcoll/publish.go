//go:build !amd64 || race

package shmcoll

import "sync/atomic"

// publish stores a flag, releasing what this rank wrote before it to the readers.
func publish(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
