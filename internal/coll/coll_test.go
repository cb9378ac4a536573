package coll

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

var sizes = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 16}

// sumOp adds little-endian int64s.
var sumOp = Op{Commute: true, Fn: func(inout, in []byte) {
	for i := 0; i+8 <= len(inout); i += 8 {
		a := binary.LittleEndian.Uint64(inout[i:])
		b := binary.LittleEndian.Uint64(in[i:])
		binary.LittleEndian.PutUint64(inout[i:], a+b)
	}
}}

// matOp multiplies 2x2 matrices of uint64 (mod 2^64): inout = in × inout. It is
// associative and not commutative, so it catches any reordering.
var matOp = Op{Commute: false, Fn: func(inout, in []byte) {
	for i := 0; i+32 <= len(inout); i += 32 {
		var a, b [4]uint64
		for k := range 4 {
			a[k] = binary.LittleEndian.Uint64(in[i+8*k:])
			b[k] = binary.LittleEndian.Uint64(inout[i+8*k:])
		}
		c := [4]uint64{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
		for k := range 4 {
			binary.LittleEndian.PutUint64(inout[i+8*k:], c[k])
		}
	}
}}

type opCase struct {
	name  string
	op    Op
	esize int
}

var ops = []opCase{{"sum", sumOp, 8}, {"mat", matOp, 32}}

// data is rank r's vector of count elements of esize bytes, distinct per rank and index.
func data(r, count, esize int) []byte {
	b := make([]byte, count*esize)
	for i := 0; i < len(b)/8; i++ {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(r*7919+i*31+1)%97+uint64(i%3))
	}
	return b
}

// fold combines vectors of ranks lo..hi-1 in rank order.
func fold(op Op, count, esize, lo, hi int) []byte {
	acc := data(lo, count, esize)
	for r := lo + 1; r < hi; r++ {
		x := data(r, count, esize)
		op.Fn(x, acc) // acc ⊕ x
		acc = x
	}
	return acc
}

// run builds and runs one schedule per rank, each on its own goroutine; nonblocking
// ranks drive their schedule with Progress instead of Run.
func run(t *testing.T, n int, nonblocking bool, build func(s *Sched)) {
	t.Helper()
	for r, err := range runErrs(t, n, nonblocking, build) {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// runErrs is run, returning each rank's error.
func runErrs(t *testing.T, n int, nonblocking bool, build func(s *Sched)) []error {
	t.Helper()
	net := newMemNet(n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := 0; r < n; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := New(net.conn(r), 5, 1)
			defer s.Free()
			build(s)
			if !nonblocking {
				errs[r] = s.Run()
				return
			}
			for {
				done, err := s.Progress()
				if done {
					errs[r] = err
					return
				}
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
	if k := net.pending(); k != 0 {
		t.Errorf("%d messages or receives left unmatched", k)
	}
	return errs
}

func withTuning(t *testing.T, f func(*Tuning)) {
	old := *tuning()
	nt := old
	f(&nt)
	SetTuning(nt)
	t.Cleanup(func() { SetTuning(old) })
}

func check(t *testing.T, what string, r int, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("%s: rank %d: got %v, want %v", what, r, short(got), short(want))
	}
}

func short(b []byte) string {
	if len(b) > 48 {
		return fmt.Sprintf("%x...(%d bytes)", b[:48], len(b))
	}
	return fmt.Sprintf("%x", b)
}

func TestBarrier(t *testing.T) {
	for _, n := range sizes {
		run(t, n, n%2 == 0, func(s *Sched) { s.Barrier() })
	}
}

func TestBcast(t *testing.T) {
	for _, alg := range []Algo{Binomial, ScatterRing, Pipeline, Auto} {
		for _, n := range sizes {
			for _, m := range []int{0, 1, 7, 3000, 70001} {
				for _, root := range []int{0, n - 1, n / 2} {
					t.Run(fmt.Sprintf("%s/n%d/%dB/root%d", alg, n, m, root), func(t *testing.T) {
						withTuning(t, func(tu *Tuning) { tu.Bcast, tu.Segment, tu.BcastLarge = alg, 1024, 1000 })
						want := data(root+100, m, 1)
						run(t, n, m%2 == 1, func(s *Sched) {
							buf := make([]byte, m)
							if s.rank == root {
								copy(buf, want)
							}
							s.Bcast(buf, root)
							t.Cleanup(func() { check(t, "bcast", s.rank, buf, want) })
						})
					})
				}
			}
		}
	}
}

// results holds each rank's output, checked after the job.
type results struct {
	mu  sync.Mutex
	got map[int][]byte
}

func (r *results) put(rank int, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.got == nil {
		r.got = map[int][]byte{}
	}
	r.got[rank] = b
}

func TestReduce(t *testing.T) {
	for _, oc := range ops {
		for _, n := range sizes {
			for _, count := range []int{1, 5, 300} {
				for _, root := range []int{0, n - 1, n / 2} {
					for _, inPlace := range []bool{false, true} {
						t.Run(fmt.Sprintf("%s/n%d/c%d/root%d/inplace=%v", oc.name, n, count, root, inPlace), func(t *testing.T) {
							var res results
							run(t, n, count == 5, func(s *Sched) {
								s.esize = oc.esize
								send := data(s.rank, count, oc.esize)
								var recv []byte
								if s.rank == root {
									recv = make([]byte, len(send))
									if inPlace {
										copy(recv, send)
										send = recv
									}
								}
								s.Reduce(send, recv, oc.op, root)
								res.put(s.rank, recv)
							})
							check(t, "reduce", root, res.got[root], fold(oc.op, count, oc.esize, 0, n))
						})
					}
				}
			}
		}
	}
}

func TestAllreduce(t *testing.T) {
	for _, alg := range []Algo{RecursiveDoubling, Rabenseifner, Ring, Auto} {
		for _, oc := range ops {
			for _, n := range sizes {
				for _, count := range []int{1, 3, 17, 1000} {
					for _, inPlace := range []bool{false, true} {
						t.Run(fmt.Sprintf("%s/%s/n%d/c%d/inplace=%v", alg, oc.name, n, count, inPlace), func(t *testing.T) {
							withTuning(t, func(tu *Tuning) { tu.Allreduce, tu.AllreduceLarge = alg, 64 })
							var res results
							run(t, n, count == 17, func(s *Sched) {
								s.esize = oc.esize
								send := data(s.rank, count, oc.esize)
								recv := make([]byte, len(send))
								if inPlace {
									copy(recv, send)
									send = recv
								}
								s.Allreduce(send, recv, oc.op)
								res.put(s.rank, recv)
							})
							want := fold(oc.op, count, oc.esize, 0, n)
							for r := 0; r < n; r++ {
								check(t, "allreduce", r, res.got[r], want)
							}
						})
					}
				}
			}
		}
	}
}

func TestGatherScatter(t *testing.T) {
	for _, n := range sizes {
		for _, m := range []int{0, 3, 1000} {
			for _, root := range []int{0, n - 1} {
				t.Run(fmt.Sprintf("n%d/%dB/root%d", n, m, root), func(t *testing.T) {
					all := make([]byte, 0, n*m)
					for r := 0; r < n; r++ {
						all = append(all, data(r, m, 1)...)
					}
					var g, sc, gv, sv results
					run(t, n, false, func(s *Sched) {
						var recv []byte
						if s.rank == root {
							recv = make([]byte, n*m)
						}
						s.Gather(data(s.rank, m, 1), recv, root)
						g.put(s.rank, recv)
					})
					check(t, "gather", root, g.got[root], all)
					run(t, n, true, func(s *Sched) {
						recv := make([]byte, m)
						var send []byte
						if s.rank == root {
							send = all
						}
						s.Scatter(send, recv, root)
						sc.put(s.rank, recv)
					})
					for r := 0; r < n; r++ {
						check(t, "scatter", r, sc.got[r], data(r, m, 1))
					}
					// v forms: rank i has i%3*m/2 bytes, placed in reverse rank order.
					counts, displs := vlayout(n, m)
					total := displs[0] + counts[0]
					vall := make([]byte, total)
					for r := 0; r < n; r++ {
						copy(vall[displs[r]:], data(r, counts[r], 1))
					}
					run(t, n, false, func(s *Sched) {
						var recv []byte
						if s.rank == root {
							recv = make([]byte, total)
						}
						s.Gatherv(data(s.rank, counts[s.rank], 1), recv, counts, displs, root)
						gv.put(s.rank, recv)
					})
					check(t, "gatherv", root, gv.got[root], vall)
					run(t, n, true, func(s *Sched) {
						recv := make([]byte, counts[s.rank])
						s.Scatterv(vall, counts, displs, recv, root)
						sv.put(s.rank, recv)
					})
					for r := 0; r < n; r++ {
						check(t, "scatterv", r, sv.got[r], data(r, counts[r], 1))
					}
				})
			}
		}
	}
}

func vlayout(n, m int) (counts, displs []int) {
	counts, displs = make([]int, n), make([]int, n)
	off := 0
	for r := n - 1; r >= 0; r-- {
		counts[r] = r % 3 * m / 2
		displs[r] = off
		off += counts[r]
	}
	return counts, displs
}

func TestAllgather(t *testing.T) {
	for _, alg := range []Algo{Bruck, Ring} {
		for _, n := range sizes {
			for _, m := range []int{0, 1, 5, 2000} {
				for _, inPlace := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/n%d/%dB/inplace=%v", alg, n, m, inPlace), func(t *testing.T) {
						withTuning(t, func(tu *Tuning) { tu.Allgather = alg })
						all := make([]byte, 0, n*m)
						for r := 0; r < n; r++ {
							all = append(all, data(r, m, 1)...)
						}
						var res results
						run(t, n, m == 5, func(s *Sched) {
							recv := make([]byte, n*m)
							send := data(s.rank, m, 1)
							if inPlace {
								copy(recv[s.rank*m:], send)
								send = recv[s.rank*m : (s.rank+1)*m]
							}
							s.Allgather(send, recv)
							res.put(s.rank, recv)
						})
						for r := 0; r < n; r++ {
							check(t, "allgather", r, res.got[r], all)
						}
					})
				}
			}
		}
	}
}

func TestAllgatherv(t *testing.T) {
	for _, n := range sizes {
		for _, m := range []int{0, 6, 1000} {
			t.Run(fmt.Sprintf("n%d/%dB", n, m), func(t *testing.T) {
				counts, displs := vlayout(n, m)
				total := displs[0] + counts[0]
				vall := make([]byte, total)
				for r := 0; r < n; r++ {
					copy(vall[displs[r]:], data(r, counts[r], 1))
				}
				var res results
				run(t, n, true, func(s *Sched) {
					recv := make([]byte, total)
					s.Allgatherv(data(s.rank, counts[s.rank], 1), recv, counts, displs)
					res.put(s.rank, recv)
				})
				for r := 0; r < n; r++ {
					check(t, "allgatherv", r, res.got[r], vall)
				}
			})
		}
	}
}

// a2a is block j of rank i's alltoall send vector.
func a2a(i, j, m int) []byte { return data(i*100+j, m, 1) }

func TestAlltoall(t *testing.T) {
	for _, alg := range []Algo{Linear, Pairwise} {
		for _, n := range sizes {
			for _, m := range []int{0, 1, 600} {
				for _, inPlace := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/n%d/%dB/inplace=%v", alg, n, m, inPlace), func(t *testing.T) {
						withTuning(t, func(tu *Tuning) { tu.Alltoall = alg })
						var res results
						run(t, n, m == 1, func(s *Sched) {
							send := make([]byte, 0, n*m)
							for j := 0; j < n; j++ {
								send = append(send, a2a(s.rank, j, m)...)
							}
							recv := make([]byte, n*m)
							if inPlace {
								copy(recv, send)
								send = recv
							}
							s.Alltoall(send, recv)
							res.put(s.rank, recv)
						})
						for r := 0; r < n; r++ {
							want := make([]byte, 0, n*m)
							for i := 0; i < n; i++ {
								want = append(want, a2a(i, r, m)...)
							}
							check(t, "alltoall", r, res.got[r], want)
						}
					})
				}
			}
		}
	}
}

func TestAlltoallv(t *testing.T) {
	// Rank i sends (i+j)%3 elements of 2 bytes to rank j; blocks are laid out in order
	// with a gap of one element.
	for _, n := range sizes {
		t.Run(fmt.Sprintf("n%d", n), func(t *testing.T) {
			lay := func(cnt func(j int) int) (counts, displs []int, total int) {
				counts, displs = make([]int, n), make([]int, n)
				for j := range counts {
					counts[j], displs[j] = cnt(j), total
					total += counts[j] + 1
				}
				return
			}
			var res results
			run(t, n, n%2 == 1, func(s *Sched) {
				s.esize = 2
				r := s.rank
				sc, sd, st := lay(func(j int) int { return (r + j) % 3 })
				rc, rd, rt := lay(func(i int) int { return (i + r) % 3 })
				send := make([]byte, 2*st)
				for j := 0; j < n; j++ {
					copy(send[2*sd[j]:], a2a(r, j, 2*sc[j]))
				}
				recv := make([]byte, 2*rt)
				s.Alltoallv(send, sc, sd, recv, rc, rd)
				res.put(r, recv)
			})
			for r := 0; r < n; r++ {
				rc, rd, rt := lay(func(i int) int { return (i + r) % 3 })
				want := make([]byte, 2*rt)
				for i := 0; i < n; i++ {
					copy(want[2*rd[i]:], a2a(i, r, 2*rc[i]))
				}
				check(t, "alltoallv", r, res.got[r], want)
			}
		})
	}
}

func TestReduceScatter(t *testing.T) {
	for _, oc := range ops {
		for _, n := range sizes {
			for _, inPlace := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/n%d/inplace=%v", oc.name, n, inPlace), func(t *testing.T) {
					counts := make([]int, n)
					total := 0
					for i := range counts {
						counts[i] = (i*5 + 3) % 4
						total += counts[i]
					}
					want := fold(oc.op, total, oc.esize, 0, n)
					var res results
					run(t, n, inPlace, func(s *Sched) {
						s.esize = oc.esize
						send := data(s.rank, total, oc.esize)
						recv := make([]byte, counts[s.rank]*oc.esize)
						if inPlace {
							recv = send
						}
						s.ReduceScatter(send, recv, counts, oc.op)
						res.put(s.rank, recv[:counts[s.rank]*oc.esize])
					})
					off := 0
					for r := 0; r < n; r++ {
						e := oc.esize
						check(t, "reduce_scatter", r, res.got[r], want[off*e:(off+counts[r])*e])
						off += counts[r]
					}
				})
			}
		}
	}
}

func TestScan(t *testing.T) {
	for _, oc := range ops {
		for _, n := range sizes {
			for _, excl := range []bool{false, true} {
				for _, inPlace := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/n%d/exclusive=%v/inplace=%v", oc.name, n, excl, inPlace), func(t *testing.T) {
						const count = 3
						var res results
						run(t, n, excl, func(s *Sched) {
							s.esize = oc.esize
							send := data(s.rank, count, oc.esize)
							recv := make([]byte, len(send))
							if inPlace {
								copy(recv, send)
								send = recv
							}
							if excl {
								s.Exscan(send, recv, oc.op)
							} else {
								s.Scan(send, recv, oc.op)
							}
							res.put(s.rank, recv)
						})
						for r := 0; r < n; r++ {
							switch {
							case !excl:
								check(t, "scan", r, res.got[r], fold(oc.op, count, oc.esize, 0, r+1))
							case r > 0:
								check(t, "exscan", r, res.got[r], fold(oc.op, count, oc.esize, 0, r))
							}
						}
					})
				}
			}
		}
	}
}

// TestManyOutstanding runs several schedules per rank at once, each with its own tag,
// progressed round-robin: they must not steal each other's messages.
func TestManyOutstanding(t *testing.T) {
	const k = 6
	for _, n := range []int{3, 4, 7} {
		net := newMemNet(n)
		var wg sync.WaitGroup
		bufs := make([][][]byte, n)
		for r := 0; r < n; r++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := net.conn(r)
				var ss []*Sched
				bufs[r] = make([][]byte, k)
				for i := 0; i < k; i++ {
					s := New(c, 100+i, 8)
					bufs[r][i] = make([]byte, 8*50)
					switch i % 3 {
					case 0:
						s.Barrier()
					case 1:
						if r == 0 {
							copy(bufs[r][i], data(i, 50, 8))
						}
						s.Bcast(bufs[r][i], 0)
					case 2:
						s.Allreduce(data(r, 50, 8), bufs[r][i], sumOp)
					}
					ss = append(ss, s)
				}
				for left := k; left > 0; {
					left = 0
					for _, s := range ss {
						if done, err := s.Progress(); err != nil {
							t.Errorf("rank %d: %v", r, err)
						} else if !done {
							left++
						}
					}
					runtime.Gosched()
				}
				for _, s := range ss {
					s.Free()
				}
			}()
		}
		wg.Wait()
		for r := 0; r < n; r++ {
			for i := 0; i < k; i++ {
				switch i % 3 {
				case 1:
					check(t, "bcast", r, bufs[r][i], data(i, 50, 8))
				case 2:
					check(t, "allreduce", r, bufs[r][i], fold(sumOp, 50, 8, 0, n))
				}
			}
		}
	}
}

// TestBcastLearn: where the receivers learn the root's length (Learn), a Bcast in which
// one rank's buffer is shorter than the root's message ends there with ErrTruncate and
// the message's first bytes, one with a longer buffer gets the message with its tail
// as it was, and every other rank gets the message, whatever algorithm each length
// alone would choose (flat up to FlatBytes on up to FlatMax ranks, binomial beyond);
// nothing is left unmatched.
func TestBcastLearn(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 8} {
		for _, c := range []struct{ root, other int }{{2000, 500}, {500, 2000}, {1024, 1025}, {1025, 1024}, {64, 0}, {0, 64}, {3000, 2999}} {
			for _, root := range []int{0, n - 1} {
				for odd := 0; odd < n; odd++ {
					if odd == root {
						continue
					}
					t.Run(fmt.Sprintf("n%d/%d-%d/root%d/odd%d", n, c.root, c.other, root, odd), func(t *testing.T) {
						withTuning(t, func(tu *Tuning) { tu.Bcast, tu.BcastLarge, tu.FlatMax, tu.FlatBytes = Auto, 1<<40, 4, 1024 })
						want := data(root+100, c.root, 1)
						errs := runErrs(t, n, odd%2 == 1, func(s *Sched) {
							m := c.root
							if s.rank == odd {
								m = c.other
							}
							buf := bytes.Repeat([]byte{0xee}, m)
							if s.rank == root {
								copy(buf, want)
							}
							s.Learn(s.c.(FitConn))
							s.Bcast(buf, root)
							t.Cleanup(func() {
								w := append([]byte(nil), want[:min(m, c.root)]...)
								check(t, "bcast", s.rank, buf, append(w, bytes.Repeat([]byte{0xee}, m-len(w))...))
							})
						})
						for r, err := range errs {
							if r == odd && c.other < c.root {
								if !errors.Is(err, ErrTruncate) {
									t.Errorf("rank %d: %v, want ErrTruncate", r, err)
								}
							} else if err != nil {
								t.Errorf("rank %d: %v", r, err)
							}
						}
					})
				}
			}
		}
	}
}

// TestGatherLearn: where the root learns each block's length (Learn), a send shorter
// than the root's block is ErrShort and a longer one ErrTruncate at the root, the
// other blocks arrive, and the senders succeed.
func TestGatherLearn(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		for _, c := range []struct{ block, other int }{{64, 8}, {8, 64}, {64, 0}, {0, 16}} {
			odd := n - 1
			t.Run(fmt.Sprintf("n%d/%d-%d", n, c.block, c.other), func(t *testing.T) {
				recv := bytes.Repeat([]byte{0xee}, n*c.block)
				errs := runErrs(t, n, n%2 == 1, func(s *Sched) {
					m := c.block
					if s.rank == odd {
						m = c.other
					}
					s.Learn(s.c.(FitConn))
					s.Gather(data(s.rank, m, 1), recv, 0)
				})
				for r, err := range errs {
					switch {
					case r == 0 && c.other < c.block:
						if !errors.Is(err, ErrShort) {
							t.Errorf("root: %v, want ErrShort", err)
						}
					case r == 0:
						if !errors.Is(err, ErrTruncate) {
							t.Errorf("root: %v, want ErrTruncate", err)
						}
					case err != nil:
						t.Errorf("rank %d: %v", r, err)
					}
				}
				for r := 0; r < n-1; r++ {
					check(t, "gather", r, recv[r*c.block:(r+1)*c.block], data(r, c.block, 1))
				}
				fits := min(c.block, c.other)
				check(t, "gather", odd, recv[odd*c.block:odd*c.block+fits], data(odd, c.block, 1)[:fits])
			})
		}
	}
}

// TestStrictMismatch: a strict schedule (Alltoall) whose rank odd sends blocks of
// another length reports ErrShort (shorter) or ErrMismatch (longer) at every rank that
// receives one and at odd, which receives the others' blocks into its own, and runs on
// as built, so every other block arrives and nobody waits; an exact one that passes
// blocks on (Allgather, both algorithms) reports it at every rank.
func TestStrictMismatch(t *testing.T) {
	blk := func(src, dst, m int) []byte {
		b := make([]byte, m)
		for i := range b {
			b[i] = byte(src*37 + dst*11 + i)
		}
		return b
	}
	for _, n := range []int{2, 3, 4} {
		for _, c := range []struct{ m, other int }{{16, 8}, {8, 16}, {0, 8}, {8, 0}} {
			odd := n - 1
			want := func(got, exp int) error {
				switch {
				case got < exp:
					return ErrShort
				case got > exp:
					return ErrMismatch
				}
				return nil
			}
			t.Run(fmt.Sprintf("alltoall/n%d/%d-%d", n, c.m, c.other), func(t *testing.T) {
				recvs := make([][]byte, n)
				errs := runErrs(t, n, n%2 == 1, func(s *Sched) {
					m := c.m
					if s.rank == odd {
						m = c.other
					}
					var send []byte
					for j := 0; j < n; j++ {
						send = append(send, blk(s.rank, j, m)...)
					}
					recvs[s.rank] = bytes.Repeat([]byte{0xee}, n*m)
					s.Alltoall(send, recvs[s.rank])
				})
				for r, err := range errs {
					w := want(c.other, c.m)
					if r == odd {
						w = want(c.m, c.other)
					}
					if w == nil && err != nil || w != nil && !errors.Is(err, w) {
						t.Errorf("rank %d: %v, want %v", r, err, w)
					}
					m := len(recvs[r]) / n
					for j := 0; j < n; j++ {
						sent := c.m
						if j == odd {
							sent = c.other
						}
						fits := min(m, sent)
						check(t, "alltoall", r, recvs[r][j*m:j*m+fits], blk(j, r, fits))
					}
				}
			})
			for _, ring := range []bool{false, true} {
				t.Run(fmt.Sprintf("allgather/ring=%v/n%d/%d-%d", ring, n, c.m, c.other), func(t *testing.T) {
					withTuning(t, func(tu *Tuning) {
						tu.Allgather = Bruck
						if ring {
							tu.Allgather = Ring
						}
					})
					errs := runErrs(t, n, n%2 == 0, func(s *Sched) {
						m := c.m
						if s.rank == odd {
							m = c.other
						}
						s.Allgather(blk(s.rank, 0, m), make([]byte, n*m))
					})
					for r, err := range errs {
						// A rank that expects empty blocks may get only a broken
						// rank's empty messages.
						if err == nil && (r == odd || c.m > 0) {
							t.Errorf("rank %d: success, want a mismatch", r)
						}
						if err != nil && !errors.Is(err, ErrShort) && !errors.Is(err, ErrMismatch) {
							t.Errorf("rank %d: %v, want ErrShort or ErrMismatch", r, err)
						}
					}
				})
			}
		}
	}
}

// TestBreak: a rank whose Allreduce schedule runs broken from its start (Break) sends
// empty messages, so that every other rank reports a short one, and itself reports the
// error it was given; nobody waits.
func TestBreak(t *testing.T) {
	cause := errors.New("this rank's part is wrong")
	for _, n := range []int{2, 3, 4, 5} {
		for _, count := range []int{1, 64, 1024} {
			t.Run(fmt.Sprintf("n%d/%d", n, count), func(t *testing.T) {
				errs := runErrs(t, n, false, func(s *Sched) {
					in := data(s.rank, count, 8)
					s.Allreduce(in, make([]byte, len(in)), sumOp)
					if s.rank == 1 {
						s.Break(cause)
					}
				})
				for r, err := range errs {
					switch {
					case r == 1 && !errors.Is(err, cause):
						t.Errorf("rank 1: %v, want its own error", err)
					case r != 1 && !errors.Is(err, ErrShort) && !errors.Is(err, ErrMismatch):
						t.Errorf("rank %d: %v, want ErrShort or ErrMismatch", r, err)
					}
				}
			})
		}
	}
}

// The algorithm each call ran is counted while a tool watches, and only then.
func TestChosenCounts(t *testing.T) {
	withTuning(t, func(tu *Tuning) { tu.Allreduce, tu.AllreduceLarge, tu.FlatMax = Auto, 64, 0 })
	allreduce := func(count int) {
		run(t, 4, false, func(s *Sched) {
			s.esize = 8
			send := data(s.rank, count, 8)
			s.Allreduce(send, make([]byte, len(send)), ops[0].op)
		})
	}
	before := Chosen(CollAllreduce, RecursiveDoubling)
	allreduce(1)
	if Chosen(CollAllreduce, RecursiveDoubling) != before {
		t.Fatalf("counted while nobody watched")
	}
	Watch(1)
	defer Watch(-1)
	rd, rab := Chosen(CollAllreduce, RecursiveDoubling), Chosen(CollAllreduce, Rabenseifner)
	allreduce(1)    // 8 bytes: recursive doubling
	allreduce(1000) // 8000 bytes on 4 ranks: Rabenseifner
	if got := Chosen(CollAllreduce, RecursiveDoubling) - rd; got != 4 {
		t.Errorf("recursive doubling ran %d times, want 4 (once per rank)", got)
	}
	if got := Chosen(CollAllreduce, Rabenseifner) - rab; got != 4 {
		t.Errorf("Rabenseifner ran %d times, want 4", got)
	}
	if Flat.String() != "flat" || len(Algorithms[CollBcast]) != 4 || CollAlltoall.String() != "alltoall" {
		t.Errorf("names: %v %v %v", Flat, Algorithms[CollBcast], CollAlltoall)
	}
}
