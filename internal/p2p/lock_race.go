//go:build race

package p2p

// raceLock: the race detector does not see the atomics on the shared lock word,
// which lies outside Go's heap, so in its builds a Go holder of the word holds a
// mutex too, which it does see.
const raceLock = true
