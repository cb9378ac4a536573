package mpi_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// winJob runs body on n ranks at MPI_THREAD_MULTIPLE over each transport: the ways
// windows reach their targets, node shared memory (direct loads and stores) and TCP
// forced (every operation shipped to the target's progress goroutine).
func winJob(t *testing.T, n int, body func(t *testing.T, rank, size int)) {
	t.Helper()
	eachTransport(t, func(t *testing.T, tr mpitest.Transport) {
		mpitest.Job(t, mpitest.Options{N: n, Transport: tr}, func(t *testing.T) {
			if _, err := mpi.InitThread(mpi.ThreadMultiple); err != nil {
				t.Fatal(err)
			}
			body(t, mpi.World.Rank(), mpi.World.Size())
			must(t, mpi.Finalize())
		})
	})
}

func i64view(b []byte) []int64 {
	out := make([]int64, len(b)/8)
	for i := range out {
		for k := 7; k >= 0; k-- {
			out[i] = out[i]<<8 | int64(b[8*i+k])
		}
	}
	return out
}

// TestWinFencePutGet: every rank puts its rank into slot rank of every other rank's
// window between fences, then gets a neighbour's whole window back.
func TestWinFencePutGet(t *testing.T) {
	winJob(t, 4, func(t *testing.T, rank, size int) {
		for _, flavor := range []string{"allocate", "create", "shared"} {
			var w *mpi.Win
			var err error
			switch flavor {
			case "allocate":
				w, _, err = mpi.WinAllocate(8*size, 8, nil, mpi.World)
			case "create":
				w, err = mpi.WinCreate(make([]byte, 8*size), 8, nil, mpi.World)
			case "shared":
				w, _, err = mpi.WinAllocateShared(8*size, 8, nil, mpi.World)
			}
			must(t, err)
			must(t, w.Fence(0))
			for r := 0; r < size; r++ {
				must(t, mpi.Put(w, []int64{int64(100*rank + r)}, r, rank))
			}
			must(t, w.Fence(0))
			got := make([]int64, size)
			must(t, mpi.Get(w, got, (rank+1)%size, 0))
			must(t, w.Fence(mpi.ModeNoSucceed))
			for s := 0; s < size; s++ {
				if want := int64(100*s + (rank+1)%size); got[s] != want {
					t.Fatalf("%s: slot %d of rank %d is %d, want %d", flavor, s, (rank+1)%size, got[s], want)
				}
			}
			mine := i64view(w.Base())
			for s := 0; s < size; s++ {
				if mine[s] != int64(100*s+rank) {
					t.Fatalf("%s: my slot %d is %d", flavor, s, mine[s])
				}
			}
			must(t, w.Free())
		}
	})
}

// TestWinConcurrentAccumulateExact: every rank adds to the same elements of rank 0's
// window many times under a shared lock; the sums must be exact.
func TestWinConcurrentAccumulateExact(t *testing.T) {
	winJob(t, 4, func(t *testing.T, rank, size int) {
		w, mem, err := mpi.WinAllocate(64, 8, nil, mpi.World)
		must(t, err)
		clear(mem)
		must(t, mpi.World.Barrier())
		const N = 300
		must(t, w.Lock(mpi.LockShared, 0, 0))
		for i := 0; i < N; i++ {
			must(t, mpi.Accumulate(w, []int64{1, 2}, 0, 0, mpi.Sum))
			must(t, mpi.Accumulate(w, []float64{0.5}, 0, 2, mpi.Sum))
			must(t, mpi.Accumulate(w, []int32{1, 1}, 0, 3, mpi.Sum)) // bytes 24..31 as two int32
		}
		must(t, w.Unlock(0))
		must(t, mpi.World.Barrier())
		if rank == 0 {
			must(t, w.Lock(mpi.LockExclusive, 0, 0))
			v := i64view(mem)
			f := make([]float64, 1)
			must(t, mpi.Get(w, f, 0, 2))
			i32 := make([]int32, 2)
			must(t, mpi.Get(w, i32, 0, 3))
			must(t, w.Unlock(0))
			if v[0] != int64(N*size) || v[1] != int64(2*N*size) || f[0] != float64(N*size)/2 || i32[0] != int32(N*size) || i32[1] != int32(N*size) {
				t.Fatalf("sums %v %v %v, want %d %d %v %d", v[:2], f, i32, N*size, 2*N*size, float64(N*size)/2, N*size)
			}
		}
		must(t, w.Free())
	})
}

// TestWinFetchAndOpTickets: FetchAndOp as a shared counter at rank 0 hands out unique
// tickets to many goroutines on every rank.
func TestWinFetchAndOpTickets(t *testing.T) {
	winJob(t, 3, func(t *testing.T, rank, size int) {
		w, mem, err := mpi.WinAllocate(8, 8, nil, mpi.World)
		must(t, err)
		clear(mem)
		must(t, mpi.World.Barrier())
		const G, N = 4, 200
		must(t, w.LockAll(0))
		tickets := make([][]int64, G)
		var wg sync.WaitGroup
		for g := 0; g < G; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < N; i++ {
					v, err := mpi.FetchAndOp(w, int64(1), 0, 0, mpi.Sum)
					if err != nil {
						t.Error(err)
						return
					}
					tickets[g] = append(tickets[g], v)
				}
			}()
		}
		wg.Wait()
		must(t, w.UnlockAll())
		var mine []int64
		for _, ts := range tickets {
			mine = append(mine, ts...)
		}
		all := make([]int64, G*N*size)
		must(t, mpi.Allgather(mpi.World, mine, all))
		seen := make([]bool, len(all))
		for _, v := range all {
			if v < 0 || v >= int64(len(all)) || seen[v] {
				t.Fatalf("ticket %d given twice or out of range [0,%d)", v, len(all))
			}
			seen[v] = true
		}
		must(t, w.Free())
	})
}

// TestWinCompareAndSwapLock: CompareAndSwap as a spin lock at rank 0 guards a
// read-modify-write of rank 1's counter by Get and Put.
func TestWinCompareAndSwapLock(t *testing.T) {
	winJob(t, 4, func(t *testing.T, rank, size int) {
		w, mem, err := mpi.WinAllocate(16, 8, nil, mpi.World)
		must(t, err)
		clear(mem)
		must(t, mpi.World.Barrier())
		const N = 50
		must(t, w.LockAll(0))
		for i := 0; i < N; i++ {
			for {
				old, err := mpi.CompareAndSwap(w, int64(rank+1), 0, 0, 0)
				must(t, err)
				if old == 0 {
					break
				}
			}
			v := make([]int64, 1)
			must(t, mpi.Get(w, v, 1, 1))
			must(t, w.Flush(1))
			v[0]++
			must(t, mpi.Put(w, v, 1, 1))
			must(t, w.Flush(1))
			old, err := mpi.CompareAndSwap(w, int64(0), int64(rank+1), 0, 0)
			must(t, err)
			if old != int64(rank+1) {
				t.Fatalf("lock held by %d while I held it", old)
			}
		}
		must(t, w.UnlockAll())
		must(t, mpi.World.Barrier())
		if rank == 1 {
			if got := i64view(mem)[1]; got != int64(N*size) {
				t.Fatalf("counter %d, want %d", got, N*size)
			}
		}
		must(t, w.Free())
	})
}

// TestWinPSCW: a ring of post/start/complete/wait epochs, with Test on the exposure.
func TestWinPSCW(t *testing.T) {
	winJob(t, 4, func(t *testing.T, rank, size int) {
		w, mem, err := mpi.WinAllocate(8, 8, nil, mpi.World)
		must(t, err)
		wg := mpi.World.Group()
		left, right := (rank+size-1)%size, (rank+1)%size
		from, _ := wg.Incl([]int{left})
		to, _ := wg.Incl([]int{right})
		for it := 0; it < 20; it++ {
			must(t, w.Post(from, 0))
			must(t, w.Start(to, 0))
			must(t, mpi.Put(w, []int64{int64(1000*it + rank)}, right, 0))
			must(t, w.Complete())
			if it%2 == 0 {
				must(t, w.Wait())
			} else {
				for {
					ok, err := w.Test()
					must(t, err)
					if ok {
						break
					}
				}
			}
			if got := i64view(mem)[0]; got != int64(1000*it+left) {
				t.Fatalf("iteration %d: %d, want %d", it, got, 1000*it+left)
			}
		}
		must(t, w.Free())
	})
}

// TestWinPassiveProgress: rank 1 computes without calling MPI while rank 0 locks its
// window, puts, gets and accumulates; rank 0 must finish before rank 1 stops.
func TestWinPassiveProgress(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		win, err := mpi.WinCreate(make([]byte, 64), 1, nil, mpi.World)
		must(t, err)
		flag, _, err := mpi.WinAllocate(8, 8, nil, mpi.World)
		must(t, err)
		must(t, mpi.World.Barrier())
		if rank == 0 {
			must(t, win.Lock(mpi.LockExclusive, 1, 0))
			must(t, mpi.Put(win, []byte("hello"), 1, 0))
			got := make([]byte, 5)
			must(t, mpi.Get(win, got, 1, 0))
			must(t, mpi.Accumulate(win, []int64{7}, 1, 8, mpi.Sum))
			must(t, win.Unlock(1))
			if string(got) != "hello" {
				t.Fatalf("got %q", got)
			}
			// Tell rank 1 to stop computing.
			must(t, flag.Lock(mpi.LockExclusive, 1, 0))
			must(t, mpi.Accumulate(flag, []int64{1}, 1, 0, mpi.Replace)) // atomic: rank 1 polls it
			must(t, flag.Unlock(1))
		} else {
			deadline := time.Now().Add(60 * time.Second)
			x := 0
			word := (*int64)(unsafe.Pointer(&flag.Base()[0]))
			for atomic.LoadInt64(word) == 0 { // computing, never calling MPI
				for k := 0; k < 1000; k++ {
					x += k * k
				}
				if time.Now().After(deadline) {
					t.Fatal("rank 0 did not complete its passive-target epoch while rank 1 computed")
				}
			}
			_ = x
			// MPI's rule for reading one's own window after a passive epoch: a lock.
			must(t, win.Lock(mpi.LockExclusive, 1, 0))
			if string(win.Base()[:5]) != "hello" {
				t.Fatalf("window holds %q", win.Base()[:5])
			}
			must(t, win.Unlock(1))
		}
		must(t, flag.Free())
		must(t, win.Free())
	})
}

// TestWinBadInputs: every bad input is a clear error of the right class, and nothing
// outside the window is written.
func TestWinBadInputs(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		w, mem, err := mpi.WinAllocate(32, 8, nil, mpi.World)
		must(t, err)
		clear(mem)
		check := func(what string, err error, want error) {
			t.Helper()
			if !errors.Is(err, want) {
				t.Errorf("%s: got %v, want class %v", what, err, want)
			}
		}
		peer := 1 - rank
		check("put outside any epoch", mpi.Put(w, []int64{1}, peer, 0), mpi.ErrRMASync)
		must(t, w.Lock(mpi.LockShared, peer, 0))
		check("put past the end", mpi.Put(w, []int64{1, 2}, peer, 3), mpi.ErrRMARange)
		check("negative disp", mpi.Put(w, []int64{1}, peer, -1), mpi.ErrDisp)
		check("rank outside the window", mpi.Put(w, []int64{1}, 5, 0), mpi.ErrRank)
		check("user op in accumulate", mpi.Accumulate(w, []int64{1}, peer, 0, mpi.OpCreate(func(a, b []int64) {}, true)), mpi.ErrOp)
		check("band on floats", mpi.Accumulate(w, []float64{1}, peer, 0, mpi.Band), mpi.ErrOp)
		_, err = mpi.CompareAndSwap(w, 1.5, 2.5, peer, 0)
		check("cas on floats", err, mpi.ErrType)
		check("lock twice", w.Lock(mpi.LockShared, peer, 0), mpi.ErrRMASync)
		must(t, w.Unlock(peer))
		check("unlock unlocked", w.Unlock(peer), mpi.ErrRMASync)
		check("lock type", w.Lock(99, peer, 0), mpi.ErrLocktype)
		check("lock rank", w.Lock(mpi.LockShared, 7, 0), mpi.ErrRank)
		check("fence assert", w.Fence(1), mpi.ErrAssert)
		check("complete without start", w.Complete(), mpi.ErrRMASync)
		check("wait without post", w.Wait(), mpi.ErrRMASync)
		check("flush outside lock", w.Flush(peer), mpi.ErrRMASync)
		must(t, mpi.World.Barrier())
		for i, b := range mem {
			if b != 0 {
				t.Fatalf("byte %d of the window was written: %d", i, b)
			}
		}
		must(t, w.Free())
		check("put on freed window", mpi.Put(w, []int64{1}, peer, 0), mpi.ErrWin)
		check("free twice", w.Free(), mpi.ErrWin)
		var nilw *mpi.Win
		check("nil window", nilw.Fence(0), mpi.ErrWin)
		_, err = mpi.WinCreate(nil, 0, nil, mpi.World)
		check("disp unit 0", err, mpi.ErrDisp)
	})
}

// TestWinExamplesInJobs runs the window Examples as real jobs and checks what rank 0
// prints.
func TestWinExamplesInJobs(t *testing.T) {
	cases := []struct {
		name    string
		n       int
		example func()
		want    string
	}{
		{"Fence/3", 3, ExampleWin_Fence, "rank 0 got 2 from its left neighbour\n"},
		{"Start/4", 4, ExampleWin_Start, "sum of the other ranks: 6\n"},
		{"Lock/4", 4, ExampleWin_Lock, "tickets given: 4\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mpitest.Run(t, c.n, func(t *testing.T) {
				out := stdoutOf(t, c.example)
				want := c.want
				if mpi.World.Rank() != 0 {
					want = ""
				}
				if out != want {
					t.Errorf("rank %d printed %q, want %q", mpi.World.Rank(), out, want)
				}
			})
		})
	}
}

// TestWinDerivedDatatypes: Put, Get, Accumulate and GetAccumulate with a strided
// (vector) datatype on the target and on the origin, in fence, PSCW and lock epochs.
func TestWinDerivedDatatypes(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		vec, err := mpi.TypeVector(4, 1, 2, mpi.Int64) // elements 0, 2, 4, 6
		must(t, err)
		must(t, vec.Commit())
		peer := 1 - rank
		g, _ := mpi.World.Group().Incl([]int{peer})
		for _, mode := range []string{"fence", "pscw", "lock"} {
			w, mem, err := mpi.WinAllocate(8*8, 8, nil, mpi.World)
			must(t, err)
			clear(mem)
			open := func() {
				switch mode {
				case "fence":
					must(t, w.Fence(0))
				case "pscw":
					must(t, w.Post(g, 0))
					must(t, w.Start(g, 0))
				case "lock":
					must(t, mpi.World.Barrier())
					must(t, w.Lock(mpi.LockExclusive, peer, 0))
				}
			}
			close := func() {
				switch mode {
				case "fence":
					must(t, w.Fence(0))
				case "pscw":
					must(t, w.Complete())
					must(t, w.Wait())
				case "lock":
					must(t, w.Unlock(peer))
					must(t, mpi.World.Barrier())
				}
			}
			open()
			// contiguous origin -> strided target
			must(t, mpi.PutBuf(w, mpi.Typed([]int64{1, 2, 3, 4}, 4, mpi.Int64), peer, 0, 1, vec))
			close()
			open()
			// strided target += contiguous origin; old values back, strided origin view
			old := make([]int64, 8)
			must(t, mpi.GetAccumulateBuf(w, mpi.Typed([]int64{10, 20, 30, 40}, 4, mpi.Int64), mpi.Typed(old, 1, vec), peer, 0, 1, vec, mpi.Sum))
			must(t, mpi.AccumulateBuf(w, mpi.Typed([]int64{100, 0, 100, 0, 100, 0, 100, 0}, 1, vec), peer, 0, 1, vec, mpi.Sum))
			close()
			if want := []int64{1, 0, 2, 0, 3, 0, 4, 0}; fmt.Sprint(old) != fmt.Sprint(want) {
				t.Fatalf("%s: GetAccumulate's old values %v, want %v", mode, old, want)
			}
			open()
			got := make([]int64, 8)
			must(t, mpi.GetBuf(w, mpi.Typed(got, 1, vec), peer, 0, 1, vec))
			close()
			if want := []int64{111, 0, 122, 0, 133, 0, 144, 0}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: got %v, want %v", mode, got, want)
			}
			if v := i64view(mem); v[1] != 0 || v[7] != 0 {
				t.Fatalf("%s: a gap of the vector was written: %v", mode, v)
			}
			// request forms
			must(t, w.Fence(0))
			rq, err := mpi.RputBuf(w, mpi.Typed([]int64{5, 6, 7, 8}, 4, mpi.Int64), peer, 0, 1, vec)
			must(t, err)
			_, err = rq.Wait()
			must(t, err)
			must(t, w.Fence(0))
			r2 := make([]int64, 4)
			rq, err = mpi.Rget(w, r2, peer, 0)
			must(t, err)
			_, err = rq.Wait()
			must(t, err)
			must(t, w.Fence(mpi.ModeNoSucceed))
			if fmt.Sprint(r2) != fmt.Sprint([]int64{5, 0, 6, 0}) {
				t.Fatalf("%s: Rput/Rget gave %v", mode, r2)
			}
			must(t, w.Free())
		}
	})
}

// TestWinLargeGetStridedOrigin: a Get of more than 16 KB, whose reply data travels
// apart from its header, lands in a strided origin (found by MPICH's rma/getfence1:
// the origin was left untouched), with Get in a fence epoch and Rget under a lock.
func TestWinLargeGetStridedOrigin(t *testing.T) {
	const n = 4096 // 32 KB of int64
	winJob(t, 2, func(t *testing.T, rank, size int) {
		every2, err := mpi.TypeVector(n, 1, 2, mpi.Int64)
		must(t, err)
		must(t, every2.Commit())
		peer := 1 - rank
		w, mem, err := mpi.WinAllocate(8*n, 8, nil, mpi.World)
		must(t, err)
		v := unsafe.Slice((*int64)(unsafe.Pointer(&mem[0])), n)
		for i := range v {
			v[i] = int64(1000*rank + i)
		}
		check := func(how string, got []int64) {
			t.Helper()
			for i, x := range got {
				want := int64(-1)
				if i%2 == 0 {
					want = int64(1000*peer + i/2)
				}
				if x != want {
					t.Fatalf("%s: got[%d] = %d, want %d", how, i, x, want)
				}
			}
		}
		got := make([]int64, 2*n)
		for i := range got {
			got[i] = -1
		}
		must(t, w.Fence(0))
		must(t, mpi.GetBuf(w, mpi.Typed(got, 1, every2), peer, 0, n, mpi.Int64))
		must(t, w.Fence(0))
		check("Get", got)
		for i := range got {
			got[i] = -1
		}
		must(t, w.Lock(mpi.LockShared, peer, 0))
		rq, err := mpi.RgetBuf(w, mpi.Typed(got, 1, every2), peer, 0, n, mpi.Int64)
		must(t, err)
		_, err = rq.Wait()
		must(t, err)
		must(t, w.Unlock(peer))
		check("Rget", got)
		must(t, mpi.World.Barrier())
		must(t, w.Free())
	})
}

// TestWinDynamic: memory attached to a dynamic window is read and written at the
// address Attach gives; an address outside every attachment is an error.
func TestWinDynamic(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		w, err := mpi.WinCreateDynamic(nil, mpi.World)
		must(t, err)
		buf := make([]int64, 4)
		addr, err := w.Attach(asBytesI64(buf))
		must(t, err)
		addrs := make([]int64, 2)
		must(t, mpi.Allgather(mpi.World, []int64{int64(addr)}, addrs))
		peer := 1 - rank
		must(t, w.Lock(mpi.LockShared, peer, 0))
		must(t, mpi.Put(w, []int64{int64(rank + 7)}, peer, int(addrs[peer])+8))
		must(t, mpi.Accumulate(w, []int64{3}, peer, int(addrs[peer])+16, mpi.Sum))
		must(t, w.Unlock(peer))
		must(t, w.Lock(mpi.LockShared, peer, 0))
		must(t, mpi.Put(w, []int64{1}, peer, int(addrs[peer])+32)) // one past the end
		if err := w.Unlock(peer); !errors.Is(err, mpi.ErrRMARange) {
			t.Errorf("a put past the attached memory: %v, want ErrRMARange", err)
		}
		must(t, mpi.World.Barrier())
		must(t, w.Lock(mpi.LockExclusive, rank, 0))
		if buf[1] != int64(peer+7) || buf[2] != 3 {
			t.Errorf("attached memory holds %v", buf)
		}
		must(t, w.Unlock(rank))
		must(t, mpi.World.Barrier())
		must(t, w.Detach(asBytesI64(buf)))
		must(t, w.Free())
	})
}

// TestWinBatchedReplies: Gets and GetAccumulates to a shipped target (a dynamic
// window's) issued in a run before one Flush, whose replies come back together, each
// land where its call said, in call order; a strided result, and one request the
// target refuses among them, which the Flush reports while the others still land.
func TestWinBatchedReplies(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		w, err := mpi.WinCreateDynamic(nil, mpi.World)
		must(t, err)
		const words = 256
		buf := make([]int64, words)
		for i := range buf {
			buf[i] = int64(rank*100000 + i)
		}
		addr, err := w.Attach(asBytesI64(buf))
		must(t, err)
		addrs := make([]int64, 2)
		must(t, mpi.Allgather(mpi.World, []int64{int64(addr)}, addrs))
		peer := 1 - rank
		base := int(addrs[peer])
		every2, err := mpi.TypeVector(2, 1, 2, mpi.Int64)
		must(t, err)
		must(t, every2.Commit())

		const gets, adds = 700, 140
		got := make([]int64, gets)
		old := make([]int64, adds)
		strided := make([]int64, 4)
		must(t, w.Lock(mpi.LockShared, peer, 0))
		for i := range gets {
			must(t, mpi.Get(w, got[i:i+1], peer, base+8*(i%words)))
			if i%5 == 0 && i/5 < adds {
				must(t, mpi.GetAccumulate(w, []int64{1}, old[i/5:i/5+1], peer, base, mpi.Sum))
			}
		}
		must(t, mpi.GetAccumulateBuf(w, mpi.Typed([]int64{0, 0}, 2, mpi.Int64), mpi.Typed(strided, 1, every2), peer, base+8*10, 2, mpi.Int64, mpi.NoOp))
		must(t, w.Flush(peer))
		for i, v := range got {
			want := int64(peer*100000 + i%words)
			if i%words == 0 {
				// Element 0 gains 1 per GetAccumulate before this Get.
				want += int64(min((i+4)/5, adds))
			}
			if v != want {
				t.Fatalf("Get %d: %d, want %d", i, v, want)
			}
		}
		for k, v := range old {
			if want := int64(peer*100000 + k); v != want {
				t.Fatalf("GetAccumulate %d: old value %d, want %d", k, v, want)
			}
		}
		if want := []int64{int64(peer*100000 + 10), 0, int64(peer*100000 + 11), 0}; !slices.Equal(strided, want) {
			t.Errorf("a strided result: %v, want %v", strided, want)
		}
		// A Get past the attached memory, among good ones: the Flush reports it.
		must(t, mpi.Get(w, got[0:1], peer, base+8))
		must(t, mpi.Get(w, got[1:2], peer, base+8*words))
		must(t, mpi.Get(w, got[2:3], peer, base+16))
		if err := w.Flush(peer); !errors.Is(err, mpi.ErrRMARange) {
			t.Errorf("a Get past the attached memory: %v, want ErrRMARange", err)
		}
		if got[0] != int64(peer*100000+1) || got[2] != int64(peer*100000+2) {
			t.Errorf("the good Gets beside the refused one: %d %d", got[0], got[2])
		}
		// An Accumulate past the attached memory, first after a Flush (answered on
		// its own), then one inside it: each Flush reports the refusal.
		must(t, mpi.Accumulate(w, []int64{5}, peer, base+8*words, mpi.Sum))
		if err := w.Flush(peer); !errors.Is(err, mpi.ErrRMARange) {
			t.Errorf("an Accumulate past the attached memory: %v, want ErrRMARange", err)
		}
		must(t, mpi.Accumulate(w, []int64{5}, peer, base+8*3, mpi.Sum))
		must(t, mpi.Accumulate(w, []int64{5}, peer, base+8*words, mpi.Sum))
		if err := w.Flush(peer); !errors.Is(err, mpi.ErrRMARange) {
			t.Errorf("a second Accumulate past the attached memory: %v, want ErrRMARange", err)
		}
		must(t, mpi.Get(w, got[0:1], peer, base+8*3))
		must(t, w.Flush(peer))
		if want := int64(peer*100000 + 3 + 5); got[0] != want {
			t.Errorf("the good Accumulate beside the refused one: %d, want %d", got[0], want)
		}
		must(t, w.Unlock(peer))
		must(t, mpi.World.Barrier())
		must(t, w.Detach(asBytesI64(buf)))
		must(t, w.Free())
	})
}

func asBytesI64(s []int64) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 8*len(s)) }

// TestWinSharedQuery: a shared window's parts are read and written with plain loads
// and stores by every rank after SharedQuery.
func TestWinSharedQuery(t *testing.T) {
	winJob(t, 4, func(t *testing.T, rank, size int) {
		w, mine, err := mpi.WinAllocateShared(64, 8, nil, mpi.World)
		must(t, err)
		next := (rank + 1) % size
		nb, du, err := w.SharedQuery(next)
		must(t, err)
		if du != 8 || len(nb) != 64 {
			t.Fatalf("SharedQuery: %d bytes, disp unit %d", len(nb), du)
		}
		must(t, w.LockAll(0))
		nb[rank] = byte(rank + 1) // a plain store into the neighbour's part
		must(t, w.Sync())
		must(t, mpi.World.Barrier())
		must(t, w.Sync())
		prev := (rank + size - 1) % size
		if mine[prev] != byte(prev+1) {
			t.Errorf("my part holds %d at %d, want %d", mine[prev], prev, prev+1)
		}
		must(t, w.UnlockAll())
		if fl, ok := w.Attr(mpi.WinCreateFlavor); !ok || fl != mpi.FlavorShared {
			t.Errorf("flavor attribute %v %v", fl, ok)
		}
		must(t, w.Free())
	})
}

// TestWinSharedQueryEveryFlavor: MPI 4.1 defines MPI_Win_shared_query on every
// window: a window of WinCreate gives this rank's own memory, and no memory (and no
// error) for a rank whose memory this rank cannot load and store; a dynamic window
// gives none.
func TestWinSharedQueryEveryFlavor(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		buf := make([]byte, 16*(rank+1))
		w, err := mpi.WinCreate(buf, 4, nil, mpi.World)
		must(t, err)
		mem, du, err := w.SharedQuery(rank)
		must(t, err)
		if du != 4 || len(mem) != len(buf) || &mem[0] != &buf[0] {
			t.Errorf("SharedQuery of my own part: %d bytes, unit %d; want my %d bytes, unit 4", len(mem), du, len(buf))
		}
		other := 1 - rank
		mem, du, err = w.SharedQuery(other)
		must(t, err)
		if du != 4 || mem != nil && len(mem) != 16*(other+1) {
			t.Errorf("SharedQuery of rank %d's part: %d bytes, unit %d; want its memory or none, unit 4", other, len(mem), du)
		}
		must(t, w.Free())

		d, err := mpi.WinCreateDynamic(nil, mpi.World)
		must(t, err)
		mem, du, err = d.SharedQuery(mpi.ProcNull)
		if err != nil || mem != nil || du != 1 {
			t.Errorf("SharedQuery of a dynamic window: %d bytes, unit %d, %v; want none, unit 1", len(mem), du, err)
		}
		must(t, d.Free())
	})
}

// TestWinTestAfterComplete: once the origin's Complete has returned and a barrier
// after it has ended, the target's Test reports the exposure epoch over (MPI 4.1
// §12.5.2: Test's flag is true when every origin's Complete has signalled), at its
// first call.
func TestWinTestAfterComplete(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		for _, flavor := range []string{"create", "allocate"} {
			var w *mpi.Win
			var err error
			if flavor == "create" {
				w, err = mpi.WinCreate(make([]byte, 8), 1, nil, mpi.World)
			} else {
				w, _, err = mpi.WinAllocate(8, 1, nil, mpi.World)
			}
			must(t, err)
			wg := mpi.World.Group()
			peer, _ := wg.Incl([]int{1 - rank})
			for it := 0; it < 50; it++ {
				if rank == 0 {
					must(t, w.Start(peer, 0))
					must(t, mpi.World.Barrier())
					must(t, w.Complete())
					must(t, mpi.World.Barrier())
					continue
				}
				must(t, w.Post(peer, 0))
				ok, err := w.Test()
				must(t, err)
				if ok {
					t.Fatalf("%s, iteration %d: Test true before the origin's Complete", flavor, it)
				}
				must(t, mpi.World.Barrier())
				must(t, mpi.World.Barrier())
				ok, err = w.Test()
				must(t, err)
				if !ok {
					t.Fatalf("%s, iteration %d: Test false after the origin's Complete and a barrier", flavor, it)
				}
			}
			must(t, w.Free())
		}
	})
}

// TestWinStreamPutGet: puts and gets of more than a megabyte each, several in one
// passive-target epoch (past the first 2 MiB the direct way copies them as a stream,
// with non-temporal stores), at offsets that align to no cache line, land exactly.
func TestWinStreamPutGet(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		const piece, pieces = 1<<20 + 77, 4
		w, base, err := mpi.WinAllocate(piece*pieces+64, 1, nil, mpi.World)
		must(t, err)
		clear(base)
		must(t, mpi.World.Barrier())
		if rank == 0 {
			src := make([]byte, piece*pieces+3)
			for i := range src {
				src[i] = byte(i*13 + i>>12)
			}
			must(t, w.Lock(mpi.LockShared, 1, 0))
			for k := range pieces {
				must(t, mpi.Put(w, src[3+k*piece:3+(k+1)*piece], 1, 5+k*piece))
			}
			must(t, w.Flush(1))
			got := make([]byte, piece*pieces+9)
			for k := range pieces {
				must(t, mpi.Get(w, got[9+k*piece:9+(k+1)*piece], 1, 5+k*piece))
			}
			must(t, w.Unlock(1))
			for i := range piece * pieces {
				if got[9+i] != src[3+i] {
					t.Fatalf("byte %d of the gets is %d, want %d", i, got[9+i], src[3+i])
				}
			}
		}
		must(t, mpi.World.Barrier())
		if rank == 1 {
			for i, b := range base[:5] {
				if b != 0 {
					t.Fatalf("byte %d before the puts is %d", i, b)
				}
			}
			if b := base[5+piece*pieces]; b != 0 {
				t.Fatalf("the byte after the puts is %d", b)
			}
		}
		must(t, w.Free())
	})
}

// TestWinPutGetSizes: Put and Get of 2 KiB to 64 KiB, around the sizes whose copies
// change their way (ntcopy.MoveCached's vector loop), at odd origin offsets and
// displacements: every byte where it belongs, at the target and back at the origin,
// and the bytes beside the range untouched.
func TestWinPutGetSizes(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		const wsz = 1 << 17
		w, base, err := mpi.WinAllocate(wsz, 1, nil, mpi.World)
		must(t, err)
		for _, n := range []int{2047, 2048, 2049, 4096, 4099, 8191, 8192, 8193, 65541} {
			for _, off := range [][2]int{{0, 0}, {1, 7}, {33, 31}} {
				oo, td := off[0], off[1]
				clear(base)
				must(t, mpi.World.Barrier())
				src := make([]byte, n+oo)
				for i := range src {
					src[i] = byte(i*13 + i>>8 + rank)
				}
				if rank == 0 {
					must(t, w.Lock(mpi.LockExclusive, 1, 0))
					must(t, mpi.Put(w, src[oo:], 1, td))
					must(t, w.Flush(1))
					got := make([]byte, n+oo+64)
					must(t, mpi.Get(w, got[oo:oo+n], 1, td))
					must(t, w.Unlock(1))
					if !bytes.Equal(got[oo:oo+n], src[oo:]) {
						t.Fatalf("Get of %d bytes (offset %d, displacement %d) differs from the Put", n, oo, td)
					}
					if !zeroOutside(got, oo, oo+n) {
						t.Fatalf("Get of %d bytes (offset %d) wrote outside its range", n, oo)
					}
				}
				must(t, mpi.World.Barrier())
				if rank == 1 {
					want := make([]byte, n+oo)
					for i := range want {
						want[i] = byte(i*13 + i>>8)
					}
					if !bytes.Equal(base[td:td+n], want[oo:]) {
						t.Fatalf("Put of %d bytes (offset %d, displacement %d): the target's bytes differ", n, oo, td)
					}
					if !zeroOutside(base, td, td+n) {
						t.Fatalf("Put of %d bytes (displacement %d) wrote outside its range", n, td)
					}
				}
				must(t, mpi.World.Barrier())
			}
		}
		must(t, w.Free())
	})
}

// zeroOutside reports whether b holds only zeros outside [lo, hi).
func zeroOutside(b []byte, lo, hi int) bool {
	nonzero := func(x byte) bool { return x != 0 }
	return !slices.ContainsFunc(b[:lo], nonzero) && !slices.ContainsFunc(b[hi:], nonzero)
}

// TestWinCreateSingleCopy: on one node, Put and Get to a window made over the
// program's memory go by single copy where the node's transport has it (shm), and
// complete while the target computes without calling MPI, for several epochs in a
// row; accumulates still go to the target's progress goroutine, and everything lands.
func TestWinCreateSingleCopy(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr mpitest.Transport) {
		mpitest.Job(t, mpitest.Options{N: 2, Transport: tr}, func(t *testing.T) {
			_, err := mpi.InitThread(mpi.ThreadMultiple)
			must(t, err)
			rank := mpi.World.Rank()
			mem := make([]byte, 4096+256<<10)
			win, err := mpi.WinCreate(mem, 1, nil, mpi.World)
			must(t, err)
			flag, _, err := mpi.WinAllocate(8, 8, nil, mpi.World)
			must(t, err)
			route := mpi.WinRoute(win)
			got := strings.Contains(route, "(of them 1 read and written by single copy)")
			switch {
			case tr.Name == "tcp" && got:
				t.Errorf("over tcp: route %q takes single copy", route)
			case tr.Name == "shm" && !got && ptraceOpen():
				t.Errorf("over shm, ptrace open: route %q takes no single copy", route)
			}
			must(t, mpi.World.Barrier())
			if rank == 0 {
				for e := range 20 {
					must(t, win.Lock(mpi.LockExclusive, 1, 0))
					msg := []byte(fmt.Sprintf("epoch %02d", e))
					must(t, mpi.Put(win, msg, 1, 100+e))
					must(t, mpi.Accumulate(win, []int64{1}, 1, 0, mpi.Sum))
					must(t, win.Flush(1))
					got := make([]byte, len(msg))
					must(t, mpi.Get(win, got, 1, 100+e))
					must(t, win.Unlock(1))
					if !bytes.Equal(got, msg) {
						t.Fatalf("epoch %d: got %q back, want %q", e, got, msg)
					}
				}
				// A strided origin, and sizes past a batch and past the single way's
				// bound (which ships), each read back.
				every2, err := mpi.TypeVector(64, 1, 2, mpi.Int64)
				must(t, err)
				must(t, every2.Commit())
				src := make([]int64, 128)
				for i := range src {
					src[i] = int64(i)
				}
				must(t, win.Lock(mpi.LockShared, 1, 0))
				must(t, mpi.PutBuf(win, mpi.Typed(src, 1, every2), 1, 1024, 512, mpi.Byte))
				back := make([]int64, 128)
				must(t, mpi.GetBuf(win, mpi.Typed(back, 1, every2), 1, 1024, 512, mpi.Byte))
				for _, n := range []int{16<<10 - 40, 16 << 10, 64 << 10, 200 << 10} {
					big := make([]byte, n)
					for i := range big {
						big[i] = byte(i*7 + n)
					}
					must(t, mpi.Put(win, big, 1, 4096))
					got := make([]byte, n)
					must(t, mpi.Get(win, got, 1, 4096))
					must(t, win.Flush(1))
					if !bytes.Equal(got, big) {
						t.Fatalf("%d bytes: read back differs", n)
					}
				}
				// Short Gets, more than one vectored read takes, read at the Flush,
				// between a Put and an Accumulate to the same bytes: each reads what
				// the calls before it left.
				const k, words = 1500, 256
				p1, p2 := make([]int64, words), make([]int64, words)
				for i := range words {
					p1[i], p2[i] = int64(i)+1e6, int64(i)+2e6
				}
				vals := make([]int64, k)
				must(t, mpi.Put(win, p1, 1, 2048))
				for i := range k {
					switch i {
					case 700:
						must(t, mpi.Put(win, p2, 1, 2048))
					case 1200:
						must(t, mpi.Accumulate(win, []int64{1000}, 1, 2048+8*(1200%words), mpi.Sum))
					}
					must(t, mpi.Get(win, vals[i:i+1], 1, 2048+8*(i%words)))
				}
				must(t, win.Flush(1))
				for i, v := range vals {
					want := p1[i%words]
					if i >= 700 {
						want = p2[i%words]
					}
					if i >= 1200 && i%words == 1200%words {
						want += 1000
					}
					if v != want {
						t.Fatalf("Get %d of %d: %d, want %d", i, k, v, want)
					}
				}
				must(t, win.Unlock(1))
				for i := range back {
					want := int64(0) // the gaps are left as they were
					if i%2 == 0 {
						want = int64(i)
					}
					if back[i] != want {
						t.Fatalf("strided Put and Get: element %d is %d, want %d", i, back[i], want)
					}
				}
				must(t, flag.Lock(mpi.LockExclusive, 1, 0))
				must(t, mpi.Accumulate(flag, []int64{1}, 1, 0, mpi.Replace))
				must(t, flag.Unlock(1))
			} else {
				deadline := time.Now().Add(60 * time.Second)
				word := (*int64)(unsafe.Pointer(&flag.Base()[0]))
				for atomic.LoadInt64(word) == 0 { // computing, never calling MPI
					if time.Now().After(deadline) {
						t.Fatal("rank 0's epochs did not complete while rank 1 computed")
					}
				}
				must(t, win.Lock(mpi.LockExclusive, 1, 0))
				if got := i64view(mem[:8])[0]; got != 20 {
					t.Errorf("accumulated %d, want 20", got)
				}
				if want := "epoch 19"; string(mem[119:127]) != want {
					t.Errorf("window holds %q at 119, want %q", mem[119:127], want)
				}
				must(t, win.Unlock(1))
			}
			must(t, flag.Free())
			must(t, win.Free())
			must(t, mpi.Finalize())
		})
	})
}

// ptraceOpen reports whether Yama lets a process read another of the same user's
// (ptrace_scope 0, or no Yama): single-copy calls between ranks are then possible.
func ptraceOpen() bool {
	b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	return err != nil || strings.TrimSpace(string(b)) == "0"
}

// TestWinCreateMapped: a window made over memory AllocMem gave with mpigo_node_mapped
// is reached through a mapping of it. Where every rank's memory is such, the window's
// targets on the node are direct, as WinAllocate's are: loads, stores and atomics,
// which both ranks' FetchAndOps on one word show atomic together. Where only the
// target's is, Puts of every length up to and past the single way's bounds (16 KiB,
// the batch's, among them) go through the mapping. Either way Puts mixed with
// Accumulates and Gets to the same bytes land in the order of their calls, and the
// target's memory holds them after the epoch.
func TestWinCreateMapped(t *testing.T) {
	for _, both := range []bool{true, false} {
		t.Run(fmt.Sprintf("every rank mapped %v", both), func(t *testing.T) {
			jobWith(t, mpitest.Options{N: 2, Transport: mpitest.Shm}, func(t *testing.T, rank, size int) {
				winCreateMapped(t, rank, both)
			})
		})
	}
}

func winCreateMapped(t *testing.T, rank int, both bool) {
	const n = 1 << 20
	mem := make([]byte, n)
	if rank == 1 || both {
		info := mpi.InfoCreate()
		must(t, info.Set("mpigo_node_mapped", "true"))
		var err error
		mem, err = mpi.AllocMem(n, info)
		must(t, err)
		must(t, info.Free())
	}
	win, err := mpi.WinCreate(mem, 1, nil, mpi.World)
	must(t, err)
	route := mpi.WinRoute(win)
	switch {
	case !ptraceOpen():
	case both && !strings.Contains(route, "2 targets direct"):
		t.Errorf("route %q: the window over every rank's AllocMem memory is not direct", route)
	case !both && rank == 0 && !strings.Contains(route, "1 of those through a mapping"):
		t.Errorf("route %q: the peer's AllocMem memory is not reached through a mapping", route)
	}
	sizes := []int{8, 1000, 16<<10 - 40, 16 << 10, 16<<10 + 8, 100000, 256 << 10, 300000}
	if rank == 0 {
		must(t, win.Lock(mpi.LockShared, 1, 0))
		off := 0
		for k, m := range sizes {
			src := make([]byte, m)
			for i := range src {
				src[i] = byte(i*3 + k)
			}
			must(t, mpi.Put(win, src, 1, off))
			// An Accumulate of the first word, then a Get: each sees the Put.
			must(t, mpi.Accumulate(win, []int64{int64(k) << 8}, 1, off, mpi.Sum))
			got := make([]byte, m)
			must(t, mpi.Get(win, got, 1, off))
			must(t, win.Flush(1))
			want := slices.Clone(src)
			binary.LittleEndian.PutUint64(want, binary.LittleEndian.Uint64(want)+uint64(k)<<8)
			if !bytes.Equal(got, want) {
				t.Fatalf("%d bytes at %d: the Get after Put and Accumulate differs", m, off)
			}
			off += m + 8
		}
		must(t, win.Unlock(1))
	}
	must(t, mpi.World.Barrier())
	if rank == 1 {
		must(t, win.Lock(mpi.LockExclusive, 1, 0))
		off := 0
		for k, m := range sizes {
			v := binary.LittleEndian.Uint64(mem[off:])
			w := binary.LittleEndian.Uint64([]byte{byte(k), byte(3 + k), byte(6 + k), byte(9 + k), byte(12 + k), byte(15 + k), byte(18 + k), byte(21 + k)})
			if v != w+uint64(k)<<8 || mem[off+m-1] != byte((m-1)*3+k) {
				t.Errorf("%d bytes at %d: the target holds %#x ... %d", m, off, v, mem[off+m-1])
			}
			off += m + 8
		}
		clear(mem[n-8:])
		must(t, win.Unlock(1))
	}
	// Both ranks add to one word of rank 1's at once: no addition is lost.
	must(t, mpi.World.Barrier())
	const adds = 2000
	must(t, win.LockAll(0))
	for range adds {
		if _, err := mpi.FetchAndOp(win, int64(rank+1), 1, n-8, mpi.Sum); err != nil {
			t.Fatal(err)
		}
	}
	must(t, win.UnlockAll())
	must(t, mpi.World.Barrier())
	if rank == 1 {
		if got := int64(binary.LittleEndian.Uint64(mem[n-8:])); got != 3*adds {
			t.Errorf("the word both ranks added to holds %d, want %d", got, 3*adds)
		}
	}
	must(t, win.Free())
	if rank == 1 || both {
		must(t, mpi.FreeMem(mem))
	}
}
