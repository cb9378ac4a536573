package shm

import (
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/config"
)

var setCalibrate = config.Bool("shm_calibrate", true,
	"measure copy and process_vm_readv speed at start-up (about a millisecond) for the protocol cost "+
		"models; false: use the figures measured on the reference machine")

// costs are the host's copy speeds. The VM this was written on moved between hosts of
// different vendors, and which of two-copy pipelining and single-copy CMA wins flipped
// with it, so the speeds are measured where the job runs, not assumed.
type costs struct {
	copyBW   float64       // bytes/s, memcpy of a cache-resident block
	cmaBW    float64       // bytes/s, process_vm_readv of a cache-resident block (0: unknown)
	cmaFixed time.Duration // one small process_vm_readv
}

// Reference figures (AMD EPYC guest, best of several runs on a loaded machine).
var referenceCosts = costs{copyBW: 60e9, cmaBW: 12e9, cmaFixed: time.Microsecond}

var (
	calOnce sync.Once
	calVal  costs
)

// hostCosts calibrates once per process. Each figure is the fastest of a few short
// runs, so that a time slice lost to another process does not count.
func hostCosts() costs {
	calOnce.Do(func() {
		calVal = referenceCosts
		if !setCalibrate.Get() {
			return
		}
		calVal = calibrate()
	})
	return calVal
}

// The copy is timed on a block twice a core's L2, within a shared last-level cache: a
// pipelined fragment crosses between cores through that cache, so a copy within one
// core's L2 (twice as fast here) would promise too much. The CMA read is timed on a
// smaller block, like the messages it is chosen for. Calibration takes 2-6 ms, most of
// it faulting in the buffers; Start runs it in the background, so that neither start-up
// nor the first message waits for it.
const calBytes = 256 << 10

// calRuns is how many timed runs each figure is the fastest of. The ranks of a node
// calibrate at the same moment and share the memory system: with five runs, the copy
// speed measured on the reference machine ranged over 20-42 GB/s from job to job,
// and which of pipeline and get looked faster at 64 KiB-4 MiB flipped with it.
const calRuns = 25

func calibrate() costs {
	calCopyBytes := min(max(2*l2Size(0), 1<<20), 8<<20)
	src, dst := make([]byte, calCopyBytes), make([]byte, calCopyBytes)
	for i := range src {
		src[i] = byte(i)
	}
	fastest := func(f func()) time.Duration {
		f() // warm caches and page tables
		best := time.Duration(1<<63 - 1)
		for i := 0; i < calRuns; i++ {
			start := time.Now()
			f()
			if d := time.Since(start); d < best {
				best = d
			}
		}
		return max(best, time.Nanosecond)
	}
	c := costs{copyBW: float64(calCopyBytes) / fastest(func() { copy(dst, src) }).Seconds()}
	src, dst = src[:calBytes], dst[:calBytes]
	pid := os.Getpid()
	addr := uint64(uintptr(unsafe.Pointer(&src[0])))
	if readv(pid, dst[:8], addr) != nil {
		return c // no CMA: Get is not offered anyway
	}
	c.cmaFixed = fastest(func() { readv(pid, dst[:8], addr) })
	big := fastest(func() { readv(pid, dst, addr) })
	if d := big - c.cmaFixed; d > 0 {
		c.cmaBW = float64(calBytes) / d.Seconds()
	}
	return c
}
