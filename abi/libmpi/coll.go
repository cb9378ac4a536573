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
	"github.com/mpigo/mpigo/internal/mpir"
)

// Collectives: the semantics are mpir's (coll*.go there: which arguments are
// significant on which process, their checks, the modes, the record); this file turns
// C's arguments into the device's. A buffer becomes a collective.Vec over the C
// memory (cvec), its conversion's error kept beside it for mpir to report where the
// buffer counts; the arrays of counts, displacements and types are read only where
// mpir.Significant says they count, since a program may leave the others unset. A
// reduction over a datatype with gaps is staged (redStage): packed into scratch the
// device reduces, the result unpacked back.

// mode is how a collective runs, and a persistent init's info handle.
type mode struct {
	m    mpir.Mode
	info uintptr
}

var (
	mBlock = mode{m: mpir.Blocking}
	mNB    = mode{m: mpir.Nonblocking}
)

// mPersist is the mode of a persistent init given info.
func mPersist(info uintptr) mode { return mode{mpir.Persistent, info} }

// The blocking forms of the short collectives, which take entry points of their own.
var (
	pBarrier    = mpir.CollProc(mpir.CollBarrier, mpir.Blocking)
	pBcast      = mpir.CollProc(mpir.CollBcast, mpir.Blocking)
	pReduce     = mpir.CollProc(mpir.CollReduce, mpir.Blocking)
	pAllreduce  = mpir.CollProc(mpir.CollAllreduce, mpir.Blocking)
	pGather     = mpir.CollProc(mpir.CollGather, mpir.Blocking)
	pGatherv    = mpir.CollProc(mpir.CollGatherv, mpir.Blocking)
	pAllgather  = mpir.CollProc(mpir.CollAllgather, mpir.Blocking)
	pAllgatherv = mpir.CollProc(mpir.CollAllgatherv, mpir.Blocking)
	pScatter    = mpir.CollProc(mpir.CollScatter, mpir.Blocking)
	pAlltoall   = mpir.CollProc(mpir.CollAlltoall, mpir.Blocking)
	pAlltoallv  = mpir.CollProc(mpir.CollAlltoallv, mpir.Blocking)
	pScatterv   = mpir.CollProc(mpir.CollScatterv, mpir.Blocking)

	pReduceScatter      = mpir.CollProc(mpir.CollReduceScatter, mpir.Blocking)
	pReduceScatterBlock = mpir.CollProc(mpir.CollReduceScatterBlock, mpir.Blocking)

	pBcastC     = mpir.CollProcLarge(mpir.CollBcast, mpir.Blocking)
	pReduceC    = mpir.CollProcLarge(mpir.CollReduce, mpir.Blocking)
	pAllreduceC = mpir.CollProcLarge(mpir.CollAllreduce, mpir.Blocking)
)

// collProc is mpir's procedure of kind k in mode m as the face's op names it: its
// large-count form for a _c procedure ("Bcast_c"), which errors name so.
func collProc(op string, k mpir.CollKind, m mpir.Mode) *mpir.Coll {
	if strings.HasSuffix(op, "_c") {
		return mpir.CollProcLarge(k, m)
	}
	return mpir.CollProc(k, m)
}

// commArg is the communicator of a call that gives a request back (m not blocking),
// whose pointer must not be NULL.
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

// runColl runs collective k in mode m on c (handle ch) with arguments a, and gives a
// nonblocking or persistent call's request to the program at req. The request pointer
// and the info handle are arguments of every process, checked with the others.
func runColl(op string, k mpir.CollKind, c *comm, ch uintptr, req unsafe.Pointer, m mode, a *mpir.CollArgs) int32 {
	a.Err, a.Info = reqInfo(op, req, m)
	p, err := mpir.Collective(collProc(op, k, m.m), c.c, a)
	return given(op, c, ch, req, m, p, err)
}

// runCollShown is runColl for a collective that collshort.c runs too: a blocking one
// fills in the communicator's entry once its region is in use.
func runCollShown(op string, k mpir.CollKind, c *comm, ch uintptr, req unsafe.Pointer, m mode, a *mpir.CollArgs) int32 {
	r := runColl(op, k, c, ch, req, m, a)
	if m.m == mpir.Blocking {
		showColl(ch, c)
	}
	return r
}

// reqInfo checks a nonblocking or persistent call's request pointer and a persistent
// init's info handle; it returns the first error and the info.
func reqInfo(op string, req unsafe.Pointer, m mode) (error, *mpir.Info) {
	if m.m == mpir.Blocking {
		return nil, nil
	}
	if req == nil {
		return errorf(errArg, op, "request is NULL"), nil
	}
	if m.m != mpir.Persistent {
		return nil, nil
	}
	in, err := infoArg(op, m.info)
	return err, in
}

// given hands the Pending of a nonblocking call (or the inactive one of a persistent
// init) to its request handle at req, or reports the call's error.
func given(op string, c *comm, ch uintptr, req unsafe.Pointer, m mode, p *core.Pending, err error) int32 {
	if err != nil {
		return fail(op, ch, err)
	}
	switch m.m {
	case mpir.Nonblocking:
		addPending(p, c, ch, nil, req)
	case mpir.Persistent:
		addStartable(c, ch, p, req)
	}
	return 0
}

// carr reads n counts or displacements of a C array: ints, or MPI_Count/MPI_Aint
// (big); nil for a NULL array.
func carr(p unsafe.Pointer, n int, big bool) []int {
	if big {
		if s := int64s(p, n); s != nil {
			return i64ToInts(s)
		}
		return nil
	}
	if s := ints(p, n); s != nil {
		return toInts(s)
	}
	return nil
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

// moved is the counts of a v form as the device moves them: zeros when the datatype
// dh has size zero. Such items carry no data, and cvec gives a zero-sized type's
// buffer no items for the counts to reach (MPI_Type_contiguous(0, ...) with count 1
// is legal).
func moved(counts []int, dh uintptr) []int {
	if counts == nil {
		return nil
	}
	if d := dtOf(dh); d == nil || d.t.Size() != 0 {
		return counts
	}
	return make([]int, len(counts))
}

func barrier(op string, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	if m == mBlock {
		r := fail(op, ch, mpir.Barrier(pBarrier, c.c))
		showColl(ch, c)
		return r
	}
	var a mpir.CollArgs
	return runColl(op, mpir.CollBarrier, c, ch, req, m, &a)
}

func bcast(op string, buf unsafe.Pointer, count int64, dh uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	v, err := side(op, !c.c.IsInter() || root != C.MPI_PROC_NULL, buf, count, dh)
	if m == mBlock {
		p := pBcast
		if big {
			p = pBcastC
		}
		r := fail(op, ch, mpir.Bcast(p, c.c, &v, err, rankIn(root)))
		showColl(ch, c)
		return r
	}
	a := mpir.CollArgs{Send: v, SendErr: err, Root: rankIn(root)}
	return runColl(op, mpir.CollBcast, c, ch, req, m, &a)
}

// redArgs are a reduction's buffers and operation as converted, each with its
// conversion's error, and for a datatype with gaps its staging (nil for a dense
// type): filled in place by reduceArgs, as the structs are large and a call's multiple
// results would copy them through memory at each return.
type redArgs struct {
	s, rv            collective.Vec
	rd               collective.Red
	serr, rerr, oerr error
	st               *redStage
}

// reduceArgs converts a reduction's buffers (those of sides, which are significant on
// this process) and its operation. The device reduces contiguous items; for a
// datatype with gaps st stages them: packed into scratch before the call and the
// result unpacked after.
func reduceArgs(op string, sbuf, rbuf unsafe.Pointer, scount, rcount int64, dh, oh uintptr, sides mpir.Sides, a *redArgs) {
	if sides == 0 {
		return // an intercommunicator's process of the root's group other than the root
	}
	a.oerr = redInto(op, oh, dh, &a.rd)
	if t := dtOf(dh); t != nil && t.t.IsCommitted() && !t.t.IsDense() && scount >= 0 && rcount >= 0 {
		a.st, a.serr, a.rerr = stageReduce(op, sbuf, rbuf, scount, rcount, t.t, sides, &a.s, &a.rv)
		return
	}
	a.s, a.serr = side(op, sides.Send(), sbuf, scount, dh)
	a.rv, a.rerr = side(op, sides.Recv(), rbuf, rcount, dh)
}

// side is a buffer's Vec where it is significant (sig) or MPI_IN_PLACE, which is
// the other side's: nothing is looked at elsewhere, where a program may pass anything.
func side(op string, sig bool, p unsafe.Pointer, count int64, dh uintptr) (collective.Vec, error) {
	if !sig && uintptr(p) != inPlaceAddr {
		return collective.Vec{}, nil
	}
	return cvec(op, p, count, dh)
}

// coll is a's arguments as mpir takes them (Red's error folded into the send side's).
func (a *redArgs) coll(root int) mpir.CollArgs {
	return mpir.CollArgs{Send: a.s, Recv: a.rv, Red: a.rd, SendErr: a.serr, RecvErr: a.rerr, RedErr: a.oerr, Root: root, Stage: a.stage()}
}

// stage is a's staging as mpir takes it: nil, not a nil *redStage, for a dense type.
func (a *redArgs) stage() mpir.Stage {
	if a.st == nil {
		return nil
	}
	return a.st
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

// stageReduce lays a reduction's significant buffers (sides) of datatype t out in
// scratch, as *s and *rv; it returns the staging and each side's error.
func stageReduce(op string, sbuf, rbuf unsafe.Pointer, scount, rcount int64, t *datatype.Type, sides mpir.Sides, s, rv *collective.Vec) (st *redStage, serr, rerr error) {
	size := int(t.Size())
	st = redStages.Get().(*redStage)
	*st = redStage{t: t, scount: scount, rcount: rcount, inPlace: uintptr(sbuf) == inPlaceAddr, recvUsed: sides.Recv()}
	switch {
	case st.inPlace:
		*s = collective.InPlaceVec(size)
	case !sides.Send():
		*s = collective.Vec{Esz: size}
	default:
		if st.smem, st.sorg, serr = span(op, sbuf, scount, t); serr == nil {
			st.sp, st.sbuf = scratch(int(scount) * size)
			*s = collective.Vec{B: st.sbuf, Esz: size}
		}
	}
	if !st.recvUsed {
		*rv = collective.Vec{Esz: size}
		return st, serr, nil
	}
	if st.rmem, st.rorg, rerr = span(op, rbuf, rcount, t); rerr == nil {
		st.rp, st.rbuf = scratch(int(rcount) * size)
		*rv = collective.Vec{B: st.rbuf, Esz: size}
	}
	return st, serr, rerr
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
// keeps them.
func (st *redStage) release() {
	if st.keep {
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

// Pack lays the input out for the device: the send buffer's items, or in place the
// receive buffer's (mpir.Stage).
func (st *redStage) Pack() {
	switch {
	case !st.inPlace && st.sbuf != nil:
		st.t.PackAt(st.sbuf, st.smem, st.sorg, st.scount)
	case st.inPlace && st.recvUsed:
		st.t.PackAt(st.rbuf, st.rmem, st.rorg, st.rcount)
	}
}

// unpack puts the result where the receive buffer's datatype says.
func (st *redStage) unpack() error {
	if st.recvUsed && st.rcount > 0 && st.rbuf != nil {
		if _, err := st.t.UnpackAt(st.rmem, st.rorg, st.rbuf, st.rcount); err != nil {
			return core.TypeErr("reduction", err)
		}
	}
	return nil
}

// Finish ends a run on st's buffers whose result is err: unpacks it if it succeeded,
// and releases st (mpir.Stage, core.Finisher).
func (st *redStage) Finish(err error) error {
	if err == nil {
		err = st.unpack()
	}
	st.release()
	return err
}

// Keep makes st a persistent request's, kept for its life (mpir.Stage).
func (st *redStage) Keep() { st.keep = true }

func reduce(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	rt := rankIn(root)
	var a redArgs
	reduceArgs(op, sbuf, rbuf, count, count, dh, oh, mpir.Significant(mpir.CollReduce, c.c, rt, uintptr(sbuf) == inPlaceAddr), &a)
	if m == mBlock && a.st == nil {
		p := pReduce
		if big {
			p = pReduceC
		}
		r := fail(op, ch, mpir.Reduce(p, c.c, &a.s, &a.rv, &a.rd, cmpOr(a.serr, a.oerr), a.rerr, rt))
		showColl(ch, c)
		return r
	}
	ca := a.coll(rt)
	return runColl(op, mpir.CollReduce, c, ch, req, m, &ca)
}

// cmpOr is the first of two errors that is not nil.
func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

func allreduce(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	var a redArgs
	reduceArgs(op, sbuf, rbuf, count, count, dh, oh, mpir.SendSide|mpir.RecvSide, &a)
	if m == mBlock && a.st == nil {
		err := a.serr
		if err == nil {
			err = cmpOr(a.rerr, a.oerr)
		}
		p := pAllreduce
		if big {
			p = pAllreduceC
		}
		r := fail(op, ch, mpir.Allreduce(p, c.c, &a.s, &a.rv, &a.rd, err))
		showColl(ch, c)
		return r
	}
	ca := a.coll(-1)
	return runColl(op, mpir.CollAllreduce, c, ch, req, m, &ca)
}

func scanOf(op string, k mpir.CollKind, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, ch uintptr, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	var a redArgs
	reduceArgs(op, sbuf, rbuf, count, count, dh, oh, mpir.SendSide|mpir.RecvSide, &a)
	ca := a.coll(-1)
	return runColl(op, k, c, ch, req, m, &ca)
}

func scan(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	return scanOf(op, mpir.CollScan, sbuf, rbuf, count, dh, oh, ch, req, m)
}

func exscan(op string, sbuf, rbuf unsafe.Pointer, count int64, dh, oh uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	return scanOf(op, mpir.CollExscan, sbuf, rbuf, count, dh, oh, ch, req, m)
}

func reduceScatterBlock(op string, sbuf, rbuf unsafe.Pointer, rcount int64, dh, oh uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	// The send buffer holds a block of recvcount for every process of the group, the
	// local group on an intercommunicator (MPI 4.1 section 6.10.1); in place the
	// receive buffer holds them on the way in.
	total := rcount * int64(c.c.Size())
	rspan := rcount
	if uintptr(sbuf) == inPlaceAddr {
		rspan = total
	}
	var a redArgs
	reduceArgs(op, sbuf, rbuf, total, rspan, dh, oh, mpir.SendSide|mpir.RecvSide, &a)
	ca := a.coll(-1)
	return runColl(op, mpir.CollReduceScatterBlock, c, ch, req, m, &ca)
}

func reduceScatter(op string, sbuf, rbuf unsafe.Pointer, rcounts unsafe.Pointer, dh, oh uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	n := c.c.Size()
	var counts []int
	if m.m == mpir.Persistent { // the request keeps them
		counts = carr(rcounts, n, big)
	} else { // the device reads them while it builds the schedule: pooled
		held := intLists.Get().(*[]int)
		defer intLists.Put(held)
		*held = carrInto((*held)[:0], rcounts, n, big)
		counts = *held
	}
	// The send buffer holds sum(recvcounts) items, and in place the receive buffer
	// does (MPI 4.1 section 6.10.2).
	var total, rspan int64
	for _, k := range counts {
		total += int64(max(k, 0))
	}
	if me := c.c.Rank(); me < len(counts) {
		rspan = int64(counts[me])
	}
	if uintptr(sbuf) == inPlaceAddr {
		rspan = total
	}
	var a redArgs
	reduceArgs(op, sbuf, rbuf, total, rspan, dh, oh, mpir.SendSide|mpir.RecvSide, &a)
	ca := a.coll(-1)
	ca.Counts = counts
	return runColl(op, mpir.CollReduceScatter, c, ch, req, m, &ca)
}

// vbuf is one side of a v form: counts and displacements (names: their C names, as
// nullOut's) read from C where the side is significant (sig), and the buffer over the
// items they reach. A NULL array the side would read is the side's error.
func vbuf(op string, sig bool, buf unsafe.Pointer, counts, displs unsafe.Pointer, names string, n int, dh uintptr, big bool) (v collective.Vec, cs, ds []int, err error) {
	if !sig {
		return
	}
	if err = nullArrays(op, n, names, counts, displs); err != nil {
		return
	}
	cs, ds = moved(carr(counts, n, big), dh), carr(displs, n, big)
	v, err = cvec(op, buf, int64(mpir.BlocksEnd(cs, ds)), dh)
	return
}

func gather(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	a := mpir.CollArgs{Root: rankIn(root)}
	sig := mpir.Significant(mpir.CollGather, c.c, a.Root, uintptr(sbuf) == inPlaceAddr)
	a.Send, a.SendErr = side(op, sig.Send(), sbuf, scount, sdt)
	a.Recv, a.RecvErr = side(op, sig.Recv(), rbuf, rcount*int64(c.c.Peers()), rdt)
	if m == mBlock {
		r := fail(op, ch, mpir.Gather(collProc(op, mpir.CollGather, mpir.Blocking), c.c, &a.Send, &a.Recv, a.SendErr, a.RecvErr, a.Root))
		showColl(ch, c)
		return r
	}
	return runColl(op, mpir.CollGather, c, ch, req, m, &a)
}

func gatherv(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcounts, displs unsafe.Pointer, rdt uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	a := mpir.CollArgs{Root: rankIn(root)}
	sig := mpir.Significant(mpir.CollGatherv, c.c, a.Root, uintptr(sbuf) == inPlaceAddr)
	a.Send, a.SendErr = side(op, sig.Send(), sbuf, scount, sdt)
	a.Recv, a.Counts, a.Displs, a.RecvErr = vbuf(op, sig.Recv(), rbuf, rcounts, displs, "recvcounts, displs", c.c.Peers(), rdt, big)
	return runCollShown(op, mpir.CollGatherv, c, ch, req, m, &a)
}

func scatter(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	a := mpir.CollArgs{Root: rankIn(root)}
	sig := mpir.Significant(mpir.CollScatter, c.c, a.Root, false)
	a.Send, a.SendErr = side(op, sig.Send(), sbuf, scount*int64(c.c.Peers()), sdt)
	a.Recv, a.RecvErr = side(op, sig.Recv(), rbuf, rcount, rdt)
	return runColl(op, mpir.CollScatter, c, ch, req, m, &a)
}

func scatterv(op string, sbuf unsafe.Pointer, scounts, displs unsafe.Pointer, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, root int32, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	a := mpir.CollArgs{Root: rankIn(root)}
	sig := mpir.Significant(mpir.CollScatterv, c.c, a.Root, false)
	a.Send, a.Counts, a.Displs, a.SendErr = vbuf(op, sig.Send(), sbuf, scounts, displs, "sendcounts, displs", c.c.Peers(), sdt, big)
	a.Recv, a.RecvErr = side(op, sig.Recv(), rbuf, rcount, rdt)
	return runColl(op, mpir.CollScatterv, c, ch, req, m, &a)
}

func allgather(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	var a mpir.CollArgs
	a.Send, a.SendErr = cvec(op, sbuf, scount, sdt)
	a.Recv, a.RecvErr = cvec(op, rbuf, rcount*int64(c.c.Peers()), rdt)
	if m == mBlock {
		r := fail(op, ch, mpir.Allgather(collProc(op, mpir.CollAllgather, mpir.Blocking), c.c, &a.Send, &a.Recv, cmpOr(a.SendErr, a.RecvErr)))
		showColl(ch, c)
		return r
	}
	return runColl(op, mpir.CollAllgather, c, ch, req, m, &a)
}

func allgatherv(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcounts, displs unsafe.Pointer, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	var a mpir.CollArgs
	a.Send, a.SendErr = cvec(op, sbuf, scount, sdt)
	a.Recv, a.Counts, a.Displs, a.RecvErr = vbuf(op, true, rbuf, rcounts, displs, "recvcounts, displs", c.c.Peers(), rdt, big)
	return runCollShown(op, mpir.CollAllgatherv, c, ch, req, m, &a)
}

func alltoall(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, rbuf unsafe.Pointer, rcount int64, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	n := int64(c.c.Peers())
	var a mpir.CollArgs
	a.Send, a.SendErr = cvec(op, sbuf, scount*n, sdt)
	a.Recv, a.RecvErr = cvec(op, rbuf, rcount*n, rdt)
	return runColl(op, mpir.CollAlltoall, c, ch, req, m, &a)
}

func alltoallv(op string, sbuf unsafe.Pointer, scounts, sdispls unsafe.Pointer, sdt uintptr, rbuf unsafe.Pointer, rcounts, rdispls unsafe.Pointer, rdt uintptr, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	var a mpir.CollArgs
	n, inPlace := c.c.Peers(), uintptr(sbuf) == inPlaceAddr
	a.Recv, a.Counts, a.Displs, a.RecvErr = vbuf(op, true, rbuf, rcounts, rdispls, "recvcounts, rdispls", n, rdt, big)
	if inPlace {
		a.Send = collective.InPlaceVec(1)
	} else {
		a.Send, a.SCounts, a.SDispls, a.SendErr = vbuf(op, true, sbuf, scounts, sdispls, "sendcounts, sdispls", n, sdt, big)
	}
	return runColl(op, mpir.CollAlltoallv, c, ch, req, m, &a)
}

// wside reads one side of a w form (what: "send" or "recv"; bigDispls: the
// displacements are MPI_Aint): its counts and displacements, the datatypes of its
// blocks of data (mpir.WTypes), and its memory, spanning every block (p may be
// MPI_BOTTOM with absolute displacements; the displacements returned count from its
// start). A NULL array is the side's error, named as the C binding names it.
func wside(op, what string, n int, p, counts, displs, types unsafe.Pointer, big, bigDispls bool) (s mpir.WSide) {
	names := "sendcounts, sdispls, sendtypes"
	if what == "recv" {
		names = "recvcounts, rdispls, recvtypes"
	}
	if s.Err = nullArrays(op, n, names, counts, displs, types); s.Err != nil {
		return
	}
	s.Counts, s.Displs = carr(counts, n, big), carr(displs, n, bigDispls)
	hs := handles(types, n)
	if hs == nil || s.Counts == nil || s.Displs == nil {
		return // the checks name what is missing
	}
	s.Types, s.Err = mpir.WTypes(op, what+"types", n, s.Counts, func(j int) (*datatype.Type, error) { return typeOf(op, hs[j]) }, make([]*datatype.Type, 0, n))
	if s.Err != nil {
		return
	}
	lo, hi, err := mpir.WSpan(&s)
	if err != nil {
		s.Err = core.TypeErr(op, err)
		return
	}
	for j := range s.Displs {
		s.Displs[j] -= int(lo)
	}
	if hi > lo {
		s.Mem, s.Err = cmem(op, what+"buf", p, int64(lo), int64(hi))
	}
	return
}

func alltoallw(op string, sbuf unsafe.Pointer, scounts, sdispls, stypes unsafe.Pointer, rbuf unsafe.Pointer, rcounts, rdispls, rtypes unsafe.Pointer, ch uintptr, big bool, req unsafe.Pointer, m mode) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	n := c.c.Peers()
	a := mpir.WArgs{InPlace: uintptr(sbuf) == inPlaceAddr}
	a.Recv = wside(op, "recv", n, rbuf, rcounts, rdispls, rtypes, big, big)
	if !a.InPlace {
		a.Send = wside(op, "send", n, sbuf, scounts, sdispls, stypes, big, big)
	}
	a.Err, a.Info = reqInfo(op, req, m)
	p, err := mpir.Alltoallw(collProc(op, mpir.CollAlltoallw, m.m), c.c, &a)
	return given(op, c, ch, req, m, p, err)
}
