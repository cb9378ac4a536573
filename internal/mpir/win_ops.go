package mpir

import (
	"strconv"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/window"
)

// The operations (MPI 4.1 sections 12.3 and 12.4): their arguments, and which of
// them are significant. A face passes the origin (and result) as window.RBuf and the
// target as window.Target, converted but unchecked, and the op as the device's
// accumulate operation (window.RMAOp; 0 for one that is none: a user-defined op,
// MPI_OP_NULL). The rules:
//
//   - MPI_PROC_NULL as the target rank makes the call do nothing (section 12.3); no
//     other argument is looked at. Another rank outside the window's group is
//     MPI_ERR_RANK; an operation outside an access epoch to its target
//     MPI_ERR_RMA_SYNC.
//   - A negative count is MPI_ERR_COUNT; a null, freed or uncommitted datatype
//     MPI_ERR_TYPE; a negative displacement (but in a dynamic window, where it is an
//     address) MPI_ERR_DISP; origin and target of different sizes MPI_ERR_TYPE (the
//     type signatures must match), an origin reaching outside its buffer
//     MPI_ERR_BUFFER. Beyond the target's window is the device's MPI_ERR_RMA_RANGE.
//   - An accumulate takes a predefined operation, MPI_REPLACE or MPI_NO_OP (else
//     MPI_ERR_OP). Whether it is defined on the elements is asked only of elements
//     that move: an operation of no bytes (a zero count, a zero-size datatype)
//     combines nothing, whatever its op and types.
//   - With MPI_NO_OP, Get_accumulate's and Fetch_and_op's origin is ignored: the face
//     need not convert it, and may pass nil.

// access checks w and the target t for op; null reports MPI_PROC_NULL (nothing to
// do). It returns t's packed size.
func (w *Win) access(op string, t *window.Target) (n int64, null bool, err error) {
	if err := w.Check(op); err != nil {
		return 0, false, err
	}
	if null, err := w.target(op, t.Rank); null || err != nil {
		return 0, null, err
	}
	if !w.d.InEpoch(t.Rank) {
		return 0, false, outOfSync(op, "no epoch gives access to rank "+strconv.Itoa(t.Rank)+": call Fence, Start, Lock or LockAll first")
	}
	if t.Count < 0 {
		return 0, false, core.Errorf(core.ClassCount, op, "target count %d is negative", t.Count)
	}
	if err := ready(op, "target", t.Type); err != nil {
		return 0, false, err
	}
	if t.Disp < 0 && w.d.Flavor() != window.FlavorDynamic {
		return 0, false, core.Errorf(core.ClassDisp, op, "target displacement %d is negative", t.Disp)
	}
	n, err = t.Type.PackSize(t.Count)
	if err != nil {
		return 0, false, core.TypeErr(op, err)
	}
	return n, false, nil
}

// ready checks the datatype of the buffer what.
func ready(op, what string, t *datatype.Type) error {
	switch {
	case t == nil:
		return core.Errorf(core.ClassType, op, "the %s datatype is the null datatype (MPI_DATATYPE_NULL)", what)
	case t.IsFreed():
		return core.Errorf(core.ClassType, op, "the %s datatype %s has been freed", what, t.Name())
	case !t.IsCommitted():
		return NotCommitted(op, "the "+what+" datatype", t.Name())
	}
	return nil
}

// origin checks an origin or result buffer against the target's n packed bytes.
func origin(op, what string, b *window.RBuf, n int64) error {
	if err := ready(op, what, b.Type); err != nil {
		return err
	}
	if b.Count < 0 {
		return core.Errorf(core.ClassCount, op, "%s count %d is negative", what, b.Count)
	}
	m, err := b.Type.PackSize(b.Count)
	if err != nil {
		return core.TypeErr(op, err)
	}
	if m != n {
		return core.Errorf(core.ClassType, op, "the %s holds %d bytes (%d items of %s) but the target %d: the type signatures must match", what, m, b.Count, b.Type.Name(), n)
	}
	if m > 0 {
		lo, hi, err := b.Type.Span(b.Count)
		if err != nil {
			return core.TypeErr(op, err)
		}
		if lo < 0 || hi > int64(len(b.Mem)) {
			return core.Errorf(core.ClassBuffer, op, "%d items of %s span bytes [%d,%d) but the %s has %d bytes", b.Count, b.Type.Name(), lo, hi, what, len(b.Mem))
		}
	}
	return nil
}

// accOp checks an accumulate's op, and that it is defined on the elements when n
// bytes of them move: each of o (nil: ignored) and t of one predefined type.
func accOp(op string, rop window.RMAOp, o *window.RBuf, t *window.Target, n int64) error {
	if rop == OpNone || rop >= NumOps {
		return core.Errorf(core.ClassOp, op, "one-sided accumulates take a predefined operation, MPI_REPLACE or MPI_NO_OP (not a user-defined one)")
	}
	if n == 0 {
		return nil
	}
	k := t.Type.Kind()
	if o != nil && o.Type.Kind() != k {
		return core.Errorf(core.ClassType, op, "origin datatype %s and target datatype %s are not of one predefined element type", o.Type.Name(), t.Type.Name())
	}
	if err := window.RMAWhyNot(rop, k); err != nil {
		return core.Errorf(core.ClassOp, op, "%v", err)
	}
	return nil
}

// bytesOf is b's bytes for the record (0 for an invalid b).
func bytesOf(b *window.RBuf) int {
	if b == nil || b.Type == nil || b.Count <= 0 {
		return 0
	}
	return int(b.Count * b.Type.Size())
}

// The record's calls of the operations: blocking, with a request.
var (
	putCalls    = [2]prof.Call{prof.Put, prof.Rput}
	getCalls    = [2]prof.Call{prof.Get, prof.Rget}
	accCalls    = [2]prof.Call{prof.Accumulate, prof.Raccumulate}
	getAccCalls = [2]prof.Call{prof.GetAccumulate, prof.RgetAccumulate}
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Put is MPI_Put, and MPI_Rput with req: o to the target t. The request completes
// when o may be reused; without req the result is nil.
func (w *Win) Put(op string, o *window.RBuf, t *window.Target, req bool) (*core.Pending, error) {
	return w.move(op, putCalls[b2i(req)], o, t, req, true)
}

// Get is MPI_Get, and MPI_Rget with req: the target t into o. The request completes
// when o holds the data.
func (w *Win) Get(op string, o *window.RBuf, t *window.Target, req bool) (*core.Pending, error) {
	return w.move(op, getCalls[b2i(req)], o, t, req, false)
}

// move is Put (put) and Get, whose arguments follow one rule.
func (w *Win) move(op string, call prof.Call, o *window.RBuf, t *window.Target, req, put bool) (*core.Pending, error) {
	nb := bytesOf(o)
	defer prof.Exit(call, w.enter(call, t.Rank, nb), nb)
	n, null, err := w.access(op, t)
	if err == nil && !null {
		err = origin(op, "origin", o, n)
	}
	switch {
	case err != nil || null:
		return done(req, err)
	case put && req:
		return w.d.Rput(op, o, t)
	case put:
		return nil, w.d.Put(op, o, t)
	case req:
		return w.d.Rget(op, o, t)
	}
	return nil, w.d.Get(op, o, t)
}

// Accumulate is MPI_Accumulate, and MPI_Raccumulate with req: o combined into the
// target t with rop, element-wise atomically.
func (w *Win) Accumulate(op string, o *window.RBuf, t *window.Target, rop window.RMAOp, req bool) (*core.Pending, error) {
	call, nb := accCalls[b2i(req)], bytesOf(o)
	defer prof.Exit(call, w.enter(call, t.Rank, nb), nb)
	n, null, err := w.access(op, t)
	if err == nil && !null {
		err = origin(op, "origin", o, n)
	}
	if err == nil && !null {
		err = accOp(op, rop, o, t, n)
	}
	if err != nil || null {
		return done(req, err)
	}
	if req {
		return w.d.Raccumulate(op, o, t, rop)
	}
	return nil, w.d.Accumulate(op, o, t, rop)
}

// GetAccumulate is MPI_Get_accumulate, and MPI_Rget_accumulate with req: the
// target's values into r, then o combined into them with rop; with MPI_NO_OP o is
// ignored (nil or not).
func (w *Win) GetAccumulate(op string, o, r *window.RBuf, t *window.Target, rop window.RMAOp, req bool) (*core.Pending, error) {
	if rop == OpNoOp {
		o = nil
	}
	call, nb := getAccCalls[b2i(req)], bytesOf(o)
	defer prof.Exit(call, w.enter(call, t.Rank, nb), nb)
	n, null, err := w.access(op, t)
	if err == nil && !null && o != nil {
		err = origin(op, "origin", o, n)
	}
	if err == nil && !null {
		err = origin(op, "result", r, n)
	}
	if err == nil && !null {
		err = accOp(op, rop, o, t, n)
	}
	if err != nil || null {
		return done(req, err)
	}
	if req {
		return w.d.RgetAccumulate(op, o, r, t, rop)
	}
	return nil, w.d.GetAccumulate(op, o, r, t, rop)
}

// done is the outcome of an operation that does nothing (MPI_PROC_NULL) or failed: a
// completed request where one was asked for.
func done(req bool, err error) (*core.Pending, error) {
	if req && err == nil {
		return core.Completed(), nil
	}
	return nil, err
}

// element checks the datatype of the atomics: one element of a predefined type.
func element(op string, dt *datatype.Type) error {
	if err := ready(op, "element", dt); err != nil {
		return err
	}
	if !dt.IsPredefined() {
		return core.Errorf(core.ClassType, op, "datatype %s is not predefined: %s takes one element of a predefined type", dt.Name(), op)
	}
	return nil
}

// holds checks that the buffer what holds one element of the predefined type dt:
// its extent, which for a pair type counts the padding (MPI_SHORT_INT's 6 bytes of
// data lie in 8), and the device moves the element as dt lays it out.
func holds(op, what string, b []byte, dt *datatype.Type) error {
	if n := max(dt.Size(), dt.Extent()); int64(len(b)) < n {
		return core.Errorf(core.ClassBuffer, op, "the %s buffer has %d bytes; one %s needs %d", what, len(b), dt.Name(), n)
	}
	return nil
}

// FetchAndOp is MPI_Fetch_and_op: the target element at disp of rank into r, then o
// combined into it with rop, atomically; o is ignored with MPI_NO_OP. With wait it
// returns with r filled, as the Go face, which returns the value, needs; without, r
// holds the value once the operation completes, as MPI says (the C face).
func (w *Win) FetchAndOp(op string, o, r []byte, dt *datatype.Type, rank int, disp int64, rop window.RMAOp, wait bool) error {
	n := sizeOf(dt)
	defer prof.Exit(prof.FetchAndOp, w.enter(prof.FetchAndOp, rank, n), n)
	if null, err := w.single(op, dt, rank, disp); null || err != nil {
		return err
	}
	if rop == OpNoOp {
		o = nil
	}
	var err error
	if o != nil {
		err = holds(op, "origin", o, dt)
	}
	if err == nil {
		err = holds(op, "result", r, dt)
	}
	if err == nil {
		err = accOp(op, rop, nil, &window.Target{Rank: rank, Disp: disp, Count: 1, Type: dt}, dt.Size())
	}
	if err != nil {
		return err
	}
	return w.d.FetchAndOp(op, o, r, dt, rank, disp, rop, wait)
}

// CompareAndSwap is MPI_Compare_and_swap: the target element at disp of rank into
// r, replaced by o if it equalled cmp, atomically; dt is a predefined integer, bool
// or byte type. wait is FetchAndOp's.
func (w *Win) CompareAndSwap(op string, o, cmp, r []byte, dt *datatype.Type, rank int, disp int64, wait bool) error {
	n := sizeOf(dt)
	defer prof.Exit(prof.CompareAndSwap, w.enter(prof.CompareAndSwap, rank, n), n)
	if null, err := w.single(op, dt, rank, disp); null || err != nil {
		return err
	}
	if !window.CASKind(dt.Kind()) {
		return core.Errorf(core.ClassType, op, "datatype %s: MPI_Compare_and_swap takes one element of a predefined integer, bool or byte type", dt.Name())
	}
	for _, b := range []struct {
		what string
		b    []byte
	}{{"origin", o}, {"compare", cmp}, {"result", r}} {
		if err := holds(op, b.what, b.b, dt); err != nil {
			return err
		}
	}
	return w.d.CompareAndSwap(op, o, cmp, r, dt, rank, disp, wait)
}

// single checks the target of an atomic (Fetch_and_op, Compare_and_swap): w, the
// rank (null: MPI_PROC_NULL, nothing else looked at), its datatype, one element of
// a predefined type, and the epoch.
func (w *Win) single(op string, dt *datatype.Type, rank int, disp int64) (null bool, err error) {
	if err := w.Check(op); err != nil {
		return false, err
	}
	if null, err := w.target(op, rank); null || err != nil {
		return null, err
	}
	if err := element(op, dt); err != nil {
		return false, err
	}
	_, _, err = w.access(op, &window.Target{Rank: rank, Disp: disp, Count: 1, Type: dt})
	return false, err
}

// sizeOf is one element of dt's bytes for the record (0 for no datatype).
func sizeOf(dt *datatype.Type) int {
	if dt == nil {
		return 0
	}
	return int(dt.Size())
}
