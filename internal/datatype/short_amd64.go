package datatype

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveShortAVX says whether packShortAVX and unpackShortAVX may run: the CPU and
// the OS have AVX.
var haveShortAVX = cpu.X86.HasAVX

// unpackShortAVX unpacks n blocks of at most 128 bytes each (int32 arrays disp,
// pre) from src to u+o+disp[i] without a branch on their lengths
// (short_amd64.s); src must have 128 readable bytes from each block's start,
// scratch 32 writable bytes.
//
//go:noescape
func unpackShortAVX(disp, pre unsafe.Pointer, n int, src, u unsafe.Pointer, o int64, scratch unsafe.Pointer)

// packShortAVX packs n blocks of at most 128 bytes each (int32 arrays disp, pre)
// from u+o+disp[i] to dst, consecutively, with one 128-byte move each
// (short_amd64.s); each block's source must have 128 readable bytes, and dst 128
// writable bytes past the last block's start.
//
//go:noescape
func packShortAVX(disp, pre unsafe.Pointer, n int, dst, u unsafe.Pointer, o int64)
