package ntcopy

import "unsafe"

// Have says whether this platform has Copy.
const Have = true

// Copy copies lines×64 bytes from src to dst (16-byte aligned) with non-temporal
// stores and fences them (copy_amd64.s).
//
//go:noescape
func Copy(dst, src unsafe.Pointer, lines uintptr)

// Gather8 gathers lines×8 eight-byte words, the i-th at src + i×stride, into
// lines×64 bytes at dst (16-byte aligned) with non-temporal stores and fences
// them (copy_amd64.s): a datatype engine's pack of a long strided vector, whose
// output no cache would keep.
//
//go:noescape
func Gather8(dst, src unsafe.Pointer, stride, lines uintptr)
