//go:build !amd64 || race

package rma

import "sync/atomic"

// Unlock releases a spin lock word (Lock); see unlock_amd64.go for amd64.
func Unlock(w *uint32) { atomic.StoreUint32(w, 0) }
