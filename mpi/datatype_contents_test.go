package mpi_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// rebuild makes a type again from its envelope and contents, as a tool reading
// MPI_Type_get_contents would.
func rebuild(t *testing.T, d *mpi.Datatype) *mpi.Datatype {
	t.Helper()
	comb, ni, na, nt, err := d.Envelope()
	must(t, err)
	ints, addrs, types, err := d.Contents()
	must(t, err)
	if len(ints) != ni || len(addrs) != na || len(types) != nt {
		t.Fatalf("%v: Contents gave %d ints, %d addresses, %d types; Envelope said %d, %d, %d",
			comb, len(ints), len(addrs), len(types), ni, na, nt)
	}
	var r *mpi.Datatype
	switch comb {
	case mpi.CombinerContiguous:
		r, err = mpi.TypeContiguous(ints[0], types[0])
	case mpi.CombinerVector:
		r, err = mpi.TypeVector(ints[0], ints[1], ints[2], types[0])
	case mpi.CombinerHvector:
		r, err = mpi.TypeHvector(ints[0], ints[1], addrs[0], types[0])
	case mpi.CombinerIndexed:
		n := ints[0]
		r, err = mpi.TypeIndexed(ints[1:1+n], ints[1+n:1+2*n], types[0])
	case mpi.CombinerHindexed:
		r, err = mpi.TypeHindexed(ints[1:1+ints[0]], addrs, types[0])
	case mpi.CombinerIndexedBlock:
		r, err = mpi.TypeIndexedBlock(ints[1], ints[2:2+ints[0]], types[0])
	case mpi.CombinerHindexedBlock:
		r, err = mpi.TypeHindexedBlock(ints[1], addrs, types[0])
	case mpi.CombinerStruct:
		r, err = mpi.TypeStruct(ints[1:1+ints[0]], addrs, types)
	case mpi.CombinerSubarray:
		n := ints[0]
		r, err = mpi.TypeSubarray(ints[1:1+n], ints[1+n:1+2*n], ints[1+2*n:1+3*n], mpi.Order(ints[1+3*n]), types[0])
	case mpi.CombinerDarray:
		n := ints[2]
		g := ints[3 : 3+n]
		dist := make([]mpi.Distribution, n)
		for i := range dist {
			dist[i] = mpi.Distribution(ints[3+n+i])
		}
		r, err = mpi.TypeDarray(ints[0], ints[1], g, dist, ints[3+2*n:3+3*n], ints[3+3*n:3+4*n], mpi.Order(ints[3+4*n]), types[0])
	case mpi.CombinerResized:
		r, err = mpi.TypeResized(types[0], addrs[0], addrs[1])
	case mpi.CombinerDup:
		r, err = types[0].Dup()
	default:
		t.Fatalf("no rebuild for combiner %v", comb)
	}
	must(t, err)
	if rc, _, _, _, _ := r.Envelope(); rc != comb {
		t.Errorf("rebuilt %v as %v", comb, rc)
	}
	return r
}

// TestTypeGetContentsRebuilds: every constructor's contents rebuild a type with the
// same size, bounds and layout, which carries the same message; predefined inner
// types come back as the package's handles, derived ones as handles that outlive the
// freed original; a predefined type has no contents.
func TestTypeGetContentsRebuilds(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		pair, err := mpi.TypeVector(2, 1, 3, mpi.Int32)
		must(t, err)
		type rec struct {
			A int32
			B float64
		}
		rt, err := mpi.TypeOf[rec]()
		must(t, err)
		mk := func(d *mpi.Datatype, err error) *mpi.Datatype { must(t, err); return d }
		cases := []struct {
			name string
			d    *mpi.Datatype
		}{
			{"contiguous", mk(mpi.TypeContiguous(3, mpi.Int32))},
			{"vector", mk(mpi.TypeVector(3, 2, 4, mpi.Int16))},
			{"hvector", mk(mpi.TypeHvector(2, 1, 24, pair))},
			{"indexed", mk(mpi.TypeIndexed([]int{2, 1}, []int{1, 5}, mpi.Int32))},
			{"hindexed", mk(mpi.TypeHindexed([]int{1, 2}, []int{40, 0}, mpi.Int64))},
			{"indexed_block", mk(mpi.TypeIndexedBlock(2, []int{4, 0}, mpi.Uint16))},
			{"hindexed_block", mk(mpi.TypeHindexedBlock(1, []int{8, 0, 32}, mpi.Float64))},
			{"struct", mk(mpi.TypeStruct([]int{1, 2}, []int{0, 8}, []*mpi.Datatype{mpi.Int8, mpi.Float64}))},
			{"subarray", mk(mpi.TypeSubarray([]int{4, 5}, []int{2, 3}, []int{1, 1}, mpi.OrderFortran, mpi.Float32))},
			{"darray", mk(mpi.TypeDarray(4, 1, []int{6, 4}, []mpi.Distribution{mpi.DistributeCyclic, mpi.DistributeBlock},
				[]int{2, mpi.DistributeDflt}, []int{2, 2}, mpi.OrderC, mpi.Int32))},
			{"resized", mk(mpi.TypeResized(pair, -4, 40))},
			{"dup", mk(pair.Dup())},
			{"TypeOf", rt},
		}
		for _, c := range cases {
			r := rebuild(t, c.d)
			for _, q := range []func(*mpi.Datatype) (int64, error){(*mpi.Datatype).Size, (*mpi.Datatype).LB,
				(*mpi.Datatype).Extent, (*mpi.Datatype).TrueLB, (*mpi.Datatype).TrueExtent} {
				if a, b := mustV(q(c.d))(t), mustV(q(r))(t); a != b {
					t.Errorf("%s: rebuilt type's size or bound %d, want %d", c.name, b, a)
				}
			}
			must(t, c.d.Commit())
			must(t, r.Commit())
			// Both pick the same bytes: rank 0 sends with the original, rank 1
			// receives with the rebuilt type and compares with its own packing.
			lb, ext := mustV(c.d.TrueLB())(t), mustV(c.d.TrueExtent())(t)
			src := make([]byte, 2*(ext+mustV(c.d.Extent())(t))+64)
			for i := range src {
				src[i] = byte(i*7 + 1)
			}
			base := int(64 - lb) // room below for a negative lower bound
			base = max(0, min(base, 64))
			if rank == 0 {
				must(t, mpi.SendBuf(mpi.World, mpi.Typed(src[base:], 2, c.d), 1, 0))
				continue
			}
			got := make([]byte, len(src))
			_, err := mpi.RecvBuf(mpi.World, mpi.Typed(got[base:], 2, r), 0, 0)
			must(t, err)
			n := mustV(mpi.PackSize(2, r))(t)
			a, b := make([]byte, n), make([]byte, n)
			pa, pb := 0, 0
			must(t, mpi.Pack(mpi.Typed(src[base:], 2, c.d), a, &pa))
			must(t, mpi.Pack(mpi.Typed(got[base:], 2, r), b, &pb))
			if !bytes.Equal(a, b) {
				t.Errorf("%s: the rebuilt type received % x, want % x", c.name, b, a)
			}
		}

		// Inner types: predefined ones are the package's handles; a derived one is
		// a handle of its own that stays valid when the original is freed.
		v, err := mpi.TypeVector(2, 1, 2, pair)
		must(t, err)
		_, _, ts, err := v.Contents()
		must(t, err)
		must(t, pair.Free())
		if _, err := pair.Dup(); !errors.Is(err, mpi.ErrType) {
			t.Errorf("Dup of a freed type: %v, want ErrType", err)
		}
		if _, err := pair.Size(); !errors.Is(err, mpi.ErrType) {
			t.Errorf("Size of a freed type: %v, want ErrType", err)
		}
		again, err := mpi.TypeContiguous(2, ts[0])
		must(t, err)
		must(t, again.Commit())
		if _, _, inner, err := ts[0].Contents(); err != nil || inner[0] != mpi.Int32 {
			t.Errorf("contents of a vector of Int32: %v, %v; want the handle mpi.Int32", inner, err)
		}
		must(t, ts[0].Free())
		if _, _, _, err := mpi.Float64.Contents(); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("Contents of a predefined type: %v, want ErrArg", err)
		}
	})
}

// TestDatatypeNames: the predefined types carry their MPI names; a derived type's name
// is empty until set; SetName renames any type and cuts a name MPI could not hold.
func TestDatatypeNames(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		want := map[*mpi.Datatype]string{
			mpi.Int8: "MPI_INT8_T", mpi.Int16: "MPI_INT16_T", mpi.Int32: "MPI_INT32_T", mpi.Int64: "MPI_INT64_T",
			mpi.Int: "MPI_INT64_T", mpi.Uint: "MPI_UINT64_T", mpi.Uint8: "MPI_UINT8_T", mpi.Uint16: "MPI_UINT16_T", mpi.Uint32: "MPI_UINT32_T",
			mpi.Uint64: "MPI_UINT64_T", mpi.Float32: "MPI_FLOAT", mpi.Float64: "MPI_DOUBLE",
			mpi.Complex64: "MPI_C_FLOAT_COMPLEX", mpi.Complex128: "MPI_C_DOUBLE_COMPLEX", mpi.Bool: "MPI_C_BOOL",
			mpi.Byte: "MPI_BYTE", mpi.Packed: "MPI_PACKED", mpi.Float32Int32: "MPI_FLOAT_INT",
			mpi.Float64Int32: "MPI_DOUBLE_INT", mpi.Int64Int32: "MPI_LONG_INT", mpi.Int32Int32: "MPI_2INT",
			mpi.Int16Int32: "MPI_SHORT_INT",
		}
		for d, w := range want {
			if got := mustV(d.Name())(t); got != w {
				t.Errorf("predefined type named %q, want %q", got, w)
			}
		}
		// Go's int is named for its width, and packs as that type does in external32
		// (MPI 4.1 §5.2.11: MPI_INT64_T is 8 bytes there, MPI_LONG 4).
		for _, d := range []*mpi.Datatype{mpi.Int, mpi.Uint} {
			if n := mustV(mpi.PackExternalSize(1, d))(t); n != 8 {
				t.Errorf("external32 size of %s = %d, want 8", mustV(d.Name())(t), n)
			}
		}
		v, err := mpi.TypeVector(2, 1, 2, mpi.Float64)
		must(t, err)
		if got := mustV(v.Name())(t); got != "" {
			t.Errorf("an unnamed derived type is named %q, want the empty string", got)
		}
		must(t, v.SetName("column"))
		if got := mustV(v.Name())(t); got != "column" {
			t.Errorf("after SetName: %q", got)
		}
		// MPI 4.1 §7.8: a longer name than MPI_MAX_OBJECT_NAME holds is cut.
		long := string(bytes.Repeat([]byte("x"), mpi.MaxObjectName+1))
		must(t, v.SetName(long))
		if got := mustV(v.Name())(t); got != long[:mpi.MaxObjectName] {
			t.Errorf("a name of %d bytes became %d bytes, want %d", len(long), len(got), mpi.MaxObjectName)
		}
	})
}

// TestTypeGetValueIndex: the predefined pair types for (value, Int32 index), nil
// (MPI_DATATYPE_NULL) where none exists, ErrType for a nil argument.
func TestTypeGetValueIndex(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		cases := []struct{ value, index, want *mpi.Datatype }{
			{mpi.Float32, mpi.Int32, mpi.Float32Int32},
			{mpi.Float64, mpi.Int32, mpi.Float64Int32},
			{mpi.Int64, mpi.Int32, mpi.Int64Int32},
			{mpi.Int, mpi.Int32, mpi.Int64Int32},
			{mpi.Int32, mpi.Int32, mpi.Int32Int32},
			{mpi.Int16, mpi.Int32, mpi.Int16Int32},
			{mpi.Float64, mpi.Int64, nil},
			{mpi.Uint8, mpi.Int32, nil},
			{mpi.Float32, mpi.Float32, nil},
		}
		for _, c := range cases {
			got, err := mpi.TypeGetValueIndex(c.value, c.index)
			if err != nil || got != c.want {
				vn, _ := c.value.Name()
				xn, _ := c.index.Name()
				t.Errorf("TypeGetValueIndex(%s, %s) = %v, %v; want %v", vn, xn, got, err, c.want)
			}
		}
		if _, err := mpi.TypeGetValueIndex(nil, mpi.Int32); !errors.Is(err, mpi.ErrType) {
			t.Errorf("nil value type: %v, want ErrType", err)
		}
		if _, err := mpi.TypeGetValueIndex(mpi.Float64, nil); !errors.Is(err, mpi.ErrType) {
			t.Errorf("nil index type: %v, want ErrType", err)
		}
		// The handle found is the one Maxloc takes.
		pt, err := mpi.TypeGetValueIndex(mpi.Float64, mpi.Int32)
		must(t, err)
		in, out := []float64Int32{{2.5, 7}}, make([]float64Int32, 1)
		must(t, mpi.AllreduceBuf(mpi.World, mpi.Typed(in, 1, pt), mpi.Typed(out, 1, pt), mpi.Maxloc))
		if out[0] != in[0] {
			t.Errorf("Maxloc over the found pair type: %+v", out)
		}
	})
}

// TestDatatypeAttributes: keyvals on datatypes as on communicators: set, get, replace
// (deleting the old value), copied by Dup as the copy function says, deleted on Free
// (the last set first) and by DeleteAttr; a freed keyval cannot be set (ErrKeyval, as
// every misuse of a keyval, MPI 4.1 section 7.7.5) but its values live on, and freeing
// it again is harmless until the last goes.
func TestDatatypeAttributes(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		var deleted []any
		del := func(d *mpi.Datatype, k *mpi.TypeKeyval, v any) error {
			deleted = append(deleted, v)
			return nil
		}
		kept := mpi.TypeCreateKeyval(mpi.TypeCopyDup, del)
		dropped := mpi.TypeCreateKeyval(nil, del)
		doubled := mpi.TypeCreateKeyval(func(old *mpi.Datatype, k *mpi.TypeKeyval, v any) (any, bool, error) {
			return v.(int) * 2, true, nil
		}, nil)
		d, err := mpi.TypeContiguous(2, mpi.Float64)
		must(t, err)
		must(t, d.SetAttr(kept, "a"))
		must(t, d.SetAttr(kept, "b")) // replaces "a", which is deleted
		must(t, d.SetAttr(dropped, rank))
		must(t, d.SetAttr(doubled, 21))
		if v, ok, err := d.Attr(kept); err != nil || !ok || v != "b" {
			t.Errorf("Attr(kept) = %v, %v, %v; want b", v, ok, err)
		}
		dup, err := d.Dup()
		must(t, err)
		if v, ok, _ := dup.Attr(kept); !ok || v != "b" {
			t.Errorf("the duplicate's kept attribute: %v, %v", v, ok)
		}
		if _, ok, _ := dup.Attr(dropped); ok {
			t.Errorf("the duplicate got an attribute whose keyval has no copy function")
		}
		if v, _, _ := dup.Attr(doubled); v != 42 {
			t.Errorf("the duplicate's doubled attribute: %v, want 42", v)
		}
		must(t, dup.DeleteAttr(kept))
		if _, ok, _ := dup.Attr(kept); ok {
			t.Errorf("DeleteAttr left the attribute")
		}
		must(t, dup.DeleteAttr(kept)) // nothing set: nothing to do
		must(t, kept.Free())
		if err := d.SetAttr(kept, "c"); !errors.Is(err, mpi.ErrKeyval) {
			t.Errorf("SetAttr with a freed keyval: %v, want ErrKeyval", err)
		}
		must(t, kept.Free()) // again, while d's attribute holds it: nothing to do
		if v, ok, _ := d.Attr(kept); !ok || v != "b" {
			t.Errorf("after the keyval's Free the value is %v, %v; want it kept", v, ok)
		}
		must(t, d.Free())
		want := []any{"a", "b", rank, "b"} // replaced, deleted from dup, then d's two, the last set first
		if !slices.Equal(deleted, want) {
			t.Errorf("delete function saw %v, want %v", deleted, want)
		}
		if err := kept.Free(); !errors.Is(err, mpi.ErrKeyval) {
			t.Errorf("freeing a keyval once its last attribute went: %v, want ErrKeyval", err)
		}
		if err := mpi.Int32.SetAttr(nil, 1); !errors.Is(err, mpi.ErrKeyval) {
			t.Errorf("SetAttr with a nil keyval: %v, want ErrKeyval", err)
		}
		// Attributes on a predefined type are allowed, as in MPI.
		must(t, mpi.Int32.SetAttr(doubled, 1))
		must(t, mpi.Int32.DeleteAttr(doubled))
		// The type still works in a message after all this.
		must(t, dup.Commit())
		buf := []float64{float64(rank), 1}
		must(t, mpi.AllreduceBuf(mpi.World, mpi.Typed(buf, 1, dup), mpi.Typed(make([]float64, 2), 1, dup), mpi.Sum))
	})
}

// TestPackExternalSize: the external32 size of count items, which PackExternal fills
// exactly.
func TestPackExternalSize(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		st, err := mpi.TypeStruct([]int{1, 2, 1}, []int{0, 8, 24}, []*mpi.Datatype{mpi.Float64, mpi.Int16, mpi.Int64Int32})
		must(t, err)
		must(t, st.Commit())
		n, err := mpi.PackExternalSize(3, st)
		must(t, err)
		if n != 3*(8+2*2+12) {
			t.Errorf("PackExternalSize(3, struct) = %d, want %d", n, 3*(8+4+12))
		}
		src := make([]byte, 3*mustV(st.Extent())(t))
		out := make([]byte, n)
		pos := 0
		must(t, mpi.PackExternal(mpi.Typed(src, 3, st), out, &pos))
		if pos != n {
			t.Errorf("PackExternal wrote %d bytes, PackExternalSize said %d", pos, n)
		}
		if _, err := mpi.PackExternalSize(-1, st); !errors.Is(err, mpi.ErrCount) {
			t.Errorf("PackExternalSize(-1): %v, want ErrCount", err)
		}
	})
}

// TestNilDatatype: every datatype call given a nil *Datatype (MPI_DATATYPE_NULL)
// returns ErrType instead of panicking, but Name, which names it.
func TestNilDatatype(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		var d *mpi.Datatype
		k := mpi.TypeCreateKeyval(nil, nil)
		var st mpi.Status
		errs := map[string]error{
			"Commit": d.Commit(), "Free": d.Free(), "SetName": d.SetName("x"),
			"SetAttr": d.SetAttr(k, 1), "DeleteAttr": d.DeleteAttr(k),
		}
		_, errs["Dup"] = d.Dup()
		_, errs["Size"] = d.Size()
		_, errs["Extent"] = d.Extent()
		_, errs["LB"] = d.LB()
		_, errs["TrueLB"] = d.TrueLB()
		_, errs["TrueExtent"] = d.TrueExtent()
		_, _, _, _, errs["Envelope"] = d.Envelope()
		_, _, _, errs["Contents"] = d.Contents()
		_, _, errs["Attr"] = d.Attr(k)
		_, errs["GetCount"] = st.GetCount(d)
		_, errs["GetElements"] = st.GetElements(d)
		_, errs["PackSize"] = mpi.PackSize(1, d)
		_, errs["PackExternalSize"] = mpi.PackExternalSize(1, d)
		_, errs["TypeContiguous"] = mpi.TypeContiguous(1, d)
		_, errs["TypeStruct"] = mpi.TypeStruct([]int{1}, []int{0}, []*mpi.Datatype{d})
		errs["Typed"] = mpi.SendBuf(mpi.World, mpi.Typed([]int32{1}, 1, d), 0, 0)
		for name, err := range errs {
			if !errors.Is(err, mpi.ErrType) {
				t.Errorf("%s on a nil datatype: %v, want ErrType", name, err)
			}
		}
		// The null handle has a name, as MPI's predefined null handles do.
		if name, err := d.Name(); name != "MPI_DATATYPE_NULL" || err != nil {
			t.Errorf("Name on a nil datatype: %q, %v; want MPI_DATATYPE_NULL", name, err)
		}
		if err := mpi.Pack(mpi.Typed([]int32{1}, 1, mpi.Int32), make([]byte, 4), nil); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("Pack with a nil position: %v, want ErrArg", err)
		}
	})
}
