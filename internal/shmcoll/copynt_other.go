//go:build !amd64

package shmcoll

import "unsafe"

// haveNT says whether this platform has copyNT: not this one, so ring chunks are
// always written with ordinary stores.
const haveNT = false

func copyNT(dst, src unsafe.Pointer, lines uintptr) {
	panic("shmcoll: copyNT called on a platform without non-temporal stores")
}
