package topo

import "strconv"

// ResourceTypes are the hardware resource types mpigo can tell a process's place in,
// from the largest to the smallest, named as hwloc names its object types: MPI's
// hardware resource types (MPI 4.1 sections 7.4.2 and 9.1.2) are commonly given in
// hwloc's names, so programs written for other MPIs find the same ones here. The list
// is fixed, not read from the machine, so that processes on different nodes index it
// alike. Caches are data or unified caches of that level (hwloc's L1Cache is the data
// cache).
var ResourceTypes = []string{"Machine", "Package", "NUMANode", "L4Cache", "L3Cache", "L2Cache", "L1Cache", "Core", "PU"}

// Instances returns the CPU sets of the instances of a resource type on this machine:
// nil for a type it lacks (a cache level that does not exist, NUMA nodes a container
// does not show) or that is not in ResourceTypes.
func (t *Topology) Instances(typ string) []CPUSet {
	switch typ {
	case "Machine":
		return []CPUSet{t.CPUs}
	case "Package":
		return domainSets(t.Packages)
	case "NUMANode":
		return domainSets(t.NUMANodes)
	case "Core":
		return t.Cores
	case "PU":
		return t.pus()
	}
	if level, ok := cacheLevel(typ); ok {
		return t.cacheSets(level)
	}
	return nil
}

// pus is each online CPU as a set of its own.
func (t *Topology) pus() []CPUSet {
	var out []CPUSet
	for _, c := range t.CPUs.List() {
		out = append(out, NewCPUSet(c))
	}
	return out
}

// cacheLevel reads "L<n>Cache".
func cacheLevel(typ string) (int, bool) {
	if len(typ) < len("L1Cache") || typ[0] != 'L' || typ[len(typ)-5:] != "Cache" {
		return 0, false
	}
	n, err := strconv.Atoi(typ[1 : len(typ)-5])
	return n, err == nil && n > 0
}

// InstanceOf says which instance of a resource type holds all of set, the CPUs a
// process may run on: the instance's lowest CPU, which names it uniquely on this
// machine. It is -1 when set is empty or spans several instances, or when the machine
// has no instance of the type: the process is then not restricted to one instance.
func (t *Topology) InstanceOf(typ string, set CPUSet) int {
	if set.IsEmpty() {
		return -1
	}
	for _, in := range t.Instances(typ) {
		if set.SubsetOf(in) {
			return in.First()
		}
	}
	return -1
}
