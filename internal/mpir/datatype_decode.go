package mpir

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// Decoding a datatype (MPI 4.1 section 5.1.13): MPI_Type_get_envelope says which
// constructor made a type and how many arguments of each kind it took;
// MPI_Type_get_contents gives them back, in the standard's order for each
// combiner (the engine's Contents).
//
// The large-count forms. The envelope describes the call that made the type, not
// the size of its values: a type made by a large-count constructor
// (MPI_Type_contiguous_c, ...) took its counts as MPI_Count, and its envelope
// counts them in num_large_counts, its contents give them in
// array_of_large_counts, however small they are. Which arguments those are is the
// constructor's C binding: every integer and address argument of all but two,
// the sizes, subsizes and starts of MPI_Type_create_subarray_c and the gsizes of
// MPI_Type_create_darray_c (MPI 4.1 Table 5.1's large-count rows). A type made by
// the int forms has no large counts, and either form of the query decodes it; the
// int form of the query cannot decode a type with large counts, which is
// MPI_ERR_TYPE, as MPICH says.

// Envelope is what MPI_Type_get_envelope says of a datatype: its combiner and how
// many integers, addresses, large counts and datatypes its contents hold.
type Envelope struct {
	Combiner                   datatype.Combiner
	Ints, Addrs, Counts, Types int
}

// Contents is what MPI_Type_get_contents gives: the constructor's arguments by
// kind, in the standard's order. Types are the datatypes it took: a predefined one
// as itself (the face gives back its Handle), a derived one as a new object, a
// copy of the layout that stays valid after the original is freed, which the face
// gives a new handle the program frees.
type Contents struct {
	Combiner            datatype.Combiner
	Ints, Addrs, Counts []int64
	Types               []*Datatype
}

// f90 is what made a type of MPI_Type_create_f90_*: its combiner and arguments,
// (p, r) or (r).
type f90 struct {
	comb datatype.Combiner
	args []int64
}

// largeCounts says which of the engine's ni integer arguments of combiner c a
// large-count constructor takes as MPI_Count, ints[lo:hi], and whether its address
// arguments too: the split of Table 5.1's large-count rows.
func largeCounts(c datatype.Combiner, ni int) (lo, hi int, addrs bool) {
	switch c {
	case datatype.CombinerNamed, datatype.CombinerDup,
		datatype.CombinerF90Real, datatype.CombinerF90Complex, datatype.CombinerF90Integer:
		return 0, 0, false
	case datatype.CombinerSubarray: // ndims, sizes, subsizes, starts, order
		return 1, 1 + 3*((ni-2)/3), false
	case datatype.CombinerDarray: // size, rank, ndims, gsizes, distribs, dargs, psizes, order
		return 3, 3 + (ni-4)/4, false
	}
	return 0, ni, true
}

// decodable checks that the form of the query (large: the _c form) can decode d.
func decodable(op string, d *Datatype, large bool, ni, na int, c datatype.Combiner) error {
	if large || !d.large {
		return nil
	}
	if lo, hi, addrs := largeCounts(c, ni); hi > lo || addrs && na > 0 {
		return core.Errorf(core.ClassType, op, "datatype %s was made by a large-count constructor: its counts are large counts, which only the _c form of the call gives", d.label())
	}
	return nil
}

// TypeEnvelope is MPI_Type_get_envelope of d; large: its _c form, which counts
// large counts apart (the int form counts none, and refuses a type that has them).
func TypeEnvelope(op string, d *Datatype, large bool) (Envelope, error) {
	if _, err := Usable(op, "datatype", d); err != nil {
		return Envelope{}, err
	}
	switch {
	case d.f90 != nil:
		return Envelope{Combiner: d.f90.comb, Ints: len(d.f90.args)}, nil
	case d.named():
		return Envelope{Combiner: datatype.CombinerNamed}, nil
	}
	c, ni, na, nt := d.t.Envelope()
	if err := decodable(op, d, large, ni, na, c); err != nil {
		return Envelope{}, err
	}
	e := Envelope{Combiner: c, Ints: ni, Addrs: na, Types: nt}
	if d.large {
		lo, hi, addrs := largeCounts(c, ni)
		e.Ints, e.Counts = ni-(hi-lo), hi-lo
		if addrs {
			e.Counts, e.Addrs = e.Counts+na, 0
		}
	}
	return e, nil
}

// TypeContents is MPI_Type_get_contents of d; large: its _c form. A named
// predefined type has no contents: asking for them is erroneous (MPI 4.1 section
// 5.1.13), an error of class MPI_ERR_ARG.
func TypeContents(op string, d *Datatype, large bool) (*Contents, error) {
	if _, err := Usable(op, "datatype", d); err != nil {
		return nil, err
	}
	switch {
	case d.f90 != nil:
		return &Contents{Combiner: d.f90.comb, Ints: append([]int64(nil), d.f90.args...)}, nil
	case d.named():
		return nil, core.Errorf(core.ClassArg, op, "%s is a named predefined datatype (MPI_COMBINER_NAMED): it has no contents", d.label())
	}
	is, as, ts, err := d.t.Contents()
	if err != nil {
		return nil, typeErr(op, err)
	}
	c, _, _, _ := d.t.Envelope()
	if err := decodable(op, d, large, len(is), len(as), c); err != nil {
		return nil, err
	}
	out := &Contents{Combiner: c, Ints: is, Addrs: as, Types: make([]*Datatype, len(ts))}
	if d.large {
		lo, hi, addrs := largeCounts(c, len(is))
		out.Counts = append([]int64(nil), is[lo:hi]...)
		out.Ints = append(is[:lo:lo], is[hi:]...)
		if addrs {
			out.Counts, out.Addrs = append(out.Counts, as...), nil
		}
	}
	for i, t := range ts {
		var p *Datatype
		if i < len(d.parts) {
			p = d.parts[i]
		}
		out.Types[i] = partOf(p, t)
	}
	return out, nil
}

// partOf is what decoding gives for the datatype argument p (nil where the engine
// made the layout t alone): a predefined type as itself, a derived one as a new
// object over a copy of its layout, with its parts, form and name.
func partOf(p *Datatype, t *datatype.Type) *Datatype {
	if p == nil {
		if t.IsPredefined() {
			return Wrap(t)
		}
		return Wrap(t.Clone())
	}
	if p.Predefined() {
		return p
	}
	return &Datatype{t: p.t.Clone(), parts: p.parts, large: p.large, name: p.Name()}
}

// Order is where the contents of a subarray or darray hold the order argument
// (datatype.OrderC or OrderFortran), for a face that writes its own constant
// there; nil for other combiners.
func (c *Contents) Order() *int64 {
	switch c.Combiner {
	case datatype.CombinerSubarray, datatype.CombinerDarray:
		return &c.Ints[len(c.Ints)-1]
	}
	return nil
}

// Distribs and Dargs are where the contents of a darray hold its distributions
// (datatype.Distribution values) and distribution arguments (DefaultDarg for the
// default), in either form; nil for other combiners.
func (c *Contents) Distribs() []int64 { return c.darrayInts(3) }

// Dargs: see Distribs.
func (c *Contents) Dargs() []int64 { return c.darrayInts(2) }

// darrayInts is the k-th last array of ndims integers before a darray's order:
// distribs, dargs, psizes are the third, second and first.
func (c *Contents) darrayInts(k int) []int64 {
	if c.Combiner != datatype.CombinerDarray {
		return nil
	}
	nd, end := int(c.Ints[2]), len(c.Ints)-1
	return c.Ints[end-k*nd : end-(k-1)*nd]
}
