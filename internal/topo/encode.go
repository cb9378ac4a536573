package topo

import (
	"encoding/binary"
	"fmt"
)

// topoVersion starts the wire form of a Topology, so that a future layout is refused
// with a clear error instead of being misread.
const topoVersion = 1

// Wire limits: far above any real node, low enough that garbage cannot make the
// decoder allocate much.
const (
	maxDomains = MaxCPU
	maxCaches  = 1 << 16
	maxLevel   = 16
)

var cacheTypes = []string{"", "Data", "Instruction", "Unified"}

func cacheTypeCode(t string) uint64 {
	for i, n := range cacheTypes {
		if n == t {
			return uint64(i)
		}
	}
	return 0 // other names are not worth carrying
}

// MarshalBinary returns the node layout's wire form, published once per node in the
// wire-up (pm.KeyNodeTopo): a version byte, the model name, the online CPUs, the cores,
// packages, NUMA nodes and caches, each CPU set in CPUSet's run-length form.
func (t *Topology) MarshalBinary() ([]byte, error) {
	b := []byte{topoVersion}
	b = binary.AppendUvarint(b, uint64(len(t.Model)))
	b = append(b, t.Model...)
	b, _ = t.CPUs.AppendBinary(b)
	b = binary.AppendUvarint(b, uint64(len(t.Cores)))
	for _, c := range t.Cores {
		b, _ = c.AppendBinary(b)
	}
	for _, ds := range [][]Domain{t.Packages, t.NUMANodes} {
		b = binary.AppendUvarint(b, uint64(len(ds)))
		for _, d := range ds {
			b = binary.AppendUvarint(b, uint64(d.ID+1)) // -1 (unknown) travels as 0
			b, _ = d.CPUs.AppendBinary(b)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(t.Caches)))
	for _, c := range t.Caches {
		b = binary.AppendUvarint(b, uint64(c.Level))
		b = binary.AppendUvarint(b, cacheTypeCode(c.Type))
		b = binary.AppendUvarint(b, uint64(c.Size))
		b, _ = c.CPUs.AppendBinary(b)
	}
	return b, nil
}

// UnmarshalBinary reads a layout written by MarshalBinary.
func (t *Topology) UnmarshalBinary(data []byte) error {
	if len(data) == 0 || data[0] != topoVersion {
		v := -1
		if len(data) > 0 {
			v = int(data[0])
		}
		return fmt.Errorf("node layout version %d, this mpigo reads version %d", v, topoVersion)
	}
	r := reader{b: data[1:]}
	var n Topology
	n.Model = r.str("model name")
	n.CPUs = r.cpuset("online cpus")
	cores := r.bounded("core count", maxDomains)
	for i := 0; i < cores && r.err == nil; i++ {
		n.Cores = append(n.Cores, r.cpuset("core"))
	}
	for _, dst := range []*[]Domain{&n.Packages, &n.NUMANodes} {
		cnt := r.bounded("domain count", maxDomains)
		for i := 0; i < cnt && r.err == nil; i++ {
			id := r.bounded("domain id", MaxCPU+1) - 1
			*dst = append(*dst, Domain{ID: id, CPUs: r.cpuset("domain")})
		}
	}
	caches := r.bounded("cache count", maxCaches)
	for i := 0; i < caches && r.err == nil; i++ {
		var c Cache
		c.Level = r.bounded("cache level", maxLevel)
		c.Type = cacheTypes[r.bounded("cache type", uint64(len(cacheTypes)-1))]
		c.Size = int64(r.bounded("cache size", 1<<50))
		c.CPUs = r.cpuset("cache cpus")
		n.Caches = append(n.Caches, c)
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("node layout: %d bytes left over", len(r.b))
	}
	if r.err != nil {
		return r.err
	}
	*t = n
	return nil
}
