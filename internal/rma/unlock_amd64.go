//go:build amd64 && !race

package rma

// Unlock releases a spin lock word (Lock) with a plain store. On amd64 every store
// has release semantics and the compiler keeps stores in program order, so a taker
// that sees 0 sees what was stored under the lock (as idle.Publish). The store
// atomic.StoreUint32 makes, an XCHG, would also wait until the line is written
// back and this core's earlier stores have drained, which a release does not need:
// it was half of an 8-byte Accumulate's time. Under the race detector, which does
// not see plain stores as synchronisation, Unlock is atomic.
func Unlock(w *uint32) { *w = 0 }
