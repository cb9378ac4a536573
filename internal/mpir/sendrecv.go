package mpir

import (
	"context"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// Send-receive (MPI 4.1 section 3.10): a send and a receive as one call, so that
// ranks exchanging with each other do not deadlock, and their nonblocking forms (one
// request for both, core.StartPair, whose status is the receive's). Every argument
// is checked before anything starts, the send's first: a receive posted and then
// taken back could have matched a message meanwhile. The send and receive buffers
// must be disjoint (ClassBuffer where two contiguous buffers overlap; the layouts of
// two datatypes may interleave without sharing a byte, and are not compared). The
// _replace forms send a packed copy of the buffer, so that the message received can
// go straight into it.

// Sendrecv sends sb to dest of c with sendtag and receives into rb from src (or
// AnySource) with recvtag (or AnyTag) (MPI_Sendrecv). The status is the receive's,
// with world ranks. With a non-nil ctx it gives up when ctx ends, as Send and Recv
// do.
func Sendrecv(op string, c *core.Comm, ctx context.Context, sb core.Buf, dest, sendtag int,
	rb core.Buf, src, recvtag int) (core.Status, error) {
	n := int(sb.Len())
	// Recorded as the hot calls are (Recv): counted between samples, timed when
	// sampled or when it waits; so is the rest of one whose send the C library did
	// (SendrecvSent), which counts the others itself where Try would.
	var t int64
	if !prof.Try(prof.Sendrecv, c.Prof(), dest, sendtag, n) {
		t = prof.Enter(prof.Sendrecv, c.Prof(), dest, sendtag, n)
	}
	st, err := sendrecv(op, c, ctx, sb, dest, sendtag, rb, src, recvtag)
	if !prof.TryExit(prof.Sendrecv, t, n) {
		prof.Exit(prof.Sendrecv, t, n)
	}
	return st, err
}

// SendrecvSent is what is left of a Sendrecv whose send a face did itself at once,
// its arguments checked as checkPair checks them (the C library's short way:
// abi/libmpi/p2pshort.c): an eager message of n bytes to dest with sendtag that left
// whole and needs nothing more, so that the receive, posted now rather than before
// the send, matches what it would have matched. Recorded as Sendrecv, or with
// replace as SendrecvReplace (whose send the face copied into the ring, so that the
// message received may go straight into the buffer).
func SendrecvSent(op string, c *core.Comm, replace bool, n, dest, sendtag int, rb core.Buf, src, recvtag int) (st core.Status, err error) {
	call := prof.Sendrecv
	if replace {
		call = prof.SendrecvReplace
	}
	var t int64
	if !prof.Try(call, c.Prof(), dest, sendtag, n) {
		t = prof.Enter(call, c.Prof(), dest, sendtag, n)
	}
	q, err := irecv(prof.None, op, c, rb, src, recvtag)
	if err == nil {
		if err = core.WaitInto(&q, &st); err != nil {
			err = core.RecvErr(op, SourceRank(c, st.Source), core.MapErr(op, err))
		}
	} else {
		st = emptyStatus
	}
	if !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
	return st, err
}

// SendrecvReplace sends b to dest and replaces its contents with a message from src
// (MPI_Sendrecv_replace), as Sendrecv.
func SendrecvReplace(op string, c *core.Comm, ctx context.Context, b core.Buf, dest, sendtag, src, recvtag int) (core.Status, error) {
	n := int(b.Len())
	var t int64 // recorded as Sendrecv is
	if !prof.Try(prof.SendrecvReplace, c.Prof(), dest, sendtag, n) {
		t = prof.Enter(prof.SendrecvReplace, c.Prof(), dest, sendtag, n)
	}
	st, err := sendrecv(op, c, ctx, packed(b), dest, sendtag, b, src, recvtag)
	if !prof.TryExit(prof.SendrecvReplace, t, n) {
		prof.Exit(prof.SendrecvReplace, t, n)
	}
	return st, err
}

// sendrecv is Sendrecv unrecorded, and its parts too. A call that fails before its
// receive completes gives the empty status (nothing was received).
func sendrecv(op string, c *core.Comm, ctx context.Context, sb core.Buf, dest, sendtag int,
	rb core.Buf, src, recvtag int) (st core.Status, err error) {
	if err := checkPair(op, c, sb, dest, sendtag, rb, src, recvtag); err != nil {
		return emptyStatus, err
	}
	q, err := c.IrecvPair(op, rb, src, recvtag, dest, sb.Len())
	if err != nil {
		return emptyStatus, err
	}
	part := Proc{Call: prof.None, Op: op, Mode: core.ModeStandard}
	if ctx != nil {
		err = SendView(&part, c, ctx, sb, dest, sendtag)
	} else {
		err = Send(&part, c, sb, dest, sendtag)
	}
	if err != nil {
		core.Cancel(&q)
		core.WaitInto(&q, &st)
		return emptyStatus, err
	}
	if ctx != nil {
		err = EndRecv(op, ctx, &q, &st)
	} else if err = core.WaitInto(&q, &st); err != nil {
		err = core.MapErr(op, err)
	}
	if err != nil {
		err = core.RecvErr(op, SourceRank(c, st.Source), err)
	}
	return st, err
}

// Isendrecv starts a send of sb to dest and a receive into rb from src on c, as one
// request complete once both are (MPI_Isendrecv).
func Isendrecv(op string, c *core.Comm, sb core.Buf, dest, sendtag int, rb core.Buf, src, recvtag int) (*core.Pending, error) {
	n := int(sb.Len())
	defer prof.Exit(prof.Isendrecv, prof.EnterTimed(prof.Isendrecv, c.Prof(), dest, sendtag, n), n)
	return isendrecv(op, c, sb, dest, sendtag, rb, src, recvtag)
}

// IsendrecvReplace starts a send of b to dest and the replacement of its contents by
// a message from src, as one request (MPI_Isendrecv_replace).
func IsendrecvReplace(op string, c *core.Comm, b core.Buf, dest, sendtag, src, recvtag int) (*core.Pending, error) {
	n := int(b.Len())
	defer prof.Exit(prof.IsendrecvReplace, prof.EnterTimed(prof.IsendrecvReplace, c.Prof(), dest, sendtag, n), n)
	return isendrecv(op, c, packed(b), dest, sendtag, b, src, recvtag)
}

func isendrecv(op string, c *core.Comm, sb core.Buf, dest, sendtag int, rb core.Buf, src, recvtag int) (*core.Pending, error) {
	if err := checkPair(op, c, sb, dest, sendtag, rb, src, recvtag); err != nil {
		return nil, err
	}
	rq, err := c.IrecvPair(op, rb, src, recvtag, dest, sb.Len())
	if err != nil {
		return nil, err
	}
	sq, err := c.Isend(op, sb, dest, sendtag, core.ModeStandard, false)
	if err != nil {
		var st core.Status // the engine's wait stores a status
		core.Cancel(&rq)
		core.WaitInto(&rq, &st)
		return nil, err
	}
	return core.StartPair(op, sq, rq, nil), nil
}

// checkPair checks a send-receive's arguments on c.
func checkPair(op string, c *core.Comm, sb core.Buf, dest, sendtag int, rb core.Buf, src, recvtag int) error {
	if _, err := c.Target(op, "dest", dest, sendtag, false); err != nil {
		return err
	}
	if _, err := c.Target(op, "source", src, recvtag, true); err != nil {
		return err
	}
	if overlap(sb, rb) {
		return core.Errorf(core.ClassBuffer, op, "the send and receive buffers overlap: they must be disjoint "+
			"(MPI 4.1 sec. 3.10; the replace form sends and receives in one buffer)")
	}
	return nil
}

// overlap reports whether two contiguous buffers share a byte.
func overlap(a, b core.Buf) bool {
	pa, na, oka := a.Memory()
	pb, nb, okb := b.Memory()
	if !oka || !okb || na == 0 || nb == 0 {
		return false
	}
	x, y := uintptr(unsafe.Pointer(pa)), uintptr(unsafe.Pointer(pb))
	return x < y+uintptr(nb) && y < x+uintptr(na)
}

// packed is a packed copy of b's message.
func packed(b core.Buf) core.Buf {
	tmp := make([]byte, b.Len())
	b.PackTo(tmp)
	return core.Bytes(tmp)
}
