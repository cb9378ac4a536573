package mpi_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

func TestRing(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		w := mpi.World
		out := []float64{float64(rank), float64(rank) * 1.5}
		in := make([]float64, 2)
		st, err := mpi.Sendrecv(w, out, (rank+1)%size, 3, in, (rank-1+size)%size, 3)
		must(t, err)
		from := (rank - 1 + size) % size
		if in[0] != float64(from) || in[1] != float64(from)*1.5 || st.Source != from || st.Tag != 3 {
			t.Errorf("got %v from %d (status %+v)", in, from, st)
		}
		if mpi.GetCount[float64](st) != 2 || mpi.GetCount[float32](st) != 4 {
			t.Errorf("counts %d %d", mpi.GetCount[float64](st), mpi.GetCount[float32](st))
		}
	})
}

// TestOrderingMixedSizes sends small and large messages alternately on one tag: the
// receiver must see them in the order sent, whatever protocol each took.
func TestOrderingMixedSizes(t *testing.T) {
	sizes := []int{1, 70000, 8, 3 << 20, 0, 5000, 1 << 20, 64, 33000, 2}
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		if rank == 0 {
			var reqs []mpi.Request
			for i, n := range sizes {
				b := make([]byte, n)
				for k := range b {
					b[k] = byte(i + k)
				}
				r, err := mpi.Isend(w, b, 1, 9)
				must(t, err)
				reqs = append(reqs, r)
			}
			must(t, mpi.Waitall(reqs, nil))
			return
		}
		for i, n := range sizes {
			b := make([]byte, 4<<20)
			st, err := mpi.Recv(w, b, 0, 9)
			must(t, err)
			if int(st.Bytes()) != n {
				t.Fatalf("message %d: %d bytes, want %d (out of order?)", i, st.Bytes(), n)
			}
			for k := 0; k < n; k++ {
				if b[k] != byte(i+k) {
					t.Fatalf("message %d byte %d = %d", i, k, b[k])
				}
			}
		}
	})
}

func TestWildcardsFromManySenders(t *testing.T) {
	job(t, 5, func(t *testing.T, rank, size int) {
		w := mpi.World
		if rank != 0 {
			for k := 0; k < 20; k++ {
				must(t, mpi.Send(w, []int32{int32(rank), int32(k)}, 0, rank))
			}
			return
		}
		next := make([]int32, size)
		for i := 0; i < 20*(size-1); i++ {
			b := make([]int32, 2)
			st, err := mpi.Recv(w, b, mpi.AnySource, mpi.AnyTag)
			must(t, err)
			if int(b[0]) != st.Source || st.Tag != st.Source || b[1] != next[st.Source] {
				t.Fatalf("got %v with status %+v, want message %d of rank %d", b, st, next[st.Source], st.Source)
			}
			next[st.Source]++
		}
	})
}

func TestProbeThenReceive(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		if rank == 1 {
			must(t, mpi.Send(w, make([]int64, 37), 0, 5))
			must(t, mpi.Send(w, []int64{42}, 0, 6))
			return
		}
		st, err := w.Probe(1, 5)
		must(t, err)
		n := mpi.GetCount[int64](st)
		if n != 37 {
			t.Fatalf("Probe says %d elements", n)
		}
		_, err = mpi.Recv(w, make([]int64, n), 1, 5)
		must(t, err)
		m, st, err := w.Mprobe(mpi.AnySource, 6)
		must(t, err)
		got := make([]int64, 1)
		_, err = mpi.Mrecv(got, &m)
		must(t, err)
		if got[0] != 42 || st.Source != 1 {
			t.Errorf("Mrecv got %v from %d", got, st.Source)
		}
		if _, ok, err := w.Iprobe(mpi.AnySource, mpi.AnyTag); ok || err != nil {
			t.Errorf("Iprobe found a message after everything was received (err %v)", err)
		}
	})
}

func TestTruncation(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		for _, n := range []int{10, 100000} {
			if rank == 0 {
				b := make([]byte, n)
				for i := range b {
					b[i] = byte(i)
				}
				must(t, mpi.Send(w, b, 1, 1))
				continue
			}
			small := make([]byte, 4)
			_, err := mpi.Recv(w, small, 0, 1)
			if !errors.Is(err, mpi.ErrTruncate) {
				t.Fatalf("%d-byte message into 4 bytes: %v, want ErrTruncate", n, err)
			}
			if fmt.Sprint(small) != "[0 1 2 3]" {
				t.Errorf("the buffer holds %v, want the prefix", small)
			}
		}
	})
}

func TestSelfMessages(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		in := make([]uint16, 3)
		r, err := mpi.Irecv(mpi.Self, in, 0, 1)
		must(t, err)
		must(t, mpi.Send(mpi.Self, []uint16{1, 2, 3}, 0, 1))
		_, err = r.Wait()
		must(t, err)
		if fmt.Sprint(in) != "[1 2 3]" {
			t.Errorf("self message %v", in)
		}
		must(t, mpi.Send(mpi.World, []int{rank}, rank, 2))
		got := []int{-1}
		_, err = mpi.Recv(mpi.World, got, rank, 2)
		must(t, err)
		if got[0] != rank {
			t.Errorf("world message to self: %v", got)
		}
	})
}

func TestBadArguments(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		cases := []struct {
			err  error
			want error
		}{
			{mpi.Send(w, []int{1}, 2, 0), mpi.ErrRank},
			{mpi.Send(w, []int{1}, -5, 0), mpi.ErrRank},
			{mpi.Send(w, []int{1}, 0, -1), mpi.ErrTag},
			{mpi.Send(w, []int{1}, 0, mpi.TagUB+1), mpi.ErrTag},
		}
		_, err := mpi.Recv(w, []int{1}, 7, 0)
		cases = append(cases, struct{ err, want error }{err, mpi.ErrRank})
		for i, c := range cases {
			if !errors.Is(c.err, c.want) {
				t.Errorf("case %d: %v, want class %v", i, c.err, c.want)
			}
		}
		if err := mpi.Send(w, []int{1}, 2, 0); err == nil || err.Error() != "mpi: Send: dest 2 out of range [0,2) for MPI_COMM_WORLD" {
			t.Errorf("message %q", err)
		}
		// ProcNull moves nothing and succeeds.
		must(t, mpi.Send(w, []int{1}, mpi.ProcNull, 0))
		st, err := mpi.Recv(w, []int{1}, mpi.ProcNull, 0)
		if err != nil || st.Source != mpi.ProcNull || st.Bytes() != 0 {
			t.Errorf("Recv from ProcNull: %+v %v", st, err)
		}
	})
}

func TestManyOutstandingRequests(t *testing.T) {
	const n = 3000
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		bufs := make([][]int32, n)
		reqs := make([]mpi.Request, n)
		var err error
		for i := range reqs {
			bufs[i] = []int32{int32(i)}
			if rank == 0 {
				reqs[i], err = mpi.Isend(w, bufs[i], 1, i%7)
			} else {
				bufs[i][0] = -1
				reqs[i], err = mpi.Irecv(w, bufs[i], 0, i%7)
			}
			must(t, err)
		}
		sts := make([]mpi.Status, n)
		must(t, mpi.Waitall(reqs, sts))
		if rank == 1 {
			for i := range bufs {
				if bufs[i][0] != int32(i) {
					t.Fatalf("request %d received %d", i, bufs[i][0])
				}
			}
		}
	})
}

// TestRequestGetStatus: GetStatus reports completion without using the request up:
// the same request then waits (and a persistent one restarts), and a nonblocking
// collective's request answers too.
func TestRequestGetStatus(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		if rank == 0 {
			buf := make([]int, 3)
			r, err := mpi.Irecv(w, buf, 1, 7)
			must(t, err)
			// Rank 1 sends only after this rank has seen the receive pending.
			st, ok, err := r.GetStatus()
			must(t, err)
			if ok {
				t.Fatalf("GetStatus before the message was sent: complete, %+v", st)
			}
			must(t, mpi.Send(w, []int{1}, 1, 8))
			for !ok {
				st, ok, err = r.GetStatus()
				must(t, err)
			}
			if st.Source != 1 || st.Tag != 7 || mpi.GetCount[int](st) != 3 {
				t.Errorf("GetStatus: %+v, want source 1, tag 7, 3 ints", st)
			}
			st2, ok2, err := r.GetStatus() // again: still there
			must(t, err)
			if !ok2 || st2.Source != 1 {
				t.Errorf("a second GetStatus: %v %+v", ok2, st2)
			}
			st3, err := r.Wait()
			must(t, err)
			if st3.Source != 1 || st3.Tag != 7 || buf[2] != 42 {
				t.Errorf("Wait after GetStatus: %+v, %v", st3, buf)
			}
			// A persistent receive: complete by GetStatus, then still active until Wait,
			// and startable again after it.
			p, err := mpi.RecvInit(w, buf, 1, 9)
			must(t, err)
			for round := 0; round < 2; round++ {
				must(t, p.Start())
				must(t, mpi.Send(w, []int{round}, 1, 10))
				for ok = false; !ok; {
					_, ok, err = p.GetStatus()
					must(t, err)
				}
				_, err = p.Wait()
				must(t, err)
				if buf[0] != round {
					t.Errorf("persistent round %d: got %v", round, buf)
				}
			}
			must(t, p.Free())
		} else {
			var go1 [1]int
			_, err := mpi.Recv(w, go1[:], 0, 8)
			must(t, err)
			must(t, mpi.Send(w, []int{0, 0, 42}, 0, 7))
			for round := 0; round < 2; round++ {
				_, err = mpi.Recv(w, go1[:], 0, 10)
				must(t, err)
				must(t, mpi.Send(w, []int{round, 0, 0}, 0, 9))
			}
		}
		r, err := w.Ibarrier()
		must(t, err)
		for ok := false; !ok; {
			_, ok, err = r.GetStatus()
			must(t, err)
		}
		_, err = r.Wait()
		must(t, err)
		if !strings.HasPrefix(mpi.LibraryVersion(), "mpigo ") {
			t.Errorf("LibraryVersion() = %q", mpi.LibraryVersion())
		}
	})
}

// TestSendrecvLargeExchange: pairs of ranks exchanging large messages back to back,
// with Sendrecv and Isendrecv in turn, so that one rank's offer is often here before
// the other's receive is posted (the exchange's receive, p2p's IrecvPair); every
// message arrives whole and in order.
func TestSendrecvLargeExchange(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		peer := 1 - rank
		for _, n := range []int{128 << 10, 256 << 10, 1 << 20} {
			out, in := make([]byte, n), make([]byte, n)
			for round := range 20 {
				for i := range out {
					out[i] = byte(rank*7 + round*3 + i>>10)
				}
				var st mpi.Status
				var err error
				if round%2 == 0 {
					st, err = mpi.Sendrecv(mpi.World, out, peer, round, in, peer, round)
				} else {
					var q mpi.Request
					q, err = mpi.Isendrecv(mpi.World, out, peer, round, in, peer, round)
					must(t, err)
					st, err = q.Wait()
				}
				must(t, err)
				if st.Source != peer || st.Tag != round || mpi.GetCount[byte](st) != n {
					t.Fatalf("%d bytes, round %d: status %+v", n, round, st)
				}
				for i := range in {
					if in[i] != byte(peer*7+round*3+i>>10) {
						t.Fatalf("%d bytes, round %d: byte %d is %d", n, round, i, in[i])
					}
				}
			}
		}
	})
}
