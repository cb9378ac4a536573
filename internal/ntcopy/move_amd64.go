package ntcopy

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// moveMin is the size from which Move copies with REP MOVSB where it does. Within one
// core's caches Go's AVX loop is the faster up to 32 KiB and falls to the second
// level's speed beyond, while REP MOVSB keeps its own; a copy whose lines another
// core wrote or reads next (a ring's payload, a window) is faster by REP MOVSB from
// 32 KiB on (docs/BENCHMARKS.md, "Copies on AMD").
const moveMin = 32 << 10

// repMove says whether Move takes REP MOVSB: an AMD (or Hygon) CPU with fast string
// moves (ERMS and FSRM), where Go's memmove copies with its AVX loop at every size.
// On Intel CPUs with both, Go's memmove takes REP MOVS itself from 2 KiB.
var repMove = SplitCaches && fastStrings(leaf7())

// fastStrings says whether CPUID leaf 7's words show ERMS and FSRM.
func fastStrings(ebx, edx uint32) bool { return ebx&(1<<9) != 0 && edx&(1<<4) != 0 }

// leaf7 is CPUID leaf 7's (subleaf 0) extended feature words EBX and EDX.
func leaf7() (ebx, edx uint32) {
	_, b, _, d := cpuid(7, 0)
	return b, d
}

//go:noescape
func movsb(dst, src unsafe.Pointer, n uintptr)

// MoveREP is the size from which Move copies with REP MOVSB on this CPU, 0 where it
// never does: for code outside Go that copies the same way (abi/libmpi's short.c).
func MoveREP() int {
	if repMove {
		return moveMin
	}
	return 0
}

// Move is copy(dst, src) for large copies whose destination stays in cache: the
// copy of the CPU's fastest ordinary stores for the size. It returns the number of
// bytes copied, min(len(dst), len(src)).
func Move(dst, src []byte) int {
	n := min(len(dst), len(src))
	if !repMove || n < moveMin {
		return copy(dst, src)
	}
	dp, sp, ok := apart(dst, src, n)
	if !ok {
		return copy(dst, src)
	}
	movsb(dp, sp, uintptr(n))
	return n
}

// apart returns the addresses of dst and src, and whether their first n bytes do not
// overlap: a copy between overlapping slices takes copy, which copies them as if
// through a buffer.
func apart(dst, src []byte, n int) (dp, sp unsafe.Pointer, ok bool) {
	dp, sp = unsafe.Pointer(unsafe.SliceData(dst)), unsafe.Pointer(unsafe.SliceData(src))
	d, s := uintptr(dp), uintptr(sp)
	return dp, sp, d >= s+uintptr(n) || s >= d+uintptr(n)
}

// Copies of a few KiB that stay in this core's caches (a window's Put and Get, whose
// origin and target the core keeps across a run of them) are faster by a loop of
// 32-byte loads and stores than by REP MOVS, which Go's memmove takes from 2 KiB on
// Intel CPUs with fast string moves; past 8 KiB REP MOVS is the faster again
// (docs/BENCHMARKS.md, "Window copies of a few KiB on Intel").
const (
	vecMin = 2 << 10
	vecMax = 8 << 10
)

// vecLoop says whether MoveCached takes the loop: Intel CPUs where Go's memmove takes
// REP MOVS (ERMS and FSRM), with AVX.
var vecLoop = intelVendor(vendor()) && fastStrings(leaf7()) && cpu.X86.HasAVX

// intelVendor says whether the CPUID vendor words name Intel.
func intelVendor(ebx, edx, ecx uint32) bool {
	return ebx == 0x756e6547 && edx == 0x49656e69 && ecx == 0x6c65746e // "GenuineIntel"
}

// MoveVec is the range of sizes, lo to hi bytes, that MoveCached copies with its
// vector loop on this CPU; 0, 0 where it never does: for code outside Go that copies
// the same way (abi/libmpi's short.c).
func MoveVec() (lo, hi int) {
	if vecLoop {
		return vecMin, vecMax
	}
	return 0, 0
}

//go:noescape
func vecMove(dst, src unsafe.Pointer, n uintptr)

// MoveCached is Move for a copy whose source and destination this core keeps in its
// caches. It returns the number of bytes copied, min(len(dst), len(src)).
func MoveCached(dst, src []byte) int {
	if n := min(len(dst), len(src)); vecLoop && n >= vecMin && n <= vecMax {
		if dp, sp, ok := apart(dst, src, n); ok {
			vecMove(dp, sp, uintptr(n))
			return n
		}
	}
	return Move(dst, src)
}
