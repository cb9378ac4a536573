package mpi_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// pcase is one persistent collective: its request's buffers and the same call's
// blocking form on buffers of its own, given the same data every round.
type pcase struct {
	name         string
	send, recv   []int32
	bsend, brecv []int32
	init         func() (mpi.Request, error)
	block        func() error
}

// TestPersistentCollectives: every persistent collective (MPI 4.1 §6.13, §8.7.2),
// slice and Buf forms, started three times with new data each round, gives what the
// blocking call gives on the same data; the request is inactive between runs.
func TestPersistentCollectives(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		const k = 2
		n := size
		w := mpi.World
		ring, err := w.CartCreate([]int{n}, []bool{true}, false)
		must(t, err)
		blocks := func(m, each int) (counts, displs []int) {
			for i := 0; i < m; i++ {
				counts, displs = append(counts, each), append(displs, i*each)
			}
			return
		}
		cnt, dsp := blocks(n, k)
		ncnt, ndsp := blocks(2, k)
		bytes := func(d []int) []int {
			out := make([]int, len(d))
			for i, v := range d {
				out[i] = 4 * v
			}
			return out
		}
		types := func(m int) []*mpi.Datatype { return slices.Repeat([]*mpi.Datatype{mpi.Int32}, m) }
		typed := func(s []int32) mpi.Buf { return mpi.Typed(s, len(s), mpi.Int32) }
		mk := func(name string, ls, lr int, init func(s, r []int32) (mpi.Request, error), block func(s, r []int32) error) pcase {
			p := pcase{name: name, send: make([]int32, ls), recv: make([]int32, lr), bsend: make([]int32, ls), brecv: make([]int32, lr)}
			p.init = func() (mpi.Request, error) { return init(p.send, p.recv) }
			p.block = func() error { return block(p.bsend, p.brecv) }
			return p
		}
		cases := []pcase{
			mk("BcastInit", k, 0, func(s, _ []int32) (mpi.Request, error) { return mpi.BcastInit(w, s, 1) },
				func(s, _ []int32) error { return mpi.Bcast(w, s, 1) }),
			mk("BcastInitBuf", k, 0, func(s, _ []int32) (mpi.Request, error) { return mpi.BcastInitBuf(w, typed(s), 1) },
				func(s, _ []int32) error { return mpi.Bcast(w, s, 1) }),
			mk("ReduceInit", k, k, func(s, r []int32) (mpi.Request, error) { return mpi.ReduceInit(w, s, r, mpi.Sum, 2) },
				func(s, r []int32) error { return mpi.Reduce(w, s, r, mpi.Sum, 2) }),
			mk("ReduceInitBuf", k, k, func(s, r []int32) (mpi.Request, error) { return mpi.ReduceInitBuf(w, typed(s), typed(r), mpi.Sum, 2) },
				func(s, r []int32) error { return mpi.Reduce(w, s, r, mpi.Sum, 2) }),
			mk("AllreduceInit", k, k, func(s, r []int32) (mpi.Request, error) { return mpi.AllreduceInit(w, s, r, mpi.Max) },
				func(s, r []int32) error { return mpi.Allreduce(w, s, r, mpi.Max) }),
			mk("AllreduceInitBuf", k, k, func(s, r []int32) (mpi.Request, error) { return mpi.AllreduceInitBuf(w, typed(s), typed(r), mpi.Max) },
				func(s, r []int32) error { return mpi.Allreduce(w, s, r, mpi.Max) }),
			mk("GatherInit", k, n*k, func(s, r []int32) (mpi.Request, error) { return mpi.GatherInit(w, s, r, 0) },
				func(s, r []int32) error { return mpi.Gather(w, s, r, 0) }),
			mk("GatherInitBuf", k, n*k, func(s, r []int32) (mpi.Request, error) { return mpi.GatherInitBuf(w, typed(s), typed(r), 0) },
				func(s, r []int32) error { return mpi.Gather(w, s, r, 0) }),
			mk("GathervInit", k, n*k, func(s, r []int32) (mpi.Request, error) { return mpi.GathervInit(w, s, r, cnt, dsp, 0) },
				func(s, r []int32) error { return mpi.Gatherv(w, s, r, cnt, dsp, 0) }),
			mk("GathervInitBuf", k, n*k, func(s, r []int32) (mpi.Request, error) {
				return mpi.GathervInitBuf(w, typed(s), mpi.Typed(r, 1, mpi.Int32), cnt, dsp, 0)
			}, func(s, r []int32) error { return mpi.Gatherv(w, s, r, cnt, dsp, 0) }),
			mk("ScatterInit", n*k, k, func(s, r []int32) (mpi.Request, error) { return mpi.ScatterInit(w, s, r, 3) },
				func(s, r []int32) error { return mpi.Scatter(w, s, r, 3) }),
			mk("ScatterInitBuf", n*k, k, func(s, r []int32) (mpi.Request, error) { return mpi.ScatterInitBuf(w, typed(s), typed(r), 3) },
				func(s, r []int32) error { return mpi.Scatter(w, s, r, 3) }),
			mk("ScattervInit", n*k, k, func(s, r []int32) (mpi.Request, error) { return mpi.ScattervInit(w, s, cnt, dsp, r, 3) },
				func(s, r []int32) error { return mpi.Scatterv(w, s, cnt, dsp, r, 3) }),
			mk("ScattervInitBuf", n*k, k, func(s, r []int32) (mpi.Request, error) {
				return mpi.ScattervInitBuf(w, mpi.Typed(s, 1, mpi.Int32), cnt, dsp, typed(r), 3)
			}, func(s, r []int32) error { return mpi.Scatterv(w, s, cnt, dsp, r, 3) }),
			mk("AllgatherInit", k, n*k, func(s, r []int32) (mpi.Request, error) { return mpi.AllgatherInit(w, s, r) },
				func(s, r []int32) error { return mpi.Allgather(w, s, r) }),
			mk("AllgatherInitBuf", k, n*k, func(s, r []int32) (mpi.Request, error) { return mpi.AllgatherInitBuf(w, typed(s), typed(r)) },
				func(s, r []int32) error { return mpi.Allgather(w, s, r) }),
			mk("AllgathervInit", k, n*k, func(s, r []int32) (mpi.Request, error) { return mpi.AllgathervInit(w, s, r, cnt, dsp) },
				func(s, r []int32) error { return mpi.Allgatherv(w, s, r, cnt, dsp) }),
			mk("AllgathervInitBuf", k, n*k, func(s, r []int32) (mpi.Request, error) {
				return mpi.AllgathervInitBuf(w, typed(s), mpi.Typed(r, 1, mpi.Int32), cnt, dsp)
			}, func(s, r []int32) error { return mpi.Allgatherv(w, s, r, cnt, dsp) }),
			mk("AlltoallInit", n*k, n*k, func(s, r []int32) (mpi.Request, error) { return mpi.AlltoallInit(w, s, r) },
				func(s, r []int32) error { return mpi.Alltoall(w, s, r) }),
			mk("AlltoallInitBuf", n*k, n*k, func(s, r []int32) (mpi.Request, error) { return mpi.AlltoallInitBuf(w, typed(s), typed(r)) },
				func(s, r []int32) error { return mpi.Alltoall(w, s, r) }),
			mk("AlltoallvInit", n*k, n*k, func(s, r []int32) (mpi.Request, error) { return mpi.AlltoallvInit(w, s, cnt, dsp, r, cnt, dsp) },
				func(s, r []int32) error { return mpi.Alltoallv(w, s, cnt, dsp, r, cnt, dsp) }),
			mk("AlltoallvInitBuf", n*k, n*k, func(s, r []int32) (mpi.Request, error) {
				return mpi.AlltoallvInitBuf(w, mpi.Typed(s, 1, mpi.Int32), cnt, dsp, mpi.Typed(r, 1, mpi.Int32), cnt, dsp)
			}, func(s, r []int32) error { return mpi.Alltoallv(w, s, cnt, dsp, r, cnt, dsp) }),
			mk("AlltoallwInit", n*k, n*k, func(s, r []int32) (mpi.Request, error) {
				return mpi.AlltoallwInit(w, s, cnt, bytes(dsp), types(n), r, cnt, bytes(dsp), types(n))
			}, func(s, r []int32) error {
				return mpi.Alltoallw(w, s, cnt, bytes(dsp), types(n), r, cnt, bytes(dsp), types(n))
			}),
			mk("ReduceScatterBlockInit", n*k, k, func(s, r []int32) (mpi.Request, error) { return mpi.ReduceScatterBlockInit(w, s, r, mpi.Sum) },
				func(s, r []int32) error { return mpi.ReduceScatterBlock(w, s, r, mpi.Sum) }),
			mk("ReduceScatterBlockInitBuf", n*k, k, func(s, r []int32) (mpi.Request, error) {
				return mpi.ReduceScatterBlockInitBuf(w, typed(s), typed(r), mpi.Sum)
			}, func(s, r []int32) error { return mpi.ReduceScatterBlock(w, s, r, mpi.Sum) }),
			mk("ReduceScatterInit", n*k, k, func(s, r []int32) (mpi.Request, error) { return mpi.ReduceScatterInit(w, s, r, cnt, mpi.Sum) },
				func(s, r []int32) error { return mpi.ReduceScatter(w, s, r, cnt, mpi.Sum) }),
			mk("ReduceScatterInitBuf", n*k, k, func(s, r []int32) (mpi.Request, error) {
				return mpi.ReduceScatterInitBuf(w, typed(s), typed(r), cnt, mpi.Sum)
			}, func(s, r []int32) error { return mpi.ReduceScatter(w, s, r, cnt, mpi.Sum) }),
			mk("ScanInit", k, k, func(s, r []int32) (mpi.Request, error) { return mpi.ScanInit(w, s, r, mpi.Sum) },
				func(s, r []int32) error { return mpi.Scan(w, s, r, mpi.Sum) }),
			mk("ScanInitBuf", k, k, func(s, r []int32) (mpi.Request, error) { return mpi.ScanInitBuf(w, typed(s), typed(r), mpi.Sum) },
				func(s, r []int32) error { return mpi.Scan(w, s, r, mpi.Sum) }),
			mk("ExscanInit", k, k, func(s, r []int32) (mpi.Request, error) { return mpi.ExscanInit(w, s, r, mpi.Sum) },
				func(s, r []int32) error { return mpi.Exscan(w, s, r, mpi.Sum) }),
			mk("ExscanInitBuf", k, k, func(s, r []int32) (mpi.Request, error) { return mpi.ExscanInitBuf(w, typed(s), typed(r), mpi.Sum) },
				func(s, r []int32) error { return mpi.Exscan(w, s, r, mpi.Sum) }),
			mk("NeighborAllgatherInit", k, 2*k, func(s, r []int32) (mpi.Request, error) { return mpi.NeighborAllgatherInit(ring, s, r) },
				func(s, r []int32) error { return mpi.NeighborAllgather(ring, s, r) }),
			mk("NeighborAllgatherInitBuf", k, 2*k, func(s, r []int32) (mpi.Request, error) {
				return mpi.NeighborAllgatherInitBuf(ring, typed(s), typed(r))
			}, func(s, r []int32) error { return mpi.NeighborAllgather(ring, s, r) }),
			mk("NeighborAllgathervInit", k, 2*k, func(s, r []int32) (mpi.Request, error) { return mpi.NeighborAllgathervInit(ring, s, r, ncnt, ndsp) },
				func(s, r []int32) error { return mpi.NeighborAllgatherv(ring, s, r, ncnt, ndsp) }),
			mk("NeighborAllgathervInitBuf", k, 2*k, func(s, r []int32) (mpi.Request, error) {
				return mpi.NeighborAllgathervInitBuf(ring, typed(s), mpi.Typed(r, 1, mpi.Int32), ncnt, ndsp)
			}, func(s, r []int32) error { return mpi.NeighborAllgatherv(ring, s, r, ncnt, ndsp) }),
			mk("NeighborAlltoallInit", 2*k, 2*k, func(s, r []int32) (mpi.Request, error) { return mpi.NeighborAlltoallInit(ring, s, r) },
				func(s, r []int32) error { return mpi.NeighborAlltoall(ring, s, r) }),
			mk("NeighborAlltoallInitBuf", 2*k, 2*k, func(s, r []int32) (mpi.Request, error) {
				return mpi.NeighborAlltoallInitBuf(ring, typed(s), typed(r))
			}, func(s, r []int32) error { return mpi.NeighborAlltoall(ring, s, r) }),
			mk("NeighborAlltoallvInit", 2*k, 2*k, func(s, r []int32) (mpi.Request, error) {
				return mpi.NeighborAlltoallvInit(ring, s, ncnt, ndsp, r, ncnt, ndsp)
			}, func(s, r []int32) error { return mpi.NeighborAlltoallv(ring, s, ncnt, ndsp, r, ncnt, ndsp) }),
			mk("NeighborAlltoallvInitBuf", 2*k, 2*k, func(s, r []int32) (mpi.Request, error) {
				return mpi.NeighborAlltoallvInitBuf(ring, mpi.Typed(s, 1, mpi.Int32), ncnt, ndsp, mpi.Typed(r, 1, mpi.Int32), ncnt, ndsp)
			}, func(s, r []int32) error { return mpi.NeighborAlltoallv(ring, s, ncnt, ndsp, r, ncnt, ndsp) }),
			mk("NeighborAlltoallwInit", 2*k, 2*k, func(s, r []int32) (mpi.Request, error) {
				return mpi.NeighborAlltoallwInit(ring, s, ncnt, bytes(ndsp), types(2), r, ncnt, bytes(ndsp), types(2))
			}, func(s, r []int32) error {
				return mpi.NeighborAlltoallw(ring, s, ncnt, bytes(ndsp), types(2), r, ncnt, bytes(ndsp), types(2))
			}),
		}
		reqs := make([]mpi.Request, len(cases))
		for i, p := range cases {
			reqs[i], err = p.init()
			if err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
		}
		for round := range 3 {
			for i, p := range cases {
				for j := range p.send {
					p.send[j] = int32(1000*round + 100*rank + 10*i + j)
				}
				copy(p.bsend, p.send)
				clear(p.recv)
				clear(p.brecv)
				if err := reqs[i].Start(); err != nil {
					t.Fatalf("round %d: %s: Start: %v", round, p.name, err)
				}
				if _, err := reqs[i].Wait(); err != nil {
					t.Fatalf("round %d: %s: Wait: %v", round, p.name, err)
				}
				if reqs[i].IsNull() {
					t.Fatalf("%s: a completed persistent request is null, want inactive", p.name)
				}
				must(t, p.block())
				got, want := p.recv, p.brecv
				if len(p.recv) == 0 { // Bcast: in the send buffer
					got, want = p.send, p.bsend
				}
				if !slices.Equal(got, want) {
					t.Errorf("round %d: %s gave %v, the blocking call %v", round, p.name, got, want)
				}
			}
		}
		for i := range reqs {
			must(t, reqs[i].Free())
		}
		must(t, ring.Free())
	})
}

// TestPersistentCollectiveStates: an inactive persistent collective completes at once
// with the empty status and is skipped by Waitany; Start on an active one is an error
// of class ErrRequest; Startall starts several, in order; a barrier run many times
// holds ranks together; a freed request cannot start.
func TestPersistentCollectiveStates(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		w := mpi.World
		bar, err := w.BarrierInit()
		must(t, err)
		sum := []int{0}
		red, err := mpi.AllreduceInit(w, []int{rank + 1}, sum, mpi.Sum)
		must(t, err)
		st, err := red.Wait() // inactive
		if err != nil || st.Source != mpi.AnySource || st.Tag != mpi.AnyTag {
			t.Errorf("Wait on an inactive persistent collective: %+v, %v; want the empty status", st, err)
		}
		if _, ok, err := red.Test(); !ok || err != nil {
			t.Errorf("Test on an inactive persistent collective: %v, %v; want true", ok, err)
		}
		must(t, bar.Start())
		if err := bar.Start(); !errors.Is(err, mpi.ErrRequest) {
			t.Errorf("Start on an active request: %v, want ErrRequest", err)
		}
		i, _, err := mpi.Waitany([]mpi.Request{red, bar})
		if err != nil || i != 1 {
			t.Errorf("Waitany over {inactive, active}: %d, %v; want 1", i, err)
		}
		for range 20 {
			rs := []mpi.Request{bar, red}
			must(t, mpi.Startall(rs))
			must(t, mpi.Waitall(rs, nil))
			if sum[0] != size*(size+1)/2 {
				t.Fatalf("Allreduce run: %d, want %d", sum[0], size*(size+1)/2)
			}
			sum[0] = 0
		}
		must(t, red.Free())
		must(t, bar.Free())
		if err := red.Start(); err == nil {
			t.Errorf("Start after Free: no error")
		}
	})
}

// TestPersistentInitChecksArguments: a persistent collective's Init takes and checks
// every argument (MPI 4.1 §6.13, §8.7.2), so a bad root, bad lengths or counts, or an
// operation the element type does not take are refused by the Init call through the
// handler, not at Start (the neighbourhood ones too); the checks send nothing, so the collectives that follow still
// match, with coll_check on as well as off.
func TestPersistentInitChecksArguments(t *testing.T) {
	for _, check := range []string{"false", "true"} {
		t.Run("coll_check="+check, func(t *testing.T) {
			jobWith(t, mpitest.Options{N: 3, Settings: map[string]string{"coll_check": check}}, persistentInitChecks)
		})
	}
}

func persistentInitChecks(t *testing.T, rank, size int) {
	w := mpi.World
	if _, err := mpi.BcastInit(w, []int{1}, size); !errors.Is(err, mpi.ErrRoot) {
		t.Errorf("BcastInit with root %d of %d: %v, want ErrRoot", size, size, err)
	}
	if _, err := mpi.AllreduceInit(w, []int{1, 2}, []int{0}, mpi.Sum); !errors.Is(err, mpi.ErrCount) {
		t.Errorf("AllreduceInit of 2 into 1: %v, want ErrCount", err)
	}
	if _, err := mpi.AllgatherInit(w, []int{1}, make([]int, size+1)); !errors.Is(err, mpi.ErrCount) {
		t.Errorf("AllgatherInit into %d of %d ranks: %v, want ErrCount", size+1, size, err)
	}
	if _, err := mpi.ReduceInit(w, []float64{1}, []float64{0}, mpi.Band, 0); !errors.Is(err, mpi.ErrOp) {
		t.Errorf("ReduceInit of float64 with Band: %v, want ErrOp", err)
	}
	if _, err := mpi.GathervInit(w, []int{1}, make([]int, size), []int{1}, []int{0}, 0); rank == 0 && !errors.Is(err, mpi.ErrCount) {
		t.Errorf("GathervInit with 1 count for %d ranks at the root: %v, want ErrCount", size, err)
	}
	called := 0
	h := mpi.NewErrHandler(func(_ *mpi.Comm, err error) { called++ })
	dup, err := w.Dup()
	must(t, err)
	must(t, dup.SetErrHandler(h))
	if _, err := mpi.ScanInit(dup, []int{1}, []int{0, 0}, mpi.Sum); !errors.Is(err, mpi.ErrCount) || called != 1 {
		t.Errorf("ScanInit of 1 into 2: %v, handler called %d times; want ErrCount, once", err, called)
	}
	must(t, dup.Free())
	ring, err := w.CartCreate([]int{size}, []bool{true}, false)
	must(t, err)
	if _, err := mpi.NeighborAllgatherInit(ring, []int{rank}, []int{0}); !errors.Is(err, mpi.ErrCount) {
		t.Errorf("NeighborAllgatherInit into 1 element from 2 neighbours: %v, want ErrCount", err)
	}
	nb := []int{-1, -1}
	rq, err := mpi.NeighborAllgatherInit(ring, []int{rank}, nb)
	must(t, err)
	must(t, rq.Start())
	_, err = rq.Wait()
	must(t, err)
	if want := []int{(rank + size - 1) % size, (rank + 1) % size}; nb[0] != want[0] || nb[1] != want[1] {
		t.Errorf("NeighborAllgather run after a refused Init: %v, want %v", nb, want)
	}
	must(t, rq.Free())
	// The dry run sends nothing: a nonblocking neighbourhood collective in flight on
	// the ring (progressed by the collectives' goroutine) completes as usual beside
	// it, and an Init through a view with a context checks without exchanging.
	nb2, nb3 := []int{-1, -1}, []int{-1, -1}
	pend, err := mpi.IneighborAllgather(ring, []int{10 * rank}, nb2)
	must(t, err)
	rq, err = mpi.NeighborAllgatherInit(ring.WithContext(context.Background()), []int{rank}, nb3)
	must(t, err)
	_, err = pend.Wait()
	must(t, err)
	if want := []int{10 * ((rank + size - 1) % size), 10 * ((rank + 1) % size)}; nb2[0] != want[0] || nb2[1] != want[1] {
		t.Errorf("IneighborAllgather beside a persistent Init: %v, want %v", nb2, want)
	}
	must(t, rq.Start())
	_, err = rq.Wait()
	must(t, err)
	if want := []int{(rank + size - 1) % size, (rank + 1) % size}; nb3[0] != want[0] || nb3[1] != want[1] {
		t.Errorf("NeighborAllgatherInit through a view: %v, want %v", nb3, want)
	}
	must(t, rq.Free())
	must(t, ring.Free())
	// Nothing was sent: the next collectives match on every rank.
	sum := []int{0}
	red, err := mpi.AllreduceInit(w, []int{rank}, sum, mpi.Sum)
	must(t, err)
	must(t, red.Start())
	_, err = red.Wait()
	must(t, err)
	if want := size * (size - 1) / 2; sum[0] != want {
		t.Errorf("Allreduce after the refused Inits: %d, want %d", sum[0], want)
	}
	must(t, red.Free())
	all := make([]int, size)
	must(t, mpi.Allgather(w, []int{rank}, all))
	for i, v := range all {
		if v != i {
			t.Fatalf("Allgather after the refused Inits: %v", all)
		}
	}
}
