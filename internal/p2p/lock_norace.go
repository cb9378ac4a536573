//go:build !race

package p2p

// raceLock: see lock_race.go.
const raceLock = false
