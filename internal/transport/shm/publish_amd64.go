//go:build amd64 && !race

package shm

// publishStamp stores a cell's stamp, releasing the cell's contents to the reader.
//
// On amd64 every store has release semantics (TSO): the reader that sees the stamp
// sees the header and payload stored before it, and the compiler keeps stores in
// program order. A plain store, unlike atomic.StoreUint64 (an XCHG, a full barrier),
// does not wait for the payload's cache lines, which must first be taken from the
// reader's cache: the sender goes on with its next message while they arrive.
func publishStamp(p *uint64, v uint64) { *p = v }
