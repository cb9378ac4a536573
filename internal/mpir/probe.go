package mpir

import (
	"context"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// Probes and matched receives (MPI 4.1 sections 3.8.1-3.8.3). A probe from ProcNull
// finds at once a message from ProcNull with tag AnyTag and count 0; a matching probe
// from it gives the message from no process (MPI_MESSAGE_NO_PROC, a core.Message the
// device marks so), which Mrecv and Imrecv receive at once as a receive from ProcNull
// would. A message already received, or the zero core.Message (MPI_MESSAGE_NULL), is
// an error of class ClassRequest. Each call is timed (prof.EnterTimed); statuses
// come back with world ranks.

// Probe waits for a message from src of c (or AnySource) with tag (or AnyTag) and
// describes it, without receiving it (MPI_Probe). With a non-nil ctx it gives up
// when ctx ends.
func Probe(op string, c *core.Comm, ctx context.Context, src, tag int) (core.Status, error) {
	defer prof.Exit(prof.Probe, prof.EnterTimed(prof.Probe, c.Prof(), src, tag, 0), 0)
	return probe(op, c, ctx, src, tag)
}

// probe is Probe unrecorded.
func probe(op string, c *core.Comm, ctx context.Context, src, tag int) (core.Status, error) {
	if ctx == nil {
		return c.Probe(op, src, tag)
	}
	st, err := c.ProbeCtx(ctx, op, src, tag)
	if IsCtx(ctx, err) {
		err = CtxErr(op, err, "gave up when its context ended")
	}
	return st, err
}

// Iprobe is Probe that does not wait (MPI_Iprobe): ok says whether a message was there.
func Iprobe(op string, c *core.Comm, src, tag int) (st core.Status, ok bool, err error) {
	defer prof.Exit(prof.Iprobe, prof.EnterTimed(prof.Iprobe, c.Prof(), src, tag, 0), 0)
	return c.Iprobe(op, src, tag)
}

// Mprobe waits for a matching message and takes it off the queue, for Mrecv or
// Imrecv alone to receive (MPI_Mprobe). With a non-nil ctx it gives up when ctx ends.
func Mprobe(op string, c *core.Comm, ctx context.Context, src, tag int) (core.Message, core.Status, error) {
	defer prof.Exit(prof.Mprobe, prof.EnterTimed(prof.Mprobe, c.Prof(), src, tag, 0), 0)
	for ctx != nil {
		// Probe under the context, then take the message; another thread may take
		// it first, and then the probe starts again.
		if _, err := probe(op, c, ctx, src, tag); err != nil {
			return core.Message{}, core.Status{}, err
		}
		if m, st, ok, err := c.Improbe(op, src, tag); ok || err != nil {
			return m, st, err
		}
	}
	return c.Mprobe(op, src, tag)
}

// Improbe is Mprobe that does not wait (MPI_Improbe).
func Improbe(op string, c *core.Comm, src, tag int) (core.Message, core.Status, bool, error) {
	defer prof.Exit(prof.Improbe, prof.EnterTimed(prof.Improbe, c.Prof(), src, tag, 0), 0)
	return c.Improbe(op, src, tag)
}

// Mrecv receives the message m, matched on c, into b (MPI_Mrecv); m becomes the null
// message.
func Mrecv(op string, c *core.Comm, b core.Buf, m *core.Message) (core.Status, error) {
	n := int(b.Len())
	defer prof.Exit(prof.Mrecv, prof.EnterTimed(prof.Mrecv, c.Prof(), prof.NoPeer, -2, n), n)
	st, err := core.Mrecv(b, m)
	if err != nil {
		err = core.RecvErr(op, SourceRank(c, st.Source), core.MapErr(op, err))
	}
	return st, err
}

// Imrecv starts receiving the message m, matched on c, into b (MPI_Imrecv); m
// becomes the null message.
func Imrecv(op string, c *core.Comm, b core.Buf, m *core.Message) (core.Request, error) {
	n := int(b.Len())
	defer prof.Exit(prof.Imrecv, prof.EnterTimed(prof.Imrecv, c.Prof(), prof.NoPeer, -2, n), n)
	q, err := core.Imrecv(b, m)
	return q, core.MapErr(op, err)
}
