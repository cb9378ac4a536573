//go:build !amd64 || race

package shm

import "sync/atomic"

// publishStamp stores a cell's stamp, releasing the cell's contents to the reader.
func publishStamp(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
