package mpi_test

import (
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestNoAllocationPerMessage measures, inside a real 2-rank job over shared memory, the
// heap allocations of typed Send/Recv and Isend/Irecv+Wait ping-pongs through the whole
// stack (mpi, the engine, the transport): there must be none per message.
func TestNoAllocationPerMessage(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		peer := 1 - rank
		small := make([]float64, 4)
		medium := make([]byte, 2000)
		pingpong := func() {
			if rank == 0 {
				mpi.Send(w, small, peer, 1)
				mpi.Recv(w, small, peer, 1)
				mpi.Send(w, medium, peer, 2)
				mpi.Recv(w, medium, peer, 2)
			} else {
				mpi.Recv(w, small, peer, 1)
				mpi.Send(w, small, peer, 1)
				mpi.Recv(w, medium, peer, 2)
				mpi.Send(w, medium, peer, 2)
			}
		}
		if a := testing.AllocsPerRun(2000, pingpong); a != 0 {
			t.Errorf("Send/Recv: %.2f allocations per round trip", a)
		}
		nonblocking := func() {
			r, _ := mpi.Irecv(w, small, peer, 3)
			s, _ := mpi.Isend(w, small, peer, 3)
			s.Wait()
			r.Wait()
		}
		if a := testing.AllocsPerRun(2000, nonblocking); a != 0 {
			t.Errorf("Isend/Irecv/Wait: %.2f allocations per exchange", a)
		}
		// Small plain values (the value path's fast case): no allocation either (at
		// ThreadMultiple their scratch comes from sync.Pools, which the race detector
		// empties at random).
		type cell struct {
			I, J int32
			V    float64
		}
		values := func() {
			if rank == 0 {
				mpi.SendValue(w, int64(7), peer, 4)
				mpi.RecvValue[int64](w, peer, 4)
				mpi.SendValue(w, cell{1, 2, 3.5}, peer, 5)
				mpi.RecvValue[cell](w, peer, 5)
			} else {
				v, _, _ := mpi.RecvValue[int64](w, peer, 4)
				mpi.SendValue(w, v, peer, 4)
				c, _, _ := mpi.RecvValue[cell](w, peer, 5)
				mpi.SendValue(w, c, peer, 5)
			}
		}
		if a := testing.AllocsPerRun(2000, values); a != 0 && !raceEnabled {
			t.Errorf("SendValue/RecvValue of plain values: %.2f allocations per round trip", a)
		}
	})
}

// TestTypedCollNoAllocs: the blocking collectives on derived datatypes (a strided
// column reduced, records broadcast) allocate nothing per call: their buffers are
// checked in place and staged in pooled scratch.
func TestTypedCollNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, so allocations are not counted")
	}
	job(t, 2, func(t *testing.T, rank, size int) {
		const cols, n = 4, 256
		a, res := make([]float64, cols*n), make([]float64, cols*n)
		col := committed(mpi.TypeVector(n, 1, cols, mpi.Float64))(t)
		pt := committed(mpi.TypeOf[Particle]())(t)
		ps := make([]Particle, 64)
		calls := func() {
			must(t, mpi.AllreduceBuf(mpi.World, mpi.Typed(a[1:], 1, col), mpi.Typed(res[1:], 1, col), mpi.Sum))
			must(t, mpi.ReduceBuf(mpi.World, mpi.Typed(a[2:], 1, col), mpi.Typed(res[2:], 1, col), mpi.Max, 1))
			must(t, mpi.ScanBuf(mpi.World, mpi.Typed(a, 1, col), mpi.Typed(res, n, mpi.Float64), mpi.Sum))
			must(t, mpi.BcastBuf(mpi.World, mpi.Typed(ps, len(ps), pt), 0))
		}
		calls() // the first calls fill the pools
		if a := testing.AllocsPerRun(200, calls); a != 0 {
			t.Errorf("%.2f allocations per AllreduceBuf+ReduceBuf+ScanBuf+BcastBuf, want 0", a)
		}
	})
}

// A blocking message of a derived datatype (a matrix column, a Go struct with
// padding) costs no allocation: SendBuf, RecvBuf and MrecvBuf borrow their packing
// layout from a pool.
func TestTypedP2PNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, so allocations are not counted")
	}
	job(t, 2, func(t *testing.T, rank, size int) {
		const cols, n = 4, 64
		a := make([]float64, cols*n)
		for i := range a {
			a[i] = float64(i)
		}
		got := make([]float64, cols*n)
		col := committed(mpi.TypeVector(n, 1, cols, mpi.Float64))(t)
		peer := 1 - rank
		calls := func() {
			if rank == 0 {
				must(t, mpi.SendBuf(mpi.World, mpi.Typed(a[1:], 1, col), peer, 3))
				must(t, mpi.SsendBuf(mpi.World, mpi.Typed(a[2:], 1, col), peer, 4))
				return
			}
			_, err := mpi.RecvBuf(mpi.World, mpi.Typed(got[1:], 1, col), peer, 3)
			must(t, err)
			m, _, err := mpi.World.Mprobe(peer, 4)
			must(t, err)
			_, err = mpi.MrecvBuf(mpi.Typed(got[2:], 1, col), &m)
			must(t, err)
		}
		calls()
		if rank == 1 {
			for i := 0; i < n; i++ {
				if got[1+i*cols] != a[1+i*cols] || got[2+i*cols] != a[2+i*cols] {
					t.Fatalf("column items %d: got %v and %v, want %v and %v", i, got[1+i*cols], got[2+i*cols], a[1+i*cols], a[2+i*cols])
				}
			}
		}
		if a := testing.AllocsPerRun(200, calls); a != 0 {
			t.Errorf("%.2f allocations per round of SendBuf+SsendBuf / RecvBuf+Mprobe+MrecvBuf of a column, want 0", a)
		}
	})
}

// TestNonblockingCollNoAllocs: a nonblocking collective and its Wait allocate nothing
// per call once warm (Iallreduce, Ibcast, Ibarrier, Ireduce, Iallgather, Ialltoall,
// and a persistent Allreduce's Start): the schedule and the request's record are both
// reused.
func TestNonblockingCollNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, so allocations are not counted")
	}
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		a, sum := []float64{float64(rank + 1)}, make([]float64, 1)
		v := make([]int32, 4)
		all, out := make([]float64, size), make([]float64, size)
		wait := func(r mpi.Request, err error) {
			must(t, err)
			_, err = r.Wait()
			must(t, err)
		}
		pr, err := mpi.AllreduceInit(w, a, sum, mpi.Sum)
		must(t, err)
		defer pr.Free()
		calls := []struct {
			name string
			f    func()
		}{
			{"Iallreduce", func() { wait(mpi.Iallreduce(w, a, sum, mpi.Sum)) }},
			// A rooted collective is followed by a barrier: a root running ahead
			// would have its peers buffer unexpected messages, which costs the
			// engine allocations that are no part of the collective's.
			{"Ibcast(+Ibarrier)", func() { wait(mpi.Ibcast(w, v, 0)); wait(w.Ibarrier()) }},
			{"Ibarrier", func() { wait(w.Ibarrier()) }},
			{"Ireduce(+Ibarrier)", func() { wait(mpi.Ireduce(w, a, sum, mpi.Max, 1)); wait(w.Ibarrier()) }},
			{"Iallgather", func() { wait(mpi.Iallgather(w, a, all)) }},
			{"Ialltoall", func() { wait(mpi.Ialltoall(w, all, out)) }},
			// A persistent collective's run takes a record from the pool too.
			{"AllreduceInit Start", func() { must(t, pr.Start()); wait(pr, nil) }},
		}
		for _, c := range calls {
			c.f() // the first call fills the pools
			if n := testing.AllocsPerRun(500, c.f); n != 0 {
				t.Errorf("%s+Wait: %.2f allocations per call, want 0", c.name, n)
			}
		}
		wait(mpi.Iallreduce(w, a, sum, mpi.Sum))
		if want := float64(size * (size + 1) / 2); sum[0] != want {
			t.Errorf("Iallreduce gave %v, want %v", sum[0], want)
		}
		if all[size-1] != float64(size) {
			t.Errorf("Iallgather gave %v, want last %d", all, size)
		}
	})
}
