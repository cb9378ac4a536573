package mpi

import (
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// The facade's entry and exit as the recorder (internal/prof) sees them: each public
// call that communicates reports itself once, at its entry point; the collectives are
// recorded by mpir (coll.go there), which says of each what the record counts. Calls
// that are neither open with one line,
//
//	defer prof.Exit(call, c.enter(call, peer, n), n)
//
// and the point-to-point calls are recorded by mpir (internal/mpir/p2p.go), whose hot
// calls inline the recorder's short path (prof.Try, prof.TryExit) and call it only
// when that says no. A call the facade makes inside another is not counted again.

// pc is the record's descriptor of c (nil for a nil c).
func (c *Comm) pc() *prof.Comm { return c.dev().Prof() }

// enter is prof.Enter for a call on c naming peer (a rank of c, a root, NoPeer) and
// moving n bytes: sampled, as point-to-point calls are (two clock reads are a good
// part of a short Barrier's time: docs/BENCHMARKS.md, figures from code comments),
// and timed exactly once it waits.
func (c *Comm) enter(call prof.Call, peer, n int) int64 {
	if prof.Try(call, c.pc(), peer, -1, n) {
		return 0 // recorded by the inlined short path, as Send's calls are
	}
	return prof.Enter(call, c.pc(), peer, -1, n)
}

// enterRare is prof.EnterTimed for a call on c that is always timed: communicator
// and topology creation, rare enough that its clock reads cost nothing that counts.
func (c *Comm) enterRare(call prof.Call, peer, n int) int64 {
	return prof.EnterTimed(call, c.pc(), peer, -1, n)
}

// enterP2P is prof.EnterTimed for a point-to-point call on c with a tag.
func (c *Comm) enterP2P(call prof.Call, peer, tag, n int) int64 {
	return prof.EnterTimed(call, c.pc(), peer, tag, n)
}

// enterShort is prof.Enter (sampled, as Send's) for a short point-to-point call on c:
// the value calls of small values, which must stay near Send's cost.
func (c *Comm) enterShort(call prof.Call, peer, tag, n int) int64 {
	return prof.Enter(call, c.pc(), peer, tag, n)
}

// nbytes is the length of b in bytes.
func nbytes[T Elem](b []T) int { return len(b) * esize[T]() }

// size is b's bytes (0 for an invalid or in-place Buf).
func (b Buf) size() int {
	if b.dt == nil || b.count <= 0 {
		return 0
	}
	return int(b.count * b.dt.Size())
}

// enterWait is prof.Enter for a completion call on r: its peer (a world rank) and tag.
func (r *Request) enterWait(call prof.Call) int64 {
	if r == nil {
		return prof.EnterWait(call, nil, prof.NoPeer, -2, false)
	}
	peer, tag, recv := r.q.Target()
	if r.x != nil {
		peer, tag, recv = prof.NoPeer, -2, false
	}
	return prof.EnterWait(call, r.c.pc(), peer, tag, recv)
}

// enterAll is prof.Enter for a completion call on rs: the first active request's
// peer and tag.
func enterAll(call prof.Call, rs []Request) int64 {
	for i := range rs {
		if rs[i].x == nil && rs[i].q.Active() {
			return rs[i].enterWait(call)
		}
	}
	return prof.EnterWait(call, nil, prof.NoPeer, -2, false)
}

// Pcontrol is MPI_Pcontrol for mpigo's own profile: level 2 writes the rank's profile
// now (with mpigo run --profile); 0 and 1, which turn a profiling library off and on,
// leave mpigo's record on (its counts also serve ToolVars and the launcher); other
// levels have no effect.
func Pcontrol(level int) error {
	return Self.fail("Pcontrol", mpir.Pcontrol("Pcontrol", level))
}
