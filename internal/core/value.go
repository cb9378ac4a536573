package core

import (
	"context"

	"github.com/mpigo/mpigo/internal/p2p"
)

// What mpi's value messages (the encoding path) and waits with a context need of the
// device: receives of any length, on the user's context and the internal one, and the
// context-taking forms of Probe and Waitall.

// IrecvAlloc starts a receive of a message of any length from src (a rank of c, or
// AnySource, or ProcNull) with tag on c's user context; the engine allocates its bytes
// when it matches and stores them in *dst.
func (c *Comm) IrecvAlloc(op string, dst *[]byte, src, tag int) (p2p.Request, error) {
	w, err := c.Target(op, "source", src, tag, true)
	if err != nil {
		return p2p.Request{}, err
	}
	q, err := eng.IrecvAlloc(dst, w, tag, c.ctx)
	return q, MapErr(op, err)
}

// RecvAlloc is a blocking receive of a message of any length (p2p's RecvAlloc): into
// fit when it fits, else into new memory. The status's source is a world rank.
func (c *Comm) RecvAlloc(op string, fit []byte, src, tag int) ([]byte, p2p.Status, error) {
	w, err := c.Target(op, "source", src, tag, true)
	if err != nil {
		return nil, p2p.Status{}, err
	}
	msg, st, err := eng.RecvAlloc(fit, w, tag, c.ctx)
	return msg, st, MapErr(op, err)
}

// RecvAllocDirect is RecvAlloc where DirectRecv said yes, answering field by field
// (see RecvDirect); from is a rank of c.
func (c *Comm) RecvAllocDirect(fit []byte, src, tag int) (msg []byte, from, gotTag int, err error) {
	return eng.RecvAllocInfo(fit, src, tag, c.ctx)
}

// IrecvAllocInternal is IrecvAlloc on c's internal context, from member src, with
// one of tags.go's tags.
func (c *Comm) IrecvAllocInternal(dst *[]byte, src, tag int) (p2p.Request, error) {
	return eng.IrecvAlloc(dst, c.WorldRank(src), tag, c.ctx+1)
}

// ProbeCtx is Probe that gives up with ctx's error when ctx ends.
func (c *Comm) ProbeCtx(ctx context.Context, op string, src, tag int) (p2p.Status, error) {
	w, err := c.Target(op, "source", src, tag, true)
	if err != nil {
		return p2p.Status{}, err
	}
	st, err := eng.ProbeCtx(ctx, w, tag, c.ctx)
	return st, MapErr(op, err)
}

// WaitallCtx is Waitall that gives up with ctx's error when ctx ends (the requests not
// completed stay pending).
func WaitallCtx(ctx context.Context, qs []p2p.Request, sts []p2p.Status) error {
	return eng.WaitallCtx(ctx, qs, sts)
}

// WaitanyCtx is Waitany that gives up with ctx's error when ctx ends.
func WaitanyCtx(ctx context.Context, qs []p2p.Request) (int, p2p.Status, error) {
	return eng.WaitanyCtx(ctx, qs)
}

// WaitsomeCtx is Waitsome that gives up with ctx's error when ctx ends.
func WaitsomeCtx(ctx context.Context, qs []p2p.Request, idx []int, sts []p2p.Status) (int, error) {
	return eng.WaitsomeCtx(ctx, qs, idx, sts)
}
