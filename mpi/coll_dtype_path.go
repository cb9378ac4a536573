package mpi

import (
	"errors"
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// The one path of the reductions on typed buffers: check the significant Bufs
// (mpir.Significant says which), choose the element form the kernel works on (the
// base type's elements, packed pair records, or a user op's []T), lay each buffer out
// in that form (its own memory when it already is, else pooled scratch), and hand
// mpir the laid-out bytes with a stage (unpacker) that fills the scratch before each
// run and unpacks the result through recv's layout after it: at once for a blocking
// call, when the request completes for a nonblocking one, at every run of a
// persistent one. What the checks find goes to mpir beside the argument it concerns,
// so that it counts only where the argument does and this rank still takes its part.

// redKind is the reduction a call runs.
type redKind uint8

const (
	kReduce redKind = iota
	kAllreduce
	kReduceScatterBlock
	kReduceScatter
	kScan
	kExscan
	kLocal
)

// redKinds are the collectives of the kinds.
var redKinds = [...]mpir.CollKind{kReduce: mpir.CollReduce, kAllreduce: mpir.CollAllreduce,
	kReduceScatterBlock: mpir.CollReduceScatterBlock, kReduceScatter: mpir.CollReduceScatter,
	kScan: mpir.CollScan, kExscan: mpir.CollExscan}

// redCall is one call of a reduction on typed buffers.
type redCall struct {
	m      mpir.Mode
	c      *Comm // nil for ReduceLocalBuf
	kind   redKind
	root   int
	counts []int // ReduceScatter: items of recv's datatype per rank
}

// proc is the collective rc runs.
func (rc *redCall) proc() *mpir.Coll { return collOf(redKinds[rc.kind], rc.m) }

// name is what rc's errors call it.
func (rc *redCall) name() string {
	if rc.kind == kLocal {
		return "ReduceLocalBuf"
	}
	return rc.proc().Op
}

// isInPlace reports whether b is InPlaceBuf.
func (b Buf) isInPlace() bool { return b.err == nil && b.count == -1 && b.dt == nil && b.mem == nil }

// blocking runs a blocking call, its error through the communicator's handler.
func (rc *redCall) blocking(send, recv *Buf, op Op) error {
	_, err := rc.run(send, recv, op)
	return rc.c.fail(rc.name(), err)
}

// start starts a nonblocking call (or makes a persistent one).
func (rc *redCall) start(send, recv *Buf, op Op) (Request, error) {
	p, err := rc.run(send, recv, op)
	return rc.c.start(rc.name(), p, err)
}

// run lays the buffers out and runs the call through mpir; a nonblocking call returns
// its Pending.
func (rc *redCall) run(send, recv *Buf, op Op) (*core.Pending, error) {
	a := mpir.CollArgs{Root: rc.root}
	u := getUnpacker()
	if rc.prepare(send, recv, op, &a, u) {
		a.Stage = u
	} else {
		u.put()
	}
	return mpir.Collective(rc.proc(), rc.c.dev(), &a)
}

// prepare fills a with the call's laid-out buffers, its reduction and counts, or the
// errors of the significant ones, and u with the staging; it reports whether the
// call has buffers to stage.
func (rc *redCall) prepare(send, recv *Buf, op Op, a *mpir.CollArgs, u *unpacker) bool {
	name, inPlace := rc.name(), send.isInPlace()
	sides := mpir.Significant(redKinds[rc.kind], rc.c.dev(), rc.root, inPlace)
	user := op.user != nil
	var s, r reduceArg
	if sides.Send() {
		a.SendErr = s.check(name, "send", send, user)
	}
	if sides.Recv() {
		a.RecvErr = r.check(name, "recv", recv, user)
	}
	if inPlace {
		a.Send = collective.Vec{InPlace: true, Esz: 1}
	}
	if a.SendErr != nil || a.RecvErr != nil || sides == 0 {
		return false
	}
	if err := sameKinds(name, &s, &r, user); err != nil {
		a.SendErr = err
		return false
	}
	kind := s.kind
	if !s.present() {
		kind = r.kind
	}
	f, err := formOf(name, op, kind, &u.f)
	if err == nil && user {
		err = f.whole(name, &s, &r)
	}
	if err != nil {
		a.RedErr = err
		return false
	}
	if rc.kind == kReduceScatter {
		if a.Counts, a.Err = rc.elemCounts(f, &r); a.Err != nil {
			return false
		}
	}
	u.f, u.r, u.name = *f, r, name
	if a.SendErr = u.layout(&s, inPlace, rc.inPlaceWorks()); a.SendErr != nil {
		return false
	}
	a.Send, a.Recv, a.Red = u.sv, u.rv, f.rd
	u.items = rc.resultItems(&r, inPlace)
	return true
}

// sameKinds checks that send and recv hold the same kind of elements: a predefined op
// combines elements of one predefined type.
func sameKinds(name string, s, r *reduceArg, user bool) error {
	if s.present() && r.present() && s.kind != r.kind && s.bytes > 0 && r.bytes > 0 && !user {
		return errorf(ClassType, name, "send holds %s elements and recv %s; both must be built from the same predefined type", s.kind, r.kind)
	}
	return nil
}

// elemCounts converts ReduceScatter's counts, in items of recv's datatype, to
// elements of f (mpir checks them against the group and the buffers).
func (rc *redCall) elemCounts(f *redForm, r *reduceArg) ([]int, error) {
	dt := r.bd.Type()
	if dt == nil {
		return rc.counts, nil // recv in place and not significant: nothing to convert
	}
	size := dt.Size()
	out := make([]int, len(rc.counts))
	for i, k := range rc.counts {
		if k > 0 && int64(k)*size%f.data != 0 {
			return nil, errorf(ClassType, rc.name(), "counts[%d] %d items of recv's %s (%d bytes of data each) are not a whole number of the op's elements of %d bytes",
				i, k, dt.Name(), size, f.data)
		}
		out[i] = int(int64(k) * size / f.data)
	}
	return out, nil
}

// inPlaceWorks reports whether the call may take its input from its result buffer.
func (rc *redCall) inPlaceWorks() bool {
	switch rc.kind {
	case kReduce, kAllreduce, kScan, kExscan:
		return !rc.c.IsInter()
	}
	return false
}

// resultItems is how many items of recv hold the result on this process.
func (rc *redCall) resultItems(r *reduceArg, inPlace bool) int64 {
	switch {
	case !r.present():
		return 0
	case rc.kind == kExscan && rc.c.Rank() == 0:
		return 0 // rank 0's recv is left as it was
	case inPlace && rc.kind == kReduceScatterBlock:
		return r.bd.Count() / int64(rc.c.Size())
	case inPlace && rc.kind == kReduceScatter:
		return int64(rc.counts[rc.c.Rank()])
	}
	return r.bd.Count()
}

// local is ReduceLocalBuf's path: in and inout laid out, the kernel, the result back.
func (rc *redCall) local(in, inout *Buf, op Op) error {
	name := rc.name()
	if in.isInPlace() {
		return errorf(ClassBuffer, name, "in is InPlaceBuf; MPI_Reduce_local takes two buffers")
	}
	user := op.user != nil
	var s, r reduceArg
	if err := s.check(name, "send", in, user); err != nil {
		return err
	}
	if err := r.check(name, "recv", inout, user); err != nil {
		return err
	}
	if err := sameKinds(name, &s, &r, user); err != nil {
		return err
	}
	if s.bytes != r.bytes {
		return errorf(ClassCount, name, "send holds %d bytes of base elements and recv %d; they must hold as many", s.bytes, r.bytes)
	}
	u := getUnpacker()
	defer u.put()
	f, err := formOf(name, op, s.kind, &u.f)
	if err == nil && user {
		err = f.whole(name, &s, &r)
	}
	if err != nil {
		return err
	}
	u.f, u.r, u.name, u.items = *f, r, name, r.bd.Count()
	u.rfill = true // inout is input too
	if err := u.layout(&s, false, false); err != nil {
		return err
	}
	u.Pack()
	if u.err != nil {
		return u.err
	}
	f.rd.K.Fn(u.rv.B, u.sv.B)
	return u.f.back(name, &u.r, u.rv.B, u.items)
}

// unpacker is a reduction's staging on typed buffers: the buffers laid out in the
// call's form (sv, rv: the device's send and receive; rv.B holds the result), the
// scratch they use, how to fill them (Pack) and how to put the result back (Finish).
// It is the mpir.Stage of the call, and the core.Finisher a nonblocking one's record
// carries.
type unpacker struct {
	held   scratchSet
	f      redForm
	r      reduceArg
	name   string
	sv, rv collective.Vec
	items  int64
	fills  [2]fillStep // what Pack writes, in order
	nfills int
	rfill  bool  // recv holds input (in place, ReduceLocalBuf)
	keep   bool  // a persistent request's: released never
	err    error // Pack's, reported by Finish
}

// fillStep is one of Pack's writes: src's data into dst in the form, or (src absent)
// a copy of from.
type fillStep struct {
	dst  []byte
	src  reduceArg
	from []byte
}

// unpackers is the pool of unpackers: a list rather than a sync.Pool, which drops
// its items at each collection.
var unpackers struct {
	sync.Mutex
	free []*unpacker
}

func getUnpacker() *unpacker {
	unpackers.Lock()
	defer unpackers.Unlock()
	if k := len(unpackers.free); k > 0 {
		u := unpackers.free[k-1]
		unpackers.free = unpackers.free[:k-1]
		return u
	}
	return new(unpacker)
}

// put releases u's scratch and puts u back in its pool.
func (u *unpacker) put() {
	u.held.release()
	*u = unpacker{}
	unpackers.Lock()
	if len(unpackers.free) < 256 {
		unpackers.free = append(unpackers.free, u)
	}
	unpackers.Unlock()
}

// layout lays recv (the result, filled too where it holds input: rfill) and send out,
// and plans Pack's writes.
func (u *unpacker) layout(s *reduceArg, inPlace, inPlaceWorks bool) error {
	f, r := &u.f, &u.r
	out, direct := f.lay(r, &u.held)
	if !direct && (inPlace || u.rfill) {
		u.plan(out, r, nil)
	}
	u.sv, u.rv = collective.Vec{Esz: f.esz}, collective.Vec{B: out, Esz: f.esz}
	switch {
	case inPlace:
		u.sv.InPlace = true
		return nil
	case !s.present():
		return nil
	}
	in, sdirect := f.direct(s)
	if r.present() && !direct && !sdirect && inPlaceWorks {
		// Pack send straight into the result's scratch and reduce in place there:
		// one buffer and one copy fewer.
		u.plan(out, s, nil)
		u.sv.InPlace = true
		return nil
	}
	if !sdirect {
		in = u.held.get(f.laidLen(s))
		u.plan(in, s, nil)
	} else if overlap(in, out) {
		// One buffer passed as both: the reduction must read the input as it was.
		p := u.held.get(len(in))
		u.plan(p, nil, in)
		in = p
	}
	u.sv.B = in
	return nil
}

// plan adds a write to Pack's: src's data (or a copy of from) into dst.
func (u *unpacker) plan(dst []byte, src *reduceArg, from []byte) {
	st := fillStep{dst: dst, from: from}
	if src != nil {
		st.src = *src
	}
	u.fills[u.nfills] = st
	u.nfills++
}

// Pack fills the laid-out input from the rank's buffers (mpir.Stage).
func (u *unpacker) Pack() {
	u.err = nil
	for i := range u.fills[:u.nfills] {
		st := &u.fills[i]
		if !st.src.present() {
			copy(st.dst, st.from)
		} else if err := u.f.fill(u.name, &st.src, st.dst); err != nil && u.err == nil {
			u.err = err
		}
	}
}

// Finish ends a run whose result is err: once it has succeeded, it unpacks the result
// through recv's layout; unless u is kept, it releases the scratch and goes back to
// its pool (mpir.Stage, core.Finisher).
func (u *unpacker) Finish(err error) error {
	if err == nil {
		err = u.err
	}
	if err == nil {
		err = u.f.back(u.name, &u.r, u.rv.B, u.items)
	}
	if !u.keep {
		u.put()
	}
	return err
}

// Keep makes u a persistent request's, kept for its life (mpir.Stage).
func (u *unpacker) Keep() { u.keep = true }

// reduceArg is one Buf of a reduction, checked: its items bound to its memory, their
// base kind, and the number of bytes of base elements they hold. The zero reduceArg
// is an absent buffer.
type reduceArg struct {
	bd    datatype.Bound
	kind  datatype.Kind
	bytes int64
}

// present reports whether a holds a buffer.
func (a *reduceArg) present() bool { return a.bd.Type() != nil }

// check makes a the checked form of b, which must be a valid typed buffer of
// committed datatype whose items lie inside its memory and, for a predefined op,
// hold elements of one predefined type.
func (a *reduceArg) check(name, arg string, b *Buf, user bool) error {
	if b.err != nil || b.dt == nil || b.count < 0 || b.dt.IsFreed() {
		return badReduceBuf(name, arg, b)
	}
	var err error
	if a.bd, err = b.dt.Bind(b.mem, b.count); err != nil {
		return unboundReduceBuf(name, arg, b, err)
	}
	k := b.dt.Kind()
	if k == datatype.KindNone {
		if b.dt.Size() == 0 {
			k = datatype.KindUint8 // no data: nothing to combine
		} else if !user {
			return errorf(ClassType, name, "%s: datatype %s mixes element types; a reduction over a derived datatype needs every element of one predefined type (MPI: predefined ops act on the base elements)", arg, b.dt.Name())
		}
	}
	a.kind, a.bytes = k, a.bd.Size()
	return nil
}

// badReduceBuf is the error of a Buf that is no typed buffer.
func badReduceBuf(name, arg string, b *Buf) error {
	switch {
	case b.err != nil:
		return b.err
	case b.isInPlace():
		return errorf(ClassBuffer, name, "%s is InPlaceBuf, which only send may be", arg)
	case b.dt == nil:
		return errorf(ClassType, name, "%s has no datatype (make it with Typed)", arg)
	case b.dt.IsFreed():
		return errorf(ClassType, name, "%s: datatype %s has been freed", arg, b.dt.Name())
	}
	return errorf(ClassCount, name, "%s: count %d is negative", arg, b.count)
}

// unboundReduceBuf explains why b's datatype would not bind to its memory (err).
func unboundReduceBuf(name, arg string, b *Buf, err error) error {
	if !b.dt.IsCommitted() {
		return mpir.NotCommitted(name, arg+": datatype", b.dt.Name())
	}
	lo, hi, serr := b.dt.Span(b.count)
	if serr != nil || !errors.Is(err, datatype.ErrBuffer) {
		return typeErr(name, err)
	}
	return errorf(ClassBuffer, name, "%s: %d items of %s span bytes [%d,%d) but the buffer has %d bytes",
		arg, b.count, b.dt.Name(), lo, hi, len(b.mem))
}

// overlap reports whether a and b share memory.
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// scratchSet is the pooled memory one call lays its buffers out in: at most five
// pieces (the input and the output, each with a packed stage for a user op's padded
// T, and a stage to unpack the result through).
type scratchSet struct {
	ps [5]*[]byte
	n  int
}

func (w *scratchSet) get(n int) []byte {
	p := collective.Scratch(n)
	w.ps[w.n] = p
	w.n++
	return *p
}

func (w *scratchSet) release() {
	for _, p := range w.ps[:w.n] {
		collective.ReleaseScratch(p)
	}
	*w = scratchSet{}
}
