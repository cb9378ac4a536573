// Rma measures one-sided communication between rank 0 (origin) and rank 1 (target), by
// the method of ../shared/anchors/rma.c (OSU one-sided style), whose header is the
// contract: the window comes from WinAllocate; passive target holds Lock(LockShared, 1)
// for a whole size and completes every operation with Flush(1) (latency = elapsed /
// iters); bandwidth runs 64 operations at consecutive offsets, then one flush; active
// target runs Fence-Put-Fence and post/start/complete/wait around each 8-byte put;
// FetchAndOp (int64, Sum), CompareAndSwap (int64) and Accumulate (Sum on int32) are
// flushed one by one. While rank 0 runs a passive-target loop, rank 1 waits in Barrier.
// Every measurement is checked afterwards: a wrong value aborts the program.
//
//	mpigo run -n 2 ./bench/rma [scale]
package main

import (
	"encoding/binary"

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

const window = 64

var (
	latSizes = []int{8, 4096, 65536, 1048576}
	bwSizes  = []int{4096, 65536, 1048576}
)

func itersFor(n int, scale float64) int {
	it := 500
	if n <= 8192 {
		it = 20000
	} else if n <= 65536 {
		it = 5000
	}
	return osu.Scaled(it, scale)
}

func check(err error) {
	if err != nil {
		osu.Die("rma: %v", err)
	}
}

func fail(what string) {
	osu.Die("rma: wrong result: %s", what)
}

func main() {
	world := osu.Pair("rma")
	defer mpi.Finalize()
	scale := osu.Scale()
	rank := world.Rank()
	const maxsz = 1 << 20
	winsz := maxsz * window
	src, dst := osu.Buffer(winsz), osu.Buffer(winsz)
	w, base, err := mpi.WinAllocate(winsz, 1, nil, world)
	check(err)
	clear(base)
	check(world.Barrier())
	report := func(key string, n int, v float64, unit string) {
		if rank == 0 {
			osu.Result("rma", key+"_"+osu.Label(n), v, 3, unit)
		}
	}

	// Passive target latency: put and get, flushed one by one.
	for op := 0; op < 2; op++ {
		for k, n := range latSizes {
			iters := itersFor(n, scale)
			skip := iters/10 + 1
			var t0, t1 float64
			if rank == 0 {
				for i := range src[:n] {
					src[i] = byte(k + 1 + op*16)
				}
				check(w.Lock(mpi.LockShared, 1, 0))
				s, d := src[:n], dst[:n]
				for i := 0; i < iters+skip; i++ {
					if i == skip {
						t0 = mpi.Wtime()
					}
					if op == 0 {
						check(mpi.Put(w, s, 1, 0))
					} else {
						check(mpi.Get(w, d, 1, 0))
					}
					check(w.Flush(1))
				}
				t1 = mpi.Wtime()
				check(w.Unlock(1))
			}
			check(world.Barrier())
			if op == 0 && rank == 1 {
				check(w.Lock(mpi.LockExclusive, 1, 0))
				if base[0] != byte(k+1) || base[n-1] != byte(k+1) {
					fail("put")
				}
				check(w.Unlock(1))
			}
			key := "put"
			if op == 1 {
				key = "get"
			}
			report(key, n, (t1-t0)*1e6/float64(iters), "us")
			check(world.Barrier())
		}
	}
	if rank == 0 && (dst[0] != 4 || dst[maxsz-1] != 4) {
		fail("get")
	}

	// Passive target bandwidth: window puts (or gets) at consecutive offsets, one flush.
	for op := 0; op < 2; op++ {
		for _, n := range bwSizes {
			loops := 200
			if n > 65536 {
				loops = 20
			}
			loops = osu.Scaled(loops, scale)
			skip := 2
			var t0, t1 float64
			if rank == 0 {
				check(w.Lock(mpi.LockShared, 1, 0))
				for i := 0; i < loops+skip; i++ {
					if i == skip {
						t0 = mpi.Wtime()
					}
					for j := 0; j < window; j++ {
						if op == 0 {
							check(mpi.Put(w, src[j*n:(j+1)*n], 1, j*n))
						} else {
							check(mpi.Get(w, dst[j*n:(j+1)*n], 1, j*n))
						}
					}
					check(w.Flush(1))
				}
				t1 = mpi.Wtime()
				check(w.Unlock(1))
			}
			check(world.Barrier())
			el := t1 - t0
			if el <= 0 {
				el = 1e-9
			}
			key := "put_bw"
			if op == 1 {
				key = "get_bw"
			}
			report(key, n, float64(n)*window*float64(loops)/el/1e6, "MB/s")
		}
	}

	// Accumulate (Sum on int32), fetch-and-op and compare-and-swap, flushed one by one.
	iters := itersFor(8, scale)
	skip := iters/10 + 1
	one := make([]int32, 1024)
	for i := range one {
		one[i] = 1
	}
	if rank == 1 {
		check(w.Lock(mpi.LockExclusive, 1, 0))
		clear(base[:4096])
		check(w.Unlock(1))
	}
	check(world.Barrier())
	for _, n := range []int{8, 4096} {
		cnt := n / 4
		var t0, t1 float64
		if rank == 0 {
			check(w.Lock(mpi.LockShared, 1, 0))
			o := one[:cnt]
			for i := 0; i < iters+skip; i++ {
				if i == skip {
					t0 = mpi.Wtime()
				}
				check(mpi.Accumulate(w, o, 1, 0, mpi.Sum))
				check(w.Flush(1))
			}
			t1 = mpi.Wtime()
			check(w.Unlock(1))
		}
		check(world.Barrier())
		report("acc", n, (t1-t0)*1e6/float64(iters), "us")
	}
	if rank == 1 {
		check(w.Lock(mpi.LockExclusive, 1, 0))
		v := func(i int) int32 { return int32(binary.LittleEndian.Uint32(base[4*i:])) }
		want0, want9 := int32(2*(iters+skip)), int32(iters+skip)
		if v(0) != want0 || v(1) != want0 || v(9) != want9 {
			fail("accumulate")
		}
		clear(base[:64])
		check(w.Unlock(1))
	}
	check(world.Barrier())

	var t0, t1 float64
	var res int64
	if rank == 0 {
		check(w.Lock(mpi.LockShared, 1, 0))
		for i := 0; i < iters+skip; i++ {
			if i == skip {
				t0 = mpi.Wtime()
			}
			res, err = mpi.FetchAndOp(w, int64(1), 1, 0, mpi.Sum)
			check(err)
			check(w.Flush(1))
		}
		t1 = mpi.Wtime()
		if res != int64(iters+skip-1) {
			fail("fetch_and_op")
		}
		check(w.Unlock(1))
	}
	check(world.Barrier())
	report("fop", 8, (t1-t0)*1e6/float64(iters), "us")

	if rank == 0 {
		check(w.Lock(mpi.LockShared, 1, 0))
		for i := 0; i < iters+skip; i++ {
			if i == skip {
				t0 = mpi.Wtime()
			}
			res, err = mpi.CompareAndSwap(w, int64(i+1), int64(i), 1, 8)
			check(err)
			check(w.Flush(1))
		}
		t1 = mpi.Wtime()
		if res != int64(iters+skip-1) {
			fail("compare_and_swap")
		}
		check(w.Unlock(1))
	}
	check(world.Barrier())
	report("cas", 8, (t1-t0)*1e6/float64(iters), "us")

	// Active target: fence-put-fence, and post/start/complete/wait, 8 bytes.
	iters = osu.Scaled(5000, scale)
	skip = iters/10 + 1
	s8 := src[:8]
	check(w.Fence(0))
	for i := 0; i < iters+skip; i++ {
		if i == skip {
			t0 = mpi.Wtime()
		}
		if rank == 0 {
			check(mpi.Put(w, s8, 1, 0))
		}
		check(w.Fence(0))
	}
	t1 = mpi.Wtime()
	report("fence_put", 8, (t1-t0)*1e6/float64(iters), "us")

	peer, err := world.Group().Incl([]int{1 - rank})
	check(err)
	check(world.Barrier())
	for i := 0; i < iters+skip; i++ {
		if i == skip {
			t0 = mpi.Wtime()
		}
		if rank == 0 {
			check(w.Start(peer, 0))
			check(mpi.Put(w, s8, 1, 0))
			check(w.Complete())
		} else {
			check(w.Post(peer, 0))
			check(w.Wait())
		}
	}
	t1 = mpi.Wtime()
	report("pscw_put", 8, (t1-t0)*1e6/float64(iters), "us")
	check(w.Free())
}
