package mpir

import (
	"context"
	"fmt"

	"github.com/mpigo/mpigo/internal/core"
)

// Point-to-point under a context (the Go face's context views): a blocking call that
// gives up when its context ends, with an error of class ClassOther that wraps the
// context's (IsCtx). The wait stays the engine's, through the idle policy, which
// watches the context. What giving up means depends on the call:
//   - a receive is cancelled in the engine, so that no message is lost and the
//     communicator stays usable; one that had already matched its message completes
//     instead, and returns it;
//   - a send is cancelled if its message has not left; otherwise the message is
//     delivered when its receiver takes it, and its buffer must not change until then;
//   - a probe just stops waiting.

// CtxErr is the error of call op whose context ended (err, the context's error).
func CtxErr(op string, err error, format string, a ...any) error {
	return &core.Error{Class: core.ClassOther, Op: op, Msg: fmt.Sprintf(format, a...), Err: err}
}

// sendCtx is a blocking send under ctx.
func sendCtx(op string, c *core.Comm, ctx context.Context, b core.Buf, dest, tag int, mode core.Mode) error {
	q, err := c.Isend(op, b, dest, tag, mode, false)
	if err != nil {
		return err
	}
	_, err = EndSend(op, ctx, &q, true)
	return err
}

// EndSend waits for a send under ctx. When ctx ends first it cancels the send
// (mayCancel) if its message has not left, else lets it complete unobserved;
// cancelled says that nothing was sent.
func EndSend(op string, ctx context.Context, q *core.Request, mayCancel bool) (cancelled bool, err error) {
	_, err = core.WaitCtx(ctx, q)
	if !IsCtx(ctx, err) {
		return false, core.MapErr(op, err)
	}
	if mayCancel {
		core.Withdraw(q)
		var st core.Status
		if ok, terr := core.TestInto(q, &st); ok {
			if st.Cancelled {
				return true, CtxErr(op, err, "cancelled by its context; nothing was sent")
			}
			return false, core.MapErr(op, terr) // it completed after all
		}
	}
	core.FreeRequest(q)
	return false, CtxErr(op, err, "its context ended after the message had left: it is delivered when the receiver takes it, and its buffer must not change until then")
}

// EndRecv waits for a receive under ctx; when ctx ends first it cancels the receive,
// which then either is cancelled or, having matched, completes.
func EndRecv(op string, ctx context.Context, q *core.Request, st *core.Status) error {
	var err error
	*st, err = core.WaitCtx(ctx, q)
	if !IsCtx(ctx, err) {
		return core.MapErr(op, err)
	}
	cerr := err
	core.Cancel(q)
	*st, err = core.WaitCtx(nil, q)
	if err == nil && st.Cancelled {
		return CtxErr(op, cerr, "cancelled by its context; no message was received")
	}
	return core.MapErr(op, err)
}

// recvCtx is a blocking receive under ctx, its status (world ranks) in *st.
func recvCtx(op string, c *core.Comm, ctx context.Context, b core.Buf, src, tag int, st *core.Status) error {
	q, err := c.Irecv(op, b, src, tag, false)
	if err != nil {
		return err
	}
	return EndRecv(op, ctx, &q, st)
}
