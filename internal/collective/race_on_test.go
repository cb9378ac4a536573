//go:build race

package collective

// raceEnabled is whether the race detector is on: it makes sync.Pool drop items at
// random, so allocation counts mean nothing then.
const raceEnabled = true
