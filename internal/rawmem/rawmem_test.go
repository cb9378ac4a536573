package rawmem

import (
	"runtime"
	"testing"
)

// TestBytes: buffers of every size are as long as asked, writable, distinct, and
// survive collections while referenced.
func TestBytes(t *testing.T) {
	var keep [][]byte
	for _, n := range []int{0, 1, minRaw - 1, minRaw, 1 << 20, 3<<20 + 5} {
		b := Bytes(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("Bytes(%d): len %d cap %d", n, len(b), cap(b))
		}
		for i := range b {
			b[i] = byte(i + n)
		}
		keep = append(keep, b)
	}
	runtime.GC()
	for _, b := range keep {
		for i := range b {
			if b[i] != byte(i+len(b)) {
				t.Fatalf("buffer of %d bytes changed at %d", len(b), i)
			}
		}
	}
}
