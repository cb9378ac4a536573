package mpi_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

type number interface {
	~int16 | ~int32 | ~int64 | ~float64
}

// checkLayout sends count items of dt both ways between ranks 0 and 1 and checks that
// the elements at the indices want (in typemap order) are the ones that travel. Rank 0
// holds n elements, element k being k+1, and sends them through dt with IsendBuf;
// rank 1 receives them contiguously and must get want's elements in want's order. It
// sends back their negatives, which rank 0 receives through dt into zeros: each must
// land at its index, and every other element stay zero.
func checkLayout[T number](t *testing.T, rank int, name string, dt *mpi.Datatype, count, n int, want []int) {
	t.Helper()
	w := mpi.World
	must(t, dt.Commit())
	if got, wantSize := mustV(dt.Size())(t)*int64(count), int64(len(want))*int64(binary.Size(T(0))); got != wantSize {
		t.Errorf("%s: %d items are %d bytes of data, want %d", name, count, got, wantSize)
	}
	switch rank {
	case 0:
		src := make([]T, n)
		for k := range src {
			src[k] = T(k + 1)
		}
		r, err := mpi.IsendBuf(w, mpi.Typed(src, count, dt), 1, 30)
		must(t, err)
		_, err = r.Wait()
		must(t, err)
		back := make([]T, n)
		st, err := mpi.RecvBuf(w, mpi.Typed(back, count, dt), 1, 31)
		must(t, err)
		if got := mustV(st.GetCount(dt))(t); got != count {
			t.Errorf("%s: the reply filled %d items, want %d", name, got, count)
		}
		expect := make([]T, n)
		for _, k := range want {
			expect[k] = -T(k + 1)
		}
		if !slices.Equal(back, expect) {
			t.Errorf("%s: received through the type %v, want %v", name, back, expect)
		}
	case 1:
		got := make([]T, len(want)+1)
		st, err := mpi.Recv(w, got, 0, 30)
		must(t, err)
		expect := make([]T, len(want)+1)
		for i, k := range want {
			expect[i] = T(k + 1)
		}
		if !slices.Equal(got, expect) || mpi.GetCount[T](st) != len(want) {
			t.Errorf("%s: sent through the type %v (%d elements), want %v", name, got[:len(want)], mpi.GetCount[T](st), expect[:len(want)])
		}
		for i := range got {
			got[i] = -got[i]
		}
		must(t, mpi.Send(w, got[:len(want)], 0, 31))
	}
}

// TestDerivedDatatypesInMessages: each constructor's type picks the elements MPI's
// definition says, in its order, going out and coming in.
func TestDerivedDatatypesInMessages(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		// Three blocks of two float64, 40 bytes (5 elements) apart.
		hv, err := mpi.TypeHvector(3, 2, 5*8, mpi.Float64)
		must(t, err)
		checkLayout[float64](t, rank, "TypeHvector", hv, 1, 12, []int{0, 1, 5, 6, 10, 11})
		// A byte stride that is no multiple of the element's size: int16 at bytes 0, 6, 12.
		odd, err := mpi.TypeHvector(3, 1, 6, mpi.Int16)
		must(t, err)
		checkLayout[int16](t, rank, "TypeHvector, stride 6 bytes", odd, 1, 7, []int{0, 3, 6})

		// Blocks of 2, 1 and 3 at elements 0, 4 and 7; its extent is 10 elements,
		// so a second item starts at element 10.
		ix, err := mpi.TypeIndexed([]int{2, 1, 3}, []int{0, 4, 7}, mpi.Int32)
		must(t, err)
		checkLayout[int32](t, rank, "TypeIndexed", ix, 2, 21, []int{0, 1, 4, 7, 8, 9, 10, 11, 14, 17, 18, 19})
		// Displacements out of order: the typemap keeps the order given.
		rev, err := mpi.TypeIndexed([]int{1, 2}, []int{5, 1}, mpi.Int32)
		must(t, err)
		checkLayout[int32](t, rank, "TypeIndexed, out of order", rev, 1, 6, []int{5, 1, 2})

		// One int64 at byte 24, then two at byte 0.
		hix, err := mpi.TypeHindexed([]int{1, 2}, []int{24, 0}, mpi.Int64)
		must(t, err)
		checkLayout[int64](t, rank, "TypeHindexed", hix, 1, 4, []int{3, 0, 1})

		// Blocks of two int16 at elements 5 and 1: the lower bound is element 1 and the
		// extent 6 elements, so a second item is 6 elements further on.
		ib, err := mpi.TypeIndexedBlock(2, []int{5, 1}, mpi.Int16)
		must(t, err)
		checkLayout[int16](t, rank, "TypeIndexedBlock", ib, 2, 13, []int{5, 6, 1, 2, 11, 12, 7, 8})

		// Single int32 at bytes 12, 4 and 0.
		hib, err := mpi.TypeHindexedBlock(1, []int{12, 4, 0}, mpi.Int32)
		must(t, err)
		checkLayout[int32](t, rank, "TypeHindexedBlock", hib, 1, 4, []int{3, 1, 0})
	})
}

// TestTypeDarray: the parts of a global array that TypeDarray gives the four ranks of
// a 2x2 process grid are the ones MPI's distributions define, hand-computed here for a
// block/cyclic distribution in C order and a cyclic(2)/block one in Fortran order.
// Rank 0 scatters the global array through every rank's type, and gathers it back.
func TestTypeDarray(t *testing.T) {
	cases := []struct {
		name     string
		gsizes   []int
		distribs []mpi.Distribution
		dargs    []int
		order    mpi.Order
		owned    [4][]int // per rank, the global offsets it owns, in typemap order
	}{
		{
			// 4x6 row-major; rows in blocks of 2, columns dealt round-robin.
			name: "C, block x cyclic", gsizes: []int{4, 6},
			distribs: []mpi.Distribution{mpi.DistributeBlock, mpi.DistributeCyclic},
			dargs:    []int{mpi.DistributeDflt, mpi.DistributeDflt}, order: mpi.OrderC,
			owned: [4][]int{
				{0, 2, 4, 6, 8, 10},       // rows 0-1, columns 0, 2, 4
				{1, 3, 5, 7, 9, 11},       // rows 0-1, columns 1, 3, 5
				{12, 14, 16, 18, 20, 22},  // rows 2-3, columns 0, 2, 4
				{13, 15, 17, 19, 21, 23}}, // rows 2-3, columns 1, 3, 5
		},
		{
			// 6x4 column-major (element (i,j) at i+6j); dimension 0 dealt in pairs,
			// dimension 1 in blocks of 2. Process (p0,p1) is rank 2*p0+p1.
			name: "Fortran, cyclic(2) x block", gsizes: []int{6, 4},
			distribs: []mpi.Distribution{mpi.DistributeCyclic, mpi.DistributeBlock},
			dargs:    []int{2, mpi.DistributeDflt}, order: mpi.OrderFortran,
			owned: [4][]int{
				{0, 1, 4, 5, 6, 7, 10, 11},       // i in 0,1,4,5; j in 0,1
				{12, 13, 16, 17, 18, 19, 22, 23}, // i in 0,1,4,5; j in 2,3
				{2, 3, 8, 9},                     // i in 2,3; j in 0,1
				{14, 15, 20, 21}},                // i in 2,3; j in 2,3
		},
	}
	job(t, 4, func(t *testing.T, rank, size int) {
		w := mpi.World
		for _, c := range cases {
			types := make([]*mpi.Datatype, size)
			for r := range types {
				dt, err := mpi.TypeDarray(size, r, c.gsizes, c.distribs, c.dargs, []int{2, 2}, c.order, mpi.Float64)
				must(t, err)
				must(t, dt.Commit())
				types[r] = dt
				sz, lb, ext := mustV(dt.Size())(t), mustV(dt.LB())(t), mustV(dt.Extent())(t)
				if sz != int64(8*len(c.owned[r])) || lb != 0 || ext != 24*8 {
					t.Errorf("%s: rank %d's type: size %d, lb %d, extent %d; want %d, 0 and the whole array's 192",
						c.name, r, sz, lb, ext, 8*len(c.owned[r]))
				}
			}
			mine := make([]float64, len(c.owned[rank]))
			rr, err := mpi.Irecv(w, mine, 0, 40)
			must(t, err)
			if rank == 0 {
				global := make([]float64, 24)
				for k := range global {
					global[k] = float64(k)
				}
				for r := range types {
					must(t, mpi.SendBuf(w, mpi.Typed(global, 1, types[r]), r, 40))
				}
			}
			_, err = rr.Wait()
			must(t, err)
			want := make([]float64, len(c.owned[rank]))
			for i, k := range c.owned[rank] {
				want[i] = float64(k)
			}
			if !slices.Equal(mine, want) {
				t.Errorf("%s: rank %d received %v, want %v", c.name, rank, mine, want)
			}

			// Back: each rank's part, times ten, assembled in place at rank 0.
			for i := range mine {
				mine[i] *= 10
			}
			sr, err := mpi.Isend(w, mine, 0, 41)
			must(t, err)
			if rank == 0 {
				global := make([]float64, 24)
				for r := range types {
					_, err := mpi.RecvBuf(w, mpi.Typed(global, 1, types[r]), r, 41)
					must(t, err)
				}
				for k, v := range global {
					if v != float64(10*k) {
						t.Errorf("%s: gathered element %d is %v, want %d", c.name, k, v, 10*k)
					}
				}
			}
			_, err = sr.Wait()
			must(t, err)
		}
		_, err := mpi.TypeDarray(size, 0, []int{4, 6}, []mpi.Distribution{mpi.DistributeBlock, mpi.DistributeBlock},
			[]int{mpi.DistributeDflt, mpi.DistributeDflt}, []int{2, 3}, mpi.OrderC, mpi.Float64)
		if !errors.Is(err, mpi.ErrArg) {
			t.Errorf("TypeDarray with a 2x3 grid for 4 processes: %v, want class ErrArg", err)
		}
	})
}

// TestDatatypeQueries: a derived type's size, bounds, true bounds, name and envelope,
// and those of its resized copy and its duplicate, which a message can use at once.
func TestDatatypeQueries(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		// Two int32 at element 1 and one at element 4: data bytes 4..8 and 16..20.
		ix, err := mpi.TypeIndexed([]int{2, 1}, []int{1, 4}, mpi.Int32)
		must(t, err)
		type q struct {
			size, lb, extent, trueLB, trueExtent int64
			name                                 string
			comb                                 mpi.Combiner
			ni, na, nt                           int
		}
		query := func(d *mpi.Datatype) q {
			c, ni, na, nt, err := d.Envelope()
			must(t, err)
			return q{mustV(d.Size())(t), mustV(d.LB())(t), mustV(d.Extent())(t), mustV(d.TrueLB())(t),
				mustV(d.TrueExtent())(t), mustV(d.Name())(t), c, ni, na, nt}
		}
		// The envelope counts are MPI_Type_get_envelope's: 2*count+1 integers for indexed.
		if got, want := query(ix), (q{12, 4, 16, 4, 16, "", mpi.CombinerIndexed, 5, 0, 1}); got != want {
			t.Errorf("TypeIndexed: %+v, want %+v", got, want)
		}
		rs, err := mpi.TypeResized(ix, 0, 32)
		must(t, err)
		if got, want := query(rs), (q{12, 0, 32, 4, 16, "", mpi.CombinerResized, 0, 2, 1}); got != want {
			t.Errorf("TypeResized: %+v, want %+v", got, want)
		}
		hix, err := mpi.TypeHindexed([]int{1, 2}, []int{24, 0}, mpi.Int64)
		must(t, err)
		if got, want := query(hix), (q{24, 0, 32, 0, 32, "", mpi.CombinerHindexed, 3, 2, 1}); got != want {
			t.Errorf("TypeHindexed: %+v, want %+v", got, want)
		}
		if got, want := query(mpi.Int32), (q{4, 0, 4, 0, 4, "MPI_INT32_T", mpi.CombinerNamed, 0, 0, 0}); got != want {
			t.Errorf("Int32: %+v, want %+v", got, want)
		}

		must(t, rs.Commit())
		dup, err := rs.Dup()
		must(t, err)
		if got, want := query(dup), (q{12, 0, 32, 4, 16, "", mpi.CombinerDup, 0, 0, 1}); got != want {
			t.Errorf("Dup: %+v, want %+v", got, want)
		}
		// The duplicate of a committed type is committed: two items of it, 8 elements
		// apart, go out with no Commit of their own.
		w := mpi.World
		if rank == 0 {
			src := []int32{0, 1, 2, 0, 3, 0, 0, 0, 0, 4, 5, 0, 6, 0, 0, 0}
			must(t, mpi.SendBuf(w, mpi.Typed(src, 2, dup), 1, 0))
		} else {
			got := make([]int32, 6)
			_, err := mpi.Recv(w, got, 0, 0)
			must(t, err)
			if !slices.Equal(got, []int32{1, 2, 3, 4, 5, 6}) {
				t.Errorf("two items of the duplicate carried %v, want [1 2 3 4 5 6]", got)
			}
		}
		must(t, dup.Free())
	})
}

// TestPackExternal: external32 is big-endian whatever the host's order, through a
// derived type too; rank 0 packs, rank 1 unpacks what it receives, and both check the
// bytes and positions.
func TestPackExternal(t *testing.T) {
	want := []byte{
		0x00, 0x00, 0x00, 0x01, 0xff, 0xff, 0xff, 0xfe, 0x01, 0x02, 0x03, 0x04, // int32 1, -2, 0x01020304
		0x3f, 0xf8, 0, 0, 0, 0, 0, 0, // float64 1.5
		0x01, 0x02, 0xff, 0xfd, // int16 0x0102 and -3, every other element of three
		0x3f, 0x80, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, // complex64 1+2i: real then imaginary
	}
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		every2, err := mpi.TypeVector(2, 1, 2, mpi.Int16)
		must(t, err)
		must(t, every2.Commit())
		if rank == 0 {
			out := make([]byte, len(want)+5)
			pos := 0
			ints := []int32{1, -2, 0x01020304}
			must(t, mpi.PackExternal(mpi.Typed(ints, 3, mpi.Int32), out, &pos))
			if pos != 12 {
				t.Errorf("after 3 int32, position %d, want 12", pos)
			}
			must(t, mpi.PackExternal(mpi.Typed([]float64{1.5}, 1, mpi.Float64), out, &pos))
			must(t, mpi.PackExternal(mpi.Typed([]int16{0x0102, 99, -3}, 1, every2), out, &pos))
			must(t, mpi.PackExternal(mpi.Typed([]complex64{1 + 2i}, 1, mpi.Complex64), out, &pos))
			if pos != len(want) || !bytes.Equal(out[:pos], want) {
				t.Errorf("PackExternal wrote %d bytes % x, want % x", pos, out[:pos], want)
			}
			// The native representation is the host's order; external32 is not.
			native := make([]byte, 12)
			npos := 0
			must(t, mpi.Pack(mpi.Typed(ints, 3, mpi.Int32), native, &npos))
			host := binary.NativeEndian.AppendUint32(nil, 1)
			if !bytes.Equal(native[:4], host) {
				t.Errorf("Pack wrote % x for 1, want the host's % x", native[:4], host)
			}
			bad := -1
			if err := mpi.PackExternal(mpi.Typed(ints, 1, mpi.Int32), out, &bad); !errors.Is(err, mpi.ErrArg) {
				t.Errorf("PackExternal at position -1: %v, want class ErrArg", err)
			}
			must(t, mpi.Send(w, out[:pos], 1, 0))
			return
		}
		in := make([]byte, 64)
		st, err := mpi.Recv(w, in, 0, 0)
		must(t, err)
		in = in[:st.Bytes()]
		if !bytes.Equal(in, want) {
			t.Errorf("received % x, want % x", in, want)
		}
		pos := 0
		ints := make([]int32, 3)
		must(t, mpi.UnpackExternal(in, &pos, mpi.Typed(ints, 3, mpi.Int32)))
		f := make([]float64, 1)
		must(t, mpi.UnpackExternal(in, &pos, mpi.Typed(f, 1, mpi.Float64)))
		shorts := []int16{0, 77, 0}
		must(t, mpi.UnpackExternal(in, &pos, mpi.Typed(shorts, 1, every2)))
		c := make([]complex64, 1)
		must(t, mpi.UnpackExternal(in, &pos, mpi.Typed(c, 1, mpi.Complex64)))
		if !slices.Equal(ints, []int32{1, -2, 0x01020304}) || f[0] != 1.5 || !slices.Equal(shorts, []int16{0x0102, 77, -3}) || c[0] != 1+2i {
			t.Errorf("UnpackExternal gave %v %v %v %v", ints, f, shorts, c)
		}
		if pos != len(want) {
			t.Errorf("UnpackExternal stopped at %d, want %d", pos, len(want))
		}
		pos = len(in) - 4
		if err := mpi.UnpackExternal(in, &pos, mpi.Typed(f, 1, mpi.Float64)); !errors.Is(err, mpi.ErrTruncate) {
			t.Errorf("UnpackExternal of a float64 from 4 bytes: %v, want class ErrTruncate", err)
		}
		if f[0] != 1.5 {
			t.Errorf("a failed UnpackExternal changed the buffer to %v", f)
		}
	})
}
