package shm

import (
	"bytes"
	"github.com/mpigo/mpigo/internal/ntcopy"
	"testing"
	"time"
	"unsafe"
)

// TestCopyNT checks the non-temporal copy at every length around whole lines, from a
// source at every offset within a line, into a line-aligned destination, and that it
// writes nothing past the end.
func TestCopyNT(t *testing.T) {
	if !ntcopy.Have {
		t.Skip("no non-temporal stores on this platform")
	}
	src := fill(make([]byte, 4096+64), 3)
	raw := make([]byte, 4096+2*lineSize)
	off := int(lineSize - uintptr(unsafe.Pointer(&raw[0]))%lineSize) // dst: raw[off:], line-aligned
	for _, n := range []int{64, 65, 100, 127, 128, 1000, 1024, 1025, 4095, 4096} {
		for _, so := range []int{0, 1, 8, 33} {
			for i := range raw {
				raw[i] = 0xee
			}
			c := newCopyChooser("on", 64, 4096)
			c.copy(unsafe.Pointer(&raw[off]), src[so:so+n])
			if !bytes.Equal(raw[off:off+n], src[so:so+n]) {
				t.Fatalf("n=%d src offset %d: copy differs", n, so)
			}
			for i, b := range raw[off+n:] {
				if b != 0xee {
					t.Fatalf("n=%d src offset %d: byte %d past the end overwritten", n, so, i)
				}
			}
		}
	}
}

// TestCopyChooser drives the chooser with measured epochs: it measures both ways, keeps
// the faster, measures again when the kept way becomes slower than the other was, and
// ignores epochs with idle gaps.
func TestCopyChooser(t *testing.T) {
	if !ntcopy.Have {
		if c := newCopyChooser("auto", 1024, 4096); c.auto || c.isNT() {
			t.Fatalf("without non-temporal stores: auto %v nt %v, want ordinary stores always", c.auto, c.isNT())
		}
		t.Skip("no non-temporal stores on this platform")
	}
	const bytesPerEpoch = epochCopies * 1024
	step := func(c *copyChooser, nsPerKiB int) {
		c.w.bytes = bytesPerEpoch
		c.epoch(time.Duration(nsPerKiB * epochCopies))
	}
	c := newCopyChooser("auto", 1024, 4096)
	if c.isNT() || c.phase != phaseOrdinary {
		t.Fatalf("start: nt %v phase %d, want ordinary stores measured first", c.isNT(), c.phase)
	}
	// Near cores: ordinary 100 ns per KiB, non-temporal 260.
	step(&c, 100)
	if !c.isNT() {
		t.Fatal("after the ordinary epoch: want the non-temporal one measured next")
	}
	step(&c, 260)
	if c.isNT() || c.phase != phaseKeep {
		t.Fatalf("near: nt %v phase %d, want ordinary kept", c.isNT(), c.phase)
	}
	kept := c.left
	// A paused program: the epoch is not counted.
	step(&c, int(2*idleEpoch))
	if c.left != kept {
		t.Fatalf("an idle epoch counted: left %d, want %d", c.left, kept)
	}
	// The cores move apart: ordinary stores now 450 ns per KiB, worse than
	// non-temporal's 260: both are measured again, and non-temporal wins.
	step(&c, 450)
	if c.isNT() || c.phase != phaseOrdinary {
		t.Fatalf("after a slow ordinary epoch: nt %v phase %d, want a new measurement", c.isNT(), c.phase)
	}
	step(&c, 450)
	step(&c, 250)
	if !c.isNT() || c.phase != phaseKeep {
		t.Fatalf("far: nt %v phase %d, want non-temporal kept", c.isNT(), c.phase)
	}
	// Kept non-temporal stays until its epochs run out, then both are measured again;
	// the same verdict twice keeps the way twice as long.
	first := c.left
	for i := 0; i < first; i++ {
		step(&c, 250)
	}
	if c.phase != phaseOrdinary {
		t.Fatalf("after %d kept epochs: phase %d, want a new measurement", first, c.phase)
	}
	step(&c, 450)
	step(&c, 250)
	if !c.isNT() || c.left != 2*first {
		t.Fatalf("second verdict: nt %v left %d, want non-temporal kept for %d epochs", c.isNT(), c.left, 2*first)
	}
	for _, mode := range []string{"on", "off"} {
		c := newCopyChooser(mode, 1024, 4096)
		if c.isNT() != (mode == "on") || c.auto || c.phase != phaseKeep {
			t.Fatalf("mode %s: nt %v phase %d", mode, c.isNT(), c.phase)
		}
	}
}
