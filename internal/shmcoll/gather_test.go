package shmcoll

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// TestGatherCells: Gathers from rotating roots, many more than a rank's cells, of
// every block length a cell holds, interleaved with reductions and Barriers on the
// same group; far blocks come back as far with their length and no data. Every root
// gets every rank's block exactly.
func TestGatherCells(t *testing.T) {
	for n := 1; n <= 5; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			l := small
			l.Ranks = n
			group(t, l, Options{}, func(g *Group) error {
				for it := 0; it < 5*GatherCells; it++ {
					root, m := it%n, (it*11)%(GatherInline+1)
					far := it%7 == 3
					mine := make([]byte, m)
					fill(mine, g.Rank(), it)
					if g.Rank() != root {
						if err := g.GatherPut(mine, far, root); err != nil {
							return err
						}
					} else {
						s, err := g.GatherBegin()
						if err != nil {
							return err
						}
						want := make([]byte, m)
						for j := 0; j < n; j++ {
							if j == root {
								continue
							}
							got := make([]byte, m)
							k, isFar, err := g.GatherTake(j, s, got)
							if err != nil {
								return err
							}
							fill(want, j, it)
							switch {
							case k != m || isFar != far:
								return fmt.Errorf("gather %d: rank %d's block of %d bytes, far %v; want %d, %v", it, j, k, isFar, m, far)
							case !far && !bytes.Equal(got, want):
								return fmt.Errorf("gather %d: rank %d's block %x, want %x", it, j, got, want)
							}
						}
						g.GatherEnd(s)
					}
					if it%5 == 0 {
						if err := g.Barrier(); err != nil {
							return err
						}
					}
					if it%9 == 0 {
						out := make([]byte, 16)
						if err := g.Allreduce(out, out, 8, sumU64); err != nil {
							return err
						}
					}
				}
				return nil
			})
		})
	}
}

// TestGatherAhead: non-roots run as many Gathers as they have cells with no root
// taking any, then wait until the root took the oldest before reusing its cell.
func TestGatherAhead(t *testing.T) {
	l := small
	l.Ranks = 3
	var ahead [3]chan struct{}
	for i := range ahead {
		ahead[i] = make(chan struct{})
	}
	group(t, l, Options{}, func(g *Group) error {
		const calls = 3 * GatherCells
		b := []byte{byte(g.Rank())}
		if g.Rank() != 0 {
			for it := 0; it < calls; it++ {
				if it == GatherCells {
					close(ahead[g.Rank()]) // every cell used, none taken
				}
				b[0] = byte(it)
				if err := g.GatherPut(b, false, 0); err != nil {
					return err
				}
			}
			return nil
		}
		<-ahead[1]
		<-ahead[2]
		got := []byte{0}
		for it := 0; it < calls; it++ {
			s, err := g.GatherBegin()
			if err != nil {
				return err
			}
			for j := 1; j < 3; j++ {
				if _, _, err := g.GatherTake(j, s, got); err != nil {
					return err
				}
				if got[0] != byte(it) {
					return fmt.Errorf("gather %d: rank %d's block %d", it, j, got[0])
				}
			}
			g.GatherEnd(s)
		}
		return nil
	})
}

// TestPutTake: the ops of an Allgather: blocks in inline lines, in slots, and far
// (length only), each taken by every other rank; a slot's block longer than the
// collector's buffer is cut to it, with its length reported.
func TestPutTake(t *testing.T) {
	l := small
	l.Ranks = 3
	group(t, l, Options{}, func(g *Group) error {
		for it, m := range []int{0, 8, inlineMax, inlineMax + 1, l.Slot, 40, 100} {
			far := it == 5
			b := make([]byte, m)
			fill(b, g.Rank(), it)
			s, err := g.Put(b, far)
			if s == 0 {
				return err
			}
			for j := 0; j < 3; j++ {
				if j == g.Rank() {
					continue
				}
				got := make([]byte, min(m, 64))
				n, isFar, err := g.Take(j, s, got)
				if err != nil {
					return err
				}
				want := make([]byte, m)
				fill(want, j, it)
				if n != m || isFar != far || !far && !bytes.Equal(got, want[:len(got)]) {
					return fmt.Errorf("op %d: rank %d's block: %d bytes, far %v, %x; want %d, %v, %x", it, j, n, isFar, got, m, far, want[:len(got)])
				}
			}
		}
		if s, err := g.Put(make([]byte, l.Slot+1), false); s != 0 || err == nil {
			return errors.New("Put of a block longer than a slot: no error")
		}
		return nil
	})
}

// TestGatherNoAllocs: the gathers' steps allocate nothing.
func TestGatherNoAllocs(t *testing.T) {
	l := Layout{Ranks: 2, Chunk: 4096, Chunks: 4, Slot: 4096}
	mem := region(t, l)
	g0, _ := Attach(mem, 0, Options{})
	g1, _ := Attach(mem, 1, Options{})
	const runs = 100
	b0, b1, out := make([]byte, 64), make([]byte, 64), make([]byte, 64)
	done := make(chan error)
	go func() {
		var err error
		for i := 0; i < runs+1 && err == nil; i++ {
			if err = g1.GatherPut(b1, false, 0); err == nil {
				var s uint64
				if s, err = g1.Put(b1, false); s != 0 {
					_, _, err = g1.Take(0, s, out)
				}
			}
		}
		done <- err
	}()
	a := testing.AllocsPerRun(runs, func() {
		s, _ := g0.GatherBegin()
		g0.GatherTake(1, s, b0)
		g0.GatherEnd(s)
		s, _ = g0.Put(b0, false)
		g0.Take(1, s, b0)
	})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if a != 0 {
		t.Errorf("%v allocations per Gather and Allgather, want 0", a)
	}
}

// TestReduceCellsVerdict: Reduces through the cells of lengths on both sides of
// GatherInline, in MPI's order (a non-commutative kernel), and erroneous ones where
// one rank's length differs: the root reports that rank's CountError, or follows the
// non-roots' common length (the way it then takes would report it); on three ranks or
// more every non-root whose contribution went alone finds a non-root that differs (or
// hears the root's verdict) instead of going on; and the group stays in step for the
// next Reduce.
func TestReduceCellsVerdict(t *testing.T) {
	// in ⊕ inout on bytes: 3*in + inout mod 256 is not commutative, and MPI's order
	// (x0 ⊕ (x1 ⊕ (... ⊕ x(n-1)))) gives one result.
	k := func(inout, in []byte) {
		for i := range inout {
			inout[i] = 3*in[i] + inout[i]
		}
	}
	for n := 1; n <= 4; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			l := small
			l.Ranks = n
			group(t, l, Options{}, func(g *Group) error {
				tmp := make([]byte, 2*GatherInline)
				for it := 0; it < 3*GatherCells; it++ {
					root := it % n
					m := []int{0, 5, cellHead, cellHead + 9, GatherInline, GatherInline + 1, 3000}[it%7]
					odd, other := -1, m
					if it%4 == 3 && n > 1 {
						odd = (it / 4) % n
						other = []int{m + 1, GatherInline + 1, GatherInline - 1, 0}[(it/4)%4]
						if other == m {
							odd = -1
						}
					}
					mine := make([]byte, m)
					if g.Rank() == odd {
						mine = make([]byte, other)
					}
					fill(mine, g.Rank(), it)
					var err error
					if g.Rank() != root {
						err = g.ReducePut(mine, root)
					} else {
						acc := make([]byte, len(mine))
						var follow int
						follow, err = g.ReduceRoot(mine, acc, k, it%2 == 0, tmp)
						if err == nil && follow >= 0 && follow != len(mine) {
							// The root follows its peer's length; the way taken then
							// reports the difference, as the caller's would.
							err = &CountError{Rank: 1 - g.Rank(), Len: follow, Want: len(mine)}
						}
						if err == nil && len(mine) <= GatherInline {
							if want := foldFills(n, len(mine), it, k); !bytes.Equal(acc, want) {
								return fmt.Errorf("reduce %d of %d bytes: %x, want %x", it, m, acc, want)
							}
						}
					}
					var ce *CountError
					long := len(mine) > GatherInline
					switch {
					case odd < 0 && err != nil:
						return fmt.Errorf("reduce %d of %d bytes: %v", it, m, err)
					case odd >= 0 && g.Rank() == root && !errors.As(err, &ce):
						return fmt.Errorf("reduce %d: rank %d passes %d bytes, the others %d: root's error %v, want a CountError", it, odd, other, m, err)
					case odd >= 0 && odd != root && g.Rank() != root && long && n > 2 && !errors.As(err, &ce):
						return fmt.Errorf("reduce %d: rank %d passes %d bytes, the others %d: error %v where the root's verdict is a CountError", it, odd, other, m, err)
					case odd >= 0 && g.Rank() != root && (!long || n == 2 || odd == root) && err != nil:
						return fmt.Errorf("reduce %d: a contribution in a cell: %v", it, err)
					}
					if it%5 == 0 {
						if err := g.Barrier(); err != nil {
							return err
						}
					}
				}
				return nil
			})
		})
	}
}
