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

// Cost constants, measured on the reference machine (2-core Emerald Rapids KVM guest,
// shared/anchors) with this package's benchmarks, two processes, unbound, in the shared
// cache locality:
//
//	go test ./internal/transport/shm -run XXX -bench . -benchtime 2s
//
// eagerFixed: one-way latency of an 8-byte ping-pong; eagerBW: the slope of the one-way
// latency from 8 B to 4 KiB. Handshake: what a rendezvous adds before data moves (a
// request and an answer, about two one-way small-packet latencies). pipeBW: streaming
// bandwidth of 64 KiB fragments through the ring at 4 MiB (two copies overlapped);
// getBWCache and getBWMem: process_vm_readv of a buffer that fits in the sender's L2,
// and of one that does not. The numbers are in the package's tests' report (see
// BenchmarkStream*); update them together.
const (
	eagerFixed   = 250 * time.Nanosecond
	eagerBW      = 6.0e9
	handshake    = 600 * time.Nanosecond
	cmaSyscall   = 700 * time.Nanosecond // fixed part of a process_vm_readv
	pipeBWCache  = 11e9
	pipeBWMem    = 14e9
	getBWCache   = 18e9
	getBWMem     = 10e9
	defaultCache = 1 << 20
)

// models builds the selection table of one endpoint. The point of the piecewise Get:
// single copy wins while the sender's buffer sits in a cache the reader can pull from,
// and loses to the two-copy pipeline (both cores copying at once) beyond it.
func (t *Transport) models(peerPID, maxPayload int, cma bool) []transport.Model {
	loc, cache := locality(&t.myCPUs, peerPID)
	pipeCache, pipeMem, getCache, getMem := pipeBWCache, pipeBWMem, getBWCache, getBWMem
	switch loc {
	case SameCore:
		// One core does both copies, one after the other.
		pipeCache, pipeMem = pipeCache/2, pipeMem/2
	case SameSocket:
		getCache = getMem
	case OtherSocket:
		// Not measured here (one socket); remote reads suffer more than streaming writes.
		pipeCache, pipeMem, getCache, getMem = pipeCache*0.7, pipeMem*0.7, getMem*0.5, getMem*0.5
	}
	fragFill := time.Duration(float64(maxPayload) / pipeMem * 1e9) // the first fragment is not overlapped
	ms := []transport.Model{
		{Protocol: transport.Eager, MinSize: 0, MaxSize: int64(t.opts.EagerLimit), Fixed: eagerFixed, Bandwidth: eagerBW},
		{Protocol: transport.Pipeline, MinSize: 0, MaxSize: int64(cache), Fixed: handshake + fragFill, Bandwidth: pipeCache},
		{Protocol: transport.Pipeline, MinSize: int64(cache), MaxSize: 0, Fixed: handshake + fragFill, Bandwidth: pipeMem},
	}
	if cma {
		ms = append(ms,
			transport.Model{Protocol: transport.Get, MinSize: 0, MaxSize: int64(cache), Fixed: handshake + cmaSyscall, Bandwidth: getCache},
			transport.Model{Protocol: transport.Get, MinSize: int64(cache), MaxSize: 0, Fixed: handshake + cmaSyscall, Bandwidth: getMem})
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
		return SharedCache, defaultCache
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
	return defaultCache
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
