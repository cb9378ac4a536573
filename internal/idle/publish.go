//go:build !amd64 || race

package idle

import "sync/atomic"

// Publish stores v at p, releasing what the caller wrote before it to a reader that
// sees v (see publish_amd64.go for amd64).
func Publish(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
