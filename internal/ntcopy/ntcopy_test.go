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

// Gather8 gathers every word of whole lines at any stride, and writes nothing past
// them.
func TestGather8(t *testing.T) {
	if !Have {
		t.Skip("no non-temporal stores on this platform")
	}
	for _, stride := range []int{8, 16, 24, -16, 1000} {
		for _, lines := range []int{1, 3, 64} {
			n := lines * 8
			span := (n-1)*abs(stride) + 8
			src := make([]byte, span+16)
			for i := range src {
				src[i] = byte(i*13 + 5)
			}
			first := 0
			if stride < 0 {
				first = span - 8
			}
			dst := make([]byte, n*8+80)
			do := int(-uintptr(unsafe.Pointer(&dst[0])) & 15)
			Gather8(unsafe.Pointer(&dst[do]), unsafe.Pointer(&src[first]), uintptr(stride), uintptr(lines))
			for i := range n {
				for b := range 8 {
					if got, want := dst[do+8*i+b], src[first+i*stride+b]; got != want {
						t.Fatalf("stride %d, %d lines: word %d byte %d is %d, want %d", stride, lines, i, b, got, want)
					}
				}
			}
			for i := do + n*8; i < len(dst); i++ {
				if dst[i] != 0 {
					t.Fatalf("stride %d, %d lines: byte %d past the gather was written", stride, lines, i-do)
				}
			}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
