//go:build !amd64

package shm

import "unsafe"

// haveNT says whether this platform has copyNT: not this one, so payloads are always
// copied with ordinary stores.
const haveNT = false

func copyNT(dst, src unsafe.Pointer, lines uintptr) {
	panic("shm: copyNT called on a platform without non-temporal stores")
}
