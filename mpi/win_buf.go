package mpi

import (
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/window"
)

// The one-sided operations on typed buffers: the origin (and result) described by a
// Buf (Typed), the target by a count and a datatype, as MPI's C binding takes them.
// The two sides may use different datatypes of the same type signature; accumulates
// need every element of both to be of one predefined type.

func rbuf(op string, b Buf) (window.RBuf, error) {
	if b.err != nil {
		return window.RBuf{}, b.err
	}
	return window.RBuf{Mem: b.mem, Count: b.count, Type: b.dt}, nil
}

func tspec(op string, rank, disp, count int, dt *Datatype) (window.Target, error) {
	t, err := dt.inner(op, "target datatype")
	if err != nil {
		return window.Target{}, err
	}
	return window.Target{Rank: rank, Disp: int64(disp), Count: int64(count), Type: t}, nil
}

// args turns a Buf and a target description into the device's.
func (w *Win) args(op string, b Buf, rank, disp, count int, dt *Datatype) (window.RBuf, window.Target, error) {
	o, err := rbuf(op, b)
	if err != nil {
		return o, window.Target{}, err
	}
	t, err := tspec(op, rank, disp, count, dt)
	return o, t, err
}

// PutBuf is Put with datatypes: origin to count items of dt at disp in rank's window.
func PutBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype) error {
	defer prof.Exit(prof.Put, w.enter(prof.Put, rank, origin.size()), origin.size())
	o, t, err := w.args("Put", origin, rank, disp, count, dt)
	if err == nil {
		err = w.dev().Put("Put", &o, &t)
	}
	return w.fail("Put", err)
}

// GetBuf is Get with datatypes.
func GetBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype) error {
	defer prof.Exit(prof.Get, w.enter(prof.Get, rank, origin.size()), origin.size())
	o, t, err := w.args("Get", origin, rank, disp, count, dt)
	if err == nil {
		err = w.dev().Get("Get", &o, &t)
	}
	return w.fail("Get", err)
}

// AccumulateBuf is Accumulate with datatypes.
func AccumulateBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype, op Op) error {
	defer prof.Exit(prof.Accumulate, w.enter(prof.Accumulate, rank, origin.size()), origin.size())
	o, t, err := w.args("Accumulate", origin, rank, disp, count, dt)
	if err == nil {
		var k = accOpOr(&err, "Accumulate", op)
		if err == nil {
			err = w.dev().Accumulate("Accumulate", &o, &t, k)
		}
	}
	return w.fail("Accumulate", err)
}

// GetAccumulateBuf is GetAccumulate with datatypes; with NoOp origin is ignored.
func GetAccumulateBuf(w *Win, origin, result Buf, rank, disp, count int, dt *Datatype, op Op) error {
	defer prof.Exit(prof.GetAccumulate, w.enter(prof.GetAccumulate, rank, origin.size()), origin.size())
	r, t, err := w.args("GetAccumulate", result, rank, disp, count, dt)
	if err != nil {
		return w.fail("GetAccumulate", err)
	}
	o := r
	if op.code() != codeNoOp {
		if o, err = rbuf("GetAccumulate", origin); err != nil {
			return w.fail("GetAccumulate", err)
		}
	}
	k := accOpOr(&err, "GetAccumulate", op)
	if err == nil {
		err = w.dev().GetAccumulate("GetAccumulate", &o, &r, &t, k)
	}
	return w.fail("GetAccumulate", err)
}

// RputBuf is Rput with datatypes.
func RputBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype) (Request, error) {
	defer prof.Exit(prof.Rput, w.enter(prof.Rput, rank, origin.size()), origin.size())
	o, t, err := w.args("Rput", origin, rank, disp, count, dt)
	if err != nil {
		return Request{}, w.fail("Rput", err)
	}
	p, err := w.dev().Rput("Rput", &o, &t)
	return Request{x: p}, w.fail("Rput", err)
}

// RgetBuf is Rget with datatypes.
func RgetBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype) (Request, error) {
	defer prof.Exit(prof.Rget, w.enter(prof.Rget, rank, origin.size()), origin.size())
	o, t, err := w.args("Rget", origin, rank, disp, count, dt)
	if err != nil {
		return Request{}, w.fail("Rget", err)
	}
	p, err := w.dev().Rget("Rget", &o, &t)
	return Request{x: p}, w.fail("Rget", err)
}

// RaccumulateBuf is Raccumulate with datatypes.
func RaccumulateBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype, op Op) (Request, error) {
	defer prof.Exit(prof.Raccumulate, w.enter(prof.Raccumulate, rank, origin.size()), origin.size())
	o, t, err := w.args("Raccumulate", origin, rank, disp, count, dt)
	k := accOpOr(&err, "Raccumulate", op)
	if err != nil {
		return Request{}, w.fail("Raccumulate", err)
	}
	p, err := w.dev().Raccumulate("Raccumulate", &o, &t, k)
	return Request{x: p}, w.fail("Raccumulate", err)
}

// RgetAccumulateBuf is RgetAccumulate with datatypes.
func RgetAccumulateBuf(w *Win, origin, result Buf, rank, disp, count int, dt *Datatype, op Op) (Request, error) {
	defer prof.Exit(prof.RgetAccumulate, w.enter(prof.RgetAccumulate, rank, origin.size()), origin.size())
	r, t, err := w.args("RgetAccumulate", result, rank, disp, count, dt)
	o := r
	if err == nil && op.code() != codeNoOp {
		o, err = rbuf("RgetAccumulate", origin)
	}
	k := accOpOr(&err, "RgetAccumulate", op)
	if err != nil {
		return Request{}, w.fail("RgetAccumulate", err)
	}
	p, err := w.dev().RgetAccumulate("RgetAccumulate", &o, &r, &t, k)
	return Request{x: p}, w.fail("RgetAccumulate", err)
}

// accOpOr is accOp that leaves an earlier error in *err alone.
func accOpOr(err *error, name string, op Op) (k rmaOp) {
	if *err != nil {
		return 0
	}
	k, *err = accOp(name, op)
	return k
}
