package mpir

import (
	"context"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// Point-to-point communication (MPI 4.1 chapter 3), once for both faces. A face turns
// its arguments into the device's (a buffer as core.Buf, its sentinels as the
// device's AnySource, AnyTag and ProcNull), calls one function here, and turns the
// answer into its own (a status, a request handle) and its error through its error
// handler. Here, and only here:
//
//   - The arguments the standard defines are checked, with its error classes: the
//     communicator (ClassComm), a rank of it or ProcNull (ClassRank), a tag in
//     [0, MaxTag] (ClassTag), AnySource and AnyTag for receives and probes only; the
//     send and receive buffers of a Sendrecv must not overlap (ClassBuffer). Counts
//     and datatypes are the face's to check as it builds the buffer.
//   - ProcNull completes at once: a send to it moves nothing, a receive from it
//     gets source ProcNull, tag AnyTag and count 0 (sec. 3.11).
//   - Each call is recorded once (internal/prof): the hot calls (Send, Recv, Isend,
//     Irecv) through the record's inlined short paths, the others timed. A call made
//     of others (Sendrecv of a receive, a send and a wait) records itself and not its
//     parts, so that it counts once at MPI_THREAD_MULTIPLE too, where the record
//     cannot tell a nested call from another thread's.
//   - The device's errors get their MPI classes (core.MapErr).
//
// Statuses come back as the device's (core.Status), their source a world rank, which
// SourceRank turns into a rank of the communicator; Recv's, field by field, has the
// communicator's rank already.
//
// The small-message path: a send or receive on a communicator whose ranks are world
// ranks, with a rank and tag in range (core.Comm.DirectSend, DirectRecv), goes to the
// engine with nothing left to check or translate. It is the hottest path of the
// library, so the functions on it take the device's buffer and answer field by
// field: a Status (48 bytes) returned by value is copied through memory at every
// return.
//
// The Go face's context views give a blocking call a context that ends it
// (p2p_ctx.go): SendView and RecvView on the small-message path, whose own calls
// take none, and a ctx argument of the others; the C face passes nil.

// SourceRank is the rank in c of a status's source w, a world rank (ProcNull and
// AnySource as they are).
func SourceRank(c *core.Comm, w int) int {
	if w >= 0 && c != nil {
		return c.CommRank(w)
	}
	return w
}

// A Proc is a point-to-point procedure as mpir runs it: how the record names it
// (prof.None: not recorded, a part of a call made of several), what its errors call
// it, and a send's mode. The Procs below are the standard's procedures, named as the
// standard does (without MPI_); a face that names one otherwise makes its own (As).
// A Proc is one argument where three would be: the small-message path's calls then
// pass every argument in registers.
type Proc struct {
	Call  prof.Call
	Op    string
	Mode  core.Mode
	large *Proc // the large-count form (Large)
}

// The point-to-point procedures.
var (
	ProcSend      = standard(prof.Send, "Send", core.ModeStandard)
	ProcSsend     = standard(prof.Ssend, "Ssend", core.ModeSynchronous)
	ProcRsend     = standard(prof.Rsend, "Rsend", core.ModeReady)
	ProcBsend     = standard(prof.Bsend, "Bsend", core.ModeBuffered)
	ProcIsend     = standard(prof.Isend, "Isend", core.ModeStandard)
	ProcIssend    = standard(prof.Issend, "Issend", core.ModeSynchronous)
	ProcIrsend    = standard(prof.Irsend, "Irsend", core.ModeReady)
	ProcIbsend    = standard(prof.Ibsend, "Ibsend", core.ModeBuffered)
	ProcSendInit  = standard(prof.SendInit, "Send_init", core.ModeStandard)
	ProcSsendInit = standard(prof.SsendInit, "Ssend_init", core.ModeSynchronous)
	ProcRsendInit = standard(prof.RsendInit, "Rsend_init", core.ModeReady)
	ProcBsendInit = standard(prof.BsendInit, "Bsend_init", core.ModeBuffered)
	ProcRecvInit  = standard(prof.RecvInit, "Recv_init", core.ModeStandard)
)

// As is p named op in its errors.
func (p *Proc) As(op string) *Proc {
	q := *p
	q.Op, q.large = op, nil
	return &q
}

// Large is p's large-count form (the C binding's MPI_Send_c to MPI_Send): the same
// procedure, named so in its errors. A Proc that is not one of the standard's is its
// own.
func (p *Proc) Large() *Proc {
	if p.large != nil {
		return p.large
	}
	return p
}

// standard is the standard's procedure op, with its large-count form.
func standard(call prof.Call, op string, m core.Mode) *Proc {
	return &Proc{Call: call, Op: op, Mode: m, large: &Proc{Call: call, Op: op + "_c", Mode: m}}
}

// Send is the blocking send of b to rank dest of c with tag (MPI_Send, MPI_Ssend,
// MPI_Rsend, MPI_Bsend: p says which), recorded as p.Call.
func Send(p *Proc, c *core.Comm, b core.Buf, dest, tag int) (err error) {
	n := int(b.Len())
	direct := c.DirectSend(dest, tag)
	if direct {
		// An eager message that leaves at once is recorded once it has left.
		if how := prof.Later(p.Call, n); how != prof.LaterNot {
			if sent, err := c.SendNow(b, dest, tag, p.Mode); sent {
				if how == prof.LaterCount {
					prof.Count(p.Call, n)
				} else {
					prof.SentEvent(p.Call, c.Prof(), dest, tag, n)
				}
				return core.MapErr(p.Op, err)
			}
		}
	}
	// The record's short paths, inlined (enterSend and exit are not).
	var t int64
	if p.Call != prof.None && !prof.Try(p.Call, c.Prof(), dest, tag, n) {
		if t = prof.TryDeferred(p.Call, c.Prof(), dest, tag, n); t == 0 {
			t = prof.Enter(p.Call, c.Prof(), dest, tag, n)
		}
	}
	if direct {
		// The common case in one call: no rank to translate, nothing to check further.
		err = core.MapErr(p.Op, c.SendDirect(b, dest, tag, p.Mode))
	} else {
		err = c.Send(p.Op, b, dest, tag, p.Mode)
	}
	if p.Call != prof.None && !prof.TryExit(p.Call, t, n) {
		prof.Exit(p.Call, t, n)
	}
	return err
}

// SendView is Send that gives up when ctx ends (the Go face's context views),
// cancelling the message if it has not left.
func SendView(p *Proc, c *core.Comm, ctx context.Context, b core.Buf, dest, tag int) error {
	n := int(b.Len())
	t := enterSend(p.Call, c, dest, tag, n)
	err := sendCtx(p.Op, c, ctx, b, dest, tag, p.Mode)
	exit(p.Call, t, n)
	return err
}

// enterSend is the record's entry of a send or blocking receive (call, of n bytes,
// to or from peer with tag), with its short paths: 0 where it recorded the call
// already or call is prof.None. (The inliner refuses it: the hot calls say the same
// themselves.)
func enterSend(call prof.Call, c *core.Comm, peer, tag, n int) (t int64) {
	if call != prof.None && !prof.Try(call, c.Prof(), peer, tag, n) {
		if t = prof.TryDeferred(call, c.Prof(), peer, tag, n); t == 0 {
			t = prof.Enter(call, c.Prof(), peer, tag, n)
		}
	}
	return t
}

// exit is prof.Exit with its short path; nothing for prof.None.
func exit(call prof.Call, t int64, n int) {
	if call != prof.None && !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
}

// Recv is the blocking receive into b of a message from rank src of c (or
// AnySource) with tag (or AnyTag) (MPI_Recv, named op in its errors: "Recv", or the C
// binding's "Recv_c"): its status field by field, its source a rank of c. A longer
// message fills b and returns an error of class ClassTruncate.
func Recv(op string, c *core.Comm, b core.Buf, src, tag int) (from, gotTag int, n int64, err error) {
	size := int(b.Len())
	var t int64
	if !prof.Try(prof.Recv, c.Prof(), src, tag, size) {
		if t = prof.TryDeferred(prof.Recv, c.Prof(), src, tag, size); t == 0 {
			t = prof.Enter(prof.Recv, c.Prof(), src, tag, size)
		}
	}
	if c.DirectRecv(src, tag) {
		// The common case goes straight to the engine (see Send): ranks are world ranks.
		from, gotTag, n, err = c.RecvDirect(b, src, tag)
		err = core.MapErr(op, err)
	} else {
		from, gotTag, n, err = c.Recv(op, b, src, tag)
	}
	err = core.RecvErr(op, from, err)
	if !prof.TryExit(prof.Recv, t, int(n)) && !prof.TryExitRecv(t, int(n)) {
		prof.Exit(prof.Recv, t, int(n))
	}
	return from, gotTag, n, err
}

// RecvView is Recv that gives up when ctx ends (the Go face's context views),
// cancelling the receive (an error for which IsCtx holds; the status says it was
// cancelled), or returns the message that had matched; its status has world ranks.
func RecvView(c *core.Comm, ctx context.Context, b core.Buf, src, tag int) (st core.Status, err error) {
	size := int(b.Len())
	t := enterSend(prof.Recv, c, src, tag, size)
	err = recvCtx("Recv", c, ctx, b, src, tag, &st)
	exit(prof.Recv, t, int(st.Count)) // its wait stamped nothing (TryExitRecv)
	if err != nil {
		err = core.RecvErr("Recv", SourceRank(c, st.Source), err)
	}
	return st, err
}

// Isend starts a send of b to dest of c with tag (MPI_Isend, MPI_Issend, MPI_Irsend,
// MPI_Ibsend: p says which), recorded as p.Call.
func Isend(p *Proc, c *core.Comm, b core.Buf, dest, tag int) (q core.Request, err error) {
	n := int(b.Len())
	var t int64
	if !prof.Try(p.Call, c.Prof(), dest, tag, n) {
		t = prof.Enter(p.Call, c.Prof(), dest, tag, n)
	}
	if c.DirectSend(dest, tag) {
		// The common case in one call, as in Send.
		q, err = c.IsendDirect(b, dest, tag, p.Mode)
		err = core.MapErr(p.Op, err)
	} else {
		q, err = c.Isend(p.Op, b, dest, tag, p.Mode, false)
	}
	if !prof.TryExit(p.Call, t, n) {
		prof.Exit(p.Call, t, n)
	}
	return q, err
}

// Irecv starts a receive into b from src of c (or AnySource) with tag (or AnyTag)
// (MPI_Irecv).
func Irecv(c *core.Comm, b core.Buf, src, tag int) (core.Request, error) {
	return irecv(prof.Irecv, "Irecv", c, b, src, tag)
}

// IrecvDeferred is Irecv unrecorded, from the engine's deferred function
// (core.SetDeferred), which runs holding the engine's lock: a receive the C library
// counted when the program made it and posts later (abi/libmpi/p2pshort.c's pending
// receives).
func IrecvDeferred(c *core.Comm, b core.Buf, src, tag int) (core.Request, error) {
	return c.IrecvDeferred("Irecv", b, src, tag)
}

// irecv is Irecv recorded as call (prof.None: not recorded), its errors op's.
func irecv(call prof.Call, op string, c *core.Comm, b core.Buf, src, tag int) (q core.Request, err error) {
	n := int(b.Len())
	var t int64
	if call != prof.None && !prof.Try(call, c.Prof(), src, tag, n) {
		t = prof.Enter(call, c.Prof(), src, tag, n)
	}
	if c.DirectRecv(src, tag) {
		q, err = c.IrecvDirect(b, src, tag)
		err = core.MapErr(op, err)
	} else {
		q, err = c.Irecv(op, b, src, tag, false)
	}
	if call != prof.None && !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
	return q, err
}

// SendInit makes an inactive persistent send request of b to dest of c with tag
// (MPI_Send_init and its modes: p says which): Start starts it.
func SendInit(p *Proc, c *core.Comm, b core.Buf, dest, tag int) (core.Request, error) {
	n := int(b.Len())
	defer prof.Exit(p.Call, prof.EnterTimed(p.Call, c.Prof(), dest, tag, n), n)
	return c.Isend(p.Op, b, dest, tag, p.Mode, true)
}

// RecvInit makes an inactive persistent receive request into b from src of c with
// tag (MPI_Recv_init; p is ProcRecvInit, or the face's name for it).
func RecvInit(p *Proc, c *core.Comm, b core.Buf, src, tag int) (core.Request, error) {
	n := int(b.Len())
	defer prof.Exit(p.Call, prof.EnterTimed(p.Call, c.Prof(), src, tag, n), n)
	return c.Irecv(p.Op, b, src, tag, true)
}
