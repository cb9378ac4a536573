package mpi_test

import (
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// BenchmarkRMA measures the software path of the direct one-sided operations, each
// followed by Flush as in bench/rma: on a job of one rank the target is this rank's
// own window, reached the way a target on the node is (loads, stores and atomics), so
// what is measured is the call's checks and dispatch plus the memory operation. The
// Copy cases are the limit of the large ones: copy between the same buffers, without
// MPI. Run it alone (go test -run XXX -bench RMA): the process must not have
// finalised MPI.
func BenchmarkRMA(b *testing.B) {
	if !mpi.Initialized() {
		if err := mpi.Init(); err != nil {
			b.Fatal(err)
		}
	}
	if mpi.Finalized() {
		b.Skip("MPI was finalised by an earlier test")
	}
	w, base, err := mpi.WinAllocate(1<<20, 1, nil, mpi.World)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Free()
	if err := w.Lock(mpi.LockShared, 0, 0); err != nil {
		b.Fatal(err)
	}
	defer w.Unlock(0)
	check := func(b *testing.B, err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	b8, b4k := make([]byte, 8), make([]byte, 4096)
	one := make([]int32, 1024)
	for i := range one {
		one[i] = 1
	}
	run := func(name string, body func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			body(b)
		})
	}
	run("Put8", func(b *testing.B) {
		for b.Loop() {
			check(b, mpi.Put(w, b8, 0, 0))
			check(b, w.Flush(0))
		}
	})
	run("Get8", func(b *testing.B) {
		for b.Loop() {
			check(b, mpi.Get(w, b8, 0, 0))
			check(b, w.Flush(0))
		}
	})
	run("Put4K", func(b *testing.B) {
		b.SetBytes(4096)
		for b.Loop() {
			check(b, mpi.Put(w, b4k, 0, 0))
			check(b, w.Flush(0))
		}
	})
	run("Get4K", func(b *testing.B) {
		b.SetBytes(4096)
		for b.Loop() {
			check(b, mpi.Get(w, b4k, 0, 0))
			check(b, w.Flush(0))
		}
	})
	large := make([]byte, 1<<20)
	for i := range large {
		large[i] = byte(i) // touched: unwritten pages would all read one zero page
	}
	for _, n := range []int{64 << 10, 1 << 20} {
		o, t, label := large[:n], base[:n], "64K"
		if n == 1<<20 {
			label = "1M"
		}
		run("Put"+label, func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				check(b, mpi.Put(w, o, 0, 0))
				check(b, w.Flush(0))
			}
		})
		run("Get"+label, func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				check(b, mpi.Get(w, o, 0, 0))
				check(b, w.Flush(0))
			}
		})
		run("Copy"+label, func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				copy(t, o)
			}
		})
	}
	run("Acc8", func(b *testing.B) {
		for b.Loop() {
			check(b, mpi.Accumulate(w, one[:2], 0, 0, mpi.Sum))
			check(b, w.Flush(0))
		}
	})
	run("Acc4K", func(b *testing.B) {
		b.SetBytes(4096)
		for b.Loop() {
			check(b, mpi.Accumulate(w, one, 0, 0, mpi.Sum))
			check(b, w.Flush(0))
		}
	})
	run("FetchAndOp", func(b *testing.B) {
		for b.Loop() {
			_, err := mpi.FetchAndOp(w, int64(1), 0, 8, mpi.Sum)
			check(b, err)
			check(b, w.Flush(0))
		}
	})
	run("CompareAndSwap", func(b *testing.B) {
		i := int64(0)
		for b.Loop() {
			_, err := mpi.CompareAndSwap(w, i+1, i, 0, 16)
			check(b, err)
			check(b, w.Flush(0))
			i++
		}
	})
}

// TestWinDirectAllocatesNothing: on a target on the node (a direct one), Put, Get,
// Accumulate, FetchAndOp and CompareAndSwap with their Flush, and a PSCW epoch
// around a Put, allocate nothing per call.
func TestWinDirectAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	job(t, 2, func(t *testing.T, rank, size int) {
		w, _, err := mpi.WinAllocate(4096, 1, nil, mpi.World)
		must(t, err)
		peer := 1 - rank
		b8, one := make([]byte, 8), []int32{1, 1}
		if rank == 0 {
			must(t, w.Lock(mpi.LockShared, peer, 0))
			for name, f := range map[string]func(){
				"Put":            func() { must(t, mpi.Put(w, b8, peer, 0)); must(t, w.Flush(peer)) },
				"Get":            func() { must(t, mpi.Get(w, b8, peer, 0)); must(t, w.Flush(peer)) },
				"Accumulate":     func() { must(t, mpi.Accumulate(w, one, peer, 64, mpi.Sum)); must(t, w.Flush(peer)) },
				"FetchAndOp":     func() { _, err := mpi.FetchAndOp(w, int64(1), peer, 128, mpi.Sum); must(t, err) },
				"CompareAndSwap": func() { _, err := mpi.CompareAndSwap(w, int64(1), int64(0), peer, 136); must(t, err) },
			} {
				if n := testing.AllocsPerRun(1000, f); n != 0 {
					t.Errorf("%s plus Flush on a direct target: %v allocations per call, want 0", name, n)
				}
			}
			must(t, w.Unlock(peer))
		}
		must(t, mpi.World.Barrier())
		g, err := mpi.World.Group().Incl([]int{peer})
		must(t, err)
		epoch := func() {
			if rank == 0 {
				must(t, w.Start(g, 0))
				must(t, mpi.Put(w, b8, peer, 0))
				must(t, w.Complete())
			} else {
				must(t, w.Post(g, 0))
				must(t, w.Wait())
			}
		}
		if n := testing.AllocsPerRun(200, epoch); n != 0 {
			t.Errorf("rank %d: a PSCW epoch allocates %v times, want 0", rank, n)
		}
		must(t, w.Free())
	})
}

// TestWinShippedAllocations: over forced TCP every target is shipped to. Puts and
// Accumulates join a batch per target (no allocation per operation; one message per
// batch), and Get's reply lands in the caller's buffer; the bounds below are per
// call, Flush included, measured over runs of 64 operations.
func TestWinShippedAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	mpitest.Job(t, mpitest.Options{N: 2, Transport: mpitest.TCP}, func(t *testing.T) {
		must(t, mpi.Init())
		w, _, err := mpi.WinAllocate(4096, 1, nil, mpi.World)
		must(t, err)
		if mpi.World.Rank() == 0 {
			b8, one := make([]byte, 8), []int32{1, 1}
			must(t, w.Lock(mpi.LockShared, 1, 0))
			for _, c := range []struct {
				name string
				max  float64
				f    func(j int)
			}{
				{"Put", 0.2, func(j int) { must(t, mpi.Put(w, b8, 1, 8*j)) }},
				{"Accumulate", 0.2, func(j int) { must(t, mpi.Accumulate(w, one, 1, 8*j, mpi.Sum)) }},
				{"Get", 0.3, func(j int) { must(t, mpi.Get(w, b8, 1, 8*j)) }},
			} {
				n := testing.AllocsPerRun(20, func() {
					for j := 0; j < 64; j++ {
						c.f(j)
					}
					must(t, w.Flush(1))
				}) / 64
				if n > c.max {
					t.Errorf("%s shipped: %.2f allocations per call, want at most %v", c.name, n, c.max)
				}
			}
			must(t, w.Unlock(1))
		}
		must(t, w.Free())
		must(t, mpi.Finalize())
	})
}
