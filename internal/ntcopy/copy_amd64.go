package ntcopy

import "unsafe"

// Have says whether this platform has Copy.
const Have = true

// SplitCaches says whether this CPU is AMD's (or Hygon's, of the same design), whose
// cores are grouped in complexes with a last-level cache each, so that a guest's
// vCPUs often sit in different ones. There a line another core reads next costs less
// sent to memory by a non-temporal store than taken back across the complexes; where
// every core shares one last-level cache (Intel's), the reader finds it in that cache
// after an ordinary store, and the non-temporal way is the slower one
// (docs/BENCHMARKS.md, the quiet-host runs on an Intel host).
var SplitCaches = splitVendor(vendor())

// splitVendor says whether the CPUID vendor words name AMD or Hygon.
func splitVendor(ebx, edx, ecx uint32) bool {
	var b [12]byte
	for i, w := range [3]uint32{ebx, edx, ecx} {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
	}
	v := string(b[:])
	return v == "AuthenticAMD" || v == "HygonGenuine"
}

// cpuid is the CPUID instruction's four words for leaf and subleaf (copy_amd64.s).
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// vendor is CPUID leaf 0's vendor words, in the name's order: EBX, EDX, ECX.
func vendor() (ebx, edx, ecx uint32) {
	_, b, c, d := cpuid(0, 0)
	return b, d, c
}

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
