package shmcoll

import "unsafe"

// haveNT says whether this platform has copyNT.
const haveNT = true

// copyNT copies lines×64 bytes from src to dst (16-byte aligned) with non-temporal
// stores and fences them (copynt_amd64.s; the same as the shm transport's).
//
//go:noescape
func copyNT(dst, src unsafe.Pointer, lines uintptr)
