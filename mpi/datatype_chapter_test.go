package mpi_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/mpigo/mpigo/mpi"
)

// TestGetElementsCountsBasicElements is MPI 4.1 §5.1.11's example of MPI_GET_ELEMENTS:
//
//	CALL MPI_TYPE_CONTIGUOUS(2, MPI_REAL, Type2, ierr)
//	...
//	CALL MPI_RECV(a, 2, Type2, 0, 0, comm, stat, ierr)   ! 2 reals sent
//	CALL MPI_GET_COUNT(stat, Type2, i, ierr)             ! returns i=1
//	CALL MPI_GET_ELEMENTS(stat, Type2, i, ierr)          ! returns i=2
//	CALL MPI_RECV(a, 2, Type2, 0, 0, comm, stat, ierr)   ! 3 reals sent
//	CALL MPI_GET_COUNT(stat, Type2, i, ierr)             ! returns i=MPI_UNDEFINED
//	CALL MPI_GET_ELEMENTS(stat, Type2, i, ierr)          ! returns i=3
//
// "MPI_GET_ELEMENTS ... returns the number of received basic elements", through a
// partly filled item; GetElements used to answer as GetCount does. It also counts
// through a struct of mixed elements, counts the pair types' two elements, and is
// Undefined when the message ends inside an element.
func TestGetElementsCountsBasicElements(t *testing.T) {
	type mixed struct {
		F float64
		I int32
		S int16
	}
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		type2, err := mpi.TypeContiguous(2, mpi.Float32)
		must(t, err)
		must(t, type2.Commit())
		mt, err := mpi.TypeOf[mixed]()
		must(t, err)
		if rank == 0 {
			a := []float32{1, 2, 3}
			must(t, mpi.Send(w, a[:2], 1, 0))
			must(t, mpi.Send(w, a[:3], 1, 0))
			// One whole mixed item (14 data bytes) then its float64 and int32: 26 bytes.
			must(t, mpi.Send(w, make([]byte, 14+8+4), 1, 1))
			// One item and 3 bytes of the next one's float64.
			must(t, mpi.Send(w, make([]byte, 14+3), 1, 1))
			must(t, mpi.Send(w, []float64{1, 2, 3}, 1, 2)) // 1.5 items of MPI_DOUBLE_INT
			must(t, mpi.Send(w, []float64{}, 1, 3))
			return
		}
		check := func(what string, st mpi.Status, dt *mpi.Datatype, count, elems int) {
			t.Helper()
			if c, err := st.GetCount(dt); err != nil || c != count {
				t.Errorf("%s: GetCount = %d, %v; want %d", what, c, err, count)
			}
			if e, err := st.GetElements(dt); err != nil || e != elems {
				t.Errorf("%s: GetElements = %d, %v; want %d", what, e, err, elems)
			}
		}
		a := make([]float32, 4)
		st, err := mpi.RecvBuf(w, mpi.Typed(a, 2, type2), 0, 0)
		must(t, err)
		check("2 reals into Type2", st, type2, 1, 2)
		st, err = mpi.RecvBuf(w, mpi.Typed(a, 2, type2), 0, 0)
		must(t, err)
		check("3 reals into Type2", st, type2, mpi.Undefined, 3)
		if !slices.Equal(a[:3], []float32{1, 2, 3}) {
			t.Errorf("3 reals into Type2: %v", a)
		}
		ms := make([]mixed, 2)
		st, err = mpi.RecvBuf(w, mpi.Typed(ms, 2, mt), 0, 1)
		must(t, err)
		check("1 mixed item and 2 of its 3 elements", st, mt, mpi.Undefined, 5)
		st, err = mpi.RecvBuf(w, mpi.Typed(ms, 2, mt), 0, 1)
		must(t, err)
		check("a message ending inside a float64", st, mt, mpi.Undefined, mpi.Undefined)
		pairs := make([]float64, 4)
		st, err = mpi.RecvBuf(w, mpi.Typed(pairs, 2, mpi.Float64Int32), 0, 2)
		must(t, err)
		// 24 bytes of (float64, int32) records of 12 packed bytes: two whole pairs.
		check("24 bytes of Float64Int32", st, mpi.Float64Int32, 2, 4)
		st, err = mpi.RecvBuf(w, mpi.Typed(pairs, 2, mpi.Float64Int32), 0, 3)
		must(t, err)
		check("an empty message", st, mpi.Float64Int32, 0, 0)
		if _, err := st.GetElements(nil); !errors.Is(err, mpi.ErrType) {
			t.Errorf("GetElements(nil): %v, want ErrType", err)
		}
		if _, err := st.GetCount(nil); !errors.Is(err, mpi.ErrType) {
			t.Errorf("GetCount(nil): %v, want ErrType", err)
		}
	})
}

// The Go layouts of the pair types: C's structs, the index after the value, aligned.
type (
	float32Int32 struct {
		V float32
		I int32
	}
	float64Int32 struct {
		V float64
		I int32
	}
	int64Int32 struct {
		V int64
		I int32
	}
	int16Int32 struct {
		V int16
		I int32
	}
)

// pairCase reduces n (value, index) records of one pair type with Maxloc and Minloc
// by AllreduceBuf and ReduceBuf, and checks every record against the serial answer,
// in which ties keep the smallest index.
func pairCase[P any](t *testing.T, dt *mpi.Datatype, n int, mk func(v, i int) P, get func(P) (float64, int32)) {
	t.Helper()
	w := mpi.World
	rank, size := w.Rank(), w.Size()
	// Values repeat across ranks, so most records tie; indexes grow with the rank.
	val := func(r, i int) int { return ((r + i) % 4) / 2 }
	in := make([]P, n)
	for i := range in {
		in[i] = mk(val(rank, i), 100*rank+i%100)
	}
	for _, op := range []mpi.Op{mpi.Maxloc, mpi.Minloc} {
		out := make([]P, n)
		must(t, mpi.AllreduceBuf(w, mpi.Typed(in, n, dt), mpi.Typed(out, n, dt), op))
		red := make([]P, n)
		must(t, mpi.ReduceBuf(w, mpi.Typed(in, n, dt), mpi.Typed(red, n, dt), op, size-1))
		for i := range n {
			bv, bi := val(0, i), 100*0+i%100
			for r := 1; r < size; r++ {
				v := val(r, i)
				if op == mpi.Maxloc && v > bv || op == mpi.Minloc && v < bv {
					bv, bi = v, 100*r+i%100
				}
			}
			gv, gi := get(out[i])
			if gv != float64(bv) || gi != int32(bi) {
				t.Fatalf("%v on %d records: AllreduceBuf record %d = (%v, %d), want (%d, %d)", op, n, i, gv, gi, bv, bi)
			}
			if rank == size-1 {
				if rv, ri := get(red[i]); rv != gv || ri != gi {
					t.Fatalf("%v on %d records: ReduceBuf record %d = (%v, %d), want (%d, %d)", op, n, i, rv, ri, bv, bi)
				}
			}
		}
	}
}

// TestMinlocMaxlocPairTypes: MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT and
// MPI_SHORT_INT exist for Maxloc and Minloc (MPI 4.1 §6.9.4), which ReduceBuf and
// AllreduceBuf used to refuse on them. Thousands of records make the algorithms that
// split buffers among ranks run too: a split must never fall inside a record.
func TestMinlocMaxlocPairTypes(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		for _, n := range []int{1, 7, 5000} {
			pairCase(t, mpi.Float32Int32, n, func(v, i int) float32Int32 { return float32Int32{float32(v) - 0.5, int32(i)} },
				func(p float32Int32) (float64, int32) { return float64(p.V + 0.5), p.I })
			pairCase(t, mpi.Float64Int32, n, func(v, i int) float64Int32 { return float64Int32{float64(v) * 1e300, int32(i)} },
				func(p float64Int32) (float64, int32) { return p.V / 1e300, p.I })
			pairCase(t, mpi.Int64Int32, n, func(v, i int) int64Int32 { return int64Int32{int64(v) << 40, int32(i)} },
				func(p int64Int32) (float64, int32) { return float64(p.V >> 40), p.I })
			pairCase(t, mpi.Int16Int32, n, func(v, i int) int16Int32 { return int16Int32{int16(v) - 2, int32(i)} },
				func(p int16Int32) (float64, int32) { return float64(p.V + 2), p.I })
		}
		p := make([]int16Int32, 2)
		if err := mpi.AllreduceBuf(mpi.World, mpi.Typed(p, 2, mpi.Int16Int32), mpi.Typed(p, 2, mpi.Int16Int32), mpi.Max); !errors.Is(err, mpi.ErrOp) {
			t.Errorf("Max on Int16Int32: %v, want ErrOp", err)
		}
	})
}

// Particle is a Go struct of mixed fields, with padding after Alive.
type Particle struct {
	X, Y  float64
	ID    int32
	Alive bool
}

// particleFn sums X, keeps the largest Y, and keeps the ID of the first live particle
// in rank order, which does not commute. in holds the lower ranks' side.
func particleFn(inout, in []Particle) {
	for i := range inout {
		a, b := in[i], inout[i]
		r := Particle{X: a.X + b.X, Y: max(a.Y, b.Y), ID: b.ID, Alive: a.Alive || b.Alive}
		if a.Alive {
			r.ID = a.ID
		}
		inout[i] = r
	}
}

var combineParticles = mpi.OpCreate(particleFn, false)

func particleOf(rank, i int) Particle {
	return Particle{X: float64(rank + i), Y: float64((rank*5 + i) % 7), ID: int32(1000*rank + i), Alive: (rank+i)%3 == 1}
}

// wideParticle holds a Particle's fields at other offsets, with a field between them.
type wideParticle struct {
	Alive bool
	Pad   [5]byte
	ID    int32
	Y     float64
	Skip  float64
	X     float64
}

// TestOpCreateOnStructs: an op made by OpCreate over a Go struct reduces typed buffers
// of that struct, as TypeOf gives it or in any layout with the same elements, and
// the result is byte for byte the op applied serially in rank order.
func TestOpCreateOnStructs(t *testing.T) {
	const n = 300
	job(t, 4, func(t *testing.T, rank, size int) {
		w := mpi.World
		pt, err := mpi.TypeOf[Particle]()
		must(t, err)
		mine := make([]Particle, n)
		for i := range mine {
			mine[i] = particleOf(rank, i)
		}
		want := make([]Particle, n)
		for i := range want {
			acc := []Particle{particleOf(0, i)}
			for r := 1; r < size; r++ {
				next := []Particle{particleOf(r, i)}
				particleFn(next, acc) // next = acc ⊕ next
				acc = next
			}
			want[i] = acc[0]
		}
		packed := func(ps []Particle) []byte {
			b := make([]byte, n*int(mustV(pt.Size())(t)))
			pos := 0
			must(t, mpi.Pack(mpi.Typed(ps, n, pt), b, &pos))
			return b
		}
		got := make([]Particle, n)
		must(t, mpi.AllreduceBuf(w, mpi.Typed(mine, n, pt), mpi.Typed(got, n, pt), combineParticles))
		if !bytes.Equal(packed(got), packed(want)) || !slices.Equal(got, want) {
			t.Fatalf("AllreduceBuf: first records %+v, want %+v", got[:2], want[:2])
		}

		// One buffer as both send and recv: the input is read as it was.
		same := slices.Clone(mine)
		must(t, mpi.AllreduceBuf(w, mpi.Typed(same, n, pt), mpi.Typed(same, n, pt), combineParticles))
		if !slices.Equal(same, want) {
			t.Fatalf("AllreduceBuf on one buffer: first records %+v, want %+v", same[:2], want[:2])
		}

		// Sent as one item of a contiguous type, received in another layout.
		all, err := mpi.TypeContiguous(n, pt)
		must(t, err)
		must(t, all.Commit())
		var wp wideParticle
		wt, err := mpi.TypeStruct([]int{1, 1, 1, 1},
			[]int{int(unsafe.Offsetof(wp.X)), int(unsafe.Offsetof(wp.Y)), int(unsafe.Offsetof(wp.ID)), int(unsafe.Offsetof(wp.Alive))},
			[]*mpi.Datatype{mpi.Float64, mpi.Float64, mpi.Int32, mpi.Bool})
		must(t, err)
		wt, err = mpi.TypeResized(wt, 0, int(unsafe.Sizeof(wp)))
		must(t, err)
		must(t, wt.Commit())
		wide := make([]wideParticle, n)
		for i := range wide {
			wide[i].Skip = -1
		}
		must(t, mpi.ReduceBuf(w, mpi.Typed(mine, 1, all), mpi.Typed(wide, n, wt), combineParticles, 2))
		if rank == 2 {
			for i, p := range wide {
				if q := (Particle{p.X, p.Y, p.ID, p.Alive}); q != want[i] || p.Skip != -1 {
					t.Fatalf("ReduceBuf into another layout: record %d = %+v, want %+v", i, p, want[i])
				}
			}
		}

		// Refusals, alike on every rank.
		withPtr := mpi.OpCreate(func(inout, in []struct{ P *int }) {}, true)
		if err := mpi.AllreduceBuf(w, mpi.Typed(mine, n, pt), mpi.Typed(got, n, pt), withPtr); !errors.Is(err, mpi.ErrOp) || !strings.Contains(err.Error(), ".P") {
			t.Errorf("an op over a struct with a pointer: %v, want ErrOp naming the field", err)
		}
		f := []float64{1, 2, 3}
		if err := mpi.AllreduceBuf(w, mpi.Typed(f, 3, mpi.Float64), mpi.Typed(make([]float64, 3), 3, mpi.Float64), combineParticles); !errors.Is(err, mpi.ErrType) {
			t.Errorf("24 bytes of float64 reduced as Particles (21 data bytes each): %v, want ErrType", err)
		}
		// Still in step: an op over an element type works on derived buffers too.
		absMax := mpi.OpCreate(func(inout, in []float64) {
			for i := range inout {
				if max(in[i], -in[i]) > max(inout[i], -inout[i]) {
					inout[i] = in[i]
				}
			}
		}, true)
		col, err := mpi.TypeVector(2, 1, 2, mpi.Float64)
		must(t, err)
		must(t, col.Commit())
		res := make([]float64, 2)
		must(t, mpi.AllreduceBuf(w, mpi.Typed([]float64{float64(-rank), 0, float64(rank) / 2, 0}, 1, col), mpi.Typed(res, 2, mpi.Float64), absMax))
		if res[0] != float64(-(size-1)) || res[1] != float64(size-1)/2 {
			t.Errorf("absMax over a vector: %v", res)
		}
	})
}

// TestDatatypeBadHandles: freeing a predefined datatype is an error of class ErrType
// (MPI 4.1 §5.1.10: it is erroneous), and the predefined type stays usable; a Typed
// buffer over elements that hold pointers (interfaces included) is refused with
// ErrBuffer, naming the element type, by the call that takes it.
func TestDatatypeBadHandles(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		err := mpi.Int32.Free()
		if !errors.Is(err, mpi.ErrType) || !strings.Contains(err.Error(), "predefined") {
			t.Errorf("Int32.Free() = %v, want ErrType naming the predefined type", err)
		}
		if sz, err := mpi.Int32.Size(); err != nil || sz != 4 {
			t.Errorf("Int32 after a refused Free: size %d, %v", sz, err)
		}
		for name, b := range map[string]mpi.Buf{
			"[]any":    mpi.Typed([]any{1, 2}, 1, mpi.Int64),
			"[]*int":   mpi.Typed([]*int{nil}, 1, mpi.Int64),
			"[]string": mpi.Typed([]string{"x"}, 1, mpi.Int64),
			"[]error":  mpi.Typed([]error{nil}, 1, mpi.Int64),
		} {
			err := mpi.SendBuf(mpi.Self, b, 0, 0)
			elem := strings.Replace(strings.TrimPrefix(name, "[]"), "any", "interface {}", 1)
			if !errors.Is(err, mpi.ErrBuffer) || !strings.Contains(err.Error(), elem) {
				t.Errorf("SendBuf of Typed(%s): %v, want ErrBuffer naming the element type", name, err)
			}
		}
		// A freed datatype is refused by every call that takes a buffer of it, the
		// collectives without a reduction among them.
		v, err := mpi.TypeVector(2, 1, 2, mpi.Int32)
		must(t, err)
		must(t, v.Commit())
		must(t, v.Free())
		buf := make([]int32, 4)
		for name, call := range map[string]func() error{
			"BcastBuf":  func() error { return mpi.BcastBuf(mpi.Self, mpi.Typed(buf, 1, v), 0) },
			"GatherBuf": func() error { return mpi.GatherBuf(mpi.Self, mpi.Typed(buf, 1, v), mpi.Typed(buf, 1, v), 0) },
			"SendBuf":   func() error { return mpi.SendBuf(mpi.Self, mpi.Typed(buf, 1, v), 0, 0) },
			"AllreduceBuf": func() error {
				return mpi.AllreduceBuf(mpi.Self, mpi.Typed(buf, 1, v), mpi.Typed(make([]int32, 4), 1, v), mpi.Sum)
			},
		} {
			if err := call(); !errors.Is(err, mpi.ErrType) || !strings.Contains(err.Error(), "freed") {
				t.Errorf("%s of a freed datatype: %v, want ErrType saying it was freed", name, err)
			}
		}
	})
}
