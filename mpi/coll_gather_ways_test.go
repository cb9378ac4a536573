package mpi_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// gfill is the byte i of rank r's block in gather it.
func gfill(r, it, i int) byte { return byte(r*29 + it*13 + i*5 + 1) }

func gblock(r, it, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = gfill(r, it, i)
	}
	return b
}

// checkGathered reports the first byte of block j (from rank j, gather it) that is
// not what rank j sent.
func checkGathered(t *testing.T, what string, it, j int, got []byte) {
	t.Helper()
	for i, v := range got {
		if v != gfill(j, it, i) {
			t.Fatalf("%s %d: rank %d's byte %d is %d, want %d", what, it, j, i, v, gfill(j, it, i))
		}
	}
}

// TestGatherWays: the blocking gathers on every way they take (the node region's
// cells and inline lines and slots, point-to-point messages for a Gather's long
// blocks, the schedules for an Allgather's, TCP): Gathers from rotating roots, many
// more than a rank's cells, of 0 to 9500 bytes per block, in place at the root every
// third; Gatherv with one rank's block long and the others short or empty;
// Allgather and Allgatherv up to beyond coll_shm_gather_max (set to 1 KiB here), in
// place too; non-roots of ten Gathers that return before their root calls. At 2, 3
// and 4 ranks; every block checked.
func TestGatherWays(t *testing.T) {
	eachWay(t, "coll_shm_gather_max", "1024", func(t *testing.T, rank, size int) {
		w := mpi.World
		for it := 0; it < 60; it++ {
			root, m := it%size, (it*331)%9500 // cells, their extensions, messages
			recv := make([]byte, size*m)
			send := gblock(rank, it, m)
			if rank == root && it%3 == 0 {
				copy(recv[root*m:], send)
				send = mpi.InPlace[byte]()
			}
			must(t, mpi.Gather(w, send, recv, root))
			if rank == root {
				for j := 0; j < size; j++ {
					checkGathered(t, "Gather", it, j, recv[j*m:(j+1)*m])
				}
			}
			counts, displs, at := make([]int, size), make([]int, size), 0
			for j := range counts {
				counts[j] = (j * 17) % 40
				if j == (it+1)%size {
					counts[j] = 200 + it
				}
				displs[j], at = at, at+counts[j]+2
			}
			recv = make([]byte, at)
			must(t, mpi.Gatherv(w, gblock(rank, it, counts[rank]), recv, counts, displs, root))
			if rank == root {
				for j := 0; j < size; j++ {
					checkGathered(t, "Gatherv", it, j, recv[displs[j]:displs[j]+counts[j]])
				}
			}
			k := (it * 37) % 1300
			recv = make([]byte, size*k)
			send = gblock(rank, it, k)
			if it%3 == 1 {
				copy(recv[rank*k:], send)
				send = mpi.InPlace[byte]()
			}
			must(t, mpi.Allgather(w, send, recv))
			for j := 0; j < size; j++ {
				checkGathered(t, "Allgather", it, j, recv[j*k:(j+1)*k])
			}
			at = 0
			for j := range counts {
				counts[j] = (j*31 + it*7) % 60
				if it%4 == 2 && j == 0 {
					counts[j] = 1100
				}
				displs[j], at = at, at+counts[j]+1
			}
			recv = make([]byte, at)
			must(t, mpi.Allgatherv(w, gblock(rank, it, counts[rank]), recv, counts, displs))
			for j := 0; j < size; j++ {
				checkGathered(t, "Allgatherv", it, j, recv[displs[j]:displs[j]+counts[j]])
			}
		}
		// Non-roots return before their root calls.
		tok := []int32{0}
		if rank != 0 {
			for it := 0; it < 10; it++ {
				must(t, mpi.Gather(w, gblock(rank, it, 8), nil, 0))
			}
			must(t, mpi.Send(w, tok, 0, 9))
			return
		}
		for j := 1; j < size; j++ {
			_, err := mpi.Recv(w, tok, mpi.AnySource, 9)
			must(t, err)
		}
		recv := make([]byte, 8*size)
		for it := 0; it < 10; it++ {
			must(t, mpi.Gather(w, gblock(rank, it, 8), recv, 0))
			for j := 0; j < size; j++ {
				checkGathered(t, "early Gather", it, j, recv[8*j:8*j+8])
			}
		}
	})
}

// TestAllgatherStraddle: an Allgatherv whose ranks' counts disagree (erroneous) about
// whether a block fits the node region (coll_shm_gather_max 1 KiB): the rank whose
// own block is too long takes the schedules, the others find it in the region and
// join them. Nobody waits for a rank on a way it did not take: the call ends with an
// error at some rank, and the group is in step afterwards.
func TestAllgatherStraddle(t *testing.T) {
	for _, p := range pathsShmSchedTCP {
		t.Run(p.Name, func(t *testing.T) {
			tr := p
			tr.Settings = map[string]string{"coll_shm_gather_max": "1024"}
			for k, v := range p.Settings {
				tr.Settings[k] = v
			}
			jobWith(t, mpitest.Options{N: 3, Transport: tr}, func(t *testing.T, rank, size int) {
				w := mpi.World
				for _, long := range []int{0, 1, 2} {
					counts, displs, at := make([]int, size), make([]int, size), 0
					for j := range counts {
						counts[j] = 100
						if j == long && rank == long {
							counts[j] = 4000
						}
						displs[j], at = at, at+counts[j]
					}
					err := mpi.Allgatherv(w, gblock(rank, long, counts[rank]), make([]byte, at), counts, displs)
					errs := []int32{0}
					if err != nil {
						errs[0] = 1
					}
					all := []int32{0}
					must(t, mpi.Allreduce(w, errs, all, mpi.Sum))
					if all[0] == 0 {
						t.Fatalf("long block at rank %d: no rank reported the disagreement", long)
					}
					recv := make([]byte, 8*size)
					must(t, mpi.Allgather(w, gblock(rank, 99, 8), recv))
					for j := 0; j < size; j++ {
						checkGathered(t, "Allgather after", 99, j, recv[8*j:8*j+8])
					}
				}
			})
		})
	}
}

// TestGatherTypedMixed: ranks that describe their blocks with different layouts of
// the same type signature (MPI requires only the signatures to match) take the same
// way: the root gathers 12 float64 per rank into a plain buffer while the others send
// every other element of a strided array (a vector datatype, packed first), and an
// Allgather's ranks alternate the two layouts (MPICH's coll/gather2 on the C face).
func TestGatherTypedMixed(t *testing.T) {
	for n := 2; n <= 3; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			jobWith(t, mpitest.Options{N: n, Timeout: 30 * time.Second}, func(t *testing.T, rank, size int) {
				w := mpi.World
				const k = 12
				vec, err := mpi.TypeVector(k, 1, 2, mpi.Float64)
				must(t, err)
				must(t, vec.Commit())
				strided := make([]float64, 2*k)
				plain := make([]float64, k)
				for i := 0; i < k; i++ {
					strided[2*i], strided[2*i+1] = float64(rank*k+i), -1
					plain[i] = float64(rank*k + i)
				}
				for root := 0; root < size; root++ {
					for it := 0; it < 20; it++ {
						recv := make([]float64, size*k)
						if rank == root {
							must(t, mpi.Gather(w, plain, recv, root))
							for i, v := range recv {
								if v != float64(i) {
									t.Fatalf("root %d, gather %d: element %d is %v", root, it, i, v)
								}
							}
						} else {
							must(t, mpi.GatherBuf(w, mpi.Typed(strided, 1, vec), mpi.Typed[float64](nil, 0, mpi.Float64), root))
						}
						if (rank+it)%2 == 0 {
							must(t, mpi.AllgatherBuf(w, mpi.Typed(strided, 1, vec), mpi.Typed(recv, size*k, mpi.Float64)))
						} else {
							must(t, mpi.Allgather(w, plain, recv))
						}
						for i, v := range recv {
							if v != float64(i) {
								t.Fatalf("allgather %d: element %d is %v", it, i, v)
							}
						}
					}
				}
				must(t, vec.Free())
			})
		})
	}
}

// TestScatterWays: blocking Scatters on every way they take (the node region's inline
// lines and slots, the schedules past coll_shm_scatter_max, set to 1 KiB here, and
// with the region off, TCP): from rotating roots, of 0 to 700 bytes a rank, in place
// at the root every third, mixed with Gathers on the same region; typed ones (a
// strided receive) take the same ways. At 2, 3 and 4 ranks; every part checked.
func TestScatterWays(t *testing.T) {
	eachWay(t, "coll_shm_scatter_max", "1024", func(t *testing.T, rank, size int) {
		w := mpi.World
		for it := 0; it < 60; it++ {
			root, m := it%size, (it*53)%700
			var send []byte
			if rank == root {
				for j := 0; j < size; j++ {
					send = append(send, gblock(j, it, m)...)
				}
			}
			recv := make([]byte, m)
			if rank == root && it%3 == 0 {
				must(t, mpi.Scatter(w, send, mpi.InPlace[byte](), root))
				recv = send[root*m : (root+1)*m]
			} else {
				must(t, mpi.Scatter(w, send, recv, root))
			}
			checkGathered(t, "Scatter", it, rank, recv)
			got := make([]byte, size*8)
			must(t, mpi.Gather(w, gblock(rank, it, 8), got, (root+1)%size))
			if rank == (root+1)%size {
				for j := 0; j < size; j++ {
					checkGathered(t, "Gather between Scatters", it, j, got[8*j:8*j+8])
				}
			}
		}
		// Typed: int64s to every other int64 of the receive buffer.
		every2, err := mpi.TypeVector(4, 1, 2, mpi.Int64)
		must(t, err)
		must(t, every2.Commit())
		var send []int64
		if rank == 0 {
			for i := 0; i < 4*size; i++ {
				send = append(send, int64(i*3+1))
			}
		}
		recv := make([]int64, 8)
		must(t, mpi.ScatterBuf(w, mpi.Typed(send, len(send), mpi.Int64), mpi.Typed(recv, 1, every2), 0))
		for i := 0; i < 4; i++ {
			if recv[2*i] != int64((rank*4+i)*3+1) || recv[2*i+1] != 0 {
				t.Fatalf("typed Scatter: %v", recv)
			}
		}
	})
}

// TestScattervWays: blocking Scattervs on the ways Scatter takes, with
// coll_shm_scatter_max at 1 KiB: from rotating roots, parts of 0 to 40 bytes laid out
// with gaps, every fifth call's past the limit (the schedules), in place at the root
// every third; typed ones (a strided receive) take the same ways. At 2, 3 and 4 ranks;
// every part checked, and a receive buffer's bytes past its part untouched.
func TestScattervWays(t *testing.T) {
	eachWay(t, "coll_shm_scatter_max", "1024", func(t *testing.T, rank, size int) {
		w := mpi.World
		for it := 0; it < 60; it++ {
			root, unit := it%size, 1+40*(it%5/4)
			counts, displs, at := make([]int, size), make([]int, size), 0
			for j := range counts {
				counts[j], displs[j] = (j*7+it)%41*unit, at
				at += counts[j] + 5
			}
			var send []byte
			if rank == root {
				send = make([]byte, at)
				for j := range counts {
					copy(send[displs[j]:], gblock(j, it, counts[j]))
				}
			}
			recv := make([]byte, counts[rank]+3)
			if rank == root && it%3 == 0 {
				must(t, mpi.Scatterv(w, send, counts, displs, mpi.InPlace[byte](), root))
				copy(recv, send[displs[root]:displs[root]+counts[root]])
			} else {
				must(t, mpi.Scatterv(w, send, counts, displs, recv[:counts[rank]], root))
			}
			checkGathered(t, "Scatterv", it, rank, recv[:counts[rank]])
			if g := recv[counts[rank]:]; g[0] != 0 || g[1] != 0 || g[2] != 0 {
				t.Fatalf("Scatterv %d: the bytes after the part hold %v", it, g)
			}
		}
		// Typed: int64s to every other int64 of the receive buffer.
		pair, err := mpi.TypeResized(mpi.Int64, 0, 16)
		must(t, err)
		must(t, pair.Commit())
		counts, displs := make([]int, size), make([]int, size)
		var send []int64
		for j := range counts {
			counts[j], displs[j] = j+1, len(send)
			for i := 0; i < j+1; i++ {
				send = append(send, int64(j*100+i))
			}
		}
		recv := make([]int64, 2*(rank+1))
		must(t, mpi.ScattervBuf(w, mpi.Typed(send, len(send), mpi.Int64), counts, displs, mpi.Typed(recv, rank+1, pair), 0))
		for i := 0; i <= rank; i++ {
			if recv[2*i] != int64(rank*100+i) || recv[2*i+1] != 0 {
				t.Fatalf("typed Scatterv: %v", recv)
			}
		}
	})
}

// TestReduceScatterWays: blocking ReduceScatterBlock and ReduceScatter on every way
// they take (an Allreduce's op in the node region within the Allreduce's limit, whose
// two-rank one, coll_shm_reduce_max2, is 1 KiB here, the op without data and the
// schedules beyond it, the schedules with the region off, TCP): of 0 to 300 int64s a
// block (ReduceScatter: each rank's block of its own length), in place every third,
// with Sum and Max. At 2, 3 and 4 ranks; every element checked.
func TestReduceScatterWays(t *testing.T) {
	eachWay(t, "coll_shm_reduce_max2", "1024", func(t *testing.T, rank, size int) {
		w := mpi.World
		val := func(q, i, it int) int64 { return int64((q*7+i*3+it)%23 - 11) }
		for it := 0; it < 40; it++ {
			m := (it * 37) % 301
			counts, at := make([]int, size), make([]int, size+1)
			for j := range counts {
				counts[j] = (m + j*5) % 301
				at[j+1] = at[j] + counts[j]
			}
			op, opName := mpi.Sum, "Sum"
			if it%2 == 1 {
				op, opName = mpi.Max, "Max"
			}
			want := func(i int) int64 {
				acc := val(0, i, it)
				for q := 1; q < size; q++ {
					if v := val(q, i, it); opName == "Sum" {
						acc += v
					} else {
						acc = max(acc, v)
					}
				}
				return acc
			}
			check := func(what string, got []int64, first int) {
				t.Helper()
				for i, v := range got {
					if v != want(first+i) {
						t.Fatalf("%s %d (%s): element %d is %d, want %d", what, it, opName, i, v, want(first+i))
					}
				}
			}
			send := make([]int64, size*m)
			for i := range send {
				send[i] = val(rank, i, it)
			}
			if it%3 == 0 {
				buf := append([]int64(nil), send...)
				must(t, mpi.ReduceScatterBlock(w, mpi.InPlace[int64](), buf, op))
				check("ReduceScatterBlock in place", buf[:m], rank*m)
			} else {
				recv := make([]int64, m)
				must(t, mpi.ReduceScatterBlock(w, send, recv, op))
				check("ReduceScatterBlock", recv, rank*m)
			}
			vsend := make([]int64, at[size])
			for i := range vsend {
				vsend[i] = val(rank, i, it)
			}
			recv := make([]int64, counts[rank])
			must(t, mpi.ReduceScatter(w, vsend, recv, counts, op))
			check("ReduceScatter", recv, at[rank])
		}
	})
}

// TestAlltoallWays: blocking Alltoalls on every way they take (the node region's
// inline lines and slots, the schedules past coll_shm_alltoall_max, set to 1 KiB
// here, and with the region off, TCP): of 0 to 500 bytes a block, in place every
// third, mixed with Allgathers on the same region; typed ones (a strided receive)
// take the same ways. At 2, 3 and 4 ranks; every block checked.
func TestAlltoallWays(t *testing.T) {
	eachWay(t, "coll_shm_alltoall_max", "1024", func(t *testing.T, rank, size int) {
		w := mpi.World
		for it := 0; it < 60; it++ {
			m := (it * 37) % 500
			var send []byte
			for j := 0; j < size; j++ {
				send = append(send, gblock(rank*size+j, it, m)...)
			}
			recv := make([]byte, size*m)
			if it%3 == 0 {
				copy(recv, send)
				must(t, mpi.Alltoall(w, mpi.InPlace[byte](), recv))
			} else {
				must(t, mpi.Alltoall(w, send, recv))
			}
			for j := 0; j < size; j++ {
				checkGathered(t, fmt.Sprintf("Alltoall from rank %d", j), it, j*size+rank, recv[j*m:(j+1)*m])
			}
			got := make([]byte, size*8)
			must(t, mpi.Allgather(w, gblock(rank, it, 8), got))
			for j := 0; j < size; j++ {
				checkGathered(t, "Allgather between Alltoalls", it, j, got[8*j:8*j+8])
			}
		}
		// Typed: each block's two int64s to the first and third of three.
		every2, err := mpi.TypeVector(2, 1, 2, mpi.Int64)
		must(t, err)
		must(t, every2.Commit())
		send := make([]int64, 2*size)
		for i := range send {
			send[i] = int64(rank*1000 + i)
		}
		recv := make([]int64, 3*size)
		must(t, mpi.AlltoallBuf(w, mpi.Typed(send, len(send), mpi.Int64), mpi.Typed(recv, size, every2)))
		for j := 0; j < size; j++ {
			b := recv[3*j : 3*j+3]
			if b[0] != int64(j*1000+2*rank) || b[1] != 0 || b[2] != int64(j*1000+2*rank+1) {
				t.Fatalf("typed Alltoall: block %d is %v, want [%d 0 %d]", j, b, j*1000+2*rank, j*1000+2*rank+1)
			}
		}
	})
}

// TestAlltoallvWays: blocking Alltoallvs on the ways Alltoall takes, with coll_shm_alltoall_max
// at 1 KiB: blocks of 0 to 30 bytes (each pair's, alike both ways), laid out with gaps
// that must stay untouched, and of 0 to 600 (past the limit: the schedules); in place
// every third; typed ones (a strided receive) take the same ways. At 2, 3 and 4
// ranks; every block checked.
func TestAlltoallvWays(t *testing.T) {
	eachWay(t, "coll_shm_alltoall_max", "1024", func(t *testing.T, rank, size int) {
		w := mpi.World
		for it := 0; it < 60; it++ {
			unit := 1 + 20*(it%5/4) // every fifth call's blocks pass the limit
			pair := func(q, j int) int { return ((q+j)*3 + it) % 31 * unit }
			counts, displs, at := make([]int, size), make([]int, size), 0
			for j := range counts {
				counts[j], displs[j] = pair(rank, j), at
				at += counts[j] + 3
			}
			send, recv := make([]byte, at), make([]byte, at)
			for j := range counts {
				copy(send[displs[j]:], gblock(rank*size+j, it, counts[j]))
			}
			if it%3 == 0 {
				copy(recv, send)
				must(t, mpi.Alltoallv(w, mpi.InPlace[byte](), nil, nil, recv, counts, displs))
			} else {
				must(t, mpi.Alltoallv(w, send, counts, displs, recv, counts, displs))
			}
			for j := range counts {
				checkGathered(t, fmt.Sprintf("Alltoallv from rank %d", j), it, j*size+rank, recv[displs[j]:displs[j]+counts[j]])
				if g := recv[displs[j]+counts[j] : displs[j]+counts[j]+3]; it%3 != 0 && (g[0] != 0 || g[1] != 0 || g[2] != 0) {
					t.Fatalf("Alltoallv %d: the gap after rank %d's block holds %v", it, j, g)
				}
			}
		}
		// Typed: each block's int64s to every other int64 of the receive buffer.
		pair2, err := mpi.TypeResized(mpi.Int64, 0, 16)
		must(t, err)
		must(t, pair2.Commit())
		counts, displs := make([]int, size), make([]int, size)
		var send []int64
		for j := range counts {
			counts[j], displs[j] = j+rank+1, len(send)
			for i := 0; i < counts[j]; i++ {
				send = append(send, int64(rank*1000+j*10+i))
			}
		}
		rcounts, rdispls, at := make([]int, size), make([]int, size), 0
		for j := range rcounts {
			rcounts[j], rdispls[j] = j+rank+1, at
			at += rcounts[j]
		}
		recv := make([]int64, 2*at)
		must(t, mpi.AlltoallvBuf(w, mpi.Typed(send, len(send), mpi.Int64), counts, displs,
			mpi.Typed(recv, at, pair2), rcounts, rdispls))
		for j := range rcounts {
			for i := 0; i < rcounts[j]; i++ {
				k := 2 * (rdispls[j] + i)
				if recv[k] != int64(j*1000+rank*10+i) || recv[k+1] != 0 {
					t.Fatalf("typed Alltoallv: rank %d's element %d is %d (next %d), want %d", j, i, recv[k], recv[k+1], j*1000+rank*10+i)
				}
			}
		}
	})
}

// eachWay runs body as jobs of 2, 3 and 4 ranks on every way of pathsShmSchedTCP, with
// setting key set to value beside the way's own settings.
func eachWay(t *testing.T, key, value string, body func(t *testing.T, rank, size int)) {
	for _, p := range pathsShmSchedTCP {
		for n := 2; n <= 4; n++ {
			t.Run(fmt.Sprintf("%s/%d", p.Name, n), func(t *testing.T) {
				tr := p
				tr.Settings = map[string]string{key: value}
				for k, v := range p.Settings {
					tr.Settings[k] = v
				}
				jobWith(t, mpitest.Options{N: n, Transport: tr}, body)
			})
		}
	}
}
