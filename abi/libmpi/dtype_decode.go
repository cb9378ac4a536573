package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// The decoding of a type, MPI_Type_get_envelope and MPI_Type_get_contents, is
// mpir's: which combiner, how many arguments of each kind, which of them are large
// counts. Here its answer is written into the caller's variables and arrays, with the
// ABI's numbers for combiners, orders and distributions, and the handles of the
// types: a predefined type's own, a new handle (the caller frees it) for a derived
// one.

// combinersOut are the ABI's MPI_COMBINER_x by the engine's combiner.
var combinersOut = [...]int{
	datatype.CombinerNamed:         C.MPI_COMBINER_NAMED,
	datatype.CombinerDup:           C.MPI_COMBINER_DUP,
	datatype.CombinerContiguous:    C.MPI_COMBINER_CONTIGUOUS,
	datatype.CombinerVector:        C.MPI_COMBINER_VECTOR,
	datatype.CombinerHvector:       C.MPI_COMBINER_HVECTOR,
	datatype.CombinerIndexed:       C.MPI_COMBINER_INDEXED,
	datatype.CombinerHindexed:      C.MPI_COMBINER_HINDEXED,
	datatype.CombinerIndexedBlock:  C.MPI_COMBINER_INDEXED_BLOCK,
	datatype.CombinerHindexedBlock: C.MPI_COMBINER_HINDEXED_BLOCK,
	datatype.CombinerStruct:        C.MPI_COMBINER_STRUCT,
	datatype.CombinerSubarray:      C.MPI_COMBINER_SUBARRAY,
	datatype.CombinerDarray:        C.MPI_COMBINER_DARRAY,
	datatype.CombinerResized:       C.MPI_COMBINER_RESIZED,
	datatype.CombinerF90Real:       C.MPI_COMBINER_F90_REAL,
	datatype.CombinerF90Complex:    C.MPI_COMBINER_F90_COMPLEX,
	datatype.CombinerF90Integer:    C.MPI_COMBINER_F90_INTEGER,
}

func envelope(op string, h uintptr, ni, na, nc, nt, comb unsafe.Pointer, large bool) int32 {
	m, r := needObj(op, h)
	if m == nil {
		return r
	}
	var err error
	if large {
		err = nullOut(op, "num_integers, num_addresses, num_large_counts, num_datatypes, combiner", ni, na, nc, nt, comb)
	} else {
		err = nullOut(op, "num_integers, num_addresses, num_datatypes, combiner", ni, na, nt, comb)
	}
	if err != nil {
		return fail(op, 0, err)
	}
	e, err := mpir.TypeEnvelope(op, m, large)
	if err != nil {
		return fail(op, 0, err)
	}
	if large {
		for _, o := range []struct {
			p unsafe.Pointer
			v int
		}{{ni, e.Ints}, {na, e.Addrs}, {nc, e.Counts}, {nt, e.Types}} {
			*(*int64)(o.p) = int64(o.v)
		}
	} else {
		setInt(ni, e.Ints)
		setInt(na, e.Addrs)
		setInt(nt, e.Types)
	}
	setInt(comb, combinersOut[e.Combiner])
	return 0
}

//export PMPI_Type_get_envelope
func PMPI_Type_get_envelope(h uintptr, ni, na, nt, comb unsafe.Pointer) int32 {
	return envelope("Type_get_envelope", h, ni, na, nil, nt, comb, false)
}

//export PMPI_Type_get_envelope_c
func PMPI_Type_get_envelope_c(h uintptr, ni, na, nc, nt, comb unsafe.Pointer) int32 {
	return envelope("Type_get_envelope_c", h, ni, na, nc, nt, comb, true)
}

// distribsOut are the ABI's distributions by the engine's.
var distribsOut = [...]int64{
	datatype.DistributeNone:   C.MPI_DISTRIBUTE_NONE,
	datatype.DistributeBlock:  C.MPI_DISTRIBUTE_BLOCK,
	datatype.DistributeCyclic: C.MPI_DISTRIBUTE_CYCLIC,
}

// abiContents puts the ABI's numbers for the order and distributions in c.
func abiContents(c *mpir.Contents) {
	if p := c.Order(); p != nil {
		if datatype.Order(*p) == datatype.OrderFortran {
			*p = C.MPI_ORDER_FORTRAN
		} else {
			*p = C.MPI_ORDER_C
		}
	}
	ds := c.Distribs()
	for i, d := range ds {
		ds[i] = distribsOut[d]
	}
	das := c.Dargs()
	for i, d := range das {
		if d == datatype.DefaultDarg {
			das[i] = C.MPI_DISTRIBUTE_DFLT_DARG
		}
	}
}

// room checks that the caller's arrays hold the contents.
func room(op string, c *mpir.Contents, maxi, maxa, maxc, maxt int64) error {
	if int64(len(c.Ints)) > maxi || int64(len(c.Addrs)) > maxa || int64(len(c.Counts)) > maxc || int64(len(c.Types)) > maxt {
		return errorf(errArg, op, "the arrays hold %d integers, %d addresses, %d large counts and %d datatypes; the contents are %d, %d, %d and %d (as MPI_Type_get_envelope says)",
			maxi, maxa, maxc, maxt, len(c.Ints), len(c.Addrs), len(c.Counts), len(c.Types))
	}
	return nil
}

// partHandle is the handle of a datatype argument mpir decoded: a predefined type's
// own, else a new one, which the caller frees.
func partHandle(m *mpir.Datatype) uintptr {
	if h, ok := m.Handle.(uintptr); ok {
		return h
	}
	return addObj(m)
}

func contents(op string, h uintptr, maxi, maxa, maxc, maxt int64, is, as, cs, ts unsafe.Pointer, large bool) int32 {
	m, r := needObj(op, h)
	if m == nil {
		return r
	}
	c, err := mpir.TypeContents(op, m, large)
	if err == nil {
		err = room(op, c, maxi, maxa, maxc, maxt)
	}
	var ints []int32
	var addrs, counts []int64
	var types []uintptr
	if err == nil {
		ints, err = cArray[int32](op, "array_of_integers", is, int64(len(c.Ints)))
	}
	if err == nil {
		addrs, err = cArray[int64](op, "array_of_addresses", as, int64(len(c.Addrs)))
	}
	if err == nil {
		counts, err = cArray[int64](op, "array_of_large_counts", cs, int64(len(c.Counts)))
	}
	if err == nil {
		types, err = cArray[uintptr](op, "array_of_datatypes", ts, int64(len(c.Types)))
	}
	if err != nil {
		return fail(op, 0, err)
	}
	abiContents(c)
	for i, v := range c.Ints {
		if int64(int32(v)) != v { // a large count where an int belongs: no constructor makes one
			return fail(op, 0, errorf(core.ClassIntern, op, "array_of_integers[%d] is %d, which an int cannot hold", i, v))
		}
		ints[i] = int32(v)
	}
	copy(addrs, c.Addrs)
	copy(counts, c.Counts)
	for i, p := range c.Types {
		types[i] = partHandle(p)
	}
	return 0
}

//export PMPI_Type_get_contents
func PMPI_Type_get_contents(h uintptr, maxi, maxa, maxt int32, is, as, ts unsafe.Pointer) int32 {
	return contents("Type_get_contents", h, int64(maxi), int64(maxa), 0, int64(maxt), is, as, nil, ts, false)
}

//export PMPI_Type_get_contents_c
func PMPI_Type_get_contents_c(h uintptr, maxi, maxa, maxc, maxt int64, is, as, cs, ts unsafe.Pointer) int32 {
	return contents("Type_get_contents_c", h, maxi, maxa, maxc, maxt, is, as, cs, ts, true)
}
