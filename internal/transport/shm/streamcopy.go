package shm

import (
	"github.com/mpigo/mpigo/internal/ntcopy"
	"math"
	"time"
	"unsafe"
)

// How a sender copies a whole small message (shm_nt_min bytes up to the eager limit)
// into the receiver's ring: with ordinary stores, or with non-temporal stores that write
// to memory without taking the cache lines. Pipeline fragments of large messages are
// always copied the ordinary way: at 4 MiB neither way won, and large messages mostly
// go single-copy anyway.
//
// An ordinary store must first take its line from the receiver, which read it a lap
// ago. Between two cores that share a cache that is quick; between cores far apart
// (another socket or die, or, in a VM, wherever the host runs the two vCPUs at the
// time) it is slow, and a sender of 1 KiB messages stalls on 17 such transfers per
// message. A non-temporal store takes no line; the receiver then reads from memory,
// which is slower than a near cache and faster than a far one. So ordinary stores win
// between near cores and non-temporal ones between far cores, from about 1 KiB up
// (docs/BENCHMARKS.md, shared memory: eager copy).
//
// Where the two cores sit is not visible from inside a guest and changes from one run
// to the next, so with shm_nt_copy=auto each sender→receiver pair measures: it times
// an epoch of copies each way (the sender's wall time per byte, which in a stream is
// the pair's throughput), keeps the faster way, and measures both again after a
// while, sooner if the kept way has become slower than the other was.
//
// The words a copy reads and counts in (ccWords) lie, once the endpoint has mapped its
// record outside Go's heap, in that record, where the C library's short send
// (abi/libmpi/p2pshort.c) copies payloads from min bytes the chosen way too and counts
// them in the same epoch: it leaves to Send the epoch's first copy, which reads the
// clock, and its last, which judges the epoch, so the measuring and choosing stay here.
type copyChooser struct {
	auto   bool // measure (shm_nt_copy=auto); else the way is fixed
	min    int  // payloads of min to max bytes are copied the chosen way
	max    int
	w      *ccWords
	phase  uint8 // phaseKeep, or measuring one way, then the other
	start  time.Time
	cost   [2]float64 // ns per byte, last measured: ordinary, non-temporal
	left   int        // epochs to keep the way before measuring again
	chosen bool       // a measurement has chosen a way (kept)
	kept   bool       // the way it chose: non-temporal
	streak uint       // measurements in a row since that chose the same way
}

// ccWords is what each copy of a chooser reads and counts, as C reads it too
// (p2pshort.h's mpigo_ring, its cc_ fields).
type ccWords struct {
	nt     uint32 // copy with non-temporal stores
	count  uint32 // copies in this epoch
	bytes  uint64
	max    uint64 // the chooser's max
	auto   uint32 // auto: epochs are measured
	copies uint32 // epochCopies, for C
}

const (
	phaseKeep = iota
	phaseOrdinary
	phaseNT
)

const (
	epochCopies = 64                    // copies per measured epoch
	keepEpochs  = 4                     // epochs a way is kept after its first win...
	maxStreak   = 8                     // ...doubled per win in a row, up to 4<<8 epochs
	idleEpoch   = 20 * time.Microsecond // an epoch slower than this per copy had idle gaps: not counted
)

// worseBy is how much slower than the other way's last figure the kept way may become
// before both are measured again.
const worseBy = 1.5

func newCopyChooser(mode string, min, max int) copyChooser {
	c := copyChooser{min: min, max: max, w: &ccWords{max: uint64(max), copies: epochCopies}}
	switch {
	case !ntcopy.Have || mode == "off":
		c.min = math.MaxInt // Send never asks
	case mode == "on":
		c.setNT(true)
	default:
		c.auto, c.phase = true, phaseOrdinary
		c.w.auto = 1
	}
	return c
}

// isNT says whether copies take non-temporal stores now.
func (c *copyChooser) isNT() bool { return c.w.nt != 0 }

func (c *copyChooser) setNT(nt bool) {
	c.w.nt = 0
	if nt {
		c.w.nt = 1
	}
}

// copy copies payload (c.min to c.max bytes) to dst, a line-aligned place in the ring, the
// chosen way.
func (c *copyChooser) copy(dst unsafe.Pointer, payload []byte) {
	n := len(payload)
	w := c.w
	if w.nt != 0 {
		lines := uintptr(n) / lineSize
		ntcopy.Copy(dst, unsafe.Pointer(unsafe.SliceData(payload)), lines)
		if done := int(lines) * lineSize; done < n {
			copy(unsafe.Slice((*byte)(unsafe.Add(dst, done)), n-done), payload[done:])
		}
	} else {
		copy(unsafe.Slice((*byte)(dst), n), payload)
	}
	if !c.auto {
		return
	}
	if w.count == 0 {
		c.start = time.Now()
	}
	w.count++
	w.bytes += uint64(n)
	if w.count == epochCopies {
		c.epoch(time.Since(c.start))
		w.count, w.bytes = 0, 0
	}
}

// epoch takes the measurement of an epoch that took d and decides the way of the next.
func (c *copyChooser) epoch(d time.Duration) {
	if d > idleEpoch*epochCopies {
		return // the program paused between messages: measure this way again
	}
	way := 0
	if c.isNT() {
		way = 1
	}
	perByte := float64(d) / float64(c.w.bytes)
	c.cost[way] = perByte
	switch c.phase {
	case phaseOrdinary:
		c.phase = phaseNT
		c.setNT(true)
	case phaseNT:
		nt := c.cost[1] < c.cost[0]
		if c.chosen && nt == c.kept {
			c.streak = min(c.streak+1, maxStreak)
		} else {
			c.streak = 0
		}
		c.chosen, c.kept = true, nt
		c.phase, c.left = phaseKeep, keepEpochs<<c.streak
		c.setNT(nt)
	default:
		c.left--
		if c.left <= 0 || perByte > worseBy*c.cost[1-way] {
			c.phase = phaseOrdinary
			c.setNT(false)
		}
	}
}
