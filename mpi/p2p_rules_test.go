package mpi_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// The point-to-point rules of MPI 4.1 chapter 3, call by call. The C face's program
// abi/testdata/p2prules.c checks the same list (TestPointToPointRules there), so that
// the two faces, which share internal/mpir, cannot drift apart unnoticed.

func err2[A any](_ A, err error) error                 { return err }
func err3[A, B any](_ A, _ B, err error) error         { return err }
func err4[A, B, C any](_ A, _ B, _ C, err error) error { return err }

// TestPointToPointRules: a rank out of range is ErrRank, a tag out of [0, TagUB]
// ErrTag, and AnySource and AnyTag are a receive's or a probe's only (sec. 3.2.3,
// 3.2.4), for every call that takes them.
func TestPointToPointRules(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		x, y := []int{1}, []int{2}
		cases := []struct {
			name string
			err  error
			want error
		}{
			{"Send dest=size", mpi.Send(w, x, size, 0), mpi.ErrRank},
			{"Send dest=AnySource", mpi.Send(w, x, mpi.AnySource, 0), mpi.ErrRank},
			{"Send tag=AnyTag", mpi.Send(w, x, 0, mpi.AnyTag), mpi.ErrTag},
			{"Send tag=TagUB+1", mpi.Send(w, x, 0, mpi.TagUB+1), mpi.ErrTag},
			{"Ssend dest=-5", mpi.Ssend(w, x, -5, 0), mpi.ErrRank},
			{"Rsend tag=-5", mpi.Rsend(w, x, 0, -5), mpi.ErrTag},
			{"Bsend dest=size", mpi.Bsend(w, x, size, 0), mpi.ErrRank},
			{"Recv src=size", err2(mpi.Recv(w, x, size, 0)), mpi.ErrRank},
			{"Recv tag=-5", err2(mpi.Recv(w, x, 0, -5)), mpi.ErrTag},
			{"Isend dest=AnySource", err2(mpi.Isend(w, x, mpi.AnySource, 0)), mpi.ErrRank},
			{"Issend tag=AnyTag", err2(mpi.Issend(w, x, 0, mpi.AnyTag)), mpi.ErrTag},
			{"Irecv src=-5", err2(mpi.Irecv(w, x, -5, 0)), mpi.ErrRank},
			{"Irecv tag=TagUB+1", err2(mpi.Irecv(w, x, 0, mpi.TagUB+1)), mpi.ErrTag},
			{"SendInit dest=size", err2(mpi.SendInit(w, x, size, 0)), mpi.ErrRank},
			{"RecvInit tag=-5", err2(mpi.RecvInit(w, x, 0, -5)), mpi.ErrTag},
			{"Probe src=size", err2(w.Probe(size, 0)), mpi.ErrRank},
			{"Iprobe tag=-5", err3(w.Iprobe(0, -5)), mpi.ErrTag},
			{"Mprobe src=-5", err3(w.Mprobe(-5, 0)), mpi.ErrRank},
			{"Improbe tag=TagUB+1", err4(w.Improbe(0, mpi.TagUB+1)), mpi.ErrTag},
			{"Sendrecv dest=AnySource", err2(mpi.Sendrecv(w, x, mpi.AnySource, 0, y, 0, 0)), mpi.ErrRank},
			{"Sendrecv recvtag=-5", err2(mpi.Sendrecv(w, x, 0, 0, y, 0, -5)), mpi.ErrTag},
			{"SendrecvReplace src=size", err2(mpi.SendrecvReplace(w, x, 0, 0, size, 0)), mpi.ErrRank},
			{"Isendrecv dest=size", err2(mpi.Isendrecv(w, x, size, 0, y, 0, 0)), mpi.ErrRank},
			{"IsendrecvReplace sendtag=AnyTag", err2(mpi.IsendrecvReplace(w, x, 0, mpi.AnyTag, 0, 0)), mpi.ErrTag},
		}
		for _, c := range cases {
			if !errors.Is(c.err, c.want) {
				t.Errorf("%s: %v, want class %v", c.name, c.err, c.want)
			}
		}
		must(t, w.Barrier())
	})
}

// TestPointToPointProcNull: every call with MPI_PROC_NULL as its peer completes at
// once, moving nothing; a receive's status is source ProcNull, tag AnyTag, count 0
// (sec. 3.11), a matching probe's message is the message from no process, which
// Mrecv and Imrecv receive as such a receive. No buffer is needed for a Bsend to it.
func TestPointToPointProcNull(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		x := []int{7}
		procNull := func(what string, st mpi.Status, err error) {
			t.Helper()
			if err != nil || st.Source != mpi.ProcNull || st.Tag != mpi.AnyTag || st.Bytes() != 0 {
				t.Errorf("%s: status %+v (%d bytes), %v; want source ProcNull, tag AnyTag, 0 bytes", what, st, st.Bytes(), err)
			}
		}
		for _, send := range []func() error{
			func() error { return mpi.Send(w, x, mpi.ProcNull, 0) },
			func() error { return mpi.Ssend(w, x, mpi.ProcNull, 0) },
			func() error { return mpi.Rsend(w, x, mpi.ProcNull, 0) },
			func() error { return mpi.Bsend(w, x, mpi.ProcNull, 0) },
		} {
			must(t, send())
		}
		st, err := mpi.Recv(w, x, mpi.ProcNull, 0)
		procNull("Recv", st, err)
		r, err := mpi.Irecv(w, x, mpi.ProcNull, mpi.AnyTag)
		must(t, err)
		st, err = r.Wait()
		procNull("Irecv", st, err)
		r, err = mpi.Ibsend(w, x, mpi.ProcNull, 0)
		must(t, err)
		_, err = r.Wait()
		must(t, err)
		st, err = w.Probe(mpi.ProcNull, 0)
		procNull("Probe", st, err)
		st, ok, err := w.Iprobe(mpi.ProcNull, mpi.AnyTag)
		procNull("Iprobe", st, err)
		if !ok {
			t.Error("Iprobe from ProcNull found no message")
		}
		m, st, err := w.Mprobe(mpi.ProcNull, 0)
		procNull("Mprobe", st, err)
		st, err = mpi.Mrecv(x, &m)
		procNull("Mrecv of Mprobe's message from no process", st, err)
		m, st, ok, err = w.Improbe(mpi.ProcNull, 0)
		procNull("Improbe", st, err)
		if !ok {
			t.Error("Improbe from ProcNull found no message")
		}
		r, err = mpi.Imrecv(x, &m)
		must(t, err)
		st, err = r.Wait()
		procNull("Imrecv of Improbe's message from no process", st, err)
		st, err = mpi.Sendrecv(w, x, mpi.ProcNull, 0, make([]int, 1), mpi.ProcNull, 0)
		procNull("Sendrecv", st, err)
		st, err = mpi.SendrecvReplace(w, x, mpi.ProcNull, 0, mpi.ProcNull, 0)
		procNull("SendrecvReplace", st, err)
		r, err = mpi.Isendrecv(w, x, mpi.ProcNull, 0, make([]int, 1), mpi.ProcNull, 0)
		must(t, err)
		st, err = r.Wait()
		procNull("Isendrecv", st, err)
		if x[0] != 7 {
			t.Errorf("a receive from ProcNull changed the buffer: %v", x)
		}
	})
}

// TestSendrecvChecksFirst: a send-receive whose send has a bad argument fails before
// it posts its receive (sec. 3.10 defines it as a send and a receive executed
// together), so a message that has arrived for that receive stays for the next.
func TestSendrecvChecksFirst(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		if rank == 1 {
			must(t, mpi.Send(w, []int{41}, 0, 7))
			must(t, mpi.Send(w, []int{42}, 0, 8))
			must(t, w.Barrier())
			return
		}
		for tag, call := range map[int]func([]int) error{
			7: func(got []int) error { return err2(mpi.Sendrecv(w, []int{0}, size, 0, got, 1, 7)) },
			8: func(got []int) error {
				return err2(mpi.Isendrecv(w, []int{0}, mpi.AnySource, 0, got, 1, 8))
			},
		} {
			_, err := w.Probe(1, tag) // the message is here
			must(t, err)
			got := []int{-1}
			if err := call(got); !errors.Is(err, mpi.ErrRank) || got[0] != -1 {
				t.Errorf("tag %d: a bad dest gave %v and received %v; want ErrRank and nothing", tag, err, got)
			}
			if _, err := mpi.Recv(w, got, 1, tag); err != nil || got[0] != 40+tag-6 {
				t.Errorf("tag %d: the message was taken: Recv got %v, %v", tag, got, err)
			}
		}
		must(t, w.Barrier())
	})
}

// TestSendrecvDisjoint: the send and receive buffers of a send-receive must be
// disjoint (sec. 3.10): overlapping ones are an error of class ErrBuffer, on every
// form, and nothing is sent; adjacent ones are fine.
func TestSendrecvDisjoint(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w, peer := mpi.World, 1-rank
		buf := []int{rank, rank, -1}
		if err := err2(mpi.Sendrecv(w, buf, peer, 0, buf, peer, 0)); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("Sendrecv of one buffer: %v, want ErrBuffer", err)
		}
		if err := err2(mpi.Sendrecv(w, buf[:2], peer, 0, buf[1:], peer, 0)); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("Sendrecv of overlapping buffers: %v, want ErrBuffer", err)
		}
		if err := err2(mpi.Isendrecv(w, buf[1:], peer, 0, buf[:2], peer, 0)); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("Isendrecv of overlapping buffers: %v, want ErrBuffer", err)
		}
		st, err := mpi.Sendrecv(w, buf[:1], peer, 0, buf[2:], peer, 0)
		must(t, err)
		if buf[2] != peer || st.Source != peer {
			t.Errorf("Sendrecv of disjoint parts of one array: %v, status %+v", buf, st)
		}
		if _, ok, _ := w.Iprobe(mpi.AnySource, mpi.AnyTag); ok {
			t.Error("a send-receive that failed its check sent its message")
		}
	})
}

// TestMrecvNullMessage: Mrecv and Imrecv of no message (a nil one, or one already
// received) are errors of class ErrRequest, raised through the handler of Self (MPI
// 4.1 sec. 9.3: an error not tied to a communicator).
func TestMrecvNullMessage(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		var raised []error
		h := mpi.NewErrHandler(func(_ *mpi.Comm, err error) { raised = append(raised, err) })
		old := mpi.Self.ErrHandler()
		must(t, mpi.Self.SetErrHandler(h))
		defer mpi.Self.SetErrHandler(old)
		var zero mpi.Message
		x := []int{0}
		for name, err := range map[string]error{
			"Mrecv(nil)":        err2(mpi.Mrecv(x, nil)),
			"Mrecv(&Message{})": err2(mpi.Mrecv(x, &zero)),
			"Imrecv(nil)":       err2(mpi.Imrecv(x, nil)),
		} {
			if !errors.Is(err, mpi.ErrRequest) {
				t.Errorf("%s: %v, want ErrRequest", name, err)
			}
		}
		if len(raised) != 3 {
			t.Errorf("Self's handler saw %d errors, want 3: %v", len(raised), raised)
		}
		// A message received once is used up.
		must(t, mpi.Send(mpi.Self, x, 0, 1))
		m, _, err := mpi.Self.Mprobe(0, 1)
		must(t, err)
		must(t, err2(mpi.Mrecv(x, &m)))
		if err := err2(mpi.Mrecv(x, &m)); !errors.Is(err, mpi.ErrRequest) {
			t.Errorf("Mrecv of a message received already: %v, want ErrRequest", err)
		}
	})
}

// TestBufferOfNoBytes: a buffer of no bytes may be attached (its size is a
// non-negative integer, sec. 3.6.1) to the process, a communicator and a session; a
// buffered send then fails for want of room (ErrBuffer), and detach gives it back.
// No buffer at all (nil) is ErrBuffer.
func TestBufferOfNoBytes(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w, peer := mpi.World, 1-rank
		none := make([]byte, 0, 8)
		if err := mpi.BufferAttach(nil); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("BufferAttach(nil): %v, want ErrBuffer", err)
		}
		must(t, mpi.BufferAttach(none))
		if err := mpi.Bsend(w, []int{1}, peer, 0); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("Bsend with a buffer of no bytes: %v, want ErrBuffer", err)
		}
		b, err := mpi.BufferDetach()
		must(t, err)
		if len(b) != 0 || cap(b) != cap(none) {
			t.Errorf("BufferDetach gave %d bytes (cap %d), want the buffer attached", len(b), cap(b))
		}
		must(t, w.AttachBuffer(none))
		b, err = w.DetachBuffer()
		must(t, err)
		if len(b) != 0 || cap(b) != cap(none) {
			t.Errorf("DetachBuffer gave %d bytes (cap %d), want the buffer attached", len(b), cap(b))
		}
		s, err := mpi.SessionInit(nil, mpi.ErrorsReturn)
		must(t, err)
		must(t, s.AttachBuffer(none))
		b, err = s.DetachBuffer()
		must(t, err)
		if len(b) != 0 || cap(b) != cap(none) {
			t.Errorf("Session.DetachBuffer gave %d bytes (cap %d), want the buffer attached", len(b), cap(b))
		}
		if err := s.AttachBuffer(nil); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("Session.AttachBuffer(nil): %v, want ErrBuffer", err)
		}
		must(t, s.Finalize())
		if !slices.Equal(none[:cap(none)], make([]byte, 8)) {
			t.Error("a buffer of no bytes was written to")
		}
	})
}
