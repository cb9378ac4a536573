package datatype

import (
	"fmt"
	"math/rand/v2"
)

// This file is the test oracle: a naive typemap walker written from the MPI
// standard's definitions, using only a type's envelope and contents (and the
// extents of its parts), never the compiled program.

// elem is one basic element of a typemap: size bytes at disp.
type elem struct{ disp, size int64 }

// refPairs is the layout of the predefined pair types.
var refPairs = map[*Type][]elem{
	Float32Int32: {{0, 4}, {4, 4}},
	Float64Int32: {{0, 8}, {8, 4}},
	Int64Int32:   {{0, 8}, {8, 4}},
	Int32Int32:   {{0, 4}, {4, 4}},
	Int16Int32:   {{0, 2}, {4, 4}},
}

func shifted(m []elem, d int64) []elem {
	out := make([]elem, len(m))
	for i, e := range m {
		out[i] = elem{e.disp + d, e.size}
	}
	return out
}

// typemap returns t's typemap in order.
func typemap(t *Type) []elem {
	c, _, _, _ := t.Envelope()
	if c == CombinerNamed {
		if m, ok := refPairs[t]; ok {
			return m
		}
		return []elem{{0, t.Size()}}
	}
	ints, addrs, types, err := t.Contents()
	if err != nil {
		panic(err)
	}
	var out []elem
	old := types[0]
	ext := old.Extent()
	om := typemap(old)
	switch c {
	case CombinerDup, CombinerResized:
		return om
	case CombinerContiguous:
		for i := range ints[0] {
			out = append(out, shifted(om, i*ext)...)
		}
	case CombinerVector, CombinerHvector:
		count, bl := ints[0], ints[1]
		stride := ints[2:len(ints):len(ints)]
		var s int64
		if c == CombinerVector {
			s = stride[0] * ext
		} else {
			s = addrs[0]
		}
		for i := range count {
			for j := range bl {
				out = append(out, shifted(om, i*s+j*ext)...)
			}
		}
	case CombinerIndexed, CombinerHindexed:
		n := ints[0]
		for i := range n {
			var d int64
			if c == CombinerIndexed {
				d = ints[1+n+i] * ext
			} else {
				d = addrs[i]
			}
			for j := range ints[1+i] {
				out = append(out, shifted(om, d+j*ext)...)
			}
		}
	case CombinerIndexedBlock, CombinerHindexedBlock:
		n, bl := ints[0], ints[1]
		for i := range n {
			var d int64
			if c == CombinerIndexedBlock {
				d = ints[2+i] * ext
			} else {
				d = addrs[i]
			}
			for j := range bl {
				out = append(out, shifted(om, d+j*ext)...)
			}
		}
	case CombinerStruct:
		for i := range ints[0] {
			m := typemap(types[i])
			for j := range ints[1+i] {
				out = append(out, shifted(m, addrs[i]+j*types[i].Extent())...)
			}
		}
	case CombinerSubarray:
		nd := int(ints[0])
		sizes, subs, starts := ints[1:1+nd], ints[1+nd:1+2*nd], ints[1+2*nd:1+3*nd]
		fortran := ints[1+3*nd] == int64(OrderFortran)
		forEachIndex(subs, fortran, func(idx []int64) {
			g := make([]int64, nd)
			for k := range idx {
				g[k] = starts[k] + idx[k]
			}
			out = append(out, shifted(om, linear(g, sizes, fortran)*ext)...)
		})
	case CombinerDarray:
		size, rank, nd := ints[0], ints[1], int(ints[2])
		gs := ints[3 : 3+nd]
		dist := ints[3+nd : 3+2*nd]
		dargs := ints[3+2*nd : 3+3*nd]
		ps := ints[3+3*nd : 3+4*nd]
		fortran := ints[3+4*nd] == int64(OrderFortran)
		_ = size
		coords := make([]int64, nd)
		r := rank
		for i := nd - 1; i >= 0; i-- {
			coords[i] = r % ps[i]
			r /= ps[i]
		}
		forEachIndex(gs, fortran, func(g []int64) {
			for k := range nd {
				if refOwner(g[k], gs[k], Distribution(dist[k]), dargs[k], ps[k]) != coords[k] {
					return
				}
			}
			out = append(out, shifted(om, linear(g, gs, fortran)*ext)...)
		})
	default:
		panic(fmt.Sprintf("typemap: combiner %s", c))
	}
	return out
}

// refOwner returns the process coordinate owning index i of a dimension.
func refOwner(i, g int64, d Distribution, darg, p int64) int64 {
	switch d {
	case DistributeBlock:
		b := (g + p - 1) / p
		if darg != DefaultDarg {
			b = darg
		}
		return i / b
	case DistributeCyclic:
		k := int64(1)
		if darg != DefaultDarg {
			k = darg
		}
		return (i / k) % p
	}
	return 0
}

// forEachIndex calls f with every index tuple below dims, in storage order.
func forEachIndex(dims []int64, fortran bool, f func([]int64)) {
	nd := len(dims)
	idx := make([]int64, nd)
	for {
		f(idx)
		k := nd - 1
		step := -1
		if fortran {
			k, step = 0, 1
		}
		for ; k >= 0 && k < nd; k += step {
			idx[k]++
			if idx[k] < dims[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 || k >= nd {
			return
		}
	}
}

func linear(g, dims []int64, fortran bool) int64 {
	var l int64
	if fortran {
		for k := len(dims) - 1; k >= 0; k-- {
			l = l*dims[k] + g[k]
		}
		return l
	}
	for k := range dims {
		l = l*dims[k] + g[k]
	}
	return l
}

// refPack packs count instances of the typemap m (extent ext) from src,
// whose base address is src[origin].
func refPack(m []elem, ext, count int64, src []byte, origin int64) []byte {
	var out []byte
	for k := range count {
		for _, e := range m {
			o := origin + k*ext + e.disp
			out = append(out, src[o:o+e.size]...)
		}
	}
	return out
}

// refUnpack is refPack's inverse: it writes packed into dst in typemap order.
func refUnpack(m []elem, ext, count int64, dst []byte, origin int64, packed []byte) {
	p := int64(0)
	for k := range count {
		for _, e := range m {
			o := origin + k*ext + e.disp
			copy(dst[o:o+e.size], packed[p:p+e.size])
			p += e.size
		}
	}
}

// refSpan returns the lowest and one past the highest byte count instances
// of the typemap touch.
func refSpan(m []elem, ext, count int64) (lo, hi int64) {
	first := true
	for k := range count {
		for _, e := range m {
			if e.size == 0 {
				continue
			}
			d := k*ext + e.disp
			if first || d < lo {
				lo = d
			}
			if first || d+e.size > hi {
				hi = d + e.size
			}
			first = false
		}
	}
	return lo, hi
}

// randType builds a random type of at most depth levels of constructors,
// with small counts, negative strides and displacements, holes, overlaps
// avoided only where the standard requires nothing.
func randType(r *rand.Rand, depth int) *Type {
	if depth == 0 || r.IntN(4) == 0 {
		return Predefined[r.IntN(len(Predefined))]
	}
	old := randType(r, depth-1)
	ext := max(old.Extent(), 1)
	small := func(n int) int64 { return int64(r.IntN(n)) }
	var t *Type
	var err error
	switch r.IntN(12) {
	case 0:
		t, err = Contiguous(small(4), old)
	case 1:
		t, err = Vector(small(5), small(4), small(9)-3, old)
	case 2:
		t, err = Hvector(small(5), small(4), (small(9)-3)*ext+small(3), old)
	case 3, 4:
		n := r.IntN(6)
		bl, d := make([]int64, n), make([]int64, n)
		for i := range n {
			bl[i], d[i] = small(4), small(20)-5
		}
		t, err = Indexed(bl, d, old)
	case 5:
		n := r.IntN(6)
		bl, d := make([]int64, n), make([]int64, n)
		for i := range n {
			bl[i], d[i] = small(4), (small(20)-5)*ext+small(5)
		}
		t, err = Hindexed(bl, d, old)
	case 6:
		n := r.IntN(6)
		d := make([]int64, n)
		for i := range n {
			d[i] = small(20) - 5
		}
		t, err = IndexedBlock(small(4), d, old)
	case 7:
		n := r.IntN(6)
		d := make([]int64, n)
		for i := range n {
			d[i] = small(40) - 10
		}
		t, err = HindexedBlock(small(3), d, old)
	case 8:
		n := r.IntN(4) + 1
		bl, d, ts := make([]int64, n), make([]int64, n), make([]*Type, n)
		var off int64
		for i := range n {
			ts[i] = old
			if i > 0 {
				ts[i] = randType(r, depth-1)
			}
			bl[i], d[i] = small(3), off
			off += bl[i]*ts[i].Extent() + small(9)
		}
		t, err = Struct(bl, d, ts)
	case 9:
		// Any extent: larger, smaller, zero or negative (instances of a
		// count then step backwards, and overlap).
		e := old.Extent() + small(9)
		switch r.IntN(4) {
		case 0:
			e = -e
		case 1:
			e = small(9) - 4
		}
		t, err = Resized(old, small(9)-4, e)
	case 10:
		nd := r.IntN(3) + 1
		sz, sub, st := make([]int64, nd), make([]int64, nd), make([]int64, nd)
		for i := range nd {
			sz[i] = small(4) + 1
			sub[i] = small(int(sz[i])) + 1
			st[i] = small(int(sz[i]-sub[i]) + 1)
		}
		t, err = Subarray(sz, sub, st, Order(r.IntN(2)), old)
	default:
		nd := r.IntN(2) + 1
		gs, ds, dg, ps := make([]int64, nd), make([]Distribution, nd), make([]int64, nd), make([]int64, nd)
		size := int64(1)
		for i := range nd {
			gs[i] = small(7) + 1
			ds[i] = Distribution(r.IntN(3))
			ps[i] = small(3) + 1
			dg[i] = DefaultDarg
			switch ds[i] {
			case DistributeNone:
				ps[i] = 1
			case DistributeCyclic:
				if r.IntN(2) == 0 {
					dg[i] = small(3) + 1
				}
			}
			size *= ps[i]
		}
		t, err = Darray(size, small(int(size)), gs, ds, dg, ps, Order(r.IntN(2)), old)
	}
	if err != nil {
		panic(err)
	}
	return t
}
