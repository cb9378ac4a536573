package mpi_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// gparticle has padding (after Alive), so its datatype is not contiguous and the
// typed collectives pack it.
type gparticle struct {
	X, Y  float64
	ID    int32
	Alive bool
}

func gparticles(n, seed int) []gparticle {
	ps := make([]gparticle, n)
	for i := range ps {
		ps[i] = gparticle{X: float64(seed*100 + i), Y: -float64(i), ID: int32(seed*1000 + i), Alive: i%2 == 0}
	}
	return ps
}

// nb runs a typed collective's blocking form or, with nb, its nonblocking form and
// Wait.
func waitOr(t *testing.T, nb bool, blocking func() error, start func() (mpi.Request, error)) {
	t.Helper()
	if !nb {
		must(t, blocking())
		return
	}
	r, err := start()
	must(t, err)
	_, err = r.Wait()
	must(t, err)
}

// TestBcastBufStructs: BcastBuf of Go structs (TypeOf) gives every rank root's values,
// blocking and nonblocking.
func TestBcastBufStructs(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		pt, err := mpi.TypeOf[gparticle]()
		must(t, err)
		for _, nb := range []bool{false, true} {
			want := gparticles(5, 7)
			buf := make([]gparticle, 5)
			if rank == 1 {
				copy(buf, want)
			}
			b := mpi.Typed(buf, 5, pt)
			waitOr(t, nb, func() error { return mpi.BcastBuf(mpi.World, b, 1) },
				func() (mpi.Request, error) { return mpi.IbcastBuf(mpi.World, b, 1) })
			if !slices.Equal(buf, want) {
				t.Errorf("nb %v: rank %d got %v", nb, rank, buf)
			}
		}
	})
}

// columnType is one column of an n×n row-major matrix of int32, resized so that
// consecutive items are consecutive columns.
func columnType(t *testing.T, n int) *mpi.Datatype {
	col, err := mpi.TypeVector(n, 1, n, mpi.Int32)
	must(t, err)
	col, err = mpi.TypeResized(col, 0, 4)
	must(t, err)
	must(t, col.Commit())
	return col
}

// TestScatterGatherColumns: root scatters the columns of a matrix, one to each rank,
// which receives it as contiguous int32s; root gathers them back as columns, so the
// matrix comes back transposed twice: equal.
func TestScatterGatherColumns(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		n := size
		col := columnType(t, n)
		for _, nb := range []bool{false, true} {
			var m []int32
			if rank == 0 {
				m = make([]int32, n*n)
				for i := range m {
					m[i] = int32(i*3 + 1)
				}
			}
			mine := make([]int32, n)
			send, recv := mpi.Buf{}, mpi.Typed(mine, n, mpi.Int32)
			if rank == 0 {
				send = mpi.Typed(m, n, col)
			}
			waitOr(t, nb, func() error { return mpi.ScatterBuf(mpi.World, send, recv, 0) },
				func() (mpi.Request, error) { return mpi.IscatterBuf(mpi.World, send, recv, 0) })
			for i := range mine {
				if want := int32((i*n+rank)*3 + 1); mine[i] != want {
					t.Fatalf("nb %v: rank %d column element %d = %d, want %d", nb, rank, i, mine[i], want)
				}
			}
			back := make([]int32, n*n)
			gr := mpi.Buf{}
			if rank == 0 {
				gr = mpi.Typed(back, n, col)
			}
			waitOr(t, nb, func() error { return mpi.GatherBuf(mpi.World, recv, gr, 0) },
				func() (mpi.Request, error) { return mpi.IgatherBuf(mpi.World, recv, gr, 0) })
			if rank == 0 && !slices.Equal(back, m) {
				t.Errorf("nb %v: gathered columns %v, want %v", nb, back, m)
			}
		}
	})
}

// TestGathervScattervBufStrided: rank i contributes i+1 items of a strided vector type
// (every other int32); root places them at displacements in a matrix of such items,
// and scatters them back.
func TestGathervScattervBufStrided(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		every2, err := mpi.TypeVector(1, 1, 2, mpi.Int32)
		must(t, err)
		every2, err = mpi.TypeResized(every2, 0, 8)
		must(t, err)
		must(t, every2.Commit())
		counts, displs := []int{1, 2, 3}, []int{5, 0, 2} // items, in units of the extent
		for _, nb := range []bool{false, true} {
			src := make([]int32, 2*(rank+1))
			for i := range rank + 1 {
				src[2*i], src[2*i+1] = int32(10*rank+i), -1 // odd slots are gaps, never sent
			}
			all := make([]int32, 2*6)
			for i := range all {
				all[i] = 99
			}
			rb := mpi.Buf{}
			if rank == 0 {
				rb = mpi.Typed(all, 6, every2)
			}
			sb := mpi.Typed(src, rank+1, every2)
			waitOr(t, nb, func() error { return mpi.GathervBuf(mpi.World, sb, rb, counts, displs, 0) },
				func() (mpi.Request, error) { return mpi.IgathervBuf(mpi.World, sb, rb, counts, displs, 0) })
			if rank == 0 {
				want := []int32{10, 99, 11, 99, 20, 99, 21, 99, 22, 99, 0, 99}
				if !slices.Equal(all, want) {
					t.Errorf("nb %v: gatherv %v, want %v", nb, all, want)
				}
			}
			got := make([]int32, rank+1)
			gb := mpi.Typed(got, rank+1, mpi.Int32)
			waitOr(t, nb, func() error { return mpi.ScattervBuf(mpi.World, rb, counts, displs, gb, 0) },
				func() (mpi.Request, error) { return mpi.IscattervBuf(mpi.World, rb, counts, displs, gb, 0) })
			for i := range got {
				if got[i] != int32(10*rank+i) {
					t.Errorf("nb %v: rank %d scatterv %v", nb, rank, got)
					break
				}
			}
		}
	})
}

// TestAllgatherAlltoallBuf: the all-to-all forms on struct and column types, checked
// against the values each rank knows it should get.
func TestAllgatherAlltoallBuf(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		pt, err := mpi.TypeOf[gparticle]()
		must(t, err)
		for _, nb := range []bool{false, true} {
			mine := gparticles(2, rank)
			all := make([]gparticle, 2*size)
			s, r := mpi.Typed(mine, 2, pt), mpi.Typed(all, 2*size, pt)
			waitOr(t, nb, func() error { return mpi.AllgatherBuf(mpi.World, s, r) },
				func() (mpi.Request, error) { return mpi.IallgatherBuf(mpi.World, s, r) })
			for q := range size {
				if !slices.Equal(all[2*q:2*q+2], gparticles(2, q)) {
					t.Errorf("nb %v: allgather block %d = %v", nb, q, all[2*q:2*q+2])
				}
			}
			// Allgatherv with rank q's 1 gparticle at item 2q+1 (and gaps).
			allv := make([]gparticle, 2*size)
			counts, displs := []int{1, 1, 1}, []int{1, 3, 5}
			rv := mpi.Typed(allv, 2*size, pt)
			one := mpi.Typed(mine, 1, pt)
			waitOr(t, nb, func() error { return mpi.AllgathervBuf(mpi.World, one, rv, counts, displs) },
				func() (mpi.Request, error) { return mpi.IallgathervBuf(mpi.World, one, rv, counts, displs) })
			for q := range size {
				if allv[2*q+1] != gparticles(1, q)[0] || allv[2*q] != (gparticle{}) {
					t.Errorf("nb %v: allgatherv at %d: %v", nb, q, allv[2*q:2*q+2])
				}
			}
			// Alltoall: block q (one gparticle) to rank q.
			out := gparticles(size, rank)
			in := make([]gparticle, size)
			so, ri := mpi.Typed(out, size, pt), mpi.Typed(in, size, pt)
			waitOr(t, nb, func() error { return mpi.AlltoallBuf(mpi.World, so, ri) },
				func() (mpi.Request, error) { return mpi.IalltoallBuf(mpi.World, so, ri) })
			for q := range size {
				if in[q] != gparticles(size, q)[rank] {
					t.Errorf("nb %v: alltoall from %d: %v", nb, q, in[q])
				}
			}
			// Alltoallv: rank q gets rank+1 particles... one each, reversed places.
			ones, places := []int{1, 1, 1}, []int{2, 1, 0}
			in2 := make([]gparticle, size)
			ri2 := mpi.Typed(in2, size, pt)
			waitOr(t, nb, func() error { return mpi.AlltoallvBuf(mpi.World, so, ones, []int{0, 1, 2}, ri2, ones, places) },
				func() (mpi.Request, error) {
					return mpi.IalltoallvBuf(mpi.World, so, ones, []int{0, 1, 2}, ri2, ones, places)
				})
			for q := range size {
				if in2[places[q]] != gparticles(size, q)[rank] {
					t.Errorf("nb %v: alltoallv from %d: %v", nb, q, in2[places[q]])
				}
			}
		}
	})
}

// TestTypedCollectiveBadInput: an uncommitted type, a buffer too short for its items
// and a nil-type Buf are refused with the class that names the problem.
func TestTypedCollectiveBadInput(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		raw, err := mpi.TypeVector(2, 1, 2, mpi.Int32)
		must(t, err)
		if err := mpi.BcastBuf(mpi.World, mpi.Typed(make([]int32, 4), 1, raw), 0); !errors.Is(err, mpi.ErrType) {
			t.Errorf("uncommitted: %v, want ErrType", err)
		}
		must(t, raw.Commit())
		if err := mpi.BcastBuf(mpi.World, mpi.Typed(make([]int32, 2), 2, raw), 0); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("short buffer: %v, want ErrBuffer", err)
		}
		if err := mpi.BcastBuf(mpi.World, mpi.Typed(make([]int32, 2), 1, nil), 0); !errors.Is(err, mpi.ErrType) {
			t.Errorf("nil type: %v, want ErrType", err)
		}
		// In place at the root of a gather with a typed receive buffer.
		all := make([]int32, 2*size)
		all[2*rank], all[2*rank+1] = int32(rank), int32(rank)
		send := mpi.Typed(all[2*rank:2*rank+2], 2, mpi.Int32)
		recv := mpi.Buf{}
		if rank == 0 {
			send, recv = mpi.InPlaceBuf, mpi.Typed(all, 2*size, mpi.Int32)
		}
		must(t, mpi.GatherBuf(mpi.World, send, recv, 0))
		if rank == 0 && !slices.Equal(all, []int32{0, 0, 1, 1}) {
			t.Errorf("in place gather: %v", all)
		}
	})
}

// TestNeighborCollectivesBuf: the neighbourhood collectives on typed buffers, on a
// periodic ring of 3 (neighbours: -1 then +1), blocking and nonblocking, with a
// struct type and a strided one.
func TestNeighborCollectivesBuf(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		ring, err := mpi.World.CartCreate([]int{size}, []bool{true}, false)
		must(t, err)
		left, right := (rank+size-1)%size, (rank+1)%size
		pt, err := mpi.TypeOf[gparticle]()
		must(t, err)
		every2, err := mpi.TypeVector(1, 1, 2, mpi.Int32)
		must(t, err)
		every2, err = mpi.TypeResized(every2, 0, 8)
		must(t, err)
		must(t, every2.Commit())
		call := func(nb bool, blocking func() error, start func() (mpi.Request, error)) {
			waitOr(t, nb, blocking, start)
		}
		for _, nb := range []bool{false, true} {
			// Allgather: my 2 particles to both neighbours; 2 from each back.
			mine := gparticles(2, rank)
			got := make([]gparticle, 4)
			s, r := mpi.Typed(mine, 2, pt), mpi.Typed(got, 4, pt)
			call(nb, func() error { return mpi.NeighborAllgatherBuf(ring, s, r) },
				func() (mpi.Request, error) { return mpi.IneighborAllgatherBuf(ring, s, r) })
			if !slices.Equal(got[:2], gparticles(2, left)) || !slices.Equal(got[2:], gparticles(2, right)) {
				t.Errorf("nb %v: allgather %v", nb, got)
			}
			// Allgatherv into strided slots: from the -1 neighbour at item 2, the +1 at 0.
			slots := make([]int32, 2*3)
			rv := mpi.Typed(slots, 3, every2)
			one := mpi.Typed([]int32{int32(rank)}, 1, mpi.Int32)
			call(nb, func() error { return mpi.NeighborAllgathervBuf(ring, one, rv, []int{1, 1}, []int{2, 0}) },
				func() (mpi.Request, error) {
					return mpi.IneighborAllgathervBuf(ring, one, rv, []int{1, 1}, []int{2, 0})
				})
			if want := []int32{int32(right), 0, 0, 0, int32(left), 0}; !slices.Equal(slots, want) {
				t.Errorf("nb %v: allgatherv %v, want %v", nb, slots, want)
			}
			// Alltoall: block 0 to the -1 neighbour, block 1 to the +1.
			out := []int32{int32(10*rank + 0), int32(10*rank + 1)}
			in := make([]int32, 2)
			so, ri := mpi.Typed(out, 2, mpi.Int32), mpi.Typed(in, 2, mpi.Int32)
			call(nb, func() error { return mpi.NeighborAlltoallBuf(ring, so, ri) },
				func() (mpi.Request, error) { return mpi.IneighborAlltoallBuf(ring, so, ri) })
			if in[0] != int32(10*left+1) || in[1] != int32(10*right+0) {
				t.Errorf("nb %v: alltoall %v", nb, in)
			}
			// Alltoallv: the blocks swapped in place in recv.
			in2 := make([]int32, 2)
			ri2 := mpi.Typed(in2, 2, mpi.Int32)
			ones, sw := []int{1, 1}, []int{1, 0}
			call(nb, func() error { return mpi.NeighborAlltoallvBuf(ring, so, ones, []int{0, 1}, ri2, ones, sw) },
				func() (mpi.Request, error) {
					return mpi.IneighborAlltoallvBuf(ring, so, ones, []int{0, 1}, ri2, ones, sw)
				})
			if in2[1] != int32(10*left+1) || in2[0] != int32(10*right+0) {
				t.Errorf("nb %v: alltoallv %v", nb, in2)
			}
		}
		if err := mpi.NeighborAllgatherBuf(mpi.World, mpi.Typed([]int32{1}, 1, mpi.Int32), mpi.Typed(make([]int32, 2), 2, mpi.Int32)); !errors.Is(err, mpi.ErrTopology) {
			t.Errorf("no topology: %v, want ErrTopology", err)
		}
		must(t, ring.Free())
	})
}

// TestSendModesBuf: every send mode and the persistent requests on typed buffers move
// a strided column and Go structs intact.
func TestSendModesBuf(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		pt, err := mpi.TypeOf[gparticle]()
		must(t, err)
		col := columnType(t, 3)
		must(t, mpi.BufferAttach(make([]byte, 1<<16)))
		defer mpi.BufferDetach()
		m := make([]int32, 9)
		for i := range m {
			m[i] = int32(i)
		}
		type sender struct {
			name string
			send func(b mpi.Buf, tag int) error
		}
		wait := func(r mpi.Request, err error) error {
			if err != nil {
				return err
			}
			_, err = r.Wait()
			return err
		}
		senders := []sender{
			{"BsendBuf", func(b mpi.Buf, tag int) error { return mpi.BsendBuf(w, b, 1, tag) }},
			{"RsendBuf", func(b mpi.Buf, tag int) error { return mpi.RsendBuf(w, b, 1, tag) }},
			{"IssendBuf", func(b mpi.Buf, tag int) error { return wait(mpi.IssendBuf(w, b, 1, tag)) }},
			{"IrsendBuf", func(b mpi.Buf, tag int) error { return wait(mpi.IrsendBuf(w, b, 1, tag)) }},
			{"IbsendBuf", func(b mpi.Buf, tag int) error { return wait(mpi.IbsendBuf(w, b, 1, tag)) }},
		}
		for k, s := range senders {
			if rank == 0 {
				must(t, w.Barrier()) // rank 1 has posted its receives (Rsend needs it)
				if err := s.send(mpi.Typed(m, 1, col), 2*k); err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				if err := s.send(mpi.Typed(gparticles(3, k), 3, pt), 2*k+1); err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				continue
			}
			got := make([]int32, 3)
			ps := make([]gparticle, 3)
			r1, err := mpi.IrecvBuf(w, mpi.Typed(got, 3, mpi.Int32), 0, 2*k)
			must(t, err)
			r2, err := mpi.IrecvBuf(w, mpi.Typed(ps, 3, pt), 0, 2*k+1)
			must(t, err)
			must(t, w.Barrier())
			must(t, mpi.Waitall([]mpi.Request{r1, r2}, nil))
			if !slices.Equal(got, []int32{0, 3, 6}) || !slices.Equal(ps, gparticles(3, k)) {
				t.Errorf("%s: column %v, particles %v", s.name, got, ps)
			}
		}
		// Persistent: three rounds of a column one way and its values back.
		if rank == 0 {
			sends := []func() (mpi.Request, error){
				func() (mpi.Request, error) { return mpi.SendInitBuf(w, mpi.Typed(m, 1, col), 1, 50) },
				func() (mpi.Request, error) { return mpi.SsendInitBuf(w, mpi.Typed(m, 1, col), 1, 50) },
				func() (mpi.Request, error) { return mpi.BsendInitBuf(w, mpi.Typed(m, 1, col), 1, 50) },
				func() (mpi.Request, error) { return mpi.RsendInitBuf(w, mpi.Typed(m, 1, col), 1, 50) },
			}
			for _, mk := range sends {
				r, err := mk()
				must(t, err)
				for round := 0; round < 3; round++ {
					must(t, w.Barrier())
					must(t, r.Start())
					_, err = r.Wait()
					must(t, err)
				}
				must(t, r.Free())
			}
			return
		}
		got := make([]int32, 9)
		r, err := mpi.RecvInitBuf(w, mpi.Typed(got, 1, col), 0, 50)
		must(t, err)
		for range 4 * 3 {
			clear(got)
			must(t, r.Start())
			must(t, w.Barrier())
			_, err = r.Wait()
			must(t, err)
			if want := []int32{0, 0, 0, 3, 0, 0, 6, 0, 0}; !slices.Equal(got, want) {
				t.Fatalf("persistent receive of a column: %v, want %v", got, want)
			}
		}
		must(t, r.Free())
	})
}
