package coll

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// interMem is one process's Conn of an intercommunicator over the in-memory network:
// groups A (global ranks 0..a-1) and B (a..a+b-1); local peers first, then remote.
type interMem struct {
	*memConn
	me, n   int // local rank and size
	lo, rlo int // first global rank of the local and of the remote group
}

func (c *interMem) Rank() int { return c.me }
func (c *interMem) Size() int { return c.n }

func (c *interMem) global(p int) int {
	if p < c.n {
		return c.lo + p
	}
	return c.rlo + p - c.n
}

func (c *interMem) Isend(b []byte, dest, tag int) (Req, error) {
	return c.memConn.Isend(b, c.global(dest), tag)
}
func (c *interMem) Send(b []byte, dest, tag int) error {
	return c.memConn.Send(b, c.global(dest), tag)
}
func (c *interMem) Irecv(b []byte, src, tag int) (Req, error) {
	return c.memConn.Irecv(b, c.global(src), tag)
}
func (c *interMem) Recv(b []byte, src, tag int) error {
	return c.memConn.Recv(b, c.global(src), tag)
}

// runInter builds and runs one schedule per process of an a+b intercommunicator.
func runInter(t *testing.T, a, b, esize int, nonblocking bool, build func(s *Sched, side, r int)) {
	t.Helper()
	net := newMemNet(a + b)
	errs := make([]error, a+b)
	var wg sync.WaitGroup
	for g := 0; g < a+b; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &interMem{memConn: net.conn(g), me: g, n: a, lo: 0, rlo: a}
			side := 0
			if g >= a {
				c.me, c.n, c.lo, c.rlo, side = g-a, b, a, 0, 1
			}
			s := New(c, 9, esize)
			defer s.Free()
			build(s, side, c.me)
			if !nonblocking {
				errs[g] = s.Run()
				return
			}
			for {
				done, err := s.Progress()
				if done {
					errs[g] = err
					return
				}
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
	for g, err := range errs {
		if err != nil {
			t.Errorf("process %d: %v", g, err)
		}
	}
	if k := net.pending(); k != 0 {
		t.Errorf("%d messages or receives left unmatched", k)
	}
}

var interShapes = [][2]int{{1, 1}, {1, 4}, {2, 3}, {3, 3}, {4, 1}}

// TestInterSchedules checks the intercommunicator builders against serial results:
// reductions with a non-commutative op (so the remote group's order shows), and the
// gathers and exchanges whose blocks differ in size.
func TestInterSchedules(t *testing.T) {
	for _, sh := range interShapes {
		for _, nb := range []bool{false, true} {
			a, b := sh[0], sh[1]
			size := [2]int{a, b}
			id := func(side, r int) int { return 100*side + r }
			t.Run(fmt.Sprintf("%d+%d/nb=%v", a, b, nb), func(t *testing.T) {
				const count = 3 // elements of the matrix op
				for _, op := range ops {
					got := make([][][]byte, 2)
					got[0], got[1] = make([][]byte, a), make([][]byte, b)
					runInter(t, a, b, op.esize, nb, func(s *Sched, side, r int) {
						got[side][r] = make([]byte, count*op.esize)
						s.InterAllreduce(data(id(side, r), count, op.esize), got[side][r], op.op)
					})
					for side := range 2 {
						// The other group's vectors, combined in its rank order.
						o := 1 - side
						want := data(id(o, 0), count, op.esize)
						for r := 1; r < size[o]; r++ {
							x := data(id(o, r), count, op.esize)
							op.op.Fn(x, want)
							want = x
						}
						for r := range size[side] {
							if !bytes.Equal(got[side][r], want) {
								t.Errorf("%s InterAllreduce side %d rank %d: %v, want %v", op.name, side, r, got[side][r], want)
							}
						}
					}
				}
				// Allgatherv: process (side, r) sends r+1 bytes of value id.
				agv := [2][][]byte{make([][]byte, a), make([][]byte, b)}
				runInter(t, a, b, 1, nb, func(s *Sched, side, r int) {
					m := size[1-side]
					counts, displs := make([]int, m), make([]int, m)
					total := 0
					for j := range m {
						counts[j], displs[j] = j+1, total
						total += j + 1
					}
					agv[side][r] = make([]byte, total)
					s.InterAllgatherv(bytes.Repeat([]byte{byte(id(side, r))}, r+1), agv[side][r], counts, displs)
				})
				for side := range 2 {
					var want []byte
					for j := range size[1-side] {
						want = append(want, bytes.Repeat([]byte{byte(id(1-side, j))}, j+1)...)
					}
					for r := range size[side] {
						if !bytes.Equal(agv[side][r], want) {
							t.Errorf("InterAllgatherv side %d rank %d: %v, want %v", side, r, agv[side][r], want)
						}
					}
				}
				// Alltoallw: (side, r) sends remote j the (r+2j)%3 bytes of value 16r+j.
				k := func(x, y int) int { return (x + 2*y) % 3 }
				a2w := [2][][][]byte{make([][][]byte, a), make([][][]byte, b)}
				runInter(t, a, b, 1, nb, func(s *Sched, side, r int) {
					m := size[1-side]
					send, recv := make([][]byte, m), make([][]byte, m)
					for j := range m {
						send[j] = bytes.Repeat([]byte{byte(16*r + j)}, k(r, j))
						recv[j] = make([]byte, k(j, r))
					}
					a2w[side][r] = recv
					s.InterAlltoallw(send, recv)
				})
				for side := range 2 {
					for r := range size[side] {
						for i, blk := range a2w[side][r] {
							if want := bytes.Repeat([]byte{byte(16*i + r)}, k(i, r)); !bytes.Equal(blk, want) {
								t.Errorf("InterAlltoallw side %d rank %d from %d: %v, want %v", side, r, i, blk, want)
							}
						}
					}
				}
			})
		}
	}
}

// TestAlltoallwSchedule checks the intracommunicator Alltoallw builder, including empty
// blocks, over the in-memory network.
func TestAlltoallwSchedule(t *testing.T) {
	for _, n := range sizes {
		for _, nb := range []bool{false, true} {
			got := make([][][]byte, n)
			k := func(x, y int) int { return (x + 2*y) % 4 }
			run(t, n, nb, func(s *Sched) {
				r := s.rank
				send, recv := make([][]byte, n), make([][]byte, n)
				for j := range n {
					send[j] = bytes.Repeat([]byte{byte(16*r + j)}, k(r, j))
					recv[j] = make([]byte, k(j, r))
				}
				got[r] = recv
				s.Alltoallw(send, recv)
			})
			for r := range n {
				for i, blk := range got[r] {
					if want := bytes.Repeat([]byte{byte(16*i + r)}, k(i, r)); !bytes.Equal(blk, want) {
						t.Errorf("n=%d nb=%v: rank %d from %d: %v, want %v", n, nb, r, i, blk, want)
					}
				}
			}
		}
	}
}
