package main

import (
	"testing"

	"github.com/mpigo/mpigo/internal/transport/shm"
)

// p2pshort.c writes the shm transport's compact cells: its constants are the ring's.
func TestShortCellConsts(t *testing.T) {
	inline, compact := cellConsts()
	if inline != shm.OutsideInline || compact != shm.OutsideCompact {
		t.Errorf("p2pshort.h: inline %d, compact bit %#x; the shm ring's: %d, %#x",
			inline, compact, shm.OutsideInline, shm.OutsideCompact)
	}
}
