//go:build !amd64

package idle

import _ "unsafe" // linkname

// Pause tells the core that the caller spins (ARM's YIELD, x86's PAUSE): one poll of a
// flag another core will write, between two loads of it. The core then does not
// speculate ahead through the loop and flush its pipeline when the write comes, and
// gives a sibling hardware thread the cycles; the C library's spins do the same.
func Pause() { procyield(1) }

//go:linkname procyield runtime.procyield
func procyield(cycles uint32)
