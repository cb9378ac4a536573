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

// The one path of the reductions on typed buffers: check both Bufs, choose the
// element form the kernel works on (the base type's elements, packed pair records,
// or a user op's []T), lay each buffer out in that form (its own memory when it
// already is, else pooled scratch), run the slice form's device call on the laid-out
// bytes, and unpack the result through recv's layout: at once for a blocking call,
// when the request completes for a nonblocking one.

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

// redCall is one call of a reduction on typed buffers.
type redCall struct {
	name   string
	c      *Comm // nil for ReduceLocalBuf
	kind   redKind
	root   int
	counts []int // ReduceScatter: items of recv's datatype per rank
	nb     bool
}

// isInPlace reports whether b is InPlaceBuf.
func (b Buf) isInPlace() bool { return b.err == nil && b.count == -1 && b.dt == nil && b.mem == nil }

// roles says whether send and recv hold data on this process.
func (rc *redCall) roles() (hasSend, hasRecv bool) {
	if rc.kind != kReduce {
		return true, true
	}
	if rc.c.IsInter() {
		return rc.root != Root && rc.root != ProcNull, rc.root == Root
	}
	return true, rc.c.Rank() == rc.root
}

// blocking runs a blocking call, its error through the communicator's handler.
func (rc *redCall) blocking(send, recv *Buf, op Op) error {
	if err := rc.c.check(rc.name); err != nil {
		return err
	}
	_, err := rc.run(send, recv, op)
	return rc.c.fail(rc.name, err)
}

// start starts a nonblocking call.
func (rc *redCall) start(send, recv *Buf, op Op) (Request, error) {
	if err := rc.c.check(rc.name); err != nil {
		return Request{}, err
	}
	p, err := rc.run(send, recv, op)
	return rc.c.start(rc.name, p, err)
}

// run checks and lays out the buffers and runs the call; a nonblocking call returns
// its Pending.
func (rc *redCall) run(send, recv *Buf, op Op) (*core.Pending, error) {
	inPlace := send.isInPlace()
	if inPlace {
		if err := rc.inPlaceAllowed(); err != nil {
			return nil, err
		}
	}
	hasSend, hasRecv := rc.roles()
	if !hasSend && !hasRecv {
		return rc.bystander()
	}
	var s, r reduceArg
	if err := rc.args(&s, &r, send, recv, hasSend && !inPlace, hasRecv, op.user != nil); err != nil {
		return nil, err
	}
	kind := s.kind
	if !s.present() {
		kind = r.kind
	}
	var fs redForm
	f, err := formOf(rc.name, op, kind, &fs)
	if err != nil {
		return nil, err
	}
	if op.user != nil {
		if err := f.whole(rc.name, &s, &r); err != nil {
			return nil, err
		}
	}
	var wcounts []int
	if rc.kind == kReduceScatter {
		if wcounts, err = rc.elemCounts(f, &r, inPlace); err != nil {
			return nil, err
		}
	}
	return rc.laid(f, &s, &r, inPlace, wcounts)
}

// args checks send and recv where they hold data (absent ones stay zero) and that
// they agree.
func (rc *redCall) args(s, r *reduceArg, send, recv *Buf, hasSend, hasRecv, user bool) error {
	if hasSend {
		if err := s.check(rc.name, "send", send, user); err != nil {
			return err
		}
	}
	if hasRecv {
		if err := r.check(rc.name, "recv", recv, user); err != nil {
			return err
		}
	}
	return rc.sameElements(s, r, user)
}

// inPlaceAllowed refuses InPlaceBuf where the slice form refuses InPlace.
func (rc *redCall) inPlaceAllowed() error {
	switch {
	case rc.kind == kLocal:
		return errorf(ClassBuffer, rc.name, "in is InPlaceBuf; MPI_Reduce_local takes two buffers")
	case rc.c.IsInter():
		return errorf(ClassBuffer, rc.name, "send is InPlaceBuf, which intercommunicator collectives do not take")
	case rc.kind == kReduce && rc.c.Rank() != rc.root:
		return errorf(ClassBuffer, rc.name, "InPlaceBuf is for the root only")
	}
	return nil
}

// sameElements checks that send and recv hold the same kind of elements, and as many
// where the call combines them element for element.
func (rc *redCall) sameElements(s, r *reduceArg, user bool) error {
	if !s.present() || !r.present() {
		return nil
	}
	if s.kind != r.kind && s.bytes > 0 && r.bytes > 0 && !user {
		return errorf(ClassType, rc.name, "send holds %s elements and recv %s; both must be built from the same predefined type", s.kind, r.kind)
	}
	switch rc.kind {
	case kReduceScatterBlock, kReduceScatter:
		return nil // the device checks send against the blocks
	}
	if s.bytes != r.bytes {
		return errorf(ClassCount, rc.name, "send holds %d bytes of base elements and recv %d; they must hold as many", s.bytes, r.bytes)
	}
	return nil
}

// bystander takes a process of the root's group on an intercommunicator other than
// the root through the call: it moves nothing, but takes its part in the sequence.
func (rc *redCall) bystander() (*core.Pending, error) {
	rd, _ := red[uint8](rc.name, NoOp)
	if rc.nb {
		return collective.Ireduce(rc.c.dev(), rc.name, vec[uint8](nil), vec[uint8](nil), rd, rc.root)
	}
	none := vec[uint8](nil)
	return nil, collective.Reduce(rc.c.dev(), rc.name, &none, &none, &rd, rc.root)
}

// elemCounts converts ReduceScatter's counts, in items of recv's datatype, to
// elements of f.
func (rc *redCall) elemCounts(f *redForm, r *reduceArg, inPlace bool) ([]int, error) {
	if n := rc.c.Size(); len(rc.counts) != n {
		return nil, errorf(ClassCount, rc.name, "len(counts) %d != the group's size %d", len(rc.counts), n)
	}
	dt := r.bd.Type()
	size := dt.Size()
	out := make([]int, len(rc.counts))
	for i, k := range rc.counts {
		if k < 0 {
			return nil, errorf(ClassCount, rc.name, "counts[%d] %d is negative", i, k)
		}
		if int64(k)*size%f.data != 0 {
			return nil, errorf(ClassType, rc.name, "counts[%d] %d items of recv's %s (%d bytes of data each) are not a whole number of the op's elements of %d bytes",
				i, k, dt.Name(), size, f.data)
		}
		out[i] = int(int64(k) * size / f.data)
	}
	if me := rc.c.Rank(); !inPlace && r.bd.Count() != int64(rc.counts[me]) {
		return nil, errorf(ClassCount, rc.name, "recv holds %d items and counts[%d] is %d; they must be equal", r.bd.Count(), me, rc.counts[me])
	}
	return out, nil
}

// laidOut is one call's buffers laid out: the device's send and receive (rv.B holds
// the result in the call's form) and the scratch they use.
type laidOut struct {
	sv, rv collective.Vec
	w      scratchSet
}

// laid lays the checked buffers out in form f, runs the call and finishes it.
func (rc *redCall) laid(f *redForm, s, r *reduceArg, inPlace bool, wcounts []int) (*core.Pending, error) {
	var l laidOut
	if err := rc.layout(f, s, r, inPlace, &l); err != nil {
		l.w.release()
		return nil, err
	}
	p, err := rc.call(f, &l, wcounts)
	if err != nil {
		l.w.release()
		return nil, err
	}
	out, items := l.rv.B, rc.resultItems(r, inPlace)
	if p == nil {
		err = f.back(rc.name, r, out, items, &l.w)
		l.w.release()
		return nil, err
	}
	// The request's own copies, so that a blocking call's stay on the stack; pooled,
	// and carried by the collective's record, so that the call allocates nothing.
	u := getUnpacker()
	u.held, u.f, u.r, u.name, u.out, u.items = l.w, *f, *r, rc.name, out, items
	return core.ThenFinish(p, u), nil
}

// unpacker finishes a nonblocking reduction on typed buffers: once it has
// succeeded, it unpacks the result through recv's layout; either way it releases the
// scratch and goes back to its pool.
type unpacker struct {
	held  scratchSet
	f     redForm
	r     reduceArg
	name  string
	out   []byte
	items int64
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

// Finish is the core.Finisher of the request.
func (u *unpacker) Finish(err error) error {
	if err == nil {
		err = u.f.back(u.name, &u.r, u.out, u.items, &u.held)
	}
	u.held.release()
	*u = unpacker{}
	unpackers.Lock()
	if len(unpackers.free) < 256 {
		unpackers.free = append(unpackers.free, u)
	}
	unpackers.Unlock()
	return err
}

// layout lays out recv (the result, and the input too in place or for
// ReduceLocalBuf) and send in l.
func (rc *redCall) layout(f *redForm, s, r *reduceArg, inPlace bool, l *laidOut) error {
	fill := inPlace || rc.kind == kLocal // recv holds input
	out, direct, err := f.lay(rc.name, r, &l.w, fill)
	if err != nil {
		return err
	}
	l.sv, l.rv = collective.Vec{Esz: f.esz}, collective.Vec{B: out, Esz: f.esz}
	switch {
	case inPlace:
		l.sv.InPlace = true
		return nil
	case !s.present():
		return nil
	}
	in, sdirect := f.direct(s)
	if r.present() && !direct && !sdirect && rc.inPlaceWorks() {
		// Pack send straight into the result's scratch and reduce in place there:
		// one buffer and one copy fewer.
		if err := f.fill(rc.name, s, out, &l.w); err != nil {
			return err
		}
		l.sv.InPlace = true
		return nil
	}
	if !sdirect {
		in = l.w.get(f.laidLen(s))
		if err := f.fill(rc.name, s, in, &l.w); err != nil {
			return err
		}
	}
	if overlap(in, out) {
		// One buffer passed as both: the reduction must read the input as it was.
		p := l.w.get(len(in))
		copy(p, in)
		in = p
	}
	l.sv.B = in
	return nil
}

// inPlaceWorks reports whether the call may take its input from its result buffer.
func (rc *redCall) inPlaceWorks() bool {
	switch rc.kind {
	case kReduce, kAllreduce, kScan, kExscan:
		return !rc.c.IsInter()
	}
	return false
}

// call runs the device call of rc on the laid-out buffers.
func (rc *redCall) call(f *redForm, l *laidOut, wcounts []int) (*core.Pending, error) {
	sv, rv := &l.sv, &l.rv
	if rc.kind == kLocal {
		f.rd.K.Fn(rv.B, sv.B)
		return nil, nil
	}
	d, name, nb := rc.c.dev(), rc.name, rc.nb
	switch rc.kind {
	case kReduce:
		if nb {
			return collective.Ireduce(d, name, *sv, *rv, f.rd, rc.root)
		}
		return nil, collective.Reduce(d, name, sv, rv, &f.rd, rc.root)
	case kAllreduce:
		if nb {
			return collective.Iallreduce(d, name, *sv, *rv, f.rd)
		}
		return nil, collective.Allreduce(d, name, sv, rv, &f.rd)
	case kReduceScatterBlock:
		return collective.ReduceScatterBlock(d, name, *sv, *rv, f.rd, nb)
	case kReduceScatter:
		return collective.ReduceScatter(d, name, *sv, *rv, wcounts, f.rd, nb)
	}
	return collective.Scan(d, name, *sv, *rv, f.rd, rc.kind == kExscan, nb)
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
