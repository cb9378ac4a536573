package mpi_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestVectorColumnToContiguous sends a column of a row-major matrix, described by a
// vector type, into a plain slice on the other side.
func TestVectorColumnToContiguous(t *testing.T) {
	const rows, cols = 300, 50
	job(t, 2, func(t *testing.T, rank, size int) {
		col, err := mpi.TypeVector(rows, 1, cols, mpi.Float64)
		must(t, err)
		must(t, col.Commit())
		if rank == 0 {
			m := make([]float64, rows*cols)
			for i := range m {
				m[i] = float64(i)
			}
			must(t, mpi.SendBuf(mpi.World, mpi.Typed(m[7:], 1, col), 1, 0)) // column 7
			return
		}
		got := make([]float64, rows)
		st, err := mpi.Recv(mpi.World, got, 0, 0)
		must(t, err)
		for r := range got {
			if got[r] != float64(r*cols+7) {
				t.Fatalf("row %d: %v", r, got[r])
			}
		}
		if n, err := st.GetCount(col); err != nil || n != 1 {
			t.Errorf("GetCount = %d, %v; want 1", n, err)
		}
	})
}

type particle struct {
	ID   int32
	Pos  [3]float64
	Kind uint8
	Mass float32
}

func TestStructToStruct(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		pt, err := mpi.TypeOf[particle]()
		must(t, err)
		ps := make([]particle, 1000)
		if rank == 0 {
			for i := range ps {
				ps[i] = particle{ID: int32(i), Pos: [3]float64{float64(i), 1, -1}, Kind: uint8(i), Mass: 0.5}
			}
			must(t, mpi.SendBuf(mpi.World, mpi.Typed(ps, len(ps), pt), 1, 0))
			return
		}
		_, err = mpi.RecvBuf(mpi.World, mpi.Typed(ps, len(ps), pt), 0, 0)
		must(t, err)
		for i, p := range ps {
			if p != (particle{ID: int32(i), Pos: [3]float64{float64(i), 1, -1}, Kind: uint8(i), Mass: 0.5}) {
				t.Fatalf("particle %d: %+v", i, p)
			}
		}
	})
}

// TestSubarrayHalo exchanges the boundary rows and columns of a 2-D block (halos) between
// two ranks with subarray types, received straight into the neighbour's ghost cells.
func TestSubarrayHalo(t *testing.T) {
	const n = 64 // local block n x n with one ghost layer: (n+2) x (n+2)
	job(t, 2, func(t *testing.T, rank, size int) {
		g := n + 2
		grid := make([]int32, g*g)
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				grid[i*g+j] = int32(rank*100000 + i*1000 + j)
			}
		}
		// Rank 0's right interior column goes to rank 1's left ghost column, and back.
		sendCol, err := mpi.TypeSubarray([]int{g, g}, []int{n, 1}, []int{1, n - rank*(n-1)}, mpi.OrderC, mpi.Int32)
		must(t, err)
		recvCol, err := mpi.TypeSubarray([]int{g, g}, []int{n, 1}, []int{1, (1 - rank) * (n + 1)}, mpi.OrderC, mpi.Int32)
		must(t, err)
		must(t, sendCol.Commit())
		must(t, recvCol.Commit())
		peer := 1 - rank
		r, err := mpi.IrecvBuf(mpi.World, mpi.Typed(grid, 1, recvCol), peer, 0)
		must(t, err)
		must(t, mpi.SendBuf(mpi.World, mpi.Typed(grid, 1, sendCol), peer, 0))
		_, err = r.Wait()
		must(t, err)
		gc := (1 - rank) * (n + 1) // ghost column
		pc := n - peer*(n-1)       // the peer's interior column it came from
		for i := 1; i <= n; i++ {
			if want := int32(peer*100000 + i*1000 + pc); grid[i*g+gc] != want {
				t.Fatalf("ghost row %d = %d, want %d", i, grid[i*g+gc], want)
			}
		}
	})
}

func TestPackUnpackAndTypeErrors(t *testing.T) {
	vec, err := mpi.TypeVector(4, 1, 3, mpi.Int16)
	must(t, err)
	src := []int16{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	out := make([]byte, 64)
	pos := 0
	if err := mpi.Pack(mpi.Typed(src, 1, vec), out, &pos); err == nil {
		t.Error("packing with an uncommitted type succeeded")
	}
	must(t, vec.Commit())
	must(t, mpi.Pack(mpi.Typed(src, 1, vec), out, &pos))
	if n, _ := mpi.PackSize(1, vec); pos != n || n != 8 {
		t.Fatalf("packed %d bytes, PackSize %d", pos, n)
	}
	back := make([]int16, 4)
	p := 0
	must(t, mpi.Unpack(out, &p, mpi.Typed(back, 4, mpi.Int16)))
	if back[0] != 0 || back[1] != 3 || back[2] != 6 || back[3] != 9 {
		t.Errorf("unpacked %v", back)
	}
	pos = 0
	if err := mpi.Pack(mpi.Typed(src[:5], 1, vec), out, &pos); !errors.Is(err, mpi.ErrBuffer) {
		t.Errorf("a type reaching past the slice: %v, want ErrBuffer", err)
	}
	if _, err := mpi.TypeVector(-1, 1, 1, mpi.Int32); !errors.Is(err, mpi.ErrCount) {
		t.Errorf("negative count: %v, want ErrCount", err)
	}
	type bad struct{ P *int }
	if _, err := mpi.TypeOf[bad](); err == nil {
		t.Error("TypeOf accepted a struct with a pointer")
	}
}

// mustV returns a function that fails t if err is set and otherwise returns v:
// mustV(dt.Size())(t).
func mustV[V any](v V, err error) func(t *testing.T) V {
	return func(t *testing.T) V {
		t.Helper()
		must(t, err)
		return v
	}
}

// TestTypedRawElements: Typed refuses slices whose elements hold pointers, whatever
// the datatype says (a TypeOf type included), and takes TypeOf[T]'s own T.
func TestTypedRawElements(t *testing.T) {
	pt, err := mpi.TypeOf[Particle]()
	must(t, err)
	out := make([]byte, 64)
	pos := 0
	must(t, mpi.Pack(mpi.Typed(make([]Particle, 2), 2, pt), out, &pos))
	type withPtr struct {
		X, Y float64
		P    *int
	}
	for name, b := range map[string]mpi.Buf{
		"pointer struct, TypeOf[Particle]": mpi.Typed(make([]withPtr, 2), 1, pt),
		"[]*int, TypeOf[Particle]":         mpi.Typed(make([]*int, 8), 1, pt),
		"[]string, Byte":                   mpi.Typed(make([]string, 8), 1, mpi.Byte),
	} {
		pos = 0
		if err := mpi.Pack(b, out, &pos); !errors.Is(err, mpi.ErrBuffer) || !strings.Contains(err.Error(), "raw memory") {
			t.Errorf("%s: %v, want ErrBuffer naming raw memory", name, err)
		}
	}
}

// reversed is a resized type of negative extent: item k of a count lies k float64s
// below item 0, which is the last element of an n-element slice.
func reversed(t *testing.T, n int) *mpi.Datatype {
	t.Helper()
	last, err := mpi.TypeHindexedBlock(1, []int{8 * (n - 1)}, mpi.Float64)
	must(t, err)
	rev, err := mpi.TypeResized(last, 8*(n-1), -8)
	must(t, err)
	must(t, rev.Commit())
	if lb, _ := rev.LB(); lb != int64(8*(n-1)) {
		t.Errorf("LB = %d, want %d", lb, 8*(n-1))
	}
	if ext, _ := rev.Extent(); ext != -8 {
		t.Errorf("Extent = %d, want -8", ext)
	}
	if tlb, _ := rev.TrueLB(); tlb != int64(8*(n-1)) {
		t.Errorf("TrueLB = %d, want %d", tlb, 8*(n-1))
	}
	if text, _ := rev.TrueExtent(); text != 8 {
		t.Errorf("TrueExtent = %d, want 8", text)
	}
	return rev
}

// TestResizedNegativeExtent sends and receives count > 1 items of a type of negative
// extent (MPI 4.1 §5.1.7 allows any extent): the items step backwards through the
// buffer, so a slice arrives reversed, over shared memory and over TCP, into a plain
// slice and into the reversed type itself; Pack and Unpack agree.
func TestResizedNegativeExtent(t *testing.T) {
	const n = 1000
	for _, tr := range mpitest.Transports {
		t.Run(tr.Name, func(t *testing.T) {
			jobWith(t, mpitest.Options{N: 2, Transport: tr}, func(t *testing.T, rank, size int) {
				rev := reversed(t, n)
				a := make([]float64, n)
				if rank == 0 {
					for i := range a {
						a[i] = float64(i)
					}
					must(t, mpi.SendBuf(mpi.World, mpi.Typed(a, n, rev), 1, 0))
					must(t, mpi.SendBuf(mpi.World, mpi.Typed(a, n, mpi.Float64), 1, 1))
					return
				}
				_, err := mpi.RecvBuf(mpi.World, mpi.Typed(a, n, mpi.Float64), 0, 0)
				must(t, err)
				for i, v := range a {
					if v != float64(n-1-i) {
						t.Fatalf("plain receive: a[%d] = %v, want %d", i, v, n-1-i)
					}
				}
				st, err := mpi.RecvBuf(mpi.World, mpi.Typed(a, n, rev), 0, 1)
				must(t, err)
				for i, v := range a {
					if v != float64(n-1-i) {
						t.Fatalf("reversed receive: a[%d] = %v, want %d", i, v, n-1-i)
					}
				}
				if c, err := st.GetCount(rev); err != nil || c != n {
					t.Errorf("GetCount = %d, %v; want %d", c, err, n)
				}
				// Pack walks the items backwards; Unpack puts them back.
				psize, err := mpi.PackSize(n, rev)
				must(t, err)
				packed := make([]byte, psize)
				pos := 0
				must(t, mpi.Pack(mpi.Typed(a, n, rev), packed, &pos))
				flat := make([]float64, n)
				pos = 0
				must(t, mpi.Unpack(packed, &pos, mpi.Typed(flat, n, mpi.Float64)))
				b := make([]float64, n)
				pos = 0
				must(t, mpi.Unpack(packed, &pos, mpi.Typed(b, n, rev)))
				for i := range n {
					if flat[i] != float64(i) || b[i] != a[i] {
						t.Fatalf("item %d: packed %v, unpacked %v; want %d, %v", i, flat[i], b[i], i, a[i])
					}
				}
			})
		})
	}
}

// TestTypeMatchSizeAndF90 picks predefined types by size and by precision and range,
// uses them to move data, and checks the errors: no such type, and freeing one. The
// types of TypeCreateF90* are predefined but unnamed (MPI 4.1 §19.1.9): laid out as
// the Go type of the kind, they decode to their combiner and arguments, and the same
// arguments give the same handle.
func TestTypeMatchSizeAndF90(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		for name, c := range map[string]struct {
			f    func() (*mpi.Datatype, error)
			want *mpi.Datatype
		}{
			"match integer 4": {func() (*mpi.Datatype, error) { return mpi.TypeMatchSize(mpi.TypeClassInteger, 4) }, mpi.Int32},
			"match real 8":    {func() (*mpi.Datatype, error) { return mpi.TypeMatchSize(mpi.TypeClassReal, 8) }, mpi.Float64},
			"match complex 8": {func() (*mpi.Datatype, error) { return mpi.TypeMatchSize(mpi.TypeClassComplex, 8) }, mpi.Complex64},
		} {
			if d, err := c.f(); err != nil || d != c.want {
				t.Errorf("%s = %v, %v; want %v", name, d, err, c.want)
			}
		}
		for _, c := range []struct {
			name string
			f    func() (*mpi.Datatype, error)
			comb mpi.Combiner
			ints []int
			like *mpi.Datatype
		}{
			{"real(6, 37)", func() (*mpi.Datatype, error) { return mpi.TypeCreateF90Real(6, 37) }, mpi.CombinerF90Real, []int{6, 37}, mpi.Float32},
			{"real(-, 300)", func() (*mpi.Datatype, error) { return mpi.TypeCreateF90Real(mpi.Undefined, 300) }, mpi.CombinerF90Real, []int{mpi.Undefined, 300}, mpi.Float64},
			{"complex(10, -)", func() (*mpi.Datatype, error) { return mpi.TypeCreateF90Complex(10, mpi.Undefined) }, mpi.CombinerF90Complex, []int{10, mpi.Undefined}, mpi.Complex128},
			{"integer(2)", func() (*mpi.Datatype, error) { return mpi.TypeCreateF90Integer(2) }, mpi.CombinerF90Integer, []int{2}, mpi.Int8},
			{"integer(10)", func() (*mpi.Datatype, error) { return mpi.TypeCreateF90Integer(10) }, mpi.CombinerF90Integer, []int{10}, mpi.Int64},
		} {
			d, err := c.f()
			must(t, err)
			if again, err := c.f(); again != d || err != nil {
				t.Errorf("%s twice: %p then %p, %v; want the same handle", c.name, d, again, err)
			}
			comb, ni, na, nt, err := d.Envelope()
			ints, _, _, cerr := d.Contents()
			if err != nil || cerr != nil || comb != c.comb || ni != len(c.ints) || na != 0 || nt != 0 || !slices.Equal(ints, c.ints) {
				t.Errorf("%s decodes as %v %d %d %d %v (%v, %v); want %v with ints %v", c.name, comb, ni, na, nt, ints, err, cerr, c.comb, c.ints)
			}
			if mustV(d.Size())(t) != mustV(c.like.Size())(t) || mustV(d.Extent())(t) != mustV(c.like.Extent())(t) {
				t.Errorf("%s is not laid out as %s", c.name, mustV(c.like.Name())(t))
			}
		}
		for name, f := range map[string]func() (*mpi.Datatype, error){
			"match real 2":          func() (*mpi.Datatype, error) { return mpi.TypeMatchSize(mpi.TypeClassReal, 2) },
			"match class 9":         func() (*mpi.Datatype, error) { return mpi.TypeMatchSize(9, 4) },
			"real(16, -)":           func() (*mpi.Datatype, error) { return mpi.TypeCreateF90Real(16, mpi.Undefined) },
			"real(undefined twice)": func() (*mpi.Datatype, error) { return mpi.TypeCreateF90Real(mpi.Undefined, mpi.Undefined) },
			"complex(6, 400)":       func() (*mpi.Datatype, error) { return mpi.TypeCreateF90Complex(6, 400) },
			"integer(19)":           func() (*mpi.Datatype, error) { return mpi.TypeCreateF90Integer(19) },
		} {
			if d, err := f(); d != nil || !errors.Is(err, mpi.ErrArg) {
				t.Errorf("%s = %v, %v; want an error of class ClassArg", name, d, err)
			}
		}
		d, err := mpi.TypeCreateF90Real(12, mpi.Undefined)
		must(t, err)
		if err := d.Free(); err == nil {
			t.Errorf("freeing the predefined type TypeCreateF90Real gave succeeded")
		}
		// The type moves data as any predefined type.
		buf := []float64{1.5, 2.5}
		if rank == 0 {
			must(t, mpi.SendBuf(mpi.World, mpi.Typed(buf, 2, d), 1, 0))
		} else {
			in := make([]float64, 2)
			_, err := mpi.RecvBuf(mpi.World, mpi.Typed(in, 2, d), 0, 0)
			must(t, err)
			if in[0] != 1.5 || in[1] != 2.5 {
				t.Errorf("received %v", in)
			}
		}
	})
}
