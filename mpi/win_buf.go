package mpi

import (
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/window"
)

// The one-sided operations on typed buffers: the origin (and result) described by a
// Buf (Typed), the target by a count and a datatype, as MPI's C binding takes them.
// The two sides may use different datatypes of the same type signature; accumulates
// need every element of both to be of one predefined type.

// rbuf is b as the device's buffer; a Buf that could not be made carries its error.
func rbuf(b Buf) (window.RBuf, error) {
	if b.err != nil {
		return window.RBuf{}, b.err
	}
	return window.RBuf{Mem: b.mem, Count: b.count, Type: b.dt}, nil
}

// args turns a Buf and a target description into the device's.
func (w *Win) args(op string, b Buf, rank, disp, count int, dt *Datatype) (window.RBuf, window.Target, error) {
	o, err := rbuf(b)
	if err != nil {
		return o, window.Target{}, err
	}
	t, err := mpir.UsableFor(op, "target datatype", dt.obj(), int64(count))
	return o, window.Target{Rank: rank, Disp: int64(disp), Count: int64(count), Type: t}, err
}

// PutBuf is Put with datatypes: origin to count items of dt at disp in rank's window.
func PutBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype) error {
	o, t, err := w.args("Put", origin, rank, disp, count, dt)
	if err == nil {
		_, err = w.obj().Put("Put", &o, &t, false)
	}
	return w.fail("Put", err)
}

// GetBuf is Get with datatypes.
func GetBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype) error {
	o, t, err := w.args("Get", origin, rank, disp, count, dt)
	if err == nil {
		_, err = w.obj().Get("Get", &o, &t, false)
	}
	return w.fail("Get", err)
}

// AccumulateBuf is Accumulate with datatypes.
func AccumulateBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype, op Op) error {
	o, t, err := w.args("Accumulate", origin, rank, disp, count, dt)
	if err == nil {
		_, err = w.obj().Accumulate("Accumulate", &o, &t, accOp(op), false)
	}
	return w.fail("Accumulate", err)
}

// GetAccumulateBuf is GetAccumulate with datatypes; with NoOp origin is ignored.
func GetAccumulateBuf(w *Win, origin, result Buf, rank, disp, count int, dt *Datatype, op Op) error {
	_, err := getAccumulateBuf("GetAccumulate", w, origin, result, rank, disp, count, dt, op, false)
	return w.fail("GetAccumulate", err)
}

// getAccumulateBuf converts GetAccumulateBuf's and RgetAccumulateBuf's arguments:
// with NoOp, origin is not looked at.
func getAccumulateBuf(name string, w *Win, origin, result Buf, rank, disp, count int, dt *Datatype, op Op, req bool) (Request, error) {
	r, t, err := w.args(name, result, rank, disp, count, dt)
	if err != nil {
		return Request{}, err
	}
	var o window.RBuf
	if op.code() != codeNoOp {
		if o, err = rbuf(origin); err != nil {
			return Request{}, err
		}
	}
	p, err := w.obj().GetAccumulate(name, &o, &r, &t, accOp(op), req)
	return Request{x: p}, err
}

// RputBuf is Rput with datatypes.
func RputBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype) (Request, error) {
	o, t, err := w.args("Rput", origin, rank, disp, count, dt)
	if err != nil {
		return Request{}, w.fail("Rput", err)
	}
	p, err := w.obj().Put("Rput", &o, &t, true)
	return Request{x: p}, w.fail("Rput", err)
}

// RgetBuf is Rget with datatypes.
func RgetBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype) (Request, error) {
	o, t, err := w.args("Rget", origin, rank, disp, count, dt)
	if err != nil {
		return Request{}, w.fail("Rget", err)
	}
	p, err := w.obj().Get("Rget", &o, &t, true)
	return Request{x: p}, w.fail("Rget", err)
}

// RaccumulateBuf is Raccumulate with datatypes.
func RaccumulateBuf(w *Win, origin Buf, rank, disp, count int, dt *Datatype, op Op) (Request, error) {
	o, t, err := w.args("Raccumulate", origin, rank, disp, count, dt)
	if err != nil {
		return Request{}, w.fail("Raccumulate", err)
	}
	p, err := w.obj().Accumulate("Raccumulate", &o, &t, accOp(op), true)
	return Request{x: p}, w.fail("Raccumulate", err)
}

// RgetAccumulateBuf is RgetAccumulate with datatypes.
func RgetAccumulateBuf(w *Win, origin, result Buf, rank, disp, count int, dt *Datatype, op Op) (Request, error) {
	q, err := getAccumulateBuf("RgetAccumulate", w, origin, result, rank, disp, count, dt, op, true)
	return q, w.fail("RgetAccumulate", err)
}
