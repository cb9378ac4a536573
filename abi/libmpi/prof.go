package main

import (
	"github.com/mpigo/mpigo/internal/prof"
)

// The record (internal/prof) sees the C library's calls as it sees the Go facade's
// (mpi/prof.go): each exported call that communicates reports its entry and exit
// once, with the facade's prof.Call, a peer that is a rank of the communicator as the
// device numbers it (rankIn), the device's tag (tagIn) and the same bytes: a
// message's, a completion call's none. The call is a constant at the call site; the
// collectives are recorded by mpir (coll.go there), as the facade's are. The hot
// point-to-point calls (send, recv, isend, irecv in p2p.go)
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
