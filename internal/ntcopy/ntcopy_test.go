package ntcopy

import (
	"testing"
	"unsafe"
)

// Copy moves every byte of whole lines, and nothing past them.
func TestCopy(t *testing.T) {
	if !Have {
		t.Skip("no non-temporal stores on this platform")
	}
	for _, lines := range []int{1, 2, 7, 64} {
		src := make([]byte, lines*64+64)
		dst := make([]byte, lines*64+64)
		for i := range src {
			src[i] = byte(i*7 + 1)
		}
		// 16-byte aligned starts, as Copy requires.
		so := int(-uintptr(unsafe.Pointer(&src[0])) & 15)
		do := int(-uintptr(unsafe.Pointer(&dst[0])) & 15)
		Copy(unsafe.Pointer(&dst[do]), unsafe.Pointer(&src[so]), uintptr(lines))
		for i := 0; i < lines*64; i++ {
			if dst[do+i] != src[so+i] {
				t.Fatalf("%d lines: byte %d is %d, want %d", lines, i, dst[do+i], src[so+i])
			}
		}
		for i := do + lines*64; i < len(dst); i++ {
			if dst[i] != 0 {
				t.Fatalf("%d lines: byte %d past the copy was written", lines, i-do)
			}
		}
	}
}
