package mpi_test

import (
	"sync"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestIdupBesideCreations: five Idups of World stay pending while Dup, Split, Create
// and CreateGroup run on World (rank 0 starts its Idups last, so that the others'
// cannot complete before they go on) (MPICH's comm/comm_idup_comm, which hung: every
// creation agreed its context on one tag, so a pending Idup took another
// creation's messages). Each duplicate is then the same communicator at every
// rank: an Allreduce on duplicate i, to which rank r gives 100*i+r, sums to
// size*100*i plus the ranks' sum.
func TestIdupBesideCreations(t *testing.T) {
	jobWith(t, mpitest.Options{N: 4, Timeout: 60 * time.Second}, func(t *testing.T, rank, size int) {
		w := mpi.World
		const n = 5
		dups := make([]*mpi.Comm, n)
		reqs := make([]mpi.Request, n)
		idups := func() {
			for i := range dups {
				d, r, err := w.Idup()
				must(t, err)
				dups[i], reqs[i] = d, r
			}
		}
		// Rank 0 starts its Idups only once the others have started theirs, so that
		// theirs are still pending, waiting for rank 0, when they go on to Dup.
		if rank == 0 {
			for r := 1; r < size; r++ {
				_, err := mpi.Recv(w, []int{0}, r, 3)
				must(t, err)
			}
			idups()
		} else {
			idups()
			must(t, mpi.Send(w, []int{rank}, 0, 3))
		}
		check := func(name string, c *mpi.Comm, members int) {
			t.Helper()
			if c == nil {
				t.Fatalf("%s: no communicator", name)
			}
			sum := []int{0}
			must(t, mpi.Allreduce(c, []int{1}, sum, mpi.Sum))
			if sum[0] != members {
				t.Errorf("%s: %d members answered, want %d", name, sum[0], members)
			}
			must(t, c.Free())
		}
		d, err := w.Dup()
		must(t, err)
		check("Dup", d, size)
		s, err := w.Split(rank%2, size-rank)
		must(t, err)
		check("Split", s, size/2)
		high, err := w.Group().Incl([]int{2, 3})
		must(t, err)
		c, err := w.Create(high)
		must(t, err)
		if rank >= 2 {
			check("Create", c, 2)
		} else if c != nil {
			t.Errorf("Create: rank %d outside the group got a communicator", rank)
		}
		if rank%2 == 0 {
			even, err := w.Group().Incl([]int{0, 2})
			must(t, err)
			g, err := w.CreateGroup(even, 7)
			must(t, err)
			check("CreateGroup", g, 2)
		}
		must(t, mpi.Waitall(reqs, nil))
		for i, d := range dups {
			sum := []int{0}
			must(t, mpi.Allreduce(d, []int{100*i + rank}, sum, mpi.Sum))
			if want := size*100*i + size*(size-1)/2; sum[0] != want {
				t.Errorf("Idup %d: Allreduce gave %d, want %d (the ranks' duplicates are not the same communicator)", i, sum[0], want)
			}
			must(t, d.Free())
		}
	})
}

// TestDupSelfBesideDups: on each of two ranks one goroutine duplicates a
// communicator that the other rank's same goroutine has not reached yet, while the
// other goroutine duplicates Self and then its own communicator, in the opposite
// order on the other rank (MPICH's threads/comm/comm_dup_deadlock). The agreement's
// first round now waits for every member before a creation may hold the mask of
// context ids, so the waiting Dup no longer holds it and Self's Dup, which needs
// nobody, completes; before, the ranks waited for each other forever.
func TestDupSelfBesideDups(t *testing.T) {
	jobWith(t, mpitest.Options{N: 2, Timeout: 60 * time.Second}, func(t *testing.T, rank, size int) {
		w := mpi.World
		comms := make([]*mpi.Comm, 2)
		for i := range comms {
			c, err := w.Dup()
			must(t, err)
			comms[i] = c
		}
		ping, err := w.Dup() // the second goroutines' exchange, apart from the rest
		must(t, err)
		first, second := 1-rank, rank // goroutine first goes ahead on this rank
		started := make(chan struct{})
		errs := make([]error, 2)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			close(started)
			var d *mpi.Comm
			if d, errs[0] = comms[first].Dup(); errs[0] == nil {
				errs[0] = d.Free()
			}
		}()
		go func() {
			defer wg.Done()
			<-started
			// A round trip with the other rank's second goroutine: by its end the
			// first goroutine here is inside its Dup, waiting for the other rank.
			got := []int{-1}
			if _, errs[1] = mpi.Sendrecv(ping, []int{rank}, 1-rank, 0, got, 1-rank, 0); errs[1] != nil {
				return
			}
			self, err := mpi.Self.Dup()
			if errs[1] = err; err != nil {
				return
			}
			if errs[1] = self.Free(); errs[1] != nil {
				return
			}
			d, err := comms[second].Dup()
			if errs[1] = err; err == nil {
				errs[1] = d.Free()
			}
		}()
		wg.Wait()
		for _, err := range errs {
			must(t, err)
		}
		for _, c := range append(comms, ping) {
			must(t, c.Free())
		}
	})
}

// TestPersistentStartOrder: members may start persistent collectives in different
// orders (MPI 4.1 §7.4.4: only the assertion
// mpi_assert_strict_persistent_collective_ordering promises one order). Rank 0
// starts a persistent Bcast, then a Barrier, then an Allreduce; the others start them
// the other way round; each run still meets its own (MPICH's coll/p_order, which
// failed with "message truncated": a Start took the communicator's next tag).
func TestPersistentStartOrder(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		w := mpi.World
		a := []int{-1}
		bc, err := mpi.BcastInit(w, a, 0)
		must(t, err)
		bar, err := w.BarrierInit()
		must(t, err)
		sum := []int{0}
		red, err := mpi.AllreduceInit(w, []int{rank + 1}, sum, mpi.Sum)
		must(t, err)
		rs := []mpi.Request{bc, bar, red}
		for round := range 5 {
			a[0], sum[0] = -1, 0
			if rank == 0 {
				a[0] = 42 + round
			}
			order := []int{0, 1, 2}
			if rank != 0 {
				order = []int{2, 1, 0}
			}
			for _, i := range order {
				must(t, rs[i].Start())
			}
			must(t, mpi.Waitall(rs, nil))
			if a[0] != 42+round || sum[0] != size*(size+1)/2 {
				t.Fatalf("round %d: Bcast gave %d (want %d), Allreduce %d (want %d)", round, a[0], 42+round, sum[0], size*(size+1)/2)
			}
		}
		for _, r := range rs {
			must(t, r.Free())
		}
	})
}
