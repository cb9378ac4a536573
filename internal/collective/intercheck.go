package collective

import (
	"encoding/binary"
	"fmt"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/core"
)

// coll_check on intercommunicators. The processes of each group first gather their
// call descriptions and reduce them to one for the group (or find that they disagree);
// the leaders swap the two groups' descriptions and each tells its group; then every
// process of both groups judges the same pair of descriptions, so all of them return
// the same verdict and none is left waiting on a call the others did not make. The
// calls whose block sizes differ per pair of processes (Alltoallv, Alltoallw,
// Allgatherv, Gatherv and Scatterv) then compare every pair's sizes as well
// (checkPairs, in coll_alltoallw_check.go).

// interCall describes one call of an intercommunicator collective: role and root for
// the rooted ones, and the block lengths (in elements) the process sends to and
// receives from each process of the other group (-1: none).
type interCall struct {
	op      string
	kind    Kind
	role    interRole
	root    int
	elem    int64
	out, in int64
	nb      bool // the nonblocking form
}

func ifRole(role, want interRole, n int) int64 {
	if role == want {
		return int64(n)
	}
	return -1
}

// interSummary is a group's description of a call, as the leaders exchange it.
type interSummary struct {
	class core.ErrorClass // non-zero: the group's processes disagree among themselves
	kind  Kind
	role  interRole // roleNone, roleRoot (the group holds the root) or roleRemote
	root  int64     // roleRoot: the root's local rank; roleRemote: the root the group names
	elem  int64
	out   int64
	in    int64
	nb    int64 // 1: the nonblocking form
}

const summaryWords = 8

func (s interSummary) words() [summaryWords]int64 {
	return [summaryWords]int64{int64(s.class), int64(s.kind), int64(s.role), s.root, s.elem, s.out, s.in, s.nb}
}

func summaryOf(w []int64) interSummary {
	return interSummary{class: core.ErrorClass(w[0]), kind: Kind(w[1]), role: interRole(w[2]), root: w[3], elem: w[4], out: w[5], in: w[6], nb: w[7]}
}

func encodeWords(w []int64) []byte {
	b := make([]byte, 0, 8*len(w))
	for _, x := range w {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

func decodeWords(b []byte, w []int64) {
	for i := range w {
		w[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
}

// summarize reduces the local records to the group's summary, or an error naming
// the disagreement.
func summarize(recs [][summaryWords]int64) (interSummary, *core.Error) {
	const (
		fKind = iota
		fRole
		fRoot
		fElem
		fOut
		fIn
		fNB
	)
	first := recs[0]
	s := interSummary{kind: Kind(first[fKind]), elem: -1, out: -1, in: -1, nb: first[fNB]}
	bad := func(class core.ErrorClass, f string, a ...any) (interSummary, *core.Error) {
		return interSummary{class: class}, &core.Error{Class: class, Msg: "coll_check: " + fmt.Sprintf(f, a...)}
	}
	roots, remotes := 0, 0
	for r, x := range recs {
		switch {
		case Kind(x[fKind]) != s.kind:
			return bad(core.ClassArg, "local rank %d called %s while local rank 0 called %s", r, Kind(x[fKind]), s.kind)
		case x[fNB] != s.nb:
			return bad(core.ClassArg, "local rank %d called the %s form, local rank 0 the %s one (they do not match)", r, form(x[fNB]), form(s.nb))
		case interRole(x[fRole]) == roleIdle:
			continue // core.ProcNull in the root's group: its arguments do not matter
		case s.elem >= 0 && x[fElem] != s.elem:
			return bad(core.ClassType, "local rank %d has elements of %d bytes, another local rank of %d", r, x[fElem], s.elem)
		}
		s.elem = x[fElem]
		for _, f := range []int{fOut, fIn} {
			v := x[f]
			p := &s.out
			if f == fIn {
				p = &s.in
			}
			if v < 0 {
				continue
			}
			if *p >= 0 && *p != v {
				return bad(core.ClassCount, "local ranks disagree on the block length: %d and %d elements", *p, v)
			}
			*p = v
		}
		switch interRole(x[fRole]) {
		case roleRoot:
			roots++
			s.root = int64(r)
		case roleRemote:
			if remotes > 0 && x[fRoot] != s.root {
				return bad(core.ClassRoot, "local rank %d names root %d of the remote group, another local rank root %d", r, x[fRoot], s.root)
			}
			remotes++
			s.root = x[fRoot]
		}
	}
	if interRole(first[fRole]) != roleNone {
		switch {
		case remotes == len(recs):
			s.role = roleRemote
		case remotes == 0 && roots == 1:
			s.role = roleRoot
		default:
			return bad(core.ClassRoot, "in this group %d processes pass Root, %d a remote rank and the rest core.ProcNull; the root's group passes one Root and core.ProcNull, the other group the root's rank", roots, remotes)
		}
	}
	return s, nil
}

// verifyInter runs coll_check for one call on the intercommunicator c.
func (c *comm) verifyInter(tag int, cl interCall) error {
	me := [summaryWords]int64{int64(cl.kind), int64(cl.role), int64(cl.root), cl.elem, cl.out, cl.in, 0}
	if cl.nb {
		me[6] = 1
	}
	all := make([]byte, 8*summaryWords*c.size)
	err := c.Local().Run(tag, 8, func(s *coll.Sched) { s.Allgather(encodeWords(me[:]), all) })
	if err != nil {
		return core.MapErr(cl.op, err)
	}
	recs := make([][summaryWords]int64, c.size)
	for r := range recs {
		decodeWords(all[8*summaryWords*r:], recs[r][:])
	}
	mine, lerr := summarize(recs)
	w := mine.words()
	got := make([]byte, 8*summaryWords)
	if c.rank == 0 {
		if err := c.Inter().Sendrecv(encodeWords(w[:]), got, c.size, tag); err != nil {
			return core.MapErr(cl.op, err)
		}
	}
	if err := c.Local().Run(tag, 1, func(s *coll.Sched) { s.Bcast(got, 0) }); err != nil {
		return core.MapErr(cl.op, err)
	}
	var theirs [summaryWords]int64
	decodeWords(got, theirs[:])
	if lerr != nil {
		lerr.Op = cl.op
		return lerr
	}
	t := summaryOf(theirs[:])
	switch {
	case t.class != 0:
		return core.Errorf(t.class, cl.op, "coll_check: the processes of the remote group do not make matching calls")
	case t.kind != mine.kind:
		return core.Errorf(core.ClassArg, cl.op, "coll_check: the remote group called %s while this group called %s", t.kind, mine.kind)
	case t.nb != mine.nb:
		return core.Errorf(core.ClassArg, cl.op, "coll_check: the remote group called the %s form, this group the %s one (they do not match)", form(t.nb), form(mine.nb))
	case t.elem >= 0 && mine.elem >= 0 && t.elem != mine.elem:
		return core.Errorf(core.ClassType, cl.op, "coll_check: the remote group has elements of %d bytes, this group of %d", t.elem, mine.elem)
	}
	if mine.role != roleNone {
		rootSide, other := mine, t
		if mine.role == roleRemote {
			rootSide, other = t, mine
		}
		switch {
		case rootSide.role != roleRoot || other.role != roleRemote:
			return core.Errorf(core.ClassRoot, cl.op, "coll_check: exactly one group must hold the root (Root there, core.ProcNull for the rest) and the other name it; here neither or both do")
		case other.root != rootSide.root:
			return core.Errorf(core.ClassRoot, cl.op, "coll_check: the root is local rank %d of its group but the other group names rank %d", rootSide.root, other.root)
		}
	}
	switch {
	case mine.out >= 0 && t.in >= 0 && mine.out != t.in:
		return core.Errorf(core.ClassCount, cl.op, "coll_check: this group sends blocks of %d elements, the remote group receives blocks of %d", mine.out, t.in)
	case t.out >= 0 && mine.in >= 0 && t.out != mine.in:
		return core.Errorf(core.ClassCount, cl.op, "coll_check: the remote group sends blocks of %d elements, this group receives blocks of %d", t.out, mine.in)
	}
	return nil
}
