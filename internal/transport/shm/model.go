package shm

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mpigo/mpigo/internal/transport"
	"golang.org/x/sys/unix"
)

// Locality of two ranks, from the CPUs each may run on. A fuller picture (NUMA,
// binding) is internal/topo's; the transport needs only what changes its costs.
type Locality uint8

const (
	SameCore    Locality = iota // both confined to one core: copies cannot overlap
	SharedCache                 // every CPU of both under one cache (L2 or L3)
	SameSocket                  // one package, no common cache
	OtherSocket
)

func (l Locality) String() string {
	return [...]string{"same core", "shared cache", "same socket", "other socket"}[l]
}

// What does not depend on the host's copy speed, set from this package's benchmarks on
// the reference machine (the figures: docs/BENCHMARKS.md, shared memory: cost models).
//
// eagerFixed: one-way latency of a small ping-pong through one compact cell, with room
// for a busier engine than the benchmark's. handshake: what a rendezvous adds before
// data moves, a request and an answer, about two small-packet one-way latencies plus
// the engine's matching. pipeEff: the share of one core's memcpy speed that streaming
// fragments through the ring reaches: sender and receiver copy at the same time but
// share the last-level cache.
//
// cmaEff: process_vm_readv of a peer's buffer runs slower than calibration's read of
// the process's own memory.
const (
	eagerFixed = 250 * time.Nanosecond
	handshake  = 600 * time.Nanosecond
	pipeEff    = 0.8
	cmaEff     = 0.75
)

// models builds the selection table of one endpoint from the host's calibrated copy
// speeds (calibrate.go) and the two ranks' locality. Eager copies in, then out: half
// the copy speed. Pipeline overlaps the two copies after the first fragment. Get is one
// process_vm_readv: the kernel pins the sender's pages and copies once, which on some
// hosts beats two overlapped copies and on others does not (docs/BENCHMARKS.md, shared
// memory: cost models).
func (t *Transport) models(peerPID, maxPayload int, cma bool) []transport.Model {
	loc, _ := locality(&t.myCPUs, peerPID)
	c := hostCosts()
	pipe, get := c.copyBW*pipeEff, c.cmaBW*cmaEff
	switch loc {
	case SameCore:
		// One core does both copies, one after the other, and no overlap is possible.
		pipe = c.copyBW / 2
	case OtherSocket:
		// Not measured (one socket here); remote reads suffer more than streaming writes.
		pipe, get = pipe*0.7, get*0.5
	}
	fragFill := time.Duration(float64(maxPayload) / c.copyBW * 1e9) // the first fragment is not overlapped
	ms := []transport.Model{
		{Protocol: transport.Eager, MinSize: 0, MaxSize: int64(t.opts.EagerLimit), Fixed: eagerFixed, Bandwidth: c.copyBW / 2},
		// A message of one fragment is copied in, then out: nothing overlaps. Longer
		// ones overlap the copies after the first fragment.
		{Protocol: transport.Pipeline, MinSize: 0, MaxSize: int64(maxPayload), Fixed: handshake, Bandwidth: c.copyBW / 2},
		{Protocol: transport.Pipeline, MinSize: int64(maxPayload) + 1, MaxSize: 0, Fixed: handshake + fragFill, Bandwidth: pipe},
	}
	if cma && c.cmaBW > 0 {
		ms = append(ms, transport.Model{Protocol: transport.Get, MinSize: 0, MaxSize: 0, Fixed: handshake + c.cmaFixed, Bandwidth: get})
	}
	return ms
}

// locality classifies this process against peer and returns the size of the cache
// that decides whether a message is still cache resident: the per-core L2 (the data a
// reader pulls from the other core lives there).
func locality(mine *unix.CPUSet, peerPID int) (Locality, int) {
	var theirs unix.CPUSet
	if err := unix.SchedGetaffinity(peerPID, &theirs); err != nil || mine.Count() == 0 {
		return SharedCache, l2Size(0)
	}
	all := cpuList(mine, &theirs)
	if len(all) == 0 {
		return SharedCache, l2Size(0)
	}
	cache := l2Size(all[0])
	cores := map[string]bool{}
	pkgs := map[string]bool{}
	for _, c := range all {
		p := readSys(c, "topology/physical_package_id")
		pkgs[p] = true
		cores[p+"/"+readSys(c, "topology/core_id")] = true
	}
	if len(cores) == 1 {
		return SameCore, cache
	}
	if len(pkgs) > 1 {
		return OtherSocket, cache
	}
	// A cache level whose sharing set holds every CPU of both processes.
	for idx := 0; idx < 8; idx++ {
		shared := readSys(all[0], "cache/index"+strconv.Itoa(idx)+"/shared_cpu_list")
		if shared == "" {
			break
		}
		set := parseList(shared)
		ok := true
		for _, c := range all {
			ok = ok && set[c]
		}
		if ok {
			return SharedCache, cache
		}
	}
	return SameSocket, cache
}

func cpuList(sets ...*unix.CPUSet) []int {
	var out []int
	for c := 0; c < 1024; c++ {
		for _, s := range sets {
			if s.IsSet(c) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

func readSys(cpu int, rel string) string {
	b, err := os.ReadFile("/sys/devices/system/cpu/cpu" + strconv.Itoa(cpu) + "/" + rel)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// l2Size is the size of cpu's level-2 data or unified cache.
func l2Size(cpu int) int {
	for idx := 0; idx < 8; idx++ {
		lvl := readSys(cpu, "cache/index"+strconv.Itoa(idx)+"/level")
		if lvl == "" {
			break
		}
		typ := readSys(cpu, "cache/index"+strconv.Itoa(idx)+"/type")
		if lvl == "2" && typ != "Instruction" {
			s := readSys(cpu, "cache/index"+strconv.Itoa(idx)+"/size")
			mult := 1
			if strings.HasSuffix(s, "K") {
				mult, s = 1<<10, strings.TrimSuffix(s, "K")
			} else if strings.HasSuffix(s, "M") {
				mult, s = 1<<20, strings.TrimSuffix(s, "M")
			}
			if n, err := strconv.Atoi(s); err == nil && n > 0 {
				return n * mult
			}
		}
	}
	return 1 << 20
}

// parseList reads a kernel CPU list such as "0-3,8".
func parseList(s string) map[int]bool {
	set := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, found := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if found {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		for c := a; c <= b; c++ {
			set[c] = true
		}
	}
	return set
}
