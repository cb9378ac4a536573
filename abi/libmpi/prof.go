package main

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/prof"
)

// The record (internal/prof) sees the C library's calls as it sees the Go facade's
// (mpi/prof.go): each exported call that communicates reports its entry and exit
// once, with the facade's prof.Call, a peer that is a rank of the communicator as the
// device numbers it (rankIn), the device's tag (tagIn) and the same bytes: a
// message's, a collective's input (its output in place), a completion call's none. The
// call is a constant at the call site, or a collective's calls indexed by its mode
// (modeCalls). The hot point-to-point calls (send, recv, isend, irecv in p2p.go)
// inline the short path (prof.Try, prof.TryExit) as the facade's do; the others go
// through the helpers below. A call made of others (Sendrecv of a receive, a send
// and a wait; Testall of Waitall; Startall of Starts; Comm_dup_with_info of
// Comm_dup; Pready_list of Preadys) calls their unrecorded halves (prof.None, or the
// function under the export), so that it counts once at MPI_THREAD_MULTIPLE too,
// where the record cannot tell a nested call from another thread's. The one-sided
// calls that short.c completes in C are counted there, in C memory handed down to the
// record (short.go); their Go halves count only what reaches Go.

// pc is the record's descriptor of c (nil for a nil c).
func (c *comm) pc() *prof.Comm {
	if c == nil {
		return nil
	}
	return c.c.Prof()
}

// enter is prof.Enter for a call on c naming peer and moving n bytes, with the
// short path inlined: sampled, as the facade's point-to-point and collective calls.
func (c *comm) enter(call prof.Call, peer, tag, n int) int64 {
	pc := c.pc()
	if prof.Try(call, pc, peer, tag, n) {
		return 0
	}
	return prof.Enter(call, pc, peer, tag, n)
}

// enterTimed is prof.EnterTimed for a call on c that is always timed: creation,
// probes, the send-receives.
func (c *comm) enterTimed(call prof.Call, peer, tag, n int) int64 {
	return prof.EnterTimed(call, c.pc(), peer, tag, n)
}

// exit is prof.Exit with its short path inlined.
func exit(call prof.Call, t int64, n int) {
	if !prof.TryExit(call, t, n) {
		prof.Exit(call, t, n)
	}
}

// enterReq is prof.EnterWait for a completion call on request r (nil: a null or
// unknown handle): its peer (a world rank) and tag, as the facade's enterWait.
func enterReq(call prof.Call, r *request) int64 {
	if r == nil || r.x != nil {
		var pc *prof.Comm
		if r != nil {
			pc = r.c.pc()
		}
		return prof.EnterWait(call, pc, prof.NoPeer, -2, false)
	}
	peer, tag, recv := r.q.Target()
	return prof.EnterWait(call, r.c.pc(), peer, tag, recv)
}

// enterAll is enterReq for a completion call on the requests hs: the first active
// one's peer and tag.
func enterAll(call prof.Call, hs []uintptr) int64 {
	for _, h := range hs {
		if h == hRequestNull {
			continue
		}
		if r := reqOf(h); r != nil && (r.x != nil || r.q.Active()) {
			return enterReq(call, r)
		}
	}
	return enterReq(call, nil)
}

// modeCalls are a collective's calls by mode: blocking, nonblocking, persistent.
type modeCalls [3]prof.Call

// typeBytes is count items of datatype dh in bytes (0 for an unknown handle).
func typeBytes(count int64, dh uintptr) int {
	if d := dtOf(dh); d != nil && count > 0 {
		return int(count * d.t.Size())
	}
	return 0
}

// collBytes is a collective's bytes on this rank, as the facade counts them: its
// input, or its output where the input is MPI_IN_PLACE.
func collBytes(sbuf unsafe.Pointer, scount int64, sdt uintptr, rcount int64, rdt uintptr) int {
	if uintptr(sbuf) == inPlaceAddr {
		return typeBytes(rcount, rdt)
	}
	return typeBytes(scount, sdt)
}

// vBytes is the bytes of a v form's counts (C ints or MPI_Counts) of dh.
func vBytes(counts unsafe.Pointer, n int, big bool, dh uintptr) int {
	if counts == nil || n <= 0 {
		return 0
	}
	var k int64
	if big {
		for _, c := range int64s(counts, n) {
			k += c
		}
	} else {
		for _, c := range ints(counts, n) {
			k += int64(c)
		}
	}
	return typeBytes(k, dh)
}

// wBytes is the bytes of a w form's side: counts[i] items of types[i].
func wBytes(counts, types unsafe.Pointer, n int, big bool) int {
	if counts == nil || types == nil || n <= 0 {
		return 0
	}
	k := 0
	for i, h := range handles(types, n) {
		var c int64
		if big {
			c = int64s(counts, n)[i]
		} else {
			c = int64(ints(counts, n)[i])
		}
		k += typeBytes(c, h)
	}
	return k
}

// rootPeer is a rooted collective's peer as the record names it: its root.
func rootPeer(root int32) int { return rankIn(root) }

// The collectives' calls by mode.
var (
	barrierCalls            = modeCalls{prof.Barrier, prof.Ibarrier, prof.BarrierInit}
	bcastCalls              = modeCalls{prof.Bcast, prof.Ibcast, prof.BcastInit}
	reduceCalls             = modeCalls{prof.Reduce, prof.Ireduce, prof.ReduceInit}
	allreduceCalls          = modeCalls{prof.Allreduce, prof.Iallreduce, prof.AllreduceInit}
	gatherCalls             = modeCalls{prof.Gather, prof.Igather, prof.GatherInit}
	gathervCalls            = modeCalls{prof.Gatherv, prof.Igatherv, prof.GathervInit}
	scatterCalls            = modeCalls{prof.Scatter, prof.Iscatter, prof.ScatterInit}
	scattervCalls           = modeCalls{prof.Scatterv, prof.Iscatterv, prof.ScattervInit}
	allgatherCalls          = modeCalls{prof.Allgather, prof.Iallgather, prof.AllgatherInit}
	allgathervCalls         = modeCalls{prof.Allgatherv, prof.Iallgatherv, prof.AllgathervInit}
	alltoallCalls           = modeCalls{prof.Alltoall, prof.Ialltoall, prof.AlltoallInit}
	alltoallvCalls          = modeCalls{prof.Alltoallv, prof.Ialltoallv, prof.AlltoallvInit}
	alltoallwCalls          = modeCalls{prof.Alltoallw, prof.Ialltoallw, prof.AlltoallwInit}
	reduceScatterBlockCalls = modeCalls{prof.ReduceScatterBlock, prof.IreduceScatterBlock, prof.ReduceScatterBlockInit}
	reduceScatterCalls      = modeCalls{prof.ReduceScatter, prof.IreduceScatter, prof.ReduceScatterInit}
	// scanCalls: inclusive, exclusive (b2i(excl)).
	scanCalls = [2]modeCalls{
		{prof.Scan, prof.Iscan, prof.ScanInit},
		{prof.Exscan, prof.Iexscan, prof.ExscanInit},
	}
)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rootBytes is n items of dh at the root of a collective that sends from there
// (Scatter), none elsewhere.
func rootBytes(c *comm, root int32, n int64, dh uintptr) int {
	if !isRoot(c, root) {
		return 0
	}
	return typeBytes(n, dh)
}

// scattervBytes is Scatterv's bytes: its counts at the root, none elsewhere.
func scattervBytes(c *comm, root int32, counts unsafe.Pointer, big bool, dh uintptr) int {
	if !isRoot(c, root) {
		return 0
	}
	return vBytes(counts, c.c.Peers(), big, dh)
}

// gathervBytes is Gatherv's and Allgatherv's bytes: the input, or the receive
// counts in place.
func gathervBytes(c *comm, sbuf unsafe.Pointer, scount int64, sdt uintptr, rcounts unsafe.Pointer, big bool, rdt uintptr) int {
	if uintptr(sbuf) == inPlaceAddr {
		return vBytes(rcounts, c.c.Peers(), big, rdt)
	}
	return typeBytes(scount, sdt)
}

// alltoallvBytes is Alltoallv's bytes: its send counts, or its receive counts in
// place.
func alltoallvBytes(c *comm, sbuf, scounts unsafe.Pointer, sdt uintptr, rcounts unsafe.Pointer, rdt uintptr, big bool) int {
	if uintptr(sbuf) == inPlaceAddr {
		return vBytes(rcounts, c.c.Peers(), big, rdt)
	}
	return vBytes(scounts, c.c.Peers(), big, sdt)
}

// alltoallwBytes is Alltoallw's bytes, as alltoallvBytes.
func alltoallwBytes(c *comm, sbuf, scounts, stypes, rcounts, rtypes unsafe.Pointer, big bool) int {
	if uintptr(sbuf) == inPlaceAddr {
		return wBytes(rcounts, rtypes, c.c.Peers(), big)
	}
	return wBytes(scounts, stypes, c.c.Peers(), big)
}

// The neighbourhood collectives' calls by mode.
var (
	neighborAllgatherCalls  = modeCalls{prof.NeighborAllgather, prof.IneighborAllgather, prof.NeighborAllgatherInit}
	neighborAllgathervCalls = modeCalls{prof.NeighborAllgatherv, prof.IneighborAllgatherv, prof.NeighborAllgathervInit}
	neighborAlltoallCalls   = modeCalls{prof.NeighborAlltoall, prof.IneighborAlltoall, prof.NeighborAlltoallInit}
	neighborAlltoallvCalls  = modeCalls{prof.NeighborAlltoallv, prof.IneighborAlltoallv, prof.NeighborAlltoallvInit}
	neighborAlltoallwCalls  = modeCalls{prof.NeighborAlltoallw, prof.IneighborAlltoallw, prof.NeighborAlltoallwInit}
)
