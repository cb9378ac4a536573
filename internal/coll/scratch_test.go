package coll

import "testing"

// TestScratchClasses checks that a scratch buffer is the smallest class that holds
// the bytes asked for, and that two buffers taken at once are distinct (one from
// the class's slot, one from its pool).
func TestScratchClasses(t *testing.T) {
	for n := 0; n <= 1<<12; n++ {
		c := class(n)
		if want := max(6, func() int {
			k := 0
			for 1<<k < n {
				k++
			}
			return k
		}()); c != want {
			t.Fatalf("class(%d) = %d, want %d", n, c, want)
		}
	}
	a, b := GetScratch(100), GetScratch(100)
	if len(*a) != 100 || len(*b) != 100 || &(*a)[:1][0] == &(*b)[:1][0] {
		t.Fatal("two scratch buffers taken at once share memory")
	}
	PutScratch(a)
	PutScratch(b)
	if c := GetScratch(128); cap(*c) != 128 {
		t.Fatalf("a buffer of 128 bytes came from class %d", class(cap(*c)))
	}
}
