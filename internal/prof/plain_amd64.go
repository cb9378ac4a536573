//go:build amd64 && !race

package prof

// On amd64 a plain store is seen by other cores in program order (TSO), as
// idle.Publish relies on; the reader (State, Flush) loads atomically and reads twice.
// Under the race detector, which does not see plain stores as synchronisation, the
// atomic forms (plain_other.go) are used, and every call takes the long path.

// fast: Enter and Exit may take their inlined short paths (plain stores and adds).
const fast = true

func publish(p *uint64, v uint64)   { *p = v }
func publishComm(p **Comm, v *Comm) { *p = v }
func load(p *uint64) uint64         { return *p }
func loadComm(p **Comm) *Comm       { return *p }
func plainAdd(p *uint64, v uint64)  { *p += v }
