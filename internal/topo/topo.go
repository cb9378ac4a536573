// Package topo is the machine as mpigo sees it: logical CPUs, cores, sockets, NUMA
// nodes and caches, read from /sys (and the model name from /proc/cpuinfo); the CPUs
// this process may run on, and binding to a core or a set of CPUs.
//
// Its main use is Locality: how close two ranks are, judged from the CPUs each may run
// on, so that a transport can recommend a protocol by locality as well as by size
// (seed 003: copy-in/copy-out wins within a cache complex, single copy across sockets).
// Ranks publish their CPU sets and the node's layout in the wire-up, in the compact
// binary forms defined here.
//
// Nothing here fails because /sys is incomplete, as it often is in containers: what
// cannot be read is left out, and Locality answers Unknown where it cannot tell.
package topo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Level is how close two sets of CPUs are, from the closest to the farthest.
type Level uint8

const (
	// Unknown: the topology does not say, or a set spans several sockets.
	Unknown Level = iota
	// SameCore: both sets lie within one physical core (hardware threads of it).
	SameCore
	// SameL2: both lie within the CPUs sharing one level-2 cache.
	SameL2
	// SameL3: both lie within one last-level cache (a cache complex, CCX or die).
	SameL3
	// SameSocket: both lie within one package.
	SameSocket
	// SameNUMA: both lie within one NUMA node that spans packages.
	SameNUMA
	// OtherSocket: each set lies within one package, and they are different packages.
	OtherSocket
)

func (l Level) String() string {
	switch l {
	case SameCore:
		return "same-core"
	case SameL2:
		return "same-l2"
	case SameL3:
		return "same-l3"
	case SameSocket:
		return "same-socket"
	case SameNUMA:
		return "same-numa"
	case OtherSocket:
		return "other-socket"
	}
	return "unknown"
}

// Domain is a numbered group of CPUs: a package or a NUMA node.
type Domain struct {
	ID   int // physical_package_id or the NUMA node number; -1 if unknown
	CPUs CPUSet
}

// Cache is one cache and the CPUs that share it.
type Cache struct {
	Level int    // 1, 2, 3, ...
	Type  string // "Data", "Instruction" or "Unified"
	Size  int64  // bytes; 0 if unknown
	CPUs  CPUSet
}

// Topology is a node's layout. Every list is sorted by its lowest CPU; caches by level,
// then type, then lowest CPU.
type Topology struct {
	Model     string   // CPU model name, "" if unknown
	CPUs      CPUSet   // online logical CPUs
	Cores     []CPUSet // the hardware threads of each physical core
	Packages  []Domain
	NUMANodes []Domain
	Caches    []Cache
}

// Load reads the topology of this machine from /sys and /proc.
func Load() *Topology { return LoadFS(os.DirFS("/")) }

var (
	machineOnce sync.Once
	machine     *Topology
)

// Machine is Load done once per process; callers must not modify the result.
func Machine() *Topology {
	machineOnce.Do(func() { machine = Load() })
	return machine
}

// LoadFS reads the topology from a file system laid out as the root one: it reads
// sys/devices/system/cpu, sys/devices/system/node and proc/cpuinfo. Missing or
// unreadable files are skipped, so the result may be partial but is never an error.
func LoadFS(fsys fs.FS) *Topology {
	t := &Topology{}
	const cpuDir = "sys/devices/system/cpu"
	if s, err := readCPUList(fsys, cpuDir+"/online"); err == nil && !s.IsEmpty() {
		t.CPUs = s
	} else if ents, err := fs.ReadDir(fsys, cpuDir); err == nil {
		for _, e := range ents {
			if n, ok := cpuNumber(e.Name(), "cpu"); ok {
				t.CPUs.Add(n)
			}
		}
	}
	if t.CPUs.IsEmpty() {
		// No /sys at all: the runtime still knows how many CPUs it may use.
		t.CPUs.AddRange(0, runtime.NumCPU()-1)
	}

	cores := map[string]CPUSet{}
	pkgs := map[string]Domain{}
	caches := map[string]Cache{}
	for _, cpu := range t.CPUs.List() {
		dir := fmt.Sprintf("%s/cpu%d", cpuDir, cpu)
		core, err := readCPUList(fsys, dir+"/topology/thread_siblings_list")
		if err != nil {
			core, err = readCPUList(fsys, dir+"/topology/core_cpus_list")
		}
		if err == nil && core.Has(cpu) {
			cores[core.String()] = core
		}
		pkg, err := readCPUList(fsys, dir+"/topology/package_cpus_list")
		if err != nil {
			pkg, err = readCPUList(fsys, dir+"/topology/core_siblings_list")
		}
		if err == nil && pkg.Has(cpu) {
			id := readInt(fsys, dir+"/topology/physical_package_id", -1)
			pkgs[pkg.String()] = Domain{ID: id, CPUs: pkg}
		}
		ents, _ := fs.ReadDir(fsys, dir+"/cache")
		for _, e := range ents {
			if _, ok := cpuNumber(e.Name(), "index"); !ok {
				continue
			}
			cd := dir + "/cache/" + e.Name()
			shared, err := readCPUList(fsys, cd+"/shared_cpu_list")
			level := readInt(fsys, cd+"/level", 0)
			if err != nil || level <= 0 || !shared.Has(cpu) {
				continue
			}
			c := Cache{Level: level, Type: readString(fsys, cd+"/type"), CPUs: shared}
			c.Size, _ = parseCacheSize(readString(fsys, cd+"/size"))
			caches[fmt.Sprintf("%d/%s/%s", c.Level, c.Type, shared)] = c
		}
	}
	for _, c := range cores {
		t.Cores = append(t.Cores, c)
	}
	sort.Slice(t.Cores, func(i, j int) bool { return t.Cores[i].First() < t.Cores[j].First() })
	for _, p := range pkgs {
		t.Packages = append(t.Packages, p)
	}
	sortDomains(t.Packages)
	for _, c := range caches {
		t.Caches = append(t.Caches, c)
	}
	sort.Slice(t.Caches, func(i, j int) bool {
		a, b := t.Caches[i], t.Caches[j]
		if a.Level != b.Level {
			return a.Level < b.Level
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.CPUs.First() < b.CPUs.First()
	})

	if ents, err := fs.ReadDir(fsys, "sys/devices/system/node"); err == nil {
		for _, e := range ents {
			n, ok := cpuNumber(e.Name(), "node")
			if !ok {
				continue
			}
			s, err := readCPUList(fsys, "sys/devices/system/node/"+e.Name()+"/cpulist")
			if err == nil && !s.IsEmpty() { // memory-only nodes hold no CPU
				t.NUMANodes = append(t.NUMANodes, Domain{ID: n, CPUs: s})
			}
		}
	}
	sortDomains(t.NUMANodes)
	t.Model = readModel(fsys)
	return t
}

func sortDomains(d []Domain) {
	sort.Slice(d, func(i, j int) bool { return d[i].CPUs.First() < d[j].CPUs.First() })
}

// cpuNumber parses names like cpu12, index3, node1.
func cpuNumber(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0 && n < MaxCPU
}

func readString(fsys fs.FS, name string) string {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func readInt(fsys fs.FS, name string, def int) int {
	n, err := strconv.Atoi(readString(fsys, name))
	if err != nil {
		return def
	}
	return n
}

func readCPUList(fsys fs.FS, name string) (CPUSet, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return CPUSet{}, err
	}
	return ParseCPUList(string(b))
}

// parseCacheSize reads /sys cache sizes: "48K", "1024K", "32768K", "2M".
func parseCacheSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("not a cache size")
	}
	return n * mult, nil
}

// readModel takes the first model line of /proc/cpuinfo; architectures name it
// differently ("model name" on x86, "Processor"/"Hardware" on some ARM, "cpu" on POWER).
func readModel(fsys fs.FS) string {
	b, err := fs.ReadFile(fsys, "proc/cpuinfo")
	if err != nil {
		return ""
	}
	found := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		k = strings.TrimSpace(k)
		if ok && found[k] == "" {
			found[k] = strings.TrimSpace(v)
		}
	}
	for _, k := range []string{"model name", "Processor", "Hardware", "cpu", "uarch"} {
		if v := found[k]; v != "" {
			return v
		}
	}
	return ""
}

// lastLevel returns the highest cache level that has a cache shared by CPUs, or 0.
func (t *Topology) lastLevel() int {
	l := 0
	for _, c := range t.Caches {
		if c.Type != "Instruction" && c.Level > l {
			l = c.Level
		}
	}
	return l
}

// within reports whether s lies entirely in one of the sets.
func within(s CPUSet, sets []CPUSet) bool {
	for _, d := range sets {
		if s.SubsetOf(d) {
			return true
		}
	}
	return false
}

func domainSets(ds []Domain) []CPUSet {
	out := make([]CPUSet, len(ds))
	for i, d := range ds {
		out[i] = d.CPUs
	}
	return out
}

// cacheSets returns the CPU sets of the data or unified caches of one level.
func (t *Topology) cacheSets(level int) []CPUSet {
	var out []CPUSet
	for _, c := range t.Caches {
		if c.Level == level && c.Type != "Instruction" {
			out = append(out, c.CPUs)
		}
	}
	return out
}

// Locality says how close two processes are whose allowed CPUs are a and b: the first
// of SameCore, SameL2, SameL3, SameSocket, SameNUMA whose domain holds both sets, else
// OtherSocket when each set lies within its own package, else Unknown (a set is empty,
// spans packages, or the topology lacks the information). SameL3 means the last-level
// cache, whatever its level number, when that is above 2.
func (t *Topology) Locality(a, b CPUSet) Level {
	if a.IsEmpty() || b.IsEmpty() {
		return Unknown
	}
	u := a.Union(b)
	if within(u, t.Cores) {
		return SameCore
	}
	if within(u, t.cacheSets(2)) {
		return SameL2
	}
	if ll := t.lastLevel(); ll > 2 && within(u, t.cacheSets(ll)) {
		return SameL3
	}
	pk := domainSets(t.Packages)
	if within(u, pk) {
		return SameSocket
	}
	if within(u, domainSets(t.NUMANodes)) {
		return SameNUMA
	}
	if within(a, pk) && within(b, pk) {
		return OtherSocket
	}
	return Unknown
}

// CoreFor returns the CPUs of core i modulo the number of cores (cores ordered by their
// lowest CPU), for binding the i-th local rank to a core; the whole machine's CPUs when
// the cores are unknown.
func (t *Topology) CoreFor(i int) CPUSet {
	if len(t.Cores) == 0 || i < 0 {
		return t.CPUs
	}
	return t.Cores[i%len(t.Cores)]
}

// sizeString prints a byte count the way people read cache sizes.
func sizeString(n int64) string {
	switch {
	case n == 0:
		return "?"
	case n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// cacheName is L1d, L1i, L2, L3...
func (c Cache) name() string {
	n := "L" + strconv.Itoa(c.Level)
	switch c.Type {
	case "Data":
		n += "d"
	case "Instruction":
		n += "i"
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Summary is a one-line description: "2 CPUs, 2 cores, 1 socket, 1 NUMA node".
func (t *Topology) Summary() string {
	return fmt.Sprintf("%s, %s, %s, %s", plural(t.CPUs.Count(), "CPU", "CPUs"),
		plural(len(t.Cores), "core", "cores"), plural(len(t.Packages), "socket", "sockets"),
		plural(len(t.NUMANodes), "NUMA node", "NUMA nodes"))
}

// Describe writes the layout for people, as `mpigo info` prints it.
func (t *Topology) Describe(w io.Writer) error {
	var b strings.Builder
	model := t.Model
	if model == "" {
		model = "unknown"
	}
	fmt.Fprintf(&b, "model:   %s\n", model)
	fmt.Fprintf(&b, "cpus:    %s (online %s)\n", t.Summary(), t.CPUs)
	for _, p := range t.Packages {
		fmt.Fprintf(&b, "socket %d: cpus %s\n", p.ID, p.CPUs)
	}
	for _, n := range t.NUMANodes {
		fmt.Fprintf(&b, "numa %d:   cpus %s\n", n.ID, n.CPUs)
	}
	if len(t.Cores) > 0 {
		parts := make([]string, len(t.Cores))
		for i, c := range t.Cores {
			parts[i] = c.String()
		}
		fmt.Fprintf(&b, "cores:   %s\n", strings.Join(parts, " | "))
	}
	// One line per kind of cache: its size, how many, and who shares each.
	for i := 0; i < len(t.Caches); {
		j := i
		for j < len(t.Caches) && t.Caches[j].Level == t.Caches[i].Level && t.Caches[j].Type == t.Caches[i].Type {
			j++
		}
		parts := make([]string, 0, j-i)
		for _, c := range t.Caches[i:j] {
			parts = append(parts, c.CPUs.String())
		}
		fmt.Fprintf(&b, "%-4s     %s x%d, cpus %s\n", t.Caches[i].name(), sizeString(t.Caches[i].Size), j-i, strings.Join(parts, " | "))
		i = j
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String is Summary; Describe gives the detail.
func (t *Topology) String() string { return t.Summary() }
