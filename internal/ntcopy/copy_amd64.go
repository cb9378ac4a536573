package ntcopy

import "unsafe"

// Have says whether this platform has Copy.
const Have = true

// Copy copies lines×64 bytes from src to dst (16-byte aligned) with non-temporal
// stores and fences them (copy_amd64.s).
//
//go:noescape
func Copy(dst, src unsafe.Pointer, lines uintptr)
