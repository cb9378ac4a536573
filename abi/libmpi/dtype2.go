package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// Darray, the decoding of a type (envelope and contents), datatype attributes and
// MPI_Type_match_size.

func darray(size, rank, ndims int32, gsizes, distribs, dargs, psizes unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer, big bool) int32 {
	const op = "Type_create_darray"
	t, r := needType(op, old)
	if t == nil {
		return r
	}
	o, err := orderIn(op, order)
	if err != nil {
		return fail(op, 0, err)
	}
	if ndims < 0 {
		return fail(op, 0, errorf(errArg, op, "ndims %d is negative", ndims))
	}
	n := int(ndims)
	ds := make([]datatype.Distribution, n)
	for i, d := range ints(distribs, n) {
		switch d {
		case 16:
			ds[i] = datatype.DistributeNone
		case 17:
			ds[i] = datatype.DistributeBlock
		case 18:
			ds[i] = datatype.DistributeCyclic
		default:
			return fail(op, 0, errorf(errArg, op, "array_of_distribs[%d] %d is not MPI_DISTRIBUTE_NONE, _BLOCK or _CYCLIC", i, d))
		}
	}
	da := toInts64(ints(dargs, n))
	for i := range da {
		if da[i] == 19 { // MPI_DISTRIBUTE_DFLT_DARG
			da[i] = datatype.DefaultDarg
		}
	}
	nt, err := datatype.Darray(int64(size), int64(rank), i64s(gsizes, int64(n), big), ds, da, toInts64(ints(psizes, n)), o, t)
	return newType(op, nt, err, out, old)
}

//export PMPI_Type_create_darray
func PMPI_Type_create_darray(size, rank, ndims int32, gsizes, distribs, dargs, psizes unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer) int32 {
	return darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old, out, false)
}

//export PMPI_Type_create_darray_c
func PMPI_Type_create_darray_c(size, rank, ndims int32, gsizes, distribs, dargs, psizes unsafe.Pointer, order int32, old uintptr, out unsafe.Pointer) int32 {
	return darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old, out, true)
}

// combinerOut is the ABI's MPI_COMBINER_x for the engine's combiner.
func combinerOut(c datatype.Combiner) int {
	if c == datatype.CombinerResized {
		return 116
	}
	return 101 + int(c)
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
		return nil, 0, fail(op, 0, errorf(errType, op, "datatype %#x is not a datatype", h))
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
			return 0xF
		}
		return 0xC
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

//export PMPI_Type_match_size
func PMPI_Type_match_size(class, size int32, out unsafe.Pointer) int32 {
	const op = "Type_match_size"
	m := map[int32]map[int32]uintptr{
		192: {1: 0x2c1, 2: 0x2c9, 4: 0x2d1, 8: 0x2d9, 16: 0x2e1}, // MPI_TYPECLASS_INTEGER
		193: {2: 0x2ca, 4: 0x2d2, 8: 0x2da, 16: 0x2e2},           // MPI_TYPECLASS_REAL
		194: {4: 0x2d3, 8: 0x2db, 16: 0x2e3, 32: 0x2eb},          // MPI_TYPECLASS_COMPLEX
		191: {1: 0x2c0, 2: 0x2c8, 4: 0x2d0, 8: 0x2d8, 16: 0x2e0}, // MPIX_TYPECLASS_LOGICAL
	}
	bySize, ok := m[class]
	if !ok {
		return fail(op, 0, errorf(errArg, op, "typeclass %d is not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX", class))
	}
	h, ok := bySize[size]
	if !ok {
		return fail(op, 0, errorf(errArg, op, "no type of typeclass %d has size %d", class, size))
	}
	setHandle(out, h)
	return 0
}

// --- datatype attributes: keys from the same table as communicators' ---

//export PMPI_Type_create_keyval
func PMPI_Type_create_keyval(copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	return createKeyval("Type_create_keyval", copyFn, deleteFn, key, extra)
}

//export PMPI_Type_free_keyval
func PMPI_Type_free_keyval(key unsafe.Pointer) int32 { return freeKeyval("Type_free_keyval", key) }

func needDtype(op string, h uintptr) (*dtype, int32) {
	d := dtOf(h)
	if d == nil {
		return nil, fail(op, 0, errorf(errType, op, "datatype %#x is not a datatype", h))
	}
	return d, 0
}

//export PMPI_Type_set_attr
func PMPI_Type_set_attr(h uintptr, key int32, val unsafe.Pointer) int32 {
	const op = "Type_set_attr"
	d, r := needDtype(op, h)
	if d == nil {
		return r
	}
	if liveKey(key) == nil {
		return fail(op, 0, errorf(errKeyval, op, "keyval %d is not a key this program made (or was freed)", key))
	}
	d.mu.Lock()
	old, had := d.attrs[key]
	d.mu.Unlock()
	if had {
		if err := callDelete(op, h, key, old); err != nil {
			return fail(op, 0, err)
		}
	} else {
		refKey(key)
	}
	d.mu.Lock()
	if d.attrs == nil {
		d.attrs = map[int32]uintptr{}
	}
	d.attrs[key] = uintptr(val)
	d.mu.Unlock()
	return 0
}

//export PMPI_Type_get_attr
func PMPI_Type_get_attr(h uintptr, key int32, val, flag unsafe.Pointer) int32 {
	const op = "Type_get_attr"
	d, r := needDtype(op, h)
	if d == nil {
		return r
	}
	if val == nil || flag == nil {
		return fail(op, 0, errorf(errArg, op, "attribute_val or flag is NULL"))
	}
	if keyvals.get(uintptr(key)) == nil {
		return fail(op, 0, errorf(errKeyval, op, "keyval %d is not a key", key))
	}
	d.mu.Lock()
	v, ok := d.attrs[key]
	d.mu.Unlock()
	if ok {
		*(*uintptr)(val) = v
	}
	setBool(flag, ok)
	return 0
}

//export PMPI_Type_delete_attr
func PMPI_Type_delete_attr(h uintptr, key int32) int32 {
	const op = "Type_delete_attr"
	d, r := needDtype(op, h)
	if d == nil {
		return r
	}
	ok, err := deleteAttr(op, h, &d.mu, &d.attrs, key)
	if !ok {
		return fail(op, 0, errorf(errKeyval, op, "the datatype has no attribute with keyval %d", key))
	}
	return fail(op, 0, err)
}

// copyTypeAttrs runs the copy callbacks of old's attributes for its duplicate nw.
func copyTypeAttrs(old *dtype, oh uintptr, nw *dtype, nh uintptr) error {
	return copyAttrTable("Type_dup", oh, &old.mu, &old.attrs, &nw.mu, &nw.attrs)
}

func deleteTypeAttrs(d *dtype, h uintptr) error {
	d.mu.Lock()
	attrs := d.attrs
	d.attrs = nil
	d.mu.Unlock()
	for key, val := range attrs {
		if err := dropAttr("Type_free", h, key, val); err != nil {
			return err
		}
	}
	return nil
}

//export PMPI_Type_get_value_index
func PMPI_Type_get_value_index(value, index uintptr, out unsafe.Pointer) int32 {
	const op = "Type_get_value_index"
	if dtOf(value) == nil || dtOf(index) == nil {
		return fail(op, 0, errorf(errType, op, "value_type %#x or index_type %#x is not a datatype", value, index))
	}
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "pair_type is NULL"))
	}
	// The predefined pair types of MPI_MAXLOC and MPI_MINLOC; MPI_DATATYPE_NULL where
	// there is none, as the standard says.
	pair := map[uintptr]uintptr{0x210: 0x228, 0x214: 0x229, 0x20a: 0x22a, 0x209: 0x22b, 0x208: 0x22c, 0x220: 0x22d}
	h, ok := pair[value]
	if index != 0x209 || !ok {
		h = hDatatypeNull
	}
	setHandle(out, h)
	return 0
}
