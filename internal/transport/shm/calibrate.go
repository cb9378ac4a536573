package shm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
		if c, ok := loadCosts(); ok {
			calVal = c
			return
		}
		calVal = calibrate()
		saveCosts(calVal)
	})
	return calVal
}

// The speeds belong to the machine, not to the job: the first job after a boot measures
// them and later jobs read them back, which spares them the start-up time (every rank
// of a node calibrating at once also slows the others; see docs/BENCHMARKS.md, shared
// memory: calibration). The file is named by the kernel's boot id, so a reboot, and
// with it a possibly different host, measures again.
func costsFile() (string, bool) {
	id, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	dir, derr := os.UserCacheDir()
	if err != nil || derr != nil {
		return "", false
	}
	return filepath.Join(dir, "mpigo", "shm-costs-"+strings.TrimSpace(string(id))), true
}

func loadCosts() (costs, bool) {
	p, ok := costsFile()
	if !ok {
		return costs{}, false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return costs{}, false
	}
	var c costs
	var fixed int64
	if n, err := fmt.Sscanf(string(b), "copy %g cma %g cmafixed %d", &c.copyBW, &c.cmaBW, &fixed); err != nil || n != 3 ||
		c.copyBW <= 0 || c.cmaBW < 0 || fixed < 0 {
		return costs{}, false
	}
	c.cmaFixed = time.Duration(fixed)
	return c, true
}

func saveCosts(c costs) {
	p, ok := costsFile()
	if !ok {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	// Written whole under a temporary name and renamed: ranks calibrating at once must
	// never read half a file.
	tmp := fmt.Sprintf("%s.%d", p, os.Getpid())
	text := fmt.Sprintf("copy %g cma %g cmafixed %d\n", c.copyBW, c.cmaBW, int64(c.cmaFixed))
	if os.WriteFile(tmp, []byte(text), 0o644) == nil {
		os.Rename(tmp, p)
	}
}

// The copy is timed on a block twice a core's L2, within a shared last-level cache: a
// pipelined fragment crosses between cores through that cache, so a copy within one
// core's L2, which is faster, would promise too much. The CMA read is timed on a
// smaller block, like the messages it is chosen for. Calibration takes a few
// milliseconds, most of it faulting in the buffers; Start runs it in the background, so
// that neither start-up nor the first message waits for it.
const calBytes = 256 << 10

// calRuns is how many timed runs each figure is the fastest of. The ranks of a node
// calibrate at the same moment and share the memory system: with a handful of runs the
// copy speed varied from job to job enough to flip the choice between pipeline and get
// (docs/BENCHMARKS.md, shared memory: calibration).
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
