//go:build amd64 && !race

package idle

// Publish stores v at p (a flag, a ring cell's stamp), releasing what the caller
// wrote before it to a reader that sees v.
//
// On amd64 every store has release semantics (TSO), and the compiler keeps stores in
// program order, so a reader that sees v sees what was stored before it. A plain
// store, unlike atomic.StoreUint64 (an XCHG, a full barrier), does not stall until the
// cache lines of v and of the data before it have been taken back from the readers'
// caches: the writer goes on (a Bcast's root returns, a sender writes its next
// message) while they travel. The price is that the store may become visible after
// the writer's next load, its look at whether anyone sleeps: a waiter that went to
// sleep in that instant is woken by its short first nap (FirstNap). Under the race
// detector, which does not see plain stores as synchronisation, Publish is atomic.
func Publish(p *uint64, v uint64) { *p = v }
