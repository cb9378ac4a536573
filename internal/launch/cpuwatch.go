package launch

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/mpigo/mpigo/internal/topo"
)

// The CPU watch. Under bind_to=auto a node whose ranks fill or outnumber its CPUs binds
// each rank to a core (internal/core), since ranks left free are stacked and moved run
// by run. A core that another process keeps busy is worse than any stacking: a woken
// rank waits behind that process's slice, and a collective for its slowest rank, while
// ranks left free are moved off the busy CPU by the scheduler. So the process that
// starts a node's ranks (the launcher, or an agent) watches the node's CPU time while
// they run: what the CPUs spent busy (/proc/stat) less what its ranks and itself spent
// (/proc/PID/stat) is what other processes took. Once they took at least freeAt CPUs
// in each of freeAfter intervals in a row, it frees every rank it started that bound
// itself (every thread, to the CPUs the launcher may use); once they took less than
// bindAt in each of bindAfter intervals in a row, it binds each again to its core. A
// rank counts as bound by auto binding when it said at Init (wireup's Hello) that it
// could use every CPU and its mask is then the core auto binding gives its local rank
// (topo's CoreFor); whether a rank binds stays decided in internal/core, and a mask
// given by a wrapper (taskset) or taken by the program itself is left alone. The
// interval is watchEvery. A rank started by another launcher (srun, Hydra) is not
// watched, nor a rank bound by bind_to=core, which the user asked for; bind_watch=false
// (topo.BindWatch) turns the watch off.

const (
	watchEvery = 250 * time.Millisecond
	freeAt     = 0.4 // CPUs
	freeAfter  = 2   // intervals
	bindAt     = 0.2
	bindAfter  = 8
	// settlePer16: no interval counts until this long per 16 watched ranks (at least
	// once) after a rank started or ended. A process's start and end cost CPU time that
	// neither it nor the launcher is charged with, for longer the more start at once
	// (in the first intervals of "others": 0.72 with 16 ranks starting, 1.24 with 32,
	// 1.85 and 1.00 with 64, and 1.44 as 64 ended).
	settlePer16 = watchEvery
	// userHZ is the unit of /proc's CPU times (USER_HZ), 100 on every Linux
	// architecture Go runs on.
	userHZ = 100
)

// bindState is the watch's decision, fed one interval at a time.
type bindState struct {
	free      bool // the ranks are freed
	hot, cold int  // intervals in a row at or above freeAt, below bindAt
}

// step takes the CPUs other processes kept busy in the last interval and says what to
// do: +1 free the ranks, -1 bind them again, 0 nothing.
func (s *bindState) step(others float64) int {
	s.hot, s.cold = s.hot+1, s.cold+1
	if others < freeAt {
		s.hot = 0
	}
	if others >= bindAt {
		s.cold = 0
	}
	switch {
	case !s.free && s.hot >= freeAfter:
		s.free = true
		return +1
	case s.free && s.cold >= bindAfter:
		s.free = false
		return -1
	}
	return 0
}

// watchedRank is a rank under the watch.
type watchedRank struct {
	core  topo.CPUSet // the core auto binding gives it
	free  bool        // it said at Init that nobody had bound it
	bound bool        // free, then seen bound to core: the watch may free it
	ticks int64       // its CPU time at the last look; -1 before the first
}

var cpuWatch struct {
	mu      sync.Mutex
	ranks   map[int]*watchedRank // by process id
	on      bool                 // the loop runs
	changed time.Time            // when a rank last joined or left
}

// watchesBinding says whether a rank of spec on a node of nlocal ranks is watched:
// bind_to is auto, the watch is on, and the ranks fill the CPUs (else they do not bind).
func watchesBinding(spec *Spec, nlocal int) bool {
	if nlocal < runtime.NumCPU() {
		return false
	}
	on, _ := strconv.ParseBool(settingOf(spec, topo.BindWatch.Setting))
	return on && settingOf(spec, topo.BindTo.Setting) == "auto"
}

// watchCPUs puts the rank with process id pid, local rank local, under the watch,
// starting its loop.
func watchCPUs(pid, local int) {
	cpuWatch.mu.Lock()
	defer cpuWatch.mu.Unlock()
	if cpuWatch.ranks == nil {
		cpuWatch.ranks = map[int]*watchedRank{}
	}
	cpuWatch.ranks[pid] = &watchedRank{core: topo.Machine().CoreFor(local), ticks: -1}
	cpuWatch.changed = time.Now()
	if !cpuWatch.on {
		cpuWatch.on = true
		go watchLoop()
	}
}

// helloCPUs notes what the rank with process id pid said at Init: whether it could use
// every CPU then. One that could not was bound by someone else (a wrapper, a cpuset):
// the watch never binds or frees it, but still counts its CPU time as its job's.
func helloCPUs(pid int, free bool) {
	cpuWatch.mu.Lock()
	defer cpuWatch.mu.Unlock()
	if r, ok := cpuWatch.ranks[pid]; ok {
		r.free = free
	}
}

// unwatchCPUs takes the rank with process id pid, which has ended, off the watch.
func unwatchCPUs(pid int) {
	cpuWatch.mu.Lock()
	delete(cpuWatch.ranks, pid)
	cpuWatch.changed = time.Now()
	cpuWatch.mu.Unlock()
}

// watchLoop is the watch, until no rank is left under it.
func watchLoop() {
	all, err := topo.Allowed()
	if err != nil {
		cpuWatch.mu.Lock()
		cpuWatch.on = false
		cpuWatch.mu.Unlock()
		return
	}
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	var st bindState
	busy, _ := nodeBusy()
	self, _ := procTicks("self")
	last := time.Now()
	for now := range t.C {
		cpuWatch.mu.Lock()
		if len(cpuWatch.ranks) == 0 {
			cpuWatch.on = false
			cpuWatch.mu.Unlock()
			return
		}
		mine := int64(0)
		for pid, r := range cpuWatch.ranks {
			if k, err := procTicks(strconv.Itoa(pid)); err == nil {
				mine += k - max(r.ticks, 0)
				r.ticks = k
			}
			if r.free && !r.bound {
				learnBound(pid, r, all, st.free)
			}
		}
		b, err1 := nodeBusy()
		s, err2 := procTicks("self")
		settle := settlePer16 * time.Duration(max(1, len(cpuWatch.ranks)/16))
		if err1 == nil && err2 == nil && now.Sub(cpuWatch.changed) >= settle {
			others := float64(b-busy-(s-self)-mine) / userHZ / now.Sub(last).Seconds()
			switch st.step(others) {
			case +1:
				rebind(func(*watchedRank) topo.CPUSet { return all })
			case -1:
				rebind(func(r *watchedRank) topo.CPUSet { return r.core })
			}
		}
		busy, self, last = b, s, now
		cpuWatch.mu.Unlock()
	}
}

// learnBound looks whether the rank with process id pid, free at Init, has bound
// itself to its core (a part of all), and if so frees it at once if the watch has
// freed the others. Another mask is the program's own and is never touched.
func learnBound(pid int, r *watchedRank, all topo.CPUSet, free bool) {
	cpus, err := topo.AllowedPID(pid)
	if err != nil || cpus.Equal(all) || !cpus.Equal(r.core) {
		return
	}
	r.bound = true
	if free {
		_ = topo.BindPID(pid, all)
	}
}

// rebind binds every watched rank that bound itself to to(rank); a rank that ended
// meanwhile is skipped. Under cpuWatch.mu.
func rebind(to func(*watchedRank) topo.CPUSet) {
	for pid, r := range cpuWatch.ranks {
		if r.bound {
			_ = topo.BindPID(pid, to(r))
		}
	}
}

// nodeBusy is the time the node's CPUs have spent busy, in USER_HZ ticks: /proc/stat's
// user, nice, system, irq and softirq (idle, iowait and the hypervisor's steal are not
// a process's).
func nodeBusy() (int64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 8 || string(f[0]) != "cpu" {
		return 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var sum int64
	for _, i := range []int{1, 2, 3, 6, 7} {
		v, err := strconv.ParseInt(string(f[i]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %w", err)
		}
		sum += v
	}
	return sum, nil
}

// procTicks is the CPU time process pid ("self" for this one) has spent, its utime and
// stime in /proc/PID/stat, in USER_HZ ticks.
func procTicks(pid string) (int64, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, err
	}
	return parseProcTicks(b)
}

// parseProcTicks reads utime and stime from a /proc/PID/stat line: the 14th and 15th
// fields, counted after the command name, which may hold spaces and parentheses.
func parseProcTicks(b []byte) (int64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/PID/stat: no command name in %q", b)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/PID/stat: %d fields after the command name", len(f))
	}
	u, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	s, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/PID/stat: utime %q, stime %q", f[11], f[12])
	}
	return u + s, nil
}
