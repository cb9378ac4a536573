package window

import (
	"bytes"
	"testing"
)

// TestStreamCopy checks the non-temporal copy of a stream at every alignment of
// source and destination and lengths that end inside a line and on one, and between
// overlapping slices.
func TestStreamCopy(t *testing.T) {
	const n = 1<<20 + 200
	src := make([]byte, n+128)
	for i := range src {
		src[i] = byte(i*7 + i>>8)
	}
	dst := make([]byte, n+128)
	for _, so := range []int{0, 1, 8, 63} {
		for _, do := range []int{0, 3, 16, 64} {
			for _, l := range []int{1 << 20, 1<<20 + 1, 1<<20 + 63, n} {
				clear(dst)
				streamCopy(dst[do:do+l], src[so:so+l])
				if !bytes.Equal(dst[do:do+l], src[so:so+l]) {
					t.Fatalf("source offset %d, destination offset %d, length %d: copy differs", so, do, l)
				}
				if do > 0 && dst[do-1] != 0 || dst[do+l] != 0 {
					t.Fatalf("source offset %d, destination offset %d, length %d: wrote outside the destination", so, do, l)
				}
			}
		}
	}
	// Overlapping, the destination past the source and before it.
	for _, shift := range []int{-100, 100} {
		buf := append([]byte(nil), src...)
		want := append([]byte(nil), src...)
		lo := 128
		streamCopy(buf[lo+shift:lo+shift+1<<20], buf[lo:lo+1<<20])
		copy(want[lo+shift:lo+shift+1<<20], want[lo:lo+1<<20])
		if !bytes.Equal(buf, want) {
			t.Fatalf("overlapping, destination %+d from the source: copy differs", shift)
		}
	}
}
