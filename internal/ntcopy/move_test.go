package ntcopy

import (
	"bytes"
	"fmt"
	"testing"
)

// Move copies min(len(dst), len(src)) bytes at any size and offset, and nothing past
// them; overlapping slices copy as if through a buffer, as copy does.
func TestMove(t *testing.T) {
	for _, n := range []int{0, 1, 100, moveMin - 1, moveMin, moveMin + 1, 200<<10 + 13} {
		for _, off := range []int{0, 1, 63} {
			src := make([]byte, n+off)
			for i := range src {
				src[i] = byte(i*31 + 7)
			}
			dst := make([]byte, n+off+64)
			if got := Move(dst[off:off+n], src[off:]); got != n {
				t.Fatalf("n %d off %d: Move returned %d", n, off, got)
			}
			if !bytes.Equal(dst[off:off+n], src[off:]) {
				t.Fatalf("n %d off %d: the bytes differ", n, off)
			}
			for i, b := range dst[off+n:] {
				if b != 0 || (i < off && dst[i] != 0) {
					t.Fatalf("n %d off %d: a byte outside the copy was written", n, off)
				}
			}
			if got := Move(dst[off:off+n/2], src[off:]); got != n/2 {
				t.Fatalf("n %d: Move into a shorter dst returned %d, want %d", n, got, n/2)
			}
		}
	}
	overlaps(t, Move, 2*moveMin, -4096, -1, 1, 4096)
}

// overlaps checks that move copies n bytes between slices of one buffer shifted by
// each of shifts as copy does, as if through a buffer.
func overlaps(t *testing.T, move func(dst, src []byte) int, n int, shifts ...int) {
	t.Helper()
	for _, shift := range shifts {
		buf := make([]byte, n+8192)
		for i := range buf {
			buf[i] = byte(i * 13)
		}
		want := make([]byte, n)
		copy(want, buf[4096:4096+n])
		move(buf[4096+shift:4096+shift+n], buf[4096:4096+n])
		if !bytes.Equal(buf[4096+shift:4096+shift+n], want) {
			t.Fatalf("overlap by %d: the bytes differ from copy's", shift)
		}
	}
}

// MoveCached copies as Move does, at the sizes of its vector loop and around them,
// at every alignment of either end, and nothing past the copy.
func TestMoveCached(t *testing.T) {
	for _, n := range []int{0, 100, 2047, 2048, 2049, 4095, 4096, 4100, 8191, 8192, 8193, 20000} {
		for _, offs := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {31, 17}, {32, 63}} {
			src := make([]byte, n+offs[1])
			for i := range src {
				src[i] = byte(i*29 + 3)
			}
			dst := make([]byte, n+offs[0]+64)
			if got := MoveCached(dst[offs[0]:offs[0]+n], src[offs[1]:]); got != n {
				t.Fatalf("n %d offsets %v: MoveCached returned %d", n, offs, got)
			}
			if !bytes.Equal(dst[offs[0]:offs[0]+n], src[offs[1]:]) {
				t.Fatalf("n %d offsets %v: the bytes differ", n, offs)
			}
			for i, b := range dst {
				if (i < offs[0] || i >= offs[0]+n) && b != 0 {
					t.Fatalf("n %d offsets %v: byte %d outside the copy was written", n, offs, i)
				}
			}
		}
	}
	overlaps(t, MoveCached, 4096, -4096, -32, -1, 1, 32, 4096)
}

// BenchmarkMove compares Move with copy from below its threshold to past a core's
// second-level cache, buffers in cache (go test -bench Move ./internal/ntcopy).
func BenchmarkMove(b *testing.B) {
	for _, n := range []int{16 << 10, 32 << 10, 64 << 10, 256 << 10, 1 << 20} {
		dst, src := make([]byte, n), make([]byte, n)
		b.Run(fmt.Sprintf("copy/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for range b.N {
				copy(dst, src)
			}
		})
		b.Run(fmt.Sprintf("Move/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for range b.N {
				Move(dst, src)
			}
		})
	}
}
