package mpir

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

func bytesOfF64(v []float64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v))
}

func elemsOf(t *datatype.Type, name string) *Elems {
	return &Elems{Type: t, Kind: t.Kind(), Class: KindClass(t.Kind()), Size: int(t.Size()), Name: name}
}

// TestOpRed: the device's reduction of predefined and user operations over a
// datatype, and the refusals with class ErrOp naming both.
func TestOpRed(t *testing.T) {
	sum, maxloc, repl := PredefinedOp(OpSum, "MPI_SUM"), PredefinedOp(OpMaxloc, "MPI_MAXLOC"), PredefinedOp(OpReplace, "MPI_REPLACE")
	var r collective.Red
	if err := sum.Red("Allreduce", elemsOf(datatype.Float64, "MPI_DOUBLE"), &r); err != nil || r.User || r.Pair || r.Unit != 8 || r.Code != uint64(OpSum) || !r.K.Commute {
		t.Errorf("Sum on float64: %+v, %v", r, err)
	}
	if repl.Commutative() || !maxloc.Commutative() || sum.IsUser() || sum.Code() != OpSum {
		t.Error("Replace commutes, or Maxloc does not, or Sum is a user op")
	}
	// A slice of Go float64s under Maxloc is flat (value, index) pairs.
	slice := &Elems{Kind: datatype.KindFloat64, Class: KindClass(datatype.KindFloat64), Size: 8, Name: "float64"}
	if err := maxloc.Red("Allreduce", slice, &r); err != nil || !r.Pair || r.Unit != 16 {
		t.Errorf("Maxloc on a float64 slice: %+v, %v", r, err)
	}
	// A datatype of float64 is no pair type: refused.
	for _, c := range []struct {
		o    *Operation
		e    *Elems
		want []string
	}{
		{maxloc, elemsOf(datatype.Float64, "MPI_DOUBLE"), []string{"MPI_MAXLOC", "MPI_DOUBLE", "floating point"}},
		{sum, elemsOf(datatype.Bool, "MPI_C_BOOL"), []string{"MPI_SUM", "MPI_C_BOOL", "logical"}},
		{sum, elemsOf(datatype.Int16Int32, ""), []string{"MPI_SUM", "a derived datatype of int16int32", "MPI_MAXLOC and MPI_MINLOC"}},
		{sum, &Elems{Type: datatype.Int32, Kind: datatype.KindInt32, Class: NamedClass("MPI_WCHAR"), Size: 4, Name: "MPI_WCHAR"}, []string{"MPI_SUM", "MPI_WCHAR"}},
	} {
		err := c.o.Red("Reduce", c.e, &r)
		if !errors.Is(err, core.ErrOp) {
			t.Errorf("%s on %s: %v, want ErrOp", c.o.Name(), c.e.name(), err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s on %s: %q does not say %q", c.o.Name(), c.e.name(), err, w)
			}
		}
	}
	// A user op: its kernel comes from the face, for the datatype and its handle.
	var gotT *datatype.Type
	var gotH uintptr
	u := UserOp("a user function", false, func(t *datatype.Type, h uintptr) Kernel {
		gotT, gotH = t, h
		return func(inout, in []byte) { copy(inout, in) }
	})
	e := elemsOf(datatype.Float64, "MPI_DOUBLE")
	e.Handle = 0x214
	if err := u.Red("Reduce", e, &r); err != nil || !r.User || r.K.Commute || r.Code != userCode || gotT != datatype.Float64 || gotH != 0x214 {
		t.Errorf("user op: %+v, %v (kernel made for %v, %#x)", r, err, gotT, gotH)
	}
}

// TestReduceLocal: MPI_Reduce_local on a dense type, on a type with gaps (the kernel
// runs on the packed items, the gaps stay), and its count errors.
func TestReduceLocal(t *testing.T) {
	sum := PredefinedOp(OpSum, "MPI_SUM")
	in, io := []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}
	if err := ReduceLocal("Reduce_local", sum, elemsOf(datatype.Float64, "MPI_DOUBLE"), bytesOfF64(in), bytesOfF64(io), 0, 4); err != nil || io[3] != 44 {
		t.Errorf("dense: %v %v", io, err)
	}
	every2, err := datatype.Vector(2, 1, 2, datatype.Float64) // elements 0 and 2
	if err == nil {
		err = every2.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	io = []float64{10, 20, 30, 40}
	if err := ReduceLocal("Reduce_local", sum, elemsOf(every2, ""), bytesOfF64(in), bytesOfF64(io), 0, 1); err != nil ||
		io[0] != 11 || io[1] != 20 || io[2] != 33 || io[3] != 40 {
		t.Errorf("vector: %v %v", io, err)
	}
	if err := ReduceLocal("Reduce_local", sum, elemsOf(datatype.Float64, "MPI_DOUBLE"), nil, nil, 0, -1); !errors.Is(err, core.ErrCount) {
		t.Errorf("count -1: %v, want ErrCount", err)
	}
	slice := &Elems{Kind: datatype.KindFloat64, Class: KindClass(datatype.KindFloat64), Size: 8, Name: "float64"}
	if err := ReduceLocal("ReduceLocal", PredefinedOp(OpMaxloc, "Maxloc"), slice, bytesOfF64(in), bytesOfF64(io), 0, 3); !errors.Is(err, core.ErrCount) {
		t.Errorf("3 elements under Maxloc: %v, want ErrCount", err)
	}
}

// TestAccOpAndCompareSwap: the one-sided forms' checks.
func TestAccOpAndCompareSwap(t *testing.T) {
	u := UserOp("a user function", true, func(*datatype.Type, uintptr) Kernel { return nil })
	pair := elemsOf(datatype.Int32Int32, "MPI_2INT")
	if _, err := u.AccOp("Accumulate", pair, 1); !errors.Is(err, core.ErrOp) {
		t.Errorf("user op accumulate: %v, want ErrOp", err)
	}
	if _, err := u.AccOp("Accumulate", pair, 0); err != nil {
		t.Errorf("user op on a zero count: %v, want none (the op is not looked at)", err)
	}
	if c, err := PredefinedOp(OpMaxloc, "MPI_MAXLOC").AccOp("Accumulate", pair, 1); err != nil || c != OpMaxloc {
		t.Errorf("Maxloc accumulate on MPI_2INT: %v %v", c, err)
	}
	if _, err := PredefinedOp(OpSum, "MPI_SUM").AccOp("Accumulate", pair, 1); !errors.Is(err, core.ErrOp) {
		t.Errorf("Sum accumulate on MPI_2INT: %v, want ErrOp", err)
	}
	if err := CompareSwapType("Compare_and_swap", elemsOf(datatype.Int32, "MPI_INT")); err != nil {
		t.Error(err)
	}
	for _, e := range []*Elems{elemsOf(datatype.Float64, "MPI_DOUBLE"), elemsOf(datatype.Int32Int32, "MPI_2INT"),
		{Type: datatype.Int32, Kind: datatype.KindInt32, Class: NamedClass("MPI_WCHAR"), Size: 4, Name: "MPI_WCHAR"}} {
		if err := CompareSwapType("Compare_and_swap", e); !errors.Is(err, core.ErrType) {
			t.Errorf("Compare_and_swap on %s: %v, want ErrType", e.Name, err)
		}
	}
}

// TestDatatypeOpClass: a datatype's class is its predefined type's: by MPI name, so
// that MPI_INT and MPI_LOGICAL differ though one layout; a derived type's that of its
// parts when they agree; Mixed when they do not.
func TestDatatypeOpClass(t *testing.T) {
	logical, integer, cint := NewPredefined("MPI_LOGICAL", datatype.Int32), NewPredefined("MPI_INTEGER", datatype.Int32), NewPredefined("MPI_INT", datatype.Int32)
	if logical.OpClass() != NamedClass("MPI_LOGICAL") || integer.OpClass() != NamedClass("MPI_INTEGER") || cint.OpClass() == logical.OpClass() {
		t.Errorf("classes: logical %v, integer %v, int %v", logical.OpClass(), integer.OpClass(), cint.OpClass())
	}
	two, err := TypeContiguous("Type_contiguous", 2, logical, false)
	if err != nil {
		t.Fatal(err)
	}
	if two.OpClass() != logical.OpClass() {
		t.Errorf("contiguous of MPI_LOGICAL: %v", two.OpClass())
	}
	mixed, err := TypeStruct("Type_create_struct", []int64{1, 1}, []int64{0, 4}, []*Datatype{cint, logical}, false)
	if err != nil {
		t.Fatal(err)
	}
	if mixed.OpClass() != ClassMixed {
		t.Errorf("struct of MPI_INT and MPI_LOGICAL: %v, want mixed", mixed.OpClass())
	}
	if Wrap(datatype.Float64).OpClass() != KindClass(datatype.KindFloat64) {
		t.Error("a Go type's layout takes its kind's class")
	}
	// An operation's error names an unnamed derived type by its elements.
	var r collective.Red
	e := &Elems{Type: two.Type(), Kind: datatype.KindInt32, Class: two.OpClass(), Size: 8, Datatype: two}
	if err := PredefinedOp(OpBand, "MPI_BAND").Red("Reduce", e, &r); !errors.Is(err, core.ErrOp) || !strings.Contains(err.Error(), "a derived datatype of int32 (logical)") {
		t.Errorf("Band on a contiguous of MPI_LOGICAL: %v", err)
	}
}
