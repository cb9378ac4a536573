package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/prof"
)

// Collectives: each C buffer becomes a collective.Vec over the C memory (cvec); a rooted
// collective's buffer that the standard says is ignored on a process (the receive
// buffer of Gather off the root, ...) is not looked at, as the standard allows it to
// be anything there. A nonblocking collective's request keeps the Go copies of the C
// count arrays alive until it completes.

func isRoot(c *comm, root int32) bool {
	if c.c.IsInter() {
		return root == C.MPI_ROOT
	}
	return rankIn(root) == c.c.Rank()
}

// ignored is a buffer the call does not use on this process.
func ignored(esz int) collective.Vec { return collective.Vec{Esz: max(esz, 1)} }

func esz(v collective.Vec) int {
	if v.Type != nil {
		return int(v.Type.Size())
	}
	return v.Esz
}

// maxItems is how many items the v forms' counts and displacements reach.
func maxItems(counts, displs []int) int64 {
	var m int64
	for i := range counts {
		if e := int64(displs[i] + counts[i]); counts[i] > 0 && e > m {
			m = e
		}
	}
	return m
}

// moved is the counts of a v form as the device moves them: zeros when the datatype
// dh has size zero. Such items carry no data, and a zero-sized type's buffer has no
// items for the counts to reach (MPI_Type_contiguous(0, ...) with count 1 is legal).
func moved(counts []int, dh uintptr) []int {
	if counts == nil {
		return nil
	}
	if d := dtOf(dh); d == nil || d.t.Size() != 0 {
		return counts
	}
	return make([]int, len(counts))
}

// mode is how a collective runs: blocking, nonblocking (an MPI_Ix) or persistent (an
// MPI_x_init, started by MPI_Start).
type mode int

const (
	mBlock mode = iota
	mNB
	mPersist
)

// launch runs a collective whose arguments are checked: run(nb) starts it (nb) or
// runs it to completion. A nonblocking one's request holds the pending operation; a
// persistent one's holds run, which MPI_Start calls.
func launch(op string, c *comm, ch uintptr, req unsafe.Pointer, m mode, run func(nb bool) (*core.Pending, error)) int32 {
	switch m {
	case mBlock:
		_, err := run(false)
		return fail(op, ch, err)
	case mNB:
		p, err := run(true)
		return started(op, c, ch, req, p, err)
	}
	// MPI_x_init checks every argument: run once under CheckArgs, which stops the
	// schedule's builder after its checks, before anything is sent.
	err := collective.CheckArgs(c.c, func() error {
		p, err := run(true)
		if err == nil && p != nil {
			p.Free()
			return core.Errorf(core.ClassIntern, op, "the argument check started the operation")
		}
		return err
	})
	if err != nil {
		return fail(op, ch, err)
	}
	addPersistent(c, ch, func() (*core.Pending, error) { return run(true) }, req)
	return 0
}

// started hands a nonblocking call's pending operation to its request (or reports
// its error).
func started(op string, c *comm, ch uintptr, req unsafe.Pointer, p *core.Pending, err error) int32 {
	if err != nil {
		return fail(op, ch, err)
	}
	addPending(p, c, ch, nil, req)
	return 0
}

func commArg(op string, ch uintptr, req unsafe.Pointer, m mode) (*comm, int32) {
	c, r := needComm(op, ch)
	if c == nil {
		return nil, r
	}
	if m != mBlock && req == nil {
		return nil, fail(op, ch, errorf(errArg, op, "request is NULL"))
	}
	return c, 0
}

// carr reads n counts or displacements of a C array: ints, or MPI_Count/MPI_Aint
// (big).
func carr(p unsafe.Pointer, n int, big bool) []int {
	if big {
		return i64ToInts(int64s(p, n))
	}
	return toInts(ints(p, n))
}

// carrInto is carr appending to out (nil, as carr, for a NULL array).
func carrInto(out []int, p unsafe.Pointer, n int, big bool) []int {
	if big {
		for _, v := range int64s(p, n) {
			out = append(out, int(v))
		}
	} else {
		for _, v := range ints(p, n) {
			out = append(out, int(v))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// intLists holds the lists of counts a call converts from C's and the device reads
// only during the call.
var intLists = sync.Pool{New: func() any { return new([]int) }}

func barrier(op string, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	defer exit(barrierCalls[m], c.enter(barrierCalls[m], prof.NoPeer, -1, 0), 0)
	if m == mBlock {
		return fail(op, ch, collective.Barrier(c.c, op))
	}
	if m == mNB { // called here: the closure below would escape to the heap on every call
		p, err := collective.Ibarrier(c.c, op)
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, func(bool) (*core.Pending, error) { return collective.Ibarrier(c.c, op) })
}

func bcast(op string, buf unsafe.Pointer, count int64, dh uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := typeBytes(count, dh)
	defer exit(bcastCalls[m], c.enter(bcastCalls[m], rootPeer(root), -1, pn), pn)
	v, err := cvec(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	switch m {
	case mBlock:
		return fail(op, ch, collective.Bcast(c.c, op, &v, rankIn(root)))
	case mNB:
		p, err := collective.Ibcast(c.c, op, v, rankIn(root))
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, ibcast(op, c, v, rankIn(root)))
}

// ibcast, ireduce and iallreduce make the run of a nonblocking or persistent call
// from copies of its arguments: a closure in the calling function would move the
// blocking path's locals, whose addresses it passes, to the heap on every call.
func ibcast(op string, c *comm, v collective.Vec, root int) func(bool) (*core.Pending, error) {
	return func(bool) (*core.Pending, error) { return collective.Ibcast(c.c, op, v, root) }
}

func ireduce(op string, c *comm, s, rv collective.Vec, rd collective.Red, root int) func(bool) (*core.Pending, error) {
	return func(nb bool) (*core.Pending, error) {
		if !nb {
			return nil, collective.Reduce(c.c, op, &s, &rv, &rd, root)
		}
		return collective.Ireduce(c.c, op, s, rv, rd, root)
	}
}

func iallreduce(op string, c *comm, s, rv collective.Vec, rd collective.Red) func(bool) (*core.Pending, error) {
	return func(nb bool) (*core.Pending, error) {
		if !nb {
			return nil, collective.Allreduce(c.c, op, &s, &rv, &rd)
		}
		return collective.Iallreduce(c.c, op, s, rv, rd)
	}
}

// redArgs are a reduction's buffers, its operation and, for a datatype with gaps, its
// staging (nil for a dense type): filled in place by reduceArgs, as the structs are
// large and a call's multiple results would copy them through memory at each return.
type redArgs struct {
	s, rv collective.Vec
	rd    collective.Red
	st    *redStage
}

// reduceArgs makes the buffers and the reduction of the reductions. The device
// reduces contiguous items; for a datatype with gaps st stages them: packed into
// scratch before the call and the result unpacked after.
func reduceArgs(op string, c *comm, sbuf, rbuf unsafe.Pointer, scount, rcount int64, dh, oh uintptr, recvUsed bool, a *redArgs) (err error) {
	if err = redInto(op, oh, dh, &a.rd); err != nil {
		return
	}
	if t := dtOf(dh); t != nil && t.t.IsCommitted() && !dense(t.t) {
		a.s, a.rv, a.st, err = stageReduce(op, sbuf, rbuf, scount, rcount, t.t, recvUsed)
		return
	}
	if a.s, err = cvec(op, sbuf, scount, dh); err != nil {
		return
	}
	if !recvUsed {
		a.rv = ignored(esz(a.s))
		return nil
	}
	a.rv, err = cvec(op, rbuf, rcount, dh)
	return
}

// redStage is a reduction's buffers of a datatype with gaps: the C memory in the
// type's layout and packed scratch the device reduces. Records and scratch are
// pooled: a blocking call releases them at its end, a nonblocking one once it has
// completed (the record is the Finisher its collective's record carries), so that
// neither allocates; a persistent request keeps its own for its life.
type redStage struct {
	t                 *datatype.Type
	smem, rmem        []byte
	sorg, rorg        int64
	scount, rcount    int64
	sbuf, rbuf        []byte
	sp, rp            *[]byte // pooled scratch behind sbuf and rbuf
	inPlace, recvUsed bool
	keep              bool // a persistent request's: never released
}

var redStages = sync.Pool{New: func() any { return new(redStage) }}

func stageReduce(op string, sbuf, rbuf unsafe.Pointer, scount, rcount int64, t *datatype.Type, recvUsed bool) (s, rv collective.Vec, st *redStage, err error) {
	if scount < 0 || rcount < 0 {
		return s, rv, nil, errorf(errCount, op, "count %d is negative", min(scount, rcount))
	}
	size := int(t.Size())
	st = redStages.Get().(*redStage)
	*st = redStage{t: t, scount: scount, rcount: rcount, inPlace: uintptr(sbuf) == inPlaceAddr, recvUsed: recvUsed}
	if st.inPlace {
		s = collective.InPlaceVec(size)
	} else {
		if st.smem, st.sorg, err = span(op, sbuf, scount, t); err != nil {
			st.release()
			return s, rv, nil, err
		}
		st.sp, st.sbuf = scratch(int(scount) * size)
		s = collective.Vec{B: st.sbuf, Esz: size}
	}
	if !recvUsed {
		return s, ignored(size), st, nil
	}
	if st.rmem, st.rorg, err = span(op, rbuf, rcount, t); err != nil {
		st.release()
		return s, rv, nil, err
	}
	st.rp, st.rbuf = scratch(int(rcount) * size)
	return s, collective.Vec{B: st.rbuf, Esz: size}, st, nil
}

// scratch is n bytes of pooled scratch (none for 0).
func scratch(n int) (*[]byte, []byte) {
	if n == 0 {
		return nil, []byte{}
	}
	p := collective.Scratch(n)
	return p, *p
}

// release gives st's scratch and st back to their pools, unless a persistent request
// keeps them. st may be nil (a dense type's call).
func (st *redStage) release() {
	if st == nil || st.keep {
		return
	}
	if st.sp != nil {
		collective.ReleaseScratch(st.sp)
	}
	if st.rp != nil {
		collective.ReleaseScratch(st.rp)
	}
	*st = redStage{}
	redStages.Put(st)
}

// pack lays the input out for the device: the send buffer's items, or in place the
// receive buffer's. Nothing for a nil st.
func (st *redStage) pack() {
	switch {
	case st == nil:
	case !st.inPlace:
		st.t.PackAt(st.sbuf, st.smem, st.sorg, st.scount)
	case st.recvUsed:
		st.t.PackAt(st.rbuf, st.rmem, st.rorg, st.rcount)
	}
}

// unpack puts the result where the receive buffer's datatype says.
func (st *redStage) unpack() error {
	if st.recvUsed && st.rcount > 0 {
		if _, err := st.t.UnpackAt(st.rmem, st.rorg, st.rbuf, st.rcount); err != nil {
			return core.TypeErr("reduction", err)
		}
	}
	return nil
}

// Finish ends a run on st's buffers whose result is err: unpacks it if it
// succeeded, and releases st (core.Finisher).
func (st *redStage) Finish(err error) error {
	if err == nil {
		err = st.unpack()
	}
	st.release()
	return err
}

// done ends a blocking call on st's buffers (nil: a dense type's, err as it is).
func (st *redStage) done(err error) error {
	if st == nil {
		return err
	}
	return st.Finish(err)
}

// then hands st to a nonblocking call's operation p, which finishes it once it
// has completed; if the call failed, st is released now.
func (st *redStage) then(p *core.Pending, err error) (*core.Pending, error) {
	if st == nil {
		return p, err
	}
	if err != nil {
		st.release()
		return nil, err
	}
	if p == nil { // done inside the call
		return nil, st.Finish(nil)
	}
	return core.ThenFinish(p, st), nil
}

// staged is run with st's packing before each run and unpacking after (once a
// nonblocking one completes), for a persistent request, which keeps st; run
// itself for a dense type.
func staged(st *redStage, run func(nb bool) (*core.Pending, error)) func(nb bool) (*core.Pending, error) {
	if st == nil {
		return run
	}
	st.keep = true
	return func(nb bool) (*core.Pending, error) {
		st.pack()
		p, err := run(nb)
		switch {
		case err != nil:
			return nil, err
		case p == nil: // done inside the call
			return nil, st.Finish(nil)
		}
		return core.ThenFinish(p, st), nil
	}
}

func reduce(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := typeBytes(count, dh)
	defer exit(reduceCalls[m], c.enter(reduceCalls[m], rootPeer(root), -1, pn), pn)
	var a redArgs
	if err := reduceArgs(op, c, sbuf, rbuf, count, count, dh, oh, isRoot(c, root), &a); err != nil {
		return fail(op, ch, err)
	}
	switch m {
	case mBlock:
		a.st.pack()
		return fail(op, ch, a.st.done(collective.Reduce(c.c, op, &a.s, &a.rv, &a.rd, rankIn(root))))
	case mNB:
		a.st.pack()
		p, err := a.st.then(collective.Ireduce(c.c, op, a.s, a.rv, a.rd, rankIn(root)))
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, staged(a.st, ireduce(op, c, a.s, a.rv, a.rd, rankIn(root))))
}

func allreduce(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := typeBytes(count, dh)
	defer exit(allreduceCalls[m], c.enter(allreduceCalls[m], prof.NoPeer, -1, pn), pn)
	var a redArgs
	if err := reduceArgs(op, c, sbuf, rbuf, count, count, dh, oh, true, &a); err != nil {
		return fail(op, ch, err)
	}
	switch m {
	case mBlock:
		a.st.pack()
		return fail(op, ch, a.st.done(collective.Allreduce(c.c, op, &a.s, &a.rv, &a.rd)))
	case mNB:
		a.st.pack()
		p, err := a.st.then(collective.Iallreduce(c.c, op, a.s, a.rv, a.rd))
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, staged(a.st, iallreduce(op, c, a.s, a.rv, a.rd)))
}

func scanOf(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, ch uintptr, excl bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	calls := scanCalls[b2i(excl)]
	pn := typeBytes(count, dh)
	defer exit(calls[m], c.enter(calls[m], prof.NoPeer, -1, pn), pn)
	var a redArgs
	if err := reduceArgs(op, c, sbuf, rbuf, count, count, dh, oh, true, &a); err != nil {
		return fail(op, ch, err)
	}
	s, rv, rd, st := a.s, a.rv, a.rd, a.st
	if m == mBlock {
		st.pack()
		_, err := collective.Scan(c.c, op, s, rv, rd, excl, false)
		return fail(op, ch, st.done(err))
	}
	if m == mNB { // called here: the closure below would escape to the heap on every call
		st.pack()
		p, err := st.then(collective.Scan(c.c, op, s, rv, rd, excl, true))
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, staged(st, func(nb bool) (*core.Pending, error) { return collective.Scan(c.c, op, s, rv, rd, excl, nb) }))
}

func scan(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	return scanOf(op, sbuf, rbuf, count, dh, oh, ch, false, req, m)
}

func exscan(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	return scanOf(op, sbuf, rbuf, count, dh, oh, ch, true, req, m)
}

func reduceScatterBlock(op string, sbuf, rbuf unsafe.Pointer, rcount int64, dh, oh uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := typeBytes(rcount*int64(peers(c)), dh)
	defer exit(reduceScatterBlockCalls[m], c.enter(reduceScatterBlockCalls[m], prof.NoPeer, -1, pn), pn)
	total := rcount * int64(peers(c))
	// In place, recvbuf holds every rank's block on the way in (MPI 4.1 6.10.1).
	rspan := rcount
	if uintptr(sbuf) == inPlaceAddr {
		rspan = total
	}
	var a redArgs
	if err := reduceArgs(op, c, sbuf, rbuf, total, rspan, dh, oh, true, &a); err != nil {
		return fail(op, ch, err)
	}
	s, rv, rd, st := a.s, a.rv, a.rd, a.st
	if m == mBlock {
		st.pack()
		_, err := collective.ReduceScatterBlock(c.c, op, s, rv, rd, false)
		return fail(op, ch, st.done(err))
	}
	if m == mNB { // called here: the closure below would escape to the heap on every call
		st.pack()
		p, err := st.then(collective.ReduceScatterBlock(c.c, op, s, rv, rd, true))
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, staged(st, func(nb bool) (*core.Pending, error) { return collective.ReduceScatterBlock(c.c, op, s, rv, rd, nb) }))
}

func reduceScatter(op string, sbuf, rbuf unsafe.Pointer, rcounts unsafe.Pointer, dh, oh uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := vBytes(rcounts, c.c.Size(), big, dh)
	defer exit(reduceScatterCalls[m], c.enter(reduceScatterCalls[m], prof.NoPeer, -1, pn), pn)
	var counts []int
	if m == mPersist { // the request keeps them
		counts = carr(rcounts, c.c.Size(), big)
	} else { // the device reads them while it builds the schedule: pooled
		held := intLists.Get().(*[]int)
		defer intLists.Put(held)
		*held = carrInto((*held)[:0], rcounts, c.c.Size(), big)
		counts = *held
	}
	if counts == nil && c.c.Size() > 0 {
		return fail(op, ch, errorf(errArg, op, "recvcounts is NULL"))
	}
	var total int64
	for _, k := range counts {
		total += int64(k)
	}
	// In place, recvbuf holds the whole input, sum(recvcounts) items (MPI 4.1 6.10.2).
	rspan := int64(counts[c.c.Rank()])
	if uintptr(sbuf) == inPlaceAddr {
		rspan = total
	}
	var a redArgs
	if err := reduceArgs(op, c, sbuf, rbuf, total, rspan, dh, oh, true, &a); err != nil {
		return fail(op, ch, err)
	}
	s, rv, rd, st := a.s, a.rv, a.rd, a.st
	if m == mBlock {
		st.pack()
		_, err := collective.ReduceScatter(c.c, op, s, rv, counts, rd, false)
		return fail(op, ch, st.done(err))
	}
	if m == mNB { // called here: the closure below would escape to the heap on every call
		st.pack()
		p, err := st.then(collective.ReduceScatter(c.c, op, s, rv, counts, rd, true))
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, staged(st, func(nb bool) (*core.Pending, error) { return collective.ReduceScatter(c.c, op, s, rv, counts, rd, nb) }))
}

// peers is the number of blocks of the all-to-all forms: the remote group's size on
// an intercommunicator.
func peers(c *comm) int { return c.c.Peers() }

func gather(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := collBytes(sbuf, scount, sdt, rcount*int64(peers(c)), rdt)
	defer exit(gatherCalls[m], c.enter(gatherCalls[m], rootPeer(root), -1, pn), pn)
	rootHere := isRoot(c, root)
	var s, rv collective.Vec
	var err error
	if !c.c.IsInter() || !rootHere {
		if s, err = cvec(op, sbuf, scount, sdt); err != nil {
			return fail(op, ch, err)
		}
	}
	if rootHere {
		if rv, err = cvec(op, rbuf, rcount*int64(peers(c)), rdt); err != nil {
			return fail(op, ch, err)
		}
		if c.c.IsInter() {
			s = ignored(esz(rv))
		}
	} else {
		rv = ignored(esz(s))
	}
	if m == mBlock {
		_, err := collective.Gather(c.c, op, s, rv, rankIn(root), false)
		return fail(op, ch, err)
	}
	if m == mNB { // called here: the closure below would escape to the heap on every call
		p, err := collective.Gather(c.c, op, s, rv, rankIn(root), true)
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, func(nb bool) (*core.Pending, error) { return collective.Gather(c.c, op, s, rv, rankIn(root), nb) })
}

func gatherv(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcounts, displs unsafe.Pointer, rdt uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := gathervBytes(c, sbuf, scount, sdt, rcounts, big, rdt)
	defer exit(gathervCalls[m], c.enter(gathervCalls[m], rootPeer(root), -1, pn), pn)
	rootHere := isRoot(c, root)
	var s, rv collective.Vec
	var counts, ds []int
	var err error
	if !c.c.IsInter() || !rootHere {
		if s, err = cvec(op, sbuf, scount, sdt); err != nil {
			return fail(op, ch, err)
		}
	}
	if rootHere {
		counts, ds = moved(carr(rcounts, peers(c), big), rdt), carr(displs, peers(c), big)
		if rv, err = cvec(op, rbuf, maxItems(counts, ds), rdt); err != nil {
			return fail(op, ch, err)
		}
		if c.c.IsInter() {
			s = ignored(esz(rv))
		}
	} else {
		rv = ignored(esz(s))
	}
	return launch(op, c, ch, req, m, func(nb bool) (*core.Pending, error) {
		return collective.Gatherv(c.c, op, s, rv, counts, ds, rankIn(root), nb)
	})
}

func scatter(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := rootBytes(c, root, scount*int64(peers(c)), sdt)
	defer exit(scatterCalls[m], c.enter(scatterCalls[m], rootPeer(root), -1, pn), pn)
	rootHere := isRoot(c, root)
	var s, rv collective.Vec
	var err error
	if !c.c.IsInter() || !rootHere {
		if rv, err = cvec(op, rbuf, rcount, rdt); err != nil {
			return fail(op, ch, err)
		}
	}
	if rootHere {
		if s, err = cvec(op, sbuf, scount*int64(peers(c)), sdt); err != nil {
			return fail(op, ch, err)
		}
		if c.c.IsInter() {
			rv = ignored(esz(s))
		}
	} else {
		s = ignored(esz(rv))
	}
	if m == mBlock {
		_, err := collective.Scatter(c.c, op, s, rv, rankIn(root), false)
		return fail(op, ch, err)
	}
	if m == mNB { // called here: the closure below would escape to the heap on every call
		p, err := collective.Scatter(c.c, op, s, rv, rankIn(root), true)
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, func(nb bool) (*core.Pending, error) { return collective.Scatter(c.c, op, s, rv, rankIn(root), nb) })
}

func scatterv(op string, sbuf unsafe.Pointer, scounts, displs unsafe.Pointer, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := scattervBytes(c, root, scounts, big, sdt)
	defer exit(scattervCalls[m], c.enter(scattervCalls[m], rootPeer(root), -1, pn), pn)
	rootHere := isRoot(c, root)
	var s, rv collective.Vec
	var counts, ds []int
	var err error
	if !c.c.IsInter() || !rootHere {
		if rv, err = cvec(op, rbuf, rcount, rdt); err != nil {
			return fail(op, ch, err)
		}
	}
	if rootHere {
		counts, ds = moved(carr(scounts, peers(c), big), sdt), carr(displs, peers(c), big)
		if s, err = cvec(op, sbuf, maxItems(counts, ds), sdt); err != nil {
			return fail(op, ch, err)
		}
		if c.c.IsInter() {
			rv = ignored(esz(s))
		}
	} else {
		s = ignored(esz(rv))
	}
	return launch(op, c, ch, req, m, func(nb bool) (*core.Pending, error) {
		return collective.Scatterv(c.c, op, s, counts, ds, rv, rankIn(root), nb)
	})
}

func allgather(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := collBytes(sbuf, scount, sdt, rcount*int64(peers(c)), rdt)
	defer exit(allgatherCalls[m], c.enter(allgatherCalls[m], prof.NoPeer, -1, pn), pn)
	s, err := cvec(op, sbuf, scount, sdt)
	if err != nil {
		return fail(op, ch, err)
	}
	rv, err := cvec(op, rbuf, rcount*int64(peers(c)), rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	if m == mBlock {
		_, err := collective.Allgather(c.c, op, s, rv, false)
		return fail(op, ch, err)
	}
	if m == mNB { // called here: the closure below would escape to the heap on every call
		p, err := collective.Allgather(c.c, op, s, rv, true)
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, func(nb bool) (*core.Pending, error) { return collective.Allgather(c.c, op, s, rv, nb) })
}

func allgatherv(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcounts, displs unsafe.Pointer, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := gathervBytes(c, sbuf, scount, sdt, rcounts, big, rdt)
	defer exit(allgathervCalls[m], c.enter(allgathervCalls[m], prof.NoPeer, -1, pn), pn)
	counts, ds := moved(carr(rcounts, peers(c), big), rdt), carr(displs, peers(c), big)
	s, err := cvec(op, sbuf, scount, sdt)
	if err != nil {
		return fail(op, ch, err)
	}
	rv, err := cvec(op, rbuf, maxItems(counts, ds), rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	if m == mBlock {
		_, err := collective.Allgatherv(c.c, op, s, rv, counts, ds, false)
		return fail(op, ch, err)
	}
	if m == mNB { // called here: the closure below would escape to the heap on every call
		p, err := collective.Allgatherv(c.c, op, s, rv, counts, ds, true)
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, func(nb bool) (*core.Pending, error) { return collective.Allgatherv(c.c, op, s, rv, counts, ds, nb) })
}

func alltoall(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := collBytes(sbuf, scount*int64(peers(c)), sdt, rcount*int64(peers(c)), rdt)
	defer exit(alltoallCalls[m], c.enter(alltoallCalls[m], prof.NoPeer, -1, pn), pn)
	n := int64(peers(c))
	s, err := cvec(op, sbuf, scount*n, sdt)
	if err != nil {
		return fail(op, ch, err)
	}
	rv, err := cvec(op, rbuf, rcount*n, rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	if m == mBlock {
		_, err := collective.Alltoall(c.c, op, s, rv, false)
		return fail(op, ch, err)
	}
	if m == mNB { // called here: the closure below would escape to the heap on every call
		p, err := collective.Alltoall(c.c, op, s, rv, true)
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, func(nb bool) (*core.Pending, error) { return collective.Alltoall(c.c, op, s, rv, nb) })
}

func alltoallv(op string, sbuf unsafe.Pointer, scounts, sdispls unsafe.Pointer, sdt uintptr, rbuf unsafe.Pointer, rcounts, rdispls unsafe.Pointer, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := alltoallvBytes(c, sbuf, scounts, sdt, rcounts, rdt, big)
	defer exit(alltoallvCalls[m], c.enter(alltoallvCalls[m], prof.NoPeer, -1, pn), pn)
	n := peers(c)
	rc, rd := moved(carr(rcounts, n, big), rdt), carr(rdispls, n, big)
	var sc, sd []int
	var s collective.Vec
	var err error
	if uintptr(sbuf) == inPlaceAddr {
		sc, sd = rc, rd
	} else {
		sc, sd = moved(carr(scounts, n, big), sdt), carr(sdispls, n, big)
		if s, err = cvec(op, sbuf, maxItems(sc, sd), sdt); err != nil {
			return fail(op, ch, err)
		}
	}
	rv, err := cvec(op, rbuf, maxItems(rc, rd), rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	if uintptr(sbuf) == inPlaceAddr {
		s = collective.InPlaceVec(esz(rv))
	}
	if m == mBlock {
		_, err := collective.Alltoallv(c.c, op, s, sc, sd, rv, rc, rd, false)
		return fail(op, ch, err)
	}
	if m == mNB { // called here: the closure below would escape to the heap on every call
		p, err := collective.Alltoallv(c.c, op, s, sc, sd, rv, rc, rd, true)
		return started(op, c, ch, req, p, err)
	}
	return launch(op, c, ch, req, m, func(nb bool) (*core.Pending, error) { return collective.Alltoallv(c.c, op, s, sc, sd, rv, rc, rd, nb) })
}

// wmem is the C memory of one side of a w form: counts[j] items of types[j] at byte
// displs[j] from p. It spans every block (p may be MPI_BOTTOM with absolute
// displacements), and the displacements it returns count from its start.
func wmem(p unsafe.Pointer, counts, displs []int, ts []*datatype.Type) ([]byte, []int, error) {
	var lo, hi int64
	first := true
	for j := range counts {
		if counts[j] <= 0 || ts[j] == nil || ts[j].Size() == 0 {
			continue
		}
		l, h, err := ts[j].Span(int64(counts[j]))
		if err != nil {
			return nil, nil, err
		}
		l, h = l+int64(displs[j]), h+int64(displs[j])
		if first || l < lo {
			lo = l
		}
		if first || h > hi {
			hi = h
		}
		first = false
	}
	out := make([]int, len(displs))
	for j := range displs {
		out[j] = displs[j] - int(lo)
	}
	if hi <= lo {
		return nil, out, nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(p, lo)), hi-lo), out, nil
}

// wtypes reads n datatype handles.
func wtypes(op, what string, p unsafe.Pointer, n int) ([]*datatype.Type, error) {
	hs := handles(p, n)
	if hs == nil && n > 0 {
		return nil, errorf(errArg, op, "%s is NULL", what)
	}
	out := make([]*datatype.Type, n)
	for j, h := range hs {
		t, err := typeOf(op, h)
		if err != nil {
			return nil, errorf(errType, op, "%s[%d]: %s", what, j, strings.TrimPrefix(err.Error(), "MPI_"+op+": "))
		}
		out[j] = t
	}
	return out, nil
}

// wside reads one side of a w form (bigDispls: the displacements are MPI_Aint).
func wside(op, what string, n int, buf, counts, displs, types unsafe.Pointer, big, bigDispls bool) (mem []byte, cs, ds []int, ts []*datatype.Type, err error) {
	cs, ds = carr(counts, n, big), carr(displs, n, bigDispls)
	if ts, err = wtypes(op, what+"types", types, n); err != nil {
		return
	}
	if len(cs) < n || len(ds) < n {
		err = errorf(errArg, op, "%scounts or %sdispls is NULL", what, what)
		return
	}
	mem, ds, err = wmem(buf, cs, ds, ts)
	if err != nil {
		err = core.TypeErr(op, err)
	}
	return
}

func alltoallw(op string, sbuf unsafe.Pointer, scounts, sdispls, stypes unsafe.Pointer, rbuf unsafe.Pointer, rcounts, rdispls, rtypes unsafe.Pointer, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := commArg(op, ch, req, m)
	if c == nil {
		return r
	}
	pn := alltoallwBytes(c, sbuf, scounts, stypes, rcounts, rtypes, big)
	defer exit(alltoallwCalls[m], c.enter(alltoallwCalls[m], prof.NoPeer, -1, pn), pn)
	n := peers(c)
	rmem, rc, rd, rt, err := wside(op, "recv", n, rbuf, rcounts, rdispls, rtypes, big, big)
	if err != nil {
		return fail(op, ch, err)
	}
	inPlace := uintptr(sbuf) == inPlaceAddr
	var smem []byte
	var sc, sd []int
	var st []*datatype.Type
	if !inPlace {
		if smem, sc, sd, st, err = wside(op, "send", n, sbuf, scounts, sdispls, stypes, big, big); err != nil {
			return fail(op, ch, err)
		}
	}
	return launch(op, c, ch, req, m, func(nb bool) (*core.Pending, error) {
		return collective.Alltoallw(c.c, op, smem, inPlace, sc, sd, st, rmem, rc, rd, rt, nb)
	})
}
