package shmcoll

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// anon maps n bytes of shared anonymous memory; the test unmaps it.
func anon(t testing.TB, n int) []byte {
	t.Helper()
	mem, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	return mem
}

// region maps shared anonymous memory for l and formats it; the test unmaps it.
func region(t testing.TB, l Layout) []byte {
	t.Helper()
	mem := anon(t, l.Size())
	if err := Format(mem, l); err != nil {
		t.Fatal(err)
	}
	return mem
}

// group runs body as every rank of a group of n goroutines over one region.
func group(t *testing.T, l Layout, o Options, body func(g *Group) error) {
	t.Helper()
	mem := region(t, l)
	errs := make([]error, l.Ranks)
	var wg sync.WaitGroup
	for r := 0; r < l.Ranks; r++ {
		g, err := Attach(mem, r, o)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = body(g)
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

var small = Layout{Chunk: 128, Chunks: 3, Slot: 192}

func sumU64(inout, in []byte) {
	for i := 0; i+8 <= len(inout); i += 8 {
		binary.LittleEndian.PutUint64(inout[i:], binary.LittleEndian.Uint64(inout[i:])+binary.LittleEndian.Uint64(in[i:]))
	}
}

// compose is a non-commutative op on affine maps x -> a*x+b (two uint64 per
// element): inout = in ∘ inout.
func compose(inout, in []byte) {
	le := binary.LittleEndian
	for i := 0; i+16 <= len(inout); i += 16 {
		a1, b1 := le.Uint64(in[i:]), le.Uint64(in[i+8:])
		a2, b2 := le.Uint64(inout[i:]), le.Uint64(inout[i+8:])
		le.PutUint64(inout[i:], a1*a2)
		le.PutUint64(inout[i+8:], a1*b2+b1)
	}
}

func fill(b []byte, rank, iter int) {
	for i := range b {
		b[i] = byte(rank*31 + iter*7 + i*13 + 1)
	}
}

// sumOfFills is the sum (sumU64) of m bytes that fill gives every rank of ranks in
// call it: an Allreduce's expected result.
func sumOfFills(ranks, m, it int) []byte { return foldFills(ranks, m, it, sumU64) }

// foldFills is k's fold of those bytes in the region's rank order (from the highest
// rank down).
func foldFills(ranks, m, it int, k Kernel) []byte {
	want := make([]byte, m)
	c := make([]byte, m)
	for r := ranks - 1; r >= 0; r-- {
		fill(c, r, it)
		if r == ranks-1 {
			copy(want, c)
		} else {
			k(want, c)
		}
	}
	return want
}

// TestBcastAllSizes: every size and root, through ordinary and non-temporal copies of
// the chunks (NT 64: every whole chunk of the 128-byte ring goes non-temporally).
func TestBcastAllSizes(t *testing.T) {
	for n := 1; n <= 9; n++ {
		l := small
		l.Ranks = n
		for _, o := range []Options{{}, {NT: 64}} {
			t.Run(fmt.Sprintf("%d/nt%d", n, o.NT), func(t *testing.T) { testBcastAllSizes(t, l, o) })
		}
	}
}

func testBcastAllSizes(t *testing.T, l Layout, o Options) {
	n := l.Ranks
	group(t, l, o, func(g *Group) error {
		buf := make([]byte, 2000)
		want := make([]byte, 2000)
		for it := 0; it < 300; it++ {
			root := it % n
			m := (it * 97) % len(buf) // crosses chunks and ring reuse
			if it%3 == 0 {
				m = it % 70 // around inlineMax: in the sequence line or not
			}
			fill(want[:m], root, it)
			if g.rank == root {
				copy(buf, want[:m])
			} else {
				clear(buf)
			}
			if err := g.Bcast(buf[:m], root); err != nil {
				return err
			}
			if !bytes.Equal(buf[:m], want[:m]) {
				return fmt.Errorf("iteration %d (root %d, %d bytes): wrong data", it, root, m)
			}
		}
		return nil
	})
}

// selfReader is a single-copy read where every rank is a goroutine of this process:
// each rank's buffer is registered, and a read checks that the address it is given
// is in the buffer of the rank it reads from.
type selfReader struct {
	bufs  [][]byte
	reads atomic.Int64
}

// newSelfReader gives each of n ranks a buffer of size bytes outside the Go heap, as
// another process's memory is: the race detector cannot see the flags that order the
// reads.
func newSelfReader(t *testing.T, n, size int) *selfReader {
	sr := &selfReader{bufs: make([][]byte, n)}
	for r := range sr.bufs {
		sr.bufs[r] = anon(t, size)
	}
	return sr
}

func (s *selfReader) read(r int, dst []byte, addr uint64) error {
	b := s.bufs[r]
	base := uint64(uintptr(unsafe.Pointer(&b[0])))
	if addr < base || addr+uint64(len(dst)) > base+uint64(len(b)) {
		return fmt.Errorf("read of %d bytes at %#x is outside rank %d's buffer", len(dst), addr, r)
	}
	copy(dst, b[addr-base:])
	s.reads.Add(1)
	return nil
}

// TestBcastDirect: Bcasts of at least Direct bytes are read from the root's buffer, the
// shorter ones stream through the ring, interleaved with any root, and the group stays
// in step; a reader whose buffer is shorter gets what fits and ErrTruncate.
func TestBcastDirect(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		l := small
		l.Ranks = n
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			sr := newSelfReader(t, n, 3000)
			group(t, l, Options{Read: sr.read, Direct: 300}, func(g *Group) error {
				buf := sr.bufs[g.rank]
				want := make([]byte, 3000)
				for it := 0; it < 300; it++ {
					root := it % n
					m := (it * 211) % len(buf)
					fill(want[:m], root, it)
					if g.rank == root {
						copy(buf, want[:m])
					} else {
						clear(buf)
					}
					short := it%7 == 3 && g.rank != root && m >= 300
					b := buf[:m]
					if short {
						b = buf[:m-1]
					}
					err := g.Bcast(b, root)
					if short {
						if !errors.Is(err, ErrTruncate) {
							return fmt.Errorf("iteration %d: short buffer: got %v, want ErrTruncate", it, err)
						}
						if !bytes.Equal(b, want[:m-1]) {
							return fmt.Errorf("iteration %d: short buffer: wrong data", it)
						}
						continue
					}
					if err != nil {
						return err
					}
					if !bytes.Equal(buf[:m], want[:m]) {
						return fmt.Errorf("iteration %d (root %d, %d bytes): wrong data", it, root, m)
					}
				}
				return nil
			})
			if sr.reads.Load() == 0 {
				t.Error("no Bcast was read from the root's buffer")
			}
		})
	}
}

// TestBcastStaged: a root that copies its message into the region (BcastStaged) and
// leaves gives every reader its bytes, interleaved with any root, with reductions and
// direct Allreduces on the same banks (so that a bank is reused only once every rank
// has copied out of it) and with ring Bcasts; a reader whose buffer is shorter gets
// what fits and ErrTruncate, BcastKeep's reader the whole message; a message longer
// than StageMax goes through the ring.
func TestBcastStaged(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		l := small
		l.Ranks = n
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			sr := newSelfReader(t, n, 1600)
			group(t, l, Options{Read: sr.read}, func(g *Group) error { return stagedRounds(g, sr) })
		})
	}
}

func stagedRounds(g *Group, sr *selfReader) error {
	n := g.Size()
	max := g.StageMax()
	want := make([]byte, max+100)
	buf := make([]byte, max+100)
	for it := 0; it < 300; it++ {
		root := (it / 2) % n
		m := (it * 53) % (max + 100)
		fill(want[:m], root, it)
		if g.rank == root {
			copy(buf, want[:m])
		} else {
			clear(buf)
		}
		short := it%7 == 3 && g.rank != root && m > 0 && m <= max
		keep := it%7 == 5 && g.rank != root
		b := buf[:m]
		if short {
			b = buf[:m-1]
		}
		var err error
		var msg []byte
		switch {
		case g.rank == root:
			err = g.BcastStaged(b, root)
		case keep:
			msg, err = g.BcastKeep(buf[:m/2], root)
		default:
			err = g.Bcast(b, root)
		}
		switch {
		case short:
			if !errors.Is(err, ErrTruncate) || !bytes.Equal(b, want[:m-1]) {
				return fmt.Errorf("iteration %d: short buffer: %v, or wrong data", it, err)
			}
		case keep && m/2 < m:
			if !errors.Is(err, ErrTruncate) || !bytes.Equal(msg, want[:m]) {
				return fmt.Errorf("iteration %d: BcastKeep of %d bytes into %d: %v, or the message not kept", it, m, m/2, err)
			}
		case err != nil:
			return fmt.Errorf("iteration %d (root %d, %d bytes): %v", it, root, m, err)
		case !keep && !bytes.Equal(buf[:m], want[:m]):
			return fmt.Errorf("iteration %d (root %d, %d bytes): wrong data", it, root, m)
		}
		if err := stagedBetween(g, sr, it); err != nil {
			return err
		}
	}
	return nil
}

// stagedBetween runs, between two staged Bcasts, an op that uses the banks (a
// reduction through the slots or a direct Allreduce) or the ring, by iteration.
func stagedBetween(g *Group, sr *selfReader, it int) error {
	m := 16 * (1 + it%40)
	send := sr.bufs[g.rank][:m]
	fill(send, g.rank, it)
	recv := make([]byte, m)
	var err error
	switch it % 4 {
	case 0:
		err = g.Allreduce(send, recv, 8, sumU64)
	case 1:
		err = g.AllreduceDirect(send, recv, 8, sumU64)
	case 2:
		return g.Bcast(recv[:it%50], it%g.Size())
	default:
		return nil
	}
	want, x := make([]byte, m), make([]byte, m)
	for r := 0; r < g.Size(); r++ {
		fill(x, r, it)
		sumU64(want, x)
	}
	if err == nil && !bytes.Equal(recv, want) {
		err = fmt.Errorf("iteration %d: Allreduce after a staged Bcast: wrong result", it)
	}
	return err
}

// TestBcastAnnounce: a root that announces its length (Announce) ends every reader's
// Bcast with ErrElsewhere and that length, whatever the reader's buffer, interleaved
// with ring Bcasts (more than the ring's chunks of both, so that the announcements'
// chunks are reused), and the group stays in step. (A reader whose buffer is empty
// leaves without the line, and the root stops the op: TestBcastEmptyLong.)
func TestBcastAnnounce(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		l := small
		l.Ranks = n
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			group(t, l, Options{}, func(g *Group) error {
				want := make([]byte, 1000)
				buf := make([]byte, 1000)
				for it := 0; it < 200; it++ {
					root := it % n
					m := (it * 37) % len(buf)
					if it%3 == 0 {
						m = max(m, 1)
						var err error
						if g.rank == root {
							err = g.Announce(100000 + it)
						} else if err = g.Bcast(buf[:m], root); err == ErrElsewhere {
							if got := g.Announced(); got != 100000+it {
								return fmt.Errorf("iteration %d: announced %d, want %d", it, got, 100000+it)
							}
							err = nil
						} else {
							return fmt.Errorf("iteration %d: Bcast after Announce: %v, want ErrElsewhere", it, err)
						}
						if err != nil {
							return err
						}
						continue
					}
					fill(want[:m], root, it)
					if g.rank == root {
						copy(buf, want[:m])
					} else {
						clear(buf)
					}
					if err := g.Bcast(buf[:m], root); err != nil {
						return fmt.Errorf("iteration %d: %v", it, err)
					}
					if !bytes.Equal(buf[:m], want[:m]) {
						return fmt.Errorf("iteration %d (root %d, %d bytes): wrong data", it, root, m)
					}
				}
				return nil
			})
		})
	}
}

// TestBcastDirectReadFails: a reader whose read fails reports it, and the root and the
// others finish the Bcast and the next one.
func TestBcastDirectReadFails(t *testing.T) {
	l := small
	l.Ranks = 3
	bad := errors.New("no access")
	read := func(r int, dst []byte, addr uint64) error { return bad }
	group(t, l, Options{Read: read, Direct: 64}, func(g *Group) error {
		buf := make([]byte, 100)
		err := g.Bcast(buf, 0)
		if g.rank == 0 && err != nil {
			return fmt.Errorf("root: %v", err)
		}
		if g.rank != 0 && !errors.Is(err, bad) {
			return fmt.Errorf("reader: got %v, want the read's error", err)
		}
		return g.Bcast(buf[:10], 1) // the ring, in step
	})
}

// TestAllreduceDirect: contributions read from the others' send buffers (many pieces:
// a tiny slot) give the rank-ordered result of a non-commutative op and of a sum, in
// place or not, interleaved with the other collectives; without a Read it is an error.
func TestAllreduceDirect(t *testing.T) {
	for n := 1; n <= 6; n++ {
		for _, nt := range []int{0, 64} { // 64: sections streamed, most not line-aligned
			l := small
			l.Ranks = n
			t.Run(fmt.Sprintf("%d/nt%d", n, nt), func(t *testing.T) { testAllreduceDirect(t, l, nt) })
		}
	}
	l := small
	l.Ranks = 1
	g, err := Attach(region(t, l), 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.AllreduceDirect(make([]byte, 8), make([]byte, 8), 8, sumU64); err == nil {
		t.Error("AllreduceDirect without a Read: no error")
	}
}

// TestAllreduceDirectPieces: a direct Allreduce goes in pieces of a whole bank (every
// rank's slot of it: its result's room), not of one slot, so that a message of up to
// Ranks x Slot bytes takes one op, in which every rank waits twice for the others.
func TestAllreduceDirectPieces(t *testing.T) {
	l := small
	l.Ranks = 4
	sr := &selfReader{bufs: make([][]byte, l.Ranks)}
	for r := range sr.bufs {
		sr.bufs[r] = anon(t, 2*l.Ranks*l.Slot)
	}
	group(t, l, Options{Read: sr.read}, func(g *Group) error {
		for _, m := range []int{l.Ranks * l.Slot, l.Ranks*l.Slot + 8} {
			send := sr.bufs[g.rank][:m]
			fill(send, g.rank, m)
			recv := make([]byte, m)
			s0 := g.o.S
			if err := g.AllreduceDirect(send, recv, 8, sumU64); err != nil {
				return err
			}
			if ops, want := g.o.S-s0, uint64((m+l.Ranks*l.Slot-1)/(l.Ranks*l.Slot)); ops != want {
				return fmt.Errorf("%d bytes took %d ops, want %d", m, ops, want)
			}
			want, x := make([]byte, m), make([]byte, m)
			for r := 0; r < l.Ranks; r++ {
				fill(x, r, m)
				sumU64(want, x)
			}
			if !bytes.Equal(recv, want) {
				return fmt.Errorf("%d bytes: wrong result", m)
			}
		}
		return nil
	})
}

func testAllreduceDirect(t *testing.T, l Layout, nt int) {
	n := l.Ranks
	sr := newSelfReader(t, n, 1600)
	group(t, l, Options{Read: sr.read, NT: nt}, func(g *Group) error {
		for it := 0; it < 120; it++ {
			m := 16 * ((it * 7) % 100)
			all := make([][]byte, n)
			for r := range all {
				all[r] = make([]byte, m)
				fill(all[r], r, it)
				for i := 0; i < m; i += 16 {
					all[r][i] |= 1
				}
			}
			op, esize := Kernel(compose), 16
			if it%3 == 1 {
				op, esize = sumU64, 8
			}
			want := append([]byte(nil), all[n-1]...)
			for r := n - 2; r >= 0; r-- {
				op(want, all[r])
			}
			send := sr.bufs[g.rank][:m]
			copy(send, all[g.rank])
			recv := send // in place
			if it%2 == 0 {
				recv = make([]byte, m)
			}
			if err := g.AllreduceDirect(send, recv, esize, op); err != nil {
				return err
			}
			if !bytes.Equal(recv, want) {
				return fmt.Errorf("iteration %d (%d bytes): wrong result", it, m)
			}
			if it%5 == 0 {
				if err := g.Bcast(recv[:min(m, 100)], it%n); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// TestAllreduceChoose: every rank follows rank 0's choice call by call (the results
// are right either way), both ways are tried, and a way made slow (a read that sleeps)
// is then taken only by the probes.
func TestAllreduceChoose(t *testing.T) {
	for _, slowRead := range []bool{false, true} {
		l := small
		l.Ranks = 4
		sr := &selfReader{bufs: make([][]byte, l.Ranks)}
		for r := range sr.bufs {
			sr.bufs[r] = anon(t, 1600)
		}
		read := sr.read
		if slowRead {
			// Far slower than the slots can be even on a loaded machine, where a
			// call's slots may take tens of milliseconds (four ranks' goroutines on
			// two busy cores): the test is of the choice, not of the host.
			read = func(r int, dst []byte, addr uint64) error {
				time.Sleep(100 * time.Millisecond)
				return sr.read(r, dst, addr)
			}
		}
		const calls = 50
		group(t, l, Options{Read: read}, func(g *Group) error {
			for it := 0; it < calls; it++ {
				m := 1600
				send := sr.bufs[g.rank][:m]
				fill(send, g.rank, it)
				recv := make([]byte, m)
				want := sumOfFills(l.Ranks, m, it)
				if err := g.AllreduceChoose(send, recv, 8, sumU64); err != nil {
					return err
				}
				if !bytes.Equal(recv, want) {
					return fmt.Errorf("call %d: wrong result", it)
				}
			}
			if g.rank == 0 {
				c := g.choice
				if c.n[0] < 2 || c.n[1] < 2 {
					return fmt.Errorf("ways tried %v times, want both at least twice", c.n)
				}
				if slowRead && c.n[1] > 2+calls/chooseProbe {
					return fmt.Errorf("the slow way was taken %d times of %d", c.n[1], calls)
				}
			}
			return nil
		})
	}
}

// TestAllreduceChooseTimed: a message longer than Options.Timed takes the reads every
// time, untimed; the shorter ones still choose by timing.
func TestAllreduceChooseTimed(t *testing.T) {
	l := small
	l.Ranks = 4
	sr := &selfReader{bufs: make([][]byte, l.Ranks)}
	for r := range sr.bufs {
		sr.bufs[r] = anon(t, 1600)
	}
	reads := make([]atomic.Int64, l.Ranks)
	const calls, timed = 80, 1024
	group(t, l, Options{Read: sr.read, Timed: timed}, func(g *Group) error {
		// Count this rank's reads of the others' buffers.
		g.read = func(r int, dst []byte, addr uint64) error {
			reads[g.rank].Add(1)
			return sr.read(r, dst, addr)
		}
		short := 0
		for it := 0; it < calls; it++ {
			m := 1600
			if it%2 == 1 {
				m, short = 800, short+1
			}
			send := sr.bufs[g.rank][:m]
			fill(send, g.rank, it)
			recv := make([]byte, m)
			want := sumOfFills(l.Ranks, m, it)
			before := reads[g.rank].Load()
			if err := g.AllreduceChoose(send, recv, 8, sumU64); err != nil {
				return err
			}
			if !bytes.Equal(recv, want) {
				return fmt.Errorf("call %d (%d bytes): wrong result", it, m)
			}
			if m > timed && reads[g.rank].Load() == before {
				return fmt.Errorf("call %d of %d bytes, above Timed, took the slots", it, m)
			}
		}
		if c := g.choice; g.rank == 0 && (c.n[0]+c.n[1] != short || c.n[0] < 2 || c.n[1] < 2) {
			return fmt.Errorf("rank 0 timed %v calls of each way, want both, %d in all", c.n, short)
		}
		return nil
	})
}

func TestReductionsAllSizes(t *testing.T) {
	for n := 1; n <= 9; n++ {
		l := small
		l.Ranks = n
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			group(t, l, Options{}, func(g *Group) error {
				for it := 0; it < 200; it++ {
					m := 16 * ((it * 7) % 50) // up to 784 bytes: several pieces of a 192-byte slot
					if it%3 == 0 {
						m = 16 * (it % 5) // around inlineMax: in the sequence line or in the slot
					}
					send := make([]byte, m)
					all := make([][]byte, n)
					for r := range all {
						all[r] = make([]byte, m)
						fill(all[r], r, it)
						for i := 0; i < m; i += 16 { // odd multipliers
							all[r][i] |= 1
						}
					}
					copy(send, all[g.rank])
					op, esize := Kernel(compose), 16
					if (it/4)%2 == 1 {
						op, esize = sumU64, 8
					}
					want := append([]byte(nil), all[n-1]...)
					for r := n - 2; r >= 0; r-- {
						op(want, all[r])
					}
					root := it % n
					recv := make([]byte, m)
					var err error
					switch it % 4 {
					case 0:
						err = g.Allreduce(send, recv, esize, op)
					case 1: // in place
						copy(recv, send)
						err = g.Allreduce(recv, recv, esize, op)
					case 2:
						if g.rank == root && (it/8)%2 == 1 { // in place
							copy(recv, send)
							send = recv
						}
						err = g.Reduce(send, recv, esize, op, esize == 8, root)
					case 3:
						err = g.AllreduceSplit(send, recv, esize, op)
					}
					if err != nil {
						return fmt.Errorf("iteration %d (%d bytes, kind %d): %w", it, m, it%4, err)
					}
					if (it%4 != 2 || g.rank == root) && !bytes.Equal(recv, want) {
						return fmt.Errorf("iteration %d (%d bytes, kind %d): wrong result", it, m, it%4)
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

func TestBarrierOrders(t *testing.T) {
	const n = 5
	l := small
	l.Ranks = n
	var mu sync.Mutex
	count := 0
	group(t, l, Options{}, func(g *Group) error {
		for it := 1; it <= 200; it++ {
			mu.Lock()
			count++
			mu.Unlock()
			if err := g.Barrier(); err != nil {
				return err
			}
			mu.Lock()
			c := count
			mu.Unlock()
			if c < it*n {
				return fmt.Errorf("barrier %d passed with %d arrivals", it, c)
			}
			if err := g.Barrier(); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestBarrierAfterBarrier: with ranks outnumbering cores, rank 0 raises done when it
// leaves a Barrier so that the others can let it go first, except in a Barrier right
// after a Barrier; the Barriers still order every rank's steps.
func TestBarrierAfterBarrier(t *testing.T) {
	l := small
	l.Ranks = 4
	var arrived atomic.Int64
	group(t, l, Options{Oversubscribed: true}, func(g *Group) error {
		// Ops 1 and 5 are Bcasts, the others Barriers: rank 0's done after each
		// Barrier, and the Barriers before and at it.
		done := map[int]uint64{2: 2, 3: 2, 4: 2, 6: 6}
		barriers := map[int]int64{2: 1, 3: 2, 4: 3, 6: 4}
		buf := make([]byte, 8)
		var errs []error // every rank runs every op, so that a failure ends the test
		for op := 1; op <= 6; op++ {
			if op == 1 || op == 5 {
				if err := g.Bcast(buf, 0); err != nil {
					return err
				}
				continue
			}
			arrived.Add(1)
			if err := g.Barrier(); err != nil {
				return err
			}
			if n := arrived.Load(); n < 4*barriers[op] {
				errs = append(errs, fmt.Errorf("op %d: a Barrier passed with %d arrivals, want %d", op, n, 4*barriers[op]))
			}
			if d := atomic.LoadUint64(g.flag(0, fDone)); g.rank == 0 && d != done[op] {
				errs = append(errs, fmt.Errorf("op %d: rank 0's done is %d, want %d", op, d, done[op]))
			}
		}
		return errors.Join(errs...)
	})
}

// TestDeadPeer: rank 1 never comes; the check says it died, so the others fail with an
// error naming it, in bounded time, and stay failed.
func TestDeadPeer(t *testing.T) {
	l := small
	l.Ranks = 3
	mem := region(t, l)
	gone := errors.New("died (pid 42)")
	o := Options{Spin: 10, Yield: 10, Check: func(r int) error {
		if r == 1 {
			return gone
		}
		return nil
	}}
	for _, op := range []string{"bcast", "barrier"} {
		g, err := Attach(mem, 0, o)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if op == "bcast" {
			err = g.Bcast(make([]byte, 10), 1)
		} else {
			err = g.Barrier()
		}
		if !errors.Is(err, gone) || !strings.Contains(err.Error(), "rank 1") {
			t.Errorf("%s: err %v, want one naming rank 1 and wrapping %v", op, err, gone)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %v to notice", op, d)
		}
		if err2 := g.Barrier(); err2 != err {
			t.Errorf("%s: after the failure Barrier returned %v, want the same error", op, err2)
		}
	}
}

func TestBadInput(t *testing.T) {
	l := small
	l.Ranks = 2
	mem := region(t, l)
	if _, err := Attach(mem, 2, Options{}); err == nil || !strings.Contains(err.Error(), "rank 2") {
		t.Errorf("Attach rank 2: %v", err)
	}
	if err := Format(mem, Layout{Ranks: 2, Chunk: 100, Chunks: 2, Slot: 64}); err == nil || !strings.Contains(err.Error(), "Chunk") {
		t.Errorf("Format with Chunk 100: %v", err)
	}
	if _, err := Attach(make([]byte, 4096), 0, Options{}); err == nil {
		t.Error("Attach to an unformatted region succeeded")
	}
	g, _ := Attach(mem, 0, Options{})
	if err := g.Bcast(nil, 5); err == nil || !strings.Contains(err.Error(), "root 5") {
		t.Errorf("Bcast root 5: %v", err)
	}
	if err := g.Allreduce(make([]byte, 12), make([]byte, 12), 8, sumU64); err == nil || !strings.Contains(err.Error(), "element size") {
		t.Errorf("Allreduce of 12 bytes of 8-byte elements: %v", err)
	}
}

// TestNoAllocs: the collectives allocate nothing (two ranks, one of them measured).
func TestNoAllocs(t *testing.T) {
	l := Layout{Ranks: 2, Chunk: 4096, Chunks: 4, Slot: 4096}
	mem := region(t, l)
	g0, _ := Attach(mem, 0, Options{})
	g1, _ := Attach(mem, 1, Options{})
	const runs = 100
	buf0, buf1 := make([]byte, 10000), make([]byte, 10000)
	out0, out1 := make([]byte, 10000), make([]byte, 10000)
	done := make(chan error)
	go func() {
		var err error
		for i := 0; i < runs+1 && err == nil; i++ { // AllocsPerRun runs once more to warm up
			if err = g1.Barrier(); err == nil {
				if err = g1.Bcast(buf1, 0); err == nil {
					if err = g1.Allreduce(buf1, out1, 8, sumU64); err == nil {
						err = g1.AllreduceSplit(buf1, out1, 8, sumU64)
					}
				}
			}
		}
		done <- err
	}()
	a := testing.AllocsPerRun(runs, func() {
		g0.Barrier()
		g0.Bcast(buf0, 0)
		g0.Allreduce(buf0, out0, 8, sumU64)
		g0.AllreduceSplit(buf0, out0, 8, sumU64)
	})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if a != 0 {
		t.Errorf("%v allocations per Barrier+Bcast+Allreduce, want 0", a)
	}
}

// TestChooseRankZeroAhead: rank 0 runs its Choose calls with nothing else holding it
// back (as when the pick is the point-to-point way), while the others lag; each rank
// still takes, call by call, the pick rank 0 made for that call (with one shared word,
// a lagging rank took a later call's pick: MPICH's coll/bcasttest at 10 ranks).
func TestChooseRankZeroAhead(t *testing.T) {
	l := small
	l.Ranks = 3
	const calls = 3*chooseSlots + 40
	picks := make([][]int, l.Ranks)
	var ch Chooser
	group(t, l, Options{}, func(g *Group) error {
		for k := 0; k < calls; k++ {
			if g.rank != 0 && k%5 == g.rank {
				time.Sleep(time.Millisecond)
			}
			v, err := g.Choose(&ch)
			if err != nil {
				return err
			}
			if g.rank == 0 {
				ch.Record(v, float64(1+v)) // way 0 is faster: the probes take way 1
			}
			picks[g.rank] = append(picks[g.rank], v)
		}
		return nil
	})
	if ones := fmt.Sprint(picks[0]); !strings.Contains(ones, "1") || !strings.Contains(ones, "0") {
		t.Fatalf("rank 0 picked only one way: %v", picks[0])
	}
	for r := 1; r < l.Ranks; r++ {
		if fmt.Sprint(picks[r]) != fmt.Sprint(picks[0]) {
			t.Errorf("rank %d took %v, rank 0 picked %v", r, picks[r], picks[0])
		}
	}
}

// TestReduceMismatch: reductions whose ranks pass different lengths (erroneous) end
// with a CountError on every rank that combines (all of an Allreduce, the root of a
// Reduce) whatever way each rank's length takes (inline, slot, pieces, split, or
// Elsewhere for a length beyond the region's limit), nobody hangs, and the group stays
// in step: the next, matched Allreduce is right.
func TestReduceMismatch(t *testing.T) {
	const limit = 300 // beyond: Elsewhere, as core sends long messages to the schedules
	lens := []int{0, 8, 56, 64, 128, 192, 200, 400}
	for _, n := range []int{2, 3} {
		l := small
		l.Ranks = n
		for _, kind := range []string{"allreduce", "split", "reduce0", "reduceLast"} {
			t.Run(fmt.Sprintf("%d/%s", n, kind), func(t *testing.T) {
				for _, a := range lens {
					for _, b := range lens {
						if a == b {
							continue
						}
						group(t, l, Options{}, func(g *Group) error {
							return mismatchOnce(g, kind, a, b, limit)
						})
					}
				}
			})
		}
	}
}

func mismatchOnce(g *Group, kind string, a, b, limit int) error {
	odd := g.Size() - 1 // the rank with length b
	m := a
	if g.Rank() == odd {
		m = b
	}
	send, recv := make([]byte, m), make([]byte, m)
	root := -1
	switch kind {
	case "reduce0":
		root = 0
	case "reduceLast":
		root = odd
	}
	var err error
	switch {
	case m > limit:
		err = g.Elsewhere(m)
	case kind == "split" && m >= 128:
		err = g.AllreduceSplit(send, recv, 8, sumU64)
	case root >= 0:
		err = g.Reduce(send, recv, 8, sumU64, true, root)
	default:
		err = g.Allreduce(send, recv, 8, sumU64)
	}
	var ce *CountError
	combines := root < 0 || g.Rank() == root || m > limit
	if combines && !errors.As(err, &ce) {
		return fmt.Errorf("%s %d/%d: err %v, want a CountError", kind, a, b, err)
	}
	if !combines && err != nil && !errors.As(err, &ce) {
		return fmt.Errorf("%s %d/%d: %v", kind, a, b, err)
	}
	// In step: a matched Allreduce of 16 bytes and one of 200 (two pieces).
	for _, k := range []int{16, 200} {
		x := make([]byte, k)
		for i := 0; i+8 <= k; i += 8 {
			binary.LittleEndian.PutUint64(x[i:], uint64(g.Rank()+1))
		}
		y := make([]byte, k)
		if err := g.Allreduce(x, y, 8, sumU64); err != nil {
			return fmt.Errorf("%s %d/%d: next Allreduce: %v", kind, a, b, err)
		}
		want := uint64(g.Size() * (g.Size() + 1) / 2)
		if got := binary.LittleEndian.Uint64(y[k-8:]); got != want {
			return fmt.Errorf("%s %d/%d: next Allreduce: %d, want %d", kind, a, b, got, want)
		}
	}
	return nil
}

// TestPickFirst: a chooser that starts with one way keeps to it until the first probe
// call, then tries the other twice and keeps the faster, probing as Pick does; where
// the other way is faster, it is taken from then on.
func TestPickFirst(t *testing.T) {
	for _, fast := range []int{0, 1} {
		var ch Chooser
		var picks []int
		for k := 0; k < 3*chooseProbe; k++ {
			v := ch.PickFirst(1)
			ch.Record(v, map[bool]float64{true: 1, false: 3}[v == fast])
			picks = append(picks, v)
		}
		for k, v := range picks[:chooseProbe-1] {
			if v != 1 {
				t.Fatalf("fast %d: call %d took way %d before the first probe: %v", fast, k+1, v, picks)
			}
		}
		if picks[chooseProbe-1] != 0 || picks[chooseProbe] != 0 {
			t.Fatalf("fast %d: calls %d and %d did not try way 0: %v", fast, chooseProbe, chooseProbe+1, picks)
		}
		rest, other := picks[chooseProbe+1:], 0
		for _, v := range rest {
			if v != fast {
				other++
			}
		}
		if other == 0 || other > len(rest)/chooseProbe+1 {
			t.Errorf("fast %d: after the tries, %d of %d calls took the slower way: %v", fast, other, len(rest), picks)
		}
	}
}

// TestBcastEmptyOwing: a reader's empty Bcast returns before its root has called
// (each reader signals the root only once its Bcasts returned: a reader that waited
// would hang the test), up to owedMax of them, from rotating roots, and the lines owed
// are taken in the readers' later Bcasts and before their other ops, which stay in
// step: ring Bcasts of one and of several chunks, Barriers, Allreduces.
func TestBcastEmptyOwing(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		l := small
		l.Ranks = n
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			gate := make([]chan struct{}, 40)
			for i := range gate {
				gate[i] = make(chan struct{}, n)
			}
			group(t, l, Options{}, func(g *Group) error {
				buf := make([]byte, 3*l.Chunk)
				for it := range gate {
					root := it % n
					k := 1 + it%g.owedMax()
					if g.rank != root {
						for range k {
							if err := g.Bcast(nil, root); err != nil {
								return fmt.Errorf("iteration %d: empty Bcast: %v", it, err)
							}
						}
						gate[it] <- struct{}{}
					} else {
						for range n - 1 {
							<-gate[it]
						}
						for range k {
							if err := g.Bcast(nil, root); err != nil {
								return fmt.Errorf("iteration %d: root's empty Bcast: %v", it, err)
							}
						}
					}
					if err := owingBetween(g, buf, it); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

// owingBetween runs, after a round of empty Bcasts, another op, by iteration.
func owingBetween(g *Group, buf []byte, it int) error {
	root := (it / 2) % g.size
	switch it % 4 {
	case 0:
		return g.Barrier()
	case 1:
		m := []int{8, 100, len(buf)}[it%3]
		fill(buf[:m], root, it)
		want := append([]byte(nil), buf[:m]...)
		if g.rank != root {
			clear(buf)
		}
		if err := g.Bcast(buf[:m], root); err != nil {
			return fmt.Errorf("iteration %d: Bcast of %d: %v", it, m, err)
		}
		if !bytes.Equal(buf[:m], want) {
			return fmt.Errorf("iteration %d: Bcast of %d: wrong data", it, m)
		}
	case 2:
		send, recv := make([]byte, 16), make([]byte, 16)
		fill(send, g.rank, it)
		if err := g.Allreduce(send, recv, 8, sumU64); err != nil {
			return fmt.Errorf("iteration %d: Allreduce: %v", it, err)
		}
		want, x := make([]byte, 16), make([]byte, 16)
		for r := 0; r < g.size; r++ {
			fill(x, r, it)
			sumU64(want, x)
		}
		if !bytes.Equal(recv, want) {
			return fmt.Errorf("iteration %d: Allreduce: wrong result", it)
		}
	}
	return nil
}

// TestBcastEmptyMismatch: a reader whose buffer is empty while the root sends bytes
// (erroneous) and which left before the root wrote: a one-chunk message makes its next
// op (a Barrier, a Bcast) return ErrTruncate naming both counts; a longer one (several
// chunks, an announcement) is stopped by its root, which finds the reader left
// (ErrStopped there and at the other readers); either way no rank hangs and the group
// stays in step (an Allreduce after it).
func TestBcastEmptyMismatch(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		l := small
		l.Ranks = n
		for _, m := range []int{8, 100, 3 * 128} {
			for _, next := range []string{"barrier", "bcast", "announce"} {
				if next == "announce" && m != 8 {
					continue
				}
				t.Run(fmt.Sprintf("%d/%d/%s", n, m, next), func(t *testing.T) {
					left := make(chan struct{}, 1)
					group(t, l, Options{}, func(g *Group) error {
						return emptyMismatch(g, m, next, left)
					})
				})
			}
		}
	}
}

// emptyMismatch: rank 1's buffer is empty, rank 0 (the root) sends m bytes (next
// "announce": announces them), and rank 1 has left before the root begins.
func emptyMismatch(g *Group, m int, next string, left chan struct{}) error {
	long := m > small.Chunk || next == "announce"
	buf := make([]byte, m)
	var err error
	switch g.rank {
	case 1:
		err = g.Bcast(nil, 0)
		left <- struct{}{}
	case 0:
		<-left
		if next == "announce" {
			err = g.Announce(m)
		} else {
			err = g.Bcast(buf, 0)
		}
	default:
		err = g.Bcast(buf, 0)
		if err == ErrElsewhere {
			return fmt.Errorf("a reader of a stopped announcement took it")
		}
	}
	switch {
	case long && g.rank != 1 && !errors.Is(err, ErrStopped):
		return fmt.Errorf("the stopped Bcast: %v, want ErrStopped", err)
	case (!long || g.rank == 1) && err != nil:
		return fmt.Errorf("the Bcast: %v", err)
	}
	if next == "bcast" {
		b := make([]byte, 8)
		err = g.Bcast(b, 0)
	} else {
		err = g.Barrier()
	}
	if g.rank == 1 {
		if !errors.Is(err, ErrTruncate) || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes", m)) {
			return fmt.Errorf("the op after it: %v, want ErrTruncate for %d bytes", err, m)
		}
	} else if err != nil {
		return fmt.Errorf("the op after it: %v", err)
	}
	send, recv := make([]byte, 8), make([]byte, 8)
	send[0] = 1
	if err := g.Allreduce(send, recv, 8, sumU64); err != nil || recv[0] != byte(g.size) {
		return fmt.Errorf("the Allreduce after it: %v, %v", err, recv)
	}
	return nil
}

// TestBcastEmptyStoppedReader: the interleaving in which a reader with an empty
// buffer and the root of a long Bcast each see the other (the reader the root's begun
// word after writing its defer flag, the root the flag after writing that word): the root
// stops the op, and the reader, which waits for the line after all, reports the
// truncation its buffer makes, as it would have from an owed line; the group stays
// in step. Rank 1 makes bcastEmpty's steps by hand to hold the interleaving.
func TestBcastEmptyStoppedReader(t *testing.T) {
	for _, n := range []int{2, 3} {
		l := small
		l.Ranks = n
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			deferred := make(chan struct{}, 1)
			group(t, l, Options{}, func(g *Group) error { return emptyStopped(g, deferred) })
		})
	}
}

func emptyStopped(g *Group, deferred chan struct{}) error {
	const m = 3 * 128 // three chunks of small's: a long Bcast
	var err error
	switch g.rank {
	case 1:
		g.o.S++
		s := g.o.S
		g.o.C++
		c := g.o.C
		seq, _ := g.ring(c, 0)
		atomic.StoreUint64(g.flag(g.rank, fDefer), s)
		g.raise(fArrive, s)
		deferred <- struct{}{}
		for atomic.LoadUint64(g.flag(0, offBegun)) < s {
			runtime.Gosched() // the root begins at once: deferred says so
		}
		if err = g.waitAt(0, seq, c); err == nil {
			err = g.bcastRead(nil, 0, true)
		}
		if !errors.Is(err, ErrTruncate) || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes", m)) {
			err = fmt.Errorf("the empty reader: %v, want ErrTruncate for %d bytes", err, m)
		} else {
			err = nil
		}
	case 0:
		<-deferred
		fallthrough
	default:
		err = wantStopped(g, m)
	}
	return inStep(g, err)
}

// wantStopped is a long Bcast of m bytes from root 0, which a reader's empty buffer
// stops.
func wantStopped(g *Group, m int) error {
	if err := g.Bcast(make([]byte, m), 0); !errors.Is(err, ErrStopped) {
		return fmt.Errorf("the stopped Bcast: %v, want ErrStopped", err)
	}
	return nil
}

// inStep is err joined with the failure of an Allreduce that every rank takes after
// it, whatever it found, so that none waits forever and the group shows in step.
func inStep(g *Group, err error) error {
	send, recv := make([]byte, 8), make([]byte, 8)
	send[0] = 1
	if e := g.Allreduce(send, recv, 8, sumU64); e != nil || recv[0] != byte(g.size) {
		return errors.Join(err, fmt.Errorf("the Allreduce after it: %v, %v", e, recv))
	}
	return err
}

// TestBcastBegunOwing: a reader with an empty buffer that owes an earlier op's line
// and finds the root of a long Bcast begun (the C library's short Bcast hands that
// over: BcastBegun) takes the owed line first, then the op's own, which stops the op
// since the root saw its defer flag: the reader reports the truncation, the root
// ErrStopped, and the group stays in step. Rank 1 makes bcastEmpty's steps by hand,
// as the C code does, to hold the interleaving.
func TestBcastBegunOwing(t *testing.T) {
	left, deferred := make(chan struct{}, 1), make(chan struct{}, 1)
	l := small
	l.Ranks = 2
	group(t, l, Options{}, func(g *Group) error {
		const m = 3 * 128 // three chunks of small's: a long Bcast
		var err error
		switch g.rank {
		case 1:
			if err = g.Bcast(nil, 0); err != nil {
				return fmt.Errorf("the first empty Bcast: %v", err)
			}
			left <- struct{}{}
			if owedN(g.o.Owed) != 1 {
				return fmt.Errorf("the first empty Bcast left %d lines owing, want 1", owedN(g.o.Owed))
			}
			g.o.S++
			s := g.o.S
			g.o.C++
			atomic.StoreUint64(g.flag(g.rank, fDefer), s)
			g.raise(fArrive, s)
			deferred <- struct{}{}
			for atomic.LoadUint64(g.flag(0, offBegun)) < s {
				runtime.Gosched() // the root begins once deferred says so
			}
			err = g.BcastBegun(0)
			switch {
			case !errors.Is(err, ErrTruncate) || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes", m)):
				err = fmt.Errorf("the empty reader: %v, want ErrTruncate for %d bytes", err, m)
			case g.o.Owed != 0:
				err = fmt.Errorf("the empty reader still owes %d lines", owedN(g.o.Owed))
			case atomic.LoadUint64(g.flag(g.rank, fAck)) != g.o.C:
				err = fmt.Errorf("the empty reader acknowledged chunk %d, took %d", atomic.LoadUint64(g.flag(g.rank, fAck)), g.o.C)
			default:
				err = nil
			}
		case 0:
			<-left
			if err = g.Bcast(nil, 0); err != nil {
				return fmt.Errorf("the root's first empty Bcast: %v", err)
			}
			<-deferred
			err = wantStopped(g, m)
		}
		return inStep(g, err)
	})
}

// TestChooserOutlier: once a chooser has found the faster way, one call of it that
// took a thousand times as long (its rank descheduled) does not turn the choice; a way
// that stays slower for good is left within a few calls.
func TestChooserOutlier(t *testing.T) {
	var ch Chooser
	times := [2]float64{1, 3} // way 0 is faster
	pick := func() int {
		v := ch.Pick()
		ch.Record(v, times[v])
		return v
	}
	for range 4 {
		pick() // each way twice
	}
	ch.Record(0, 1000) // a call of the faster way that lost its core
	for k := 0; k < chooseProbe-8; k++ {
		if v := pick(); v != 0 && ch.calls%chooseProbe != 0 {
			t.Fatalf("call %d after one slow call of way 0 took way %d", k+1, v)
		}
	}
	times[0] = 10 // way 0 is slower for good now
	for k := 0; ; k++ {
		if pick() == 1 {
			break
		}
		if k == 8 {
			t.Fatalf("way 0 took 10 against way 1's 3 for %d calls and is still chosen (estimates %v)", k+1, ch.est)
		}
	}
}

// TestLayoutHot: the part of a region mapped in ahead of use holds the header, every
// rank's flags and the whole broadcast ring, and leaves out the reductions' slots, which
// at the default geometry are most of the region.
func TestLayoutHot(t *testing.T) {
	l := Layout{Ranks: 16, Chunk: 16 << 10, Chunks: 8, Slot: 256 << 10}
	hot := l.Hot()
	if end := l.ringOff() + l.Chunks*l.ringStride(); hot < end {
		t.Errorf("Hot %d ends before the broadcast ring's end %d", hot, end)
	}
	if rest := l.Size() - hot; rest < 2*l.Ranks*l.Slot {
		t.Errorf("Hot %d of %d bytes leaves %d, less than the slots' %d", hot, l.Size(), rest, 2*l.Ranks*l.Slot)
	}
}
