package datatype

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// haveShortAVX says whether unpackShortAVX may run: the CPU and the OS have AVX.
var haveShortAVX = cpu.X86.HasAVX

// unpackShortAVX unpacks n blocks of at most 128 bytes each (int32 arrays disp,
// pre) from src to u+o+disp[i] without a branch on their lengths
// (unpack_amd64.s); src must have 128 readable bytes from each block's start,
// scratch 32 writable bytes.
//
//go:noescape
func unpackShortAVX(disp, pre unsafe.Pointer, n int, src, u unsafe.Pointer, o int64, scratch unsafe.Pointer)
