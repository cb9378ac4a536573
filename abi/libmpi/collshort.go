package main

/*
#include "collshort.h"
extern uint8_t mpigo_coll_ops[256];
#include "tallies.h"
*/
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/prof"
)

// The Go side of the short collectives in C (collshort.c): per communicator where its
// node region lies, filled in from collective.ShortOf after a Go collective on it
// found the region in use (the region is made on the communicator's first
// collective), emptied before the communicator is freed and when MPI or a session
// ends; and the Go halves that go on from where the C code stopped.

// collEntry is the C entry of communicator h, nil beyond the table.
func collEntry(h uintptr) *C.mpigo_coll {
	if h == hCommWorld {
		return &C.mpigo_colls[C.MPIGO_COLL_COMMS]
	}
	if h>>C.MPIGO_KIND_SHIFT != uintptr(kComm) {
		return nil
	}
	if i := h & (C.MPIGO_SLOTS - 1); i < C.MPIGO_COLL_COMMS {
		return &C.mpigo_colls[i]
	}
	return nil
}

// showColl fills in communicator h's entry once its node region is in use: after a
// blocking Barrier, Bcast or Allreduce that took the Go way.
func showColl(h uintptr, c *comm) {
	e := collEntry(h)
	if e == nil || e.h == C.uintptr_t(h) {
		return
	}
	s, ok := collective.ShortOf(c.c)
	if !ok || s.Geo != geometry(s.Geo) {
		return
	}
	collOps()
	*e = C.mpigo_coll{
		base: (*C.char)(s.Base), own: (*C.mpigo_own)(unsafe.Pointer(s.Own)),
		rank: C.int32_t(s.Rank), size: C.int32_t(s.Size), spin: C.int32_t(min(s.Geo.Spin, 1<<28)),
		yield: C.int32_t(min(s.Geo.Yield, 1<<28)), handoffs: C.int32_t(min(s.Geo.Handoffs, 1<<28)),
		ring_off: C.int64_t(s.Geo.RingOff), ring_stride: C.int64_t(s.Geo.RingStride), chunks: C.int64_t(s.Geo.Chunks),
		bcast_max: C.int32_t(s.Bcast), reduce_max: C.int32_t(s.Reduce),
		cells_off: C.int64_t(s.Geo.CellsOff), gather_max: C.int32_t(s.Gather), scatter_max: C.int32_t(s.Scatter),
		alltoall_max: C.int32_t(s.Alltoall),
		slots_off:    C.int64_t(s.Geo.SlotsOff), slot: C.int64_t(s.Geo.Slot),
	}
	if s.Geo.Oversub {
		e.oversub = 1
	}
	e.h = C.uintptr_t(h) // last: the entry is complete (one thread calls MPI below MPI_THREAD_MULTIPLE)
}

// geometry is g with collshort.h's constants in place of its fields: equal to g when
// the C code reads the region where Go's protocol keeps its words.
func geometry(g collective.Geometry) collective.Geometry {
	g.Blocks, g.Stride, g.Arrive, g.Ack, g.Done = C.MPIGO_R_BLOCKS, C.MPIGO_R_STRIDE, C.MPIGO_R_ARRIVE, C.MPIGO_R_ACK, C.MPIGO_R_DONE
	g.Len, g.Inline, g.Defer, g.Begun = C.MPIGO_R_LEN, C.MPIGO_R_INLINE, C.MPIGO_R_DEFER, C.MPIGO_R_BEGUN
	g.BcastInline, g.ReduceInline = C.MPIGO_R_BCAST_INLINE, C.MPIGO_R_REDUCE_INLINE
	g.Cells, g.Cell, g.CellExt, g.GatherInline = C.MPIGO_R_CELLS, C.MPIGO_R_CELL, C.MPIGO_R_CELL_EXT, C.MPIGO_R_GATHER_INLINE
	g.Taken = C.MPIGO_R_TAKEN
	return g
}

// hideColl empties communicator h's entry: it is about to be freed.
func hideColl(h uintptr) {
	if e := collEntry(h); e != nil {
		e.h = 0
	}
}

// hideColls empties every entry: MPI or a session ends, which unmaps the regions.
func hideColls() {
	for i := range C.mpigo_colls {
		C.mpigo_colls[i].h = 0
	}
}

// collOps writes, per predefined datatype, the operations collshort.c's kernels apply
// to it in an Allreduce, a Reduce or a Reduce_local: those whose reduction Go's tables hold (the others take the
// Go way, which reports why), on the integer kinds, and on the floating kinds only
// MPI_SUM and MPI_PROD.
func collOps() {
	ops := [...]struct {
		h    uintptr
		bit  C.uint8_t
		ints bool
	}{{opSum, 1, false}, {opProd, 2, false}, {opBand, 4, true}, {opBor, 8, true}, {opBxor, 16, true}}
	for j := range C.mpigo_coll_ops {
		m := C.uint8_t(0)
		k := C.mpigo_short_dts[j].kind
		for _, o := range ops {
			r := predefRed[o.h-opSum][j]
			if k == C.MPIGO_K_NONE || r == nil || r.User || r.Pair || o.ints && (k == C.MPIGO_K_F32 || k == C.MPIGO_K_F64) {
				continue
			}
			m |= o.bit
		}
		C.mpigo_coll_ops[j] = m
	}
}

// collOpName names collshort.c's calls (MPIGO_CC_*) for their errors, by form (1: the
// large-count one, MPIGO_CC_LARGE).
var collOpName = [2][C.MPIGO_CC_N]string{
	{C.MPIGO_CC_BARRIER: "Barrier", C.MPIGO_CC_BCAST: "Bcast", C.MPIGO_CC_ALLREDUCE: "Allreduce",
		C.MPIGO_CC_GATHER: "Gather", C.MPIGO_CC_GATHERV: "Gatherv", C.MPIGO_CC_ALLGATHER: "Allgather",
		C.MPIGO_CC_ALLGATHERV: "Allgatherv", C.MPIGO_CC_REDUCE: "Reduce", C.MPIGO_CC_SCATTER: "Scatter",
		C.MPIGO_CC_ALLTOALL: "Alltoall", C.MPIGO_CC_ALLTOALLV: "Alltoallv", C.MPIGO_CC_SCATTERV: "Scatterv",
		C.MPIGO_CC_REDUCE_SCATTER: "Reduce_scatter", C.MPIGO_CC_REDUCE_SCATTER_BLOCK: "Reduce_scatter_block"},
	{C.MPIGO_CC_BARRIER: "Barrier", C.MPIGO_CC_BCAST: "Bcast_c", C.MPIGO_CC_ALLREDUCE: "Allreduce_c",
		C.MPIGO_CC_GATHER: "Gather_c", C.MPIGO_CC_GATHERV: "Gatherv_c", C.MPIGO_CC_ALLGATHER: "Allgather_c",
		C.MPIGO_CC_ALLGATHERV: "Allgatherv_c", C.MPIGO_CC_REDUCE: "Reduce_c", C.MPIGO_CC_SCATTER: "Scatter_c",
		C.MPIGO_CC_ALLTOALL: "Alltoall_c", C.MPIGO_CC_ALLTOALLV: "Alltoallv_c", C.MPIGO_CC_SCATTERV: "Scatterv_c",
		C.MPIGO_CC_REDUCE_SCATTER: "Reduce_scatter_c", C.MPIGO_CC_REDUCE_SCATTER_BLOCK: "Reduce_scatter_block_c"},
}

// ccName is the name of collshort.c's call op (MPIGO_CC_*, with MPIGO_CC_LARGE for the
// large-count form).
func ccName(op int32) string {
	form := 0
	if op&C.MPIGO_CC_LARGE != 0 {
		form = 1
	}
	return collOpName[form][op&^C.MPIGO_CC_LARGE]
}

// mpigo_coll_wait goes on with a wait of collshort.c's call op on communicator ch that
// spun spun polls (collective.ShortWait); 0, or the error's code through ch's handler.
//
//export mpigo_coll_wait
func mpigo_coll_wait(op int32, ch uintptr, spun, r int32, p unsafe.Pointer, v uint64, q unsafe.Pointer, qv uint64) int32 {
	name := ccName(op)
	c := commOf(ch)
	return fail(name, ch, collective.ShortWait(c.c, name, int(spun), int(r), (*uint64)(p), v, (*uint64)(q), qv))
}

// mpigo_coll_bcast_resume goes on with collshort.c's Bcast at a reader that found the
// root's message of another length or sent another way (collective.ShortBcastResume),
// or, begun not 0, at a reader of an empty buffer that owes lines and found its root
// begun on a long op (collective.ShortBcastBegun); big: the call is MPI_Bcast_c.
//
//export mpigo_coll_bcast_resume
func mpigo_coll_bcast_resume(buf unsafe.Pointer, count int64, dh uintptr, root int32, ch uintptr, begun, big int32) int32 {
	op := ccName(C.MPIGO_CC_BCAST | big*C.MPIGO_CC_LARGE)
	c := commOf(ch)
	v, err := cvec(op, buf, count, dh)
	if err != nil { // cannot be: C took only a predefined datatype and a good count
		return fail(op, ch, err)
	}
	if begun != 0 {
		return fail(op, ch, collective.ShortBcastBegun(c.c, op, &v, int(root)))
	}
	return fail(op, ch, collective.ShortBcastResume(c.c, op, &v, int(root)))
}

// mpigo_coll_mismatch is the error of collshort.c's call cc (an Allreduce, or a
// ReduceScatter done as one) of total bytes of esz-byte elements whose combine found
// rank r's contribution of another length.
//
//export mpigo_coll_mismatch
func mpigo_coll_mismatch(ch uintptr, r int32, total int64, esz, cc int32) int32 {
	op := ccName(cc)
	return fail(op, ch, collective.ShortReduceMismatch(commOf(ch).c, op, int(r), int(total), int(esz)))
}

// mpigo_coll_reduce_err is the error of collshort.c's Reduce whose root found rank
// j's contribution of n bytes where its own has want, of esz-byte elements (big: the
// call is MPI_Reduce_c).
//
//export mpigo_coll_reduce_err
func mpigo_coll_reduce_err(ch uintptr, j int32, n, want int64, esz, big int32) int32 {
	op := ccName(C.MPIGO_CC_REDUCE | big*C.MPIGO_CC_LARGE)
	return fail(op, ch, collective.ShortReduceCountErr(op, int(j), int(n), int(want), int(esz)))
}

// mpigo_coll_gather_far is the receive, at the root of collshort.c's Gather, of rank
// j's block of n bytes that its cell says went as a message, into dst's want bytes
// (collective.ShortGatherFar).
//
//export mpigo_coll_gather_far
func mpigo_coll_gather_far(op int32, ch uintptr, j int32, n int64, dst unsafe.Pointer, want int64) int32 {
	name := ccName(op)
	return fail(name, ch, collective.ShortGatherFar(commOf(ch).c, name, rawBytes(dst, want), int(n), int(j)))
}

// mpigo_coll_block_err is the error of collshort.c's gather whose rank j sent n bytes
// where the block for it has want.
//
//export mpigo_coll_block_err
func mpigo_coll_block_err(op int32, ch uintptr, j int32, n, want int64) int32 {
	name := ccName(op)
	return fail(name, ch, collective.ShortBlockErr(name, int(j), int(n), int(want)))
}

// mpigo_coll_join says that collshort.c's Allgather, Scatter(v) or Alltoall(v) on
// communicator ch took its op and found a rank that took the schedules: the call's Go
// half, next, joins them (collective.ShortJoin).
//
//export mpigo_coll_join
func mpigo_coll_join(ch uintptr) { collective.ShortJoin(commOf(ch).c) }

// rawBytes is n bytes of C memory at p (nil for none).
func rawBytes(p unsafe.Pointer, n int64) []byte {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

// mpigo_short_colls is how many Barrier, Bcast, Allreduce, Gather, Gatherv, Allgather,
// Allgatherv, Reduce, Scatter, Alltoall, Alltoallv and Scatterv calls collshort.c did
// itself, for C programs that check which way a call took (abi/testdata/collshort.c).
//
//export mpigo_short_colls
func mpigo_short_colls() int64 {
	return callsDone(func(b *C.mpigo_tallies) []C.mpigo_calls { return b.coll[:] })
}

// collshort.h's layout of Go's memory holds.
var (
	_ [0]struct{} = [unsafe.Sizeof(C.mpigo_own{}) - unsafe.Sizeof(collective.Own{})]struct{}{}
	_ [0]struct{} = [unsafe.Sizeof(collective.Own{}) - unsafe.Sizeof(C.mpigo_own{})]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(C.mpigo_own{}.flow_bytes) - unsafe.Offsetof(collective.Own{}.Flow)]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(collective.Own{}.Flow) - unsafe.Offsetof(C.mpigo_own{}.flow_bytes)]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(C.mpigo_own{}.ok) - unsafe.Offsetof(collective.Own{}.Short)]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(C.mpigo_own{}.bar) - unsafe.Offsetof(collective.Own{}.Bar)]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(collective.Own{}.Bar) - unsafe.Offsetof(C.mpigo_own{}.bar)]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(C.mpigo_own{}.owed) - unsafe.Offsetof(collective.Own{}.Owed)]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(collective.Own{}.Owed) - unsafe.Offsetof(C.mpigo_own{}.owed)]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(C.mpigo_own{}.g) - unsafe.Offsetof(collective.Own{}.G)]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(collective.Own{}.G) - unsafe.Offsetof(C.mpigo_own{}.g)]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(C.mpigo_own{}.roots) - unsafe.Offsetof(collective.Own{}.Roots)]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(collective.Own{}.Roots) - unsafe.Offsetof(C.mpigo_own{}.roots)]struct{}{}
)

func init() {
	watchTallies([]prof.Call{pBarrier.Call, pBcast.Call, pAllreduce.Call, pGather.Call, pGatherv.Call, pAllgather.Call,
		pAllgatherv.Call, pReduce.Call, pScatter.Call, pAlltoall.Call,
		pAlltoallv.Call, pScatterv.Call, pReduceScatter.Call, pReduceScatterBlock.Call},
		func(b *C.mpigo_tallies) []C.mpigo_calls { return b.coll[:] })
}
