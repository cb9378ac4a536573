package idle

// Pause tells the core that the caller spins (x86's PAUSE): one poll of a flag another
// core will write, between two loads of it. The core then does not speculate ahead
// through the loop and flush its pipeline when the write comes, and gives a sibling
// hardware thread the cycles; the C library's spins do the same.
//
// It is one PAUSE in an assembly function of its own: runtime.procyield(1), which other
// platforms call, does the same through a Go function that hands its count on the stack
// to an assembly loop, and a shared-memory ping-pong whose spins called it took longer
// a round trip (docs/BENCHMARKS.md, "The Go face against the C face on one node").
func Pause()
