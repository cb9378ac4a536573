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
type copyChooser struct {
	auto   bool // measure (shm_nt_copy=auto); else nt is fixed
	min    int  // payloads of min to max bytes are copied the chosen way
	max    int
	nt     bool  // copy with non-temporal stores
	phase  uint8 // phaseKeep, or measuring one way, then the other
	count  int   // copies in this epoch
	bytes  int
	start  time.Time
	cost   [2]float64 // ns per byte, last measured: ordinary, non-temporal
	left   int        // epochs to keep the way before measuring again
	chosen bool       // a measurement has chosen a way (kept)
	kept   bool       // the way it chose: non-temporal
	streak uint       // measurements in a row since that chose the same way
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
	c := copyChooser{min: min, max: max}
	switch {
	case !ntcopy.Have || mode == "off":
		c.min = math.MaxInt // Send never asks
	case mode == "on":
		c.nt = true
	default:
		c.auto, c.phase = true, phaseOrdinary
	}
	return c
}

// copy copies payload (c.min to c.max bytes) to dst, a line-aligned place in the ring, the
// chosen way.
func (c *copyChooser) copy(dst unsafe.Pointer, payload []byte) {
	n := len(payload)
	if c.nt {
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
	if c.count == 0 {
		c.start = time.Now()
	}
	c.count++
	c.bytes += n
	if c.count == epochCopies {
		c.epoch(time.Since(c.start))
		c.count, c.bytes = 0, 0
	}
}

// epoch takes the measurement of an epoch that took d and decides the way of the next.
func (c *copyChooser) epoch(d time.Duration) {
	if d > idleEpoch*epochCopies {
		return // the program paused between messages: measure this way again
	}
	way := 0
	if c.nt {
		way = 1
	}
	perByte := float64(d) / float64(c.bytes)
	c.cost[way] = perByte
	switch c.phase {
	case phaseOrdinary:
		c.phase, c.nt = phaseNT, true
	case phaseNT:
		nt := c.cost[1] < c.cost[0]
		if c.chosen && nt == c.kept {
			c.streak = min(c.streak+1, maxStreak)
		} else {
			c.streak = 0
		}
		c.chosen, c.kept = true, nt
		c.phase, c.nt, c.left = phaseKeep, nt, keepEpochs<<c.streak
	default:
		c.left--
		if c.left <= 0 || perByte > worseBy*c.cost[1-way] {
			c.phase, c.nt = phaseOrdinary, false
		}
	}
}
