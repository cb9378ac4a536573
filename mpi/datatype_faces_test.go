package mpi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestDatatypeFacesAgree: the datatype calls' answers where the Go and C faces once
// disagreed, now mpir's for both (abi/testdata/dtypeargs.c is the C half): ErrCount
// for negative counts, ErrArg and ErrTruncate for packing positions and room, queries
// on an uncommitted type, SetElements through a struct of mixed elements, cut names,
// and the pair type of a fixed-width value.
func TestDatatypeFacesAgree(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		class := func(what string, err error, want error) {
			t.Helper()
			if !errors.Is(err, want) {
				t.Errorf("%s: %v, want %v", what, err, want)
			}
		}
		_, err := mpi.TypeContiguous(-1, mpi.Int32)
		class("TypeContiguous(-1)", err, mpi.ErrCount)
		_, err = mpi.TypeVector(2, -1, 4, mpi.Int32)
		class("TypeVector with blocklen -1", err, mpi.ErrCount)
		_, err = mpi.TypeIndexed([]int{1, -3}, []int{0, 4}, mpi.Int32)
		class("TypeIndexed with a block of -3", err, mpi.ErrCount)
		_, err = mpi.PackExternalSize(-1, mpi.Int32)
		class("PackExternalSize(-1)", err, mpi.ErrCount)
		_, err = mpi.TypeContiguous(2, nil)
		class("TypeContiguous of nil", err, mpi.ErrType)
		class("Int32.Free", mpi.Int32.Free(), mpi.ErrType)

		// {float64; int16; int16}: the queries take it uncommitted.
		st, err := mpi.TypeStruct([]int{1, 2}, []int{0, 8}, []*mpi.Datatype{mpi.Float64, mpi.Int16})
		must(t, err)
		if n := mustV(mpi.PackSize(3, st))(t); n != 36 {
			t.Errorf("PackSize of 3 uncommitted structs: %d, want 36", n)
		}
		var s mpi.Status
		must(t, s.SetElements(st, 4))
		if e, c := mustV(s.GetElements(st))(t), mustV(s.GetCount(st))(t); e != 4 || c != mpi.Undefined {
			t.Errorf("4 elements set: GetElements %d, GetCount %d; want 4, Undefined", e, c)
		}
		must(t, s.SetElements(st, 2))
		if e := mustV(s.GetElements(st))(t); e != 2 {
			t.Errorf("2 elements set: GetElements %d", e)
		}
		class("SetElements(-1)", s.SetElements(st, -1), mpi.ErrCount)

		// Packing: a position outside the buffer is ErrArg, too little room
		// ErrTruncate, and neither moves the position.
		must(t, st.Commit())
		in, out := make([]byte, 64), make([]byte, 40)
		pos := 41
		class("Pack at 41 of 40", mpi.Pack(mpi.Typed(in, 1, st), out, &pos), mpi.ErrArg)
		pos = 30
		class("Pack of 12 bytes at 30 of 40", mpi.Pack(mpi.Typed(in, 1, st), out, &pos), mpi.ErrTruncate)
		if pos != 30 {
			t.Errorf("a failed Pack moved the position to %d", pos)
		}
		pos = 28
		must(t, mpi.Pack(mpi.Typed(in, 1, st), out, &pos))
		if pos != 40 {
			t.Errorf("Pack of 12 bytes at 28: position %d", pos)
		}
		pos = 30
		class("Unpack of 12 bytes at 30 of 40", mpi.Unpack(out, &pos, mpi.Typed(in, 1, st)), mpi.ErrTruncate)
		must(t, st.Free())

		// Names: a long one is cut; the null datatype has one.
		v, err := mpi.TypeContiguous(2, mpi.Int32)
		must(t, err)
		must(t, v.SetName(strings.Repeat("x", 299)))
		if n := mustV(v.Name())(t); len(n) != mpi.MaxObjectName {
			t.Errorf("a long name came back %d bytes", len(n))
		}
		if n := mustV((*mpi.Datatype)(nil).Name())(t); n != "MPI_DATATYPE_NULL" {
			t.Errorf("the nil Datatype is named %q", n)
		}

		// The pair types of Maxloc: int64 is C's long, int32 its int.
		for _, c := range []struct {
			v, i, want *mpi.Datatype
		}{{mpi.Int64, mpi.Int32, mpi.Int64Int32}, {mpi.Float32, mpi.Int32, mpi.Float32Int32}, {mpi.Float32, mpi.Float32, nil}} {
			if got := mustV(mpi.TypeGetValueIndex(c.v, c.i))(t); got != c.want {
				t.Errorf("TypeGetValueIndex(%s, %s) = %v, want %v", mustV(c.v.Name())(t), mustV(c.i.Name())(t), got, c.want)
			}
		}
		_, err = mpi.TypeGetValueIndex(nil, mpi.Int32)
		class("TypeGetValueIndex(nil, Int32)", err, mpi.ErrType)
	})
}
