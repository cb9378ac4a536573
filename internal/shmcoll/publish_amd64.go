//go:build amd64 && !race

package shmcoll

// publish stores a flag, releasing what this rank wrote before it to the readers.
//
// On amd64 every store has release semantics (TSO), and the compiler keeps stores in
// program order, so a reader that sees the flag sees the data copied before it. A
// plain store, unlike atomic.StoreUint64 (an XCHG, a full barrier), does not stall
// until the flag's and the data's cache lines have been taken back from the readers'
// caches: a Bcast's root returns while they travel. The price is that the store may
// become visible after raise's look at the sleeper count; a waiter that went to sleep
// in that instant is woken by its short first nap (see waitSlow).
func publish(p *uint64, v uint64) { *p = v }
