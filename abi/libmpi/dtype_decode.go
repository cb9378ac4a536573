package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// The decoding of a type: MPI_Type_get_envelope and MPI_Type_get_contents, with the
// handles of the types a derived type was made from.

// combinerOut is the ABI's MPI_COMBINER_x for the engine's combiner, whose order
// is the ABI's from MPI_COMBINER_NAMED to MPI_COMBINER_DARRAY.
func combinerOut(c datatype.Combiner) int {
	if c == datatype.CombinerResized {
		return C.MPI_COMBINER_RESIZED
	}
	return C.MPI_COMBINER_NAMED + int(c)
}

// combinerOf is the ABI's MPI_COMBINER_x of the datatype of handle h.
func combinerOf(h uintptr) int {
	d, c, _ := decoded("Type_get_envelope", h)
	if d != nil && d.f90 != nil {
		return d.f90.comb
	}
	return combinerOut(c)
}

// decoded is what the engine says of the type of handle h; predefined handles
// (whatever the engine built them from) are MPI_COMBINER_NAMED.
func decoded(op string, h uintptr) (*dtype, datatype.Combiner, int32) {
	d := dtOf(h)
	if d == nil {
		return nil, 0, fail(op, 0, noType(op, h))
	}
	if h < handleBase {
		return d, datatype.CombinerNamed, 0
	}
	c, _, _, _ := d.t.Envelope()
	return d, c, 0
}

// The engine keeps orders and distributions by its own numbers: the ABI's on the way out.
func contentsInts(c datatype.Combiner, is []int64) {
	orderOut := func(v int64) int64 {
		if datatype.Order(v) == datatype.OrderFortran {
			return C.MPI_ORDER_FORTRAN
		}
		return C.MPI_ORDER_C
	}
	switch c {
	case datatype.CombinerSubarray:
		is[len(is)-1] = orderOut(is[len(is)-1])
	case datatype.CombinerDarray:
		nd := int(is[2])
		for i := 3 + nd; i < 3+2*nd; i++ {
			is[i] += 16 // None 0, Block 1, Cyclic 2 -> 16, 17, 18
		}
		for i := 3 + 2*nd; i < 3+3*nd; i++ {
			if is[i] == datatype.DefaultDarg {
				is[i] = 19
			}
		}
		is[len(is)-1] = orderOut(is[len(is)-1])
	}
}

func envelope(op string, h uintptr, ni, na, nc, nt unsafe.Pointer, big bool) int32 {
	d, c, r := decoded(op, h)
	if d == nil {
		return r
	}
	var a, b, e int
	switch {
	case d.f90 != nil:
		a = len(d.f90.args)
	case c != datatype.CombinerNamed:
		_, a, b, e = d.t.Envelope()
	}
	put := func(p unsafe.Pointer, v int) {
		if big {
			if p != nil {
				*(*int64)(p) = int64(v)
			}
		} else {
			setInt(p, v)
		}
	}
	put(ni, a)
	if big {
		put(na, b)
		setInt(nc, 0) // no large counts: every count is an int here
	} else {
		setInt(na, b)
	}
	put(nt, e)
	return 0
}

//export PMPI_Type_get_envelope
func PMPI_Type_get_envelope(h uintptr, ni, na, nt, comb unsafe.Pointer) int32 {
	r := envelope("Type_get_envelope", h, ni, na, nil, nt, false)
	if r == 0 {
		setInt(comb, combinerOf(h))
	}
	return r
}

//export PMPI_Type_get_envelope_c
func PMPI_Type_get_envelope_c(h uintptr, ni, na, nc, nt, comb unsafe.Pointer) int32 {
	r := envelope("Type_get_envelope", h, ni, na, nc, nt, true)
	if r == 0 {
		setInt(comb, combinerOf(h))
	}
	return r
}

// partHandle is the handle MPI_Type_get_contents gives for a type a constructor
// took: the predefined handle itself, or a new handle to a copy of a derived type
// (the caller frees it), which keeps its own parts.
func partHandle(p *dtype, t *datatype.Type) uintptr {
	for i, q := range predefT {
		if q != nil && q == p {
			return uintptr(0x200 + i)
		}
	}
	if p != nil && p.f90 != nil {
		if h := f90Handle(p); h != 0 {
			return h // predefined too: the same handle, never a copy
		}
	}
	d := &dtype{t: t.Clone()}
	if p != nil {
		d.parts, d.name = p.parts, p.name
	}
	return addType(d)
}

func contents(op string, h uintptr, maxi, maxa, maxt int64, is, as, ts unsafe.Pointer, big bool) int32 {
	d, c, r := decoded(op, h)
	if d == nil {
		return r
	}
	if f := d.f90; f != nil {
		// p and r (or r): MPI 4.1 §5.1.13.
		if int64(len(f.args)) > maxi {
			return fail(op, 0, errorf(errArg, op, "the integer array holds %d entries; the contents need %d", maxi, len(f.args)))
		}
		if big {
			copy(int64s(is, len(f.args)), f.args)
		} else {
			for i, v := range f.args {
				ints(is, len(f.args))[i] = int32(v)
			}
		}
		return 0
	}
	if c == datatype.CombinerNamed {
		return fail(op, 0, errorf(errArg, op, "%s is a predefined datatype (MPI_COMBINER_NAMED): it has no contents", d.name))
	}
	gi, ga, gt, err := d.t.Contents()
	if err != nil {
		return fail(op, 0, core.TypeErr(op, err))
	}
	if int64(len(gi)) > maxi || int64(len(ga)) > maxa || int64(len(gt)) > maxt {
		return fail(op, 0, errorf(errArg, op, "the arrays hold %d, %d and %d entries; the contents need %d, %d and %d (MPI_Type_get_envelope says)",
			maxi, maxa, maxt, len(gi), len(ga), len(gt)))
	}
	contentsInts(c, gi)
	if big {
		copy(int64s(is, len(gi)), gi)
	} else {
		dst := ints(is, len(gi))
		for i, v := range gi {
			dst[i] = int32(v)
		}
	}
	copy(int64s(as, len(ga)), ga)
	hs := handles(ts, len(gt))
	for i, t := range gt {
		var p *dtype
		if i < len(d.parts) {
			p = d.parts[i]
		}
		hs[i] = partHandle(p, t)
	}
	return 0
}

//export PMPI_Type_get_contents
func PMPI_Type_get_contents(h uintptr, maxi, maxa, maxt int32, is, as, ts unsafe.Pointer) int32 {
	return contents("Type_get_contents", h, int64(maxi), int64(maxa), int64(maxt), is, as, ts, false)
}

//export PMPI_Type_get_contents_c
func PMPI_Type_get_contents_c(h uintptr, maxi, maxa, maxc, maxt int64, is, as, cs, ts unsafe.Pointer) int32 {
	return contents("Type_get_contents", h, maxi, maxa, maxt, is, as, ts, true)
}

// --- datatype attributes: keys from the same table as communicators' ---
