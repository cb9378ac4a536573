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
// ranks left free are moved off the busy CPU by the scheduler. And ranks that fill the
// CPUs wait by spinning, as if alone: beside other busy processes (another job) they
// keep cores from the ranks they wait for; so do fewer ranks than CPUs beside other
// jobs that want more than the CPUs left. So the process that starts a node's ranks
// (the launcher, or an agent) watches the node's CPU time while they run: what the
// CPUs spent busy (/proc/stat) less what its ranks and itself spent (/proc/PID/stat)
// is what other processes took, and what they took beyond the CPUs the ranks leave
// (one each) is their excess, the whole of it where the ranks fill the CPUs. Once the
// excess was at least freeAt CPUs in each of freeAfter intervals in a row, the watch
// frees every rank it started that bound itself (every thread, to the CPUs the
// launcher may use; only ranks that fill the CPUs bind), and once it was below
// bindAt in each of bindAfter intervals in a row, it binds each again to its core.
// The node is shared then too, or while tasks wait for a CPU (stallAt, below): the
// watch tells every rank so (wireup's MsgShared; the rank then waits as an
// oversubscribed one, internal/idle), and that the node is theirs again once both
// measures are quiet.
// A rank counts as bound by auto binding when it said at Init (wireup's Hello) that it
// could use every CPU and its mask is then the core auto binding gives its local rank
// (topo's CoreFor); whether a rank binds stays decided in internal/core, and a mask
// given by a wrapper (taskset) or taken by the program itself is left alone. The
// interval is watchEvery. A rank started by another launcher (srun, Hydra) is not
// watched; a rank bound by bind_to=core, which the user asked for, is told but never
// freed; bind_watch=false (topo.BindWatch) turns the watch off.

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

// stallAt and stallQuiet are the share of an interval in which some task of the node
// waited for a CPU (the kernel's pressure stall information, /proc/pressure/cpu) at
// or above which the node counts as shared, and below which as quiet again. Other
// processes' CPU time alone misses a job whose ranks wait for a CPU that this job's
// ranks keep by spinning: its ranks are starved, not busy. Ranks that fill the CPUs
// alone stall well below stallQuiet, a C program's too, whose ranks run Go's runtime
// threads beside (docs/BENCHMARKS.md, "Two jobs on one node"), and a stall counts once
// it lasted stallAfter intervals in a row, so that a short one (a job's start) does not.
const (
	stallAt    = 0.5
	stallQuiet = 0.35
	stallAfter = 4
)

// hysteresis is a decision of the watch, fed one interval at a time: on after
// freeAfter hot intervals in a row, off after bindAfter cold ones in a row.
type hysteresis struct {
	on        bool
	hot, cold int // hot intervals in a row, cold ones in a row
}

// step takes whether the last interval was hot and whether it was cold, and says what
// to do: +1 turn on, -1 turn off, 0 nothing.
func (h *hysteresis) step(hot, cold bool) int {
	h.hot, h.cold = h.hot+1, h.cold+1
	if !hot {
		h.hot = 0
	}
	if !cold {
		h.cold = 0
	}
	switch {
	case !h.on && h.hot >= freeAfter:
		h.on = true
		return +1
	case h.on && h.cold >= bindAfter:
		h.on = false
		return -1
	}
	return 0
}

// bindState is whether the auto-bound ranks are freed: hot when other processes took
// freeAt CPUs or more beyond those the ranks leave (excess), cold below bindAt.
type bindState struct{ hysteresis }

func (s *bindState) step(others float64) int {
	return s.hysteresis.step(others >= freeAt, others < bindAt)
}

// shareState is whether the node is shared: as bindState, or on once some task
// waited for a CPU stallAt of each of stallAfter intervals in a row or more; cold only
// below stallQuiet too. stall is negative where the kernel does not say.
type shareState struct {
	hysteresis
	stalled int // intervals in a row at or above stallAt
}

func (s *shareState) step(others, stall float64) int {
	s.stalled++
	if stall < stallAt {
		s.stalled = 0
	}
	hot := others >= freeAt || s.stalled > stallAfter-freeAfter
	return s.hysteresis.step(hot, others < bindAt && stall < stallQuiet)
}

// watchedRank is a rank under the watch.
type watchedRank struct {
	tell  func(shared bool) // sends it MsgShared
	auto  bool              // it runs under bind_to=auto
	hello bool              // it has said Hello: it reads what tell sends
	core  topo.CPUSet       // the core auto binding gives it
	free  bool              // it said at Init that nobody had bound it
	bound bool              // free, then seen bound to core: the watch may free it
	ticks int64             // its CPU time at the last look; -1 before the first
}

var cpuWatch struct {
	mu      sync.Mutex
	ranks   map[int]*watchedRank // by process id
	on      bool                 // the loop runs
	changed time.Time            // when a rank last joined or left
	shared  bool                 // the ranks were told the node is shared
}

// watches says whether a rank of spec on a node of nlocal ranks is watched (the watch
// is on), and whether the watch may free it from its core (bind_to is auto, and the
// ranks fill the CPUs: fewer never bind).
func watches(spec *Spec, nlocal int) (watched, auto bool) {
	on, _ := strconv.ParseBool(settingOf(spec, topo.BindWatch.Setting))
	return on, on && nlocal >= runtime.NumCPU() && settingOf(spec, topo.BindTo.Setting) == "auto"
}

// excess is what other processes took in an interval, others CPUs, beyond the CPUs
// that n ranks leave of cpus: ranks that fill the CPUs leave none, and fewer leave
// the rest to others without sharing a core with them.
func excess(others float64, cpus, n int) float64 {
	return others - float64(max(cpus-n, 0))
}

// watchCPUs puts the rank with process id pid, local rank local, under the watch,
// starting its loop; auto: it runs under bind_to=auto; tell sends it MsgShared.
func watchCPUs(pid, local int, auto bool, tell func(shared bool)) {
	cpuWatch.mu.Lock()
	defer cpuWatch.mu.Unlock()
	if cpuWatch.ranks == nil {
		cpuWatch.ranks = map[int]*watchedRank{}
	}
	cpuWatch.ranks[pid] = &watchedRank{tell: tell, auto: auto, core: topo.Machine().CoreFor(local), ticks: -1}
	cpuWatch.changed = time.Now()
	if !cpuWatch.on {
		cpuWatch.on = true
		go watchLoop()
	}
}

// helloCPUs notes what the rank with process id pid said at Init: whether it could use
// every CPU then. One that could not was bound by someone else (a wrapper, a cpuset):
// the watch never binds or frees it, but still counts its CPU time as its job's. A
// rank that says Hello while the node is shared is told so.
func helloCPUs(pid int, free bool) {
	cpuWatch.mu.Lock()
	defer cpuWatch.mu.Unlock()
	if r, ok := cpuWatch.ranks[pid]; ok {
		r.free, r.hello = free && r.auto, true
		if cpuWatch.shared {
			r.tell(true)
		}
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
	var bind bindState
	var share shareState
	busy, _ := nodeBusy()
	self, _ := procTicks("self")
	stalled, errStall := cpuStalled()
	last := time.Now()
	for now := range t.C {
		cpuWatch.mu.Lock()
		if len(cpuWatch.ranks) == 0 {
			cpuWatch.on, cpuWatch.shared = false, false
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
				learnBound(pid, r, all, bind.on)
			}
		}
		b, err1 := nodeBusy()
		s, err2 := procTicks("self")
		st, err3 := cpuStalled()
		settle := settlePer16 * time.Duration(max(1, len(cpuWatch.ranks)/16))
		if err1 == nil && err2 == nil && now.Sub(cpuWatch.changed) >= settle {
			secs := now.Sub(last).Seconds()
			others := float64(b-busy-(s-self)-mine) / userHZ / secs
			stall := -1.0
			if err3 == nil && errStall == nil {
				stall = float64(st-stalled) / 1e6 / secs
			}
			more := excess(others, all.Count(), len(cpuWatch.ranks))
			switch share.step(more, stall) {
			case +1:
				tellShared(true)
			case -1:
				tellShared(false)
			}
			switch bind.step(more) {
			case +1:
				rebind(func(*watchedRank) topo.CPUSet { return all })
			case -1:
				rebind(func(r *watchedRank) topo.CPUSet { return r.core })
			}
		}
		busy, self, last = b, s, now
		stalled, errStall = st, err3
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

// tellShared tells every watched rank that has said Hello whether the node is shared.
// Under cpuWatch.mu.
func tellShared(on bool) {
	cpuWatch.shared = on
	for _, r := range cpuWatch.ranks {
		if r.hello {
			r.tell(on)
		}
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

// cpuStalled is the time, in microseconds, in which some task of the node waited for a
// CPU: the "some" line's total in /proc/pressure/cpu (Linux 4.20 and later, where the
// kernel keeps pressure stall information).
func cpuStalled() (int64, error) {
	b, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return 0, err
	}
	return parseStalled(b)
}

// parseStalled reads the total of the "some" line of a /proc/pressure file.
func parseStalled(b []byte) (int64, error) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) == 0 || string(f[0]) != "some" {
		return 0, fmt.Errorf("/proc/pressure/cpu: unexpected first line %q", line)
	}
	for _, kv := range f[1:] {
		if v, ok := bytes.CutPrefix(kv, []byte("total=")); ok {
			return strconv.ParseInt(string(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/pressure/cpu: no total in %q", line)
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
