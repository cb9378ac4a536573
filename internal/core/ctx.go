package core

import (
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/yield"
)

// Context ids. Each communicator takes one bit of a process-wide mask, which gives it
// the two contexts 2*bit (point-to-point) and 2*bit+1 (internal). A new communicator's
// bit is agreed by a bitwise AND of the members' masks, as in MPICH, in rounds:
//
//   - The first round is eager: a creation offers the first eagerWords words of the
//     mask if no other creation of this process is offering them, else nothing. It
//     also tells every member that all have entered the creation.
//   - Later rounds offer the rest of the mask, and only the process's lowest waiting
//     creation (by parent context, then tag) may offer it at a time; the others offer
//     nothing and try again.
//
// A creation can thus hold the rest of the mask only once all its members are in it,
// so that it never holds it while blocked on a member whose thread waits, inside
// another creation, for that mask (two threads duplicating different communicators
// in opposite orders on two processes, with a third creation between them); and
// creations running at once from different goroutines, on different communicators,
// in any order, neither collide nor livelock.
const (
	ctxWords   = 64 // 4096 bits: 4096 communicators alive at once
	eagerWords = 2  // the first round's share of the mask
)

var ctxs struct {
	sync.Mutex
	free       [ctxWords]uint64
	inUse      bool     // a creation is offering the words past eagerWords
	eagerInUse bool     // a creation is offering the first eagerWords words
	waiting    []waiter // creations past their first round
}

// waiter is a creation in progress: its parent context and tag order it among the
// process's others, alike on every member.
type waiter struct {
	parent uint32
	tag    int
}

func (w waiter) before(o waiter) bool {
	return w.parent < o.parent || w.parent == o.parent && w.tag < o.tag
}

func init() {
	for i := range ctxs.free {
		ctxs.free[i] = ^uint64(0)
	}
	ctxs.free[0] &^= 15 // World (bit 0), Self (bit 1), sessions' creations (bit 2, sessCtx), dynamic connections' (bit 3, dynCtx)
}

// The words of an agreement's vector: the mask (ctxWords), whether every member
// offered the rest of its mask, then the lowest member (its rank in the conn; none
// when no member's arguments were bad) whose arguments were bad, and its error's class.
const (
	wOffered = ctxWords + iota
	wBad
	wClass
	ctxVecWords
)

const noneBad = math.MaxUint64

// ctxKernel is the agreement's reduction: a bitwise AND of the mask and of whether
// each offered it, and the lowest bad member with its class (lowerBad). It is declared
// not commutative, so that no algorithm splits the vector, whose words differ in kind.
func ctxKernel(acc, in []byte) {
	andKernel(acc[:8*wBad], in[:8*wBad])
	lowerBad(acc[8*wBad:], in[8*wBad:])
}

// A bad pair is two words of an agreement: the lowest member (its rank in the conn)
// whose arguments were bad, noneBad if none, and its error's class.

// putBad writes this member's bad pair into b: its rank in m and bad's class, or none.
func putBad(b []byte, m *Conn, bad error) {
	if bad == nil {
		binary.LittleEndian.PutUint64(b, noneBad)
		binary.LittleEndian.PutUint64(b[8:], 0)
		return
	}
	binary.LittleEndian.PutUint64(b, uint64(m.me))
	binary.LittleEndian.PutUint64(b[8:], uint64(ClassOf(bad)))
}

// lowerBad reduces two bad pairs: acc takes in's where in's member is the lower.
func lowerBad(acc, in []byte) {
	if binary.LittleEndian.Uint64(in) < binary.LittleEndian.Uint64(acc) {
		copy(acc[:16], in[:16])
	}
}

// agreedBad is the error of an agreed bad pair b: nil if no member was bad, else
// mine (this member's own) or one naming the lowest bad member (badMember).
func agreedBad(op string, m *Conn, b []byte, mine error) error {
	who := binary.LittleEndian.Uint64(b)
	if who == noneBad {
		return nil
	}
	return cmp.Or(mine, badMember(op, m, int(who), ErrorClass(binary.LittleEndian.Uint64(b[8:]))))
}

// andKernel is a bitwise AND of words.
func andKernel(acc, in []byte) {
	for i := 0; i+8 <= len(acc); i += 8 {
		binary.LittleEndian.PutUint64(acc[i:], binary.LittleEndian.Uint64(acc[i:])&binary.LittleEndian.Uint64(in[i:]))
	}
}

// allocCtx agrees with the members of m on a context id that all of them have free.
// parent is the context the agreement runs on and tag its tag there: a creation
// that is a collective of the parent communicator takes the parent's next
// collective sequence number (SeqTag), so that creations and collectives pending
// on it at once never take each other's messages. (parent, tag) orders concurrent
// creations.
//
// bad is this member's error in the creation's arguments, nil if none. The first
// round carries it: if any member has one, every member returns an error (its own,
// or one naming the lowest such member) and none takes a context. So one member's
// bad argument fails the creation everywhere instead of leaving the others waiting
// in it; a constructor checks what it can before it calls here, and hands on the
// checks it cannot make alone.
func allocCtx(op string, m *Conn, parent uint32, tag int, bad error) (uint32, error) {
	me := waiter{parent, tag}
	waits := false
	defer func() {
		if waits {
			ctxs.Lock()
			if i := slices.Index(ctxs.waiting, me); i >= 0 {
				ctxs.waiting = slices.Delete(ctxs.waiting, i, i+1)
			}
			ctxs.Unlock()
		}
	}()
	buf := make([]byte, 8*ctxVecWords)
	for round := 0; ; round++ {
		ctxs.Lock()
		clear(buf)
		if round == 0 {
			putBad(buf[8*wBad:], m, bad)
		} else {
			putBad(buf[8*wBad:], m, nil)
		}
		lo, hi := eagerWords, ctxWords // the words this round offers
		own := false
		if round == 0 {
			lo, hi = 0, eagerWords
			if own = !ctxs.eagerInUse; own {
				ctxs.eagerInUse = true
			}
		} else if own = !ctxs.inUse && lowest(me); own {
			ctxs.inUse = true
			binary.LittleEndian.PutUint64(buf[8*ctxWords:], 1) // "I offered my mask"
		}
		if own {
			for i := lo; i < hi; i++ {
				binary.LittleEndian.PutUint64(buf[8*i:], ctxs.free[i])
			}
		}
		ctxs.Unlock()
		err := m.Run(tag, 8, func(s *coll.Sched) { s.Allreduce(buf, buf, coll.Op{Fn: ctxKernel}) })
		ctxs.Lock()
		if own && round == 0 {
			ctxs.eagerInUse = false
		} else if own {
			ctxs.inUse = false
		}
		if err != nil {
			ctxs.Unlock()
			return 0, MapErr(op, err)
		}
		if err := agreedBad(op, m, buf[8*wBad:], bad); err != nil {
			ctxs.Unlock()
			return 0, err
		}
		for i := lo; i < hi; i++ {
			if w := binary.LittleEndian.Uint64(buf[8*i:]); w != 0 {
				b := bits.TrailingZeros64(w)
				ctxs.free[i] &^= 1 << b
				ctxs.Unlock()
				return uint32(2 * (64*i + b)), nil
			}
		}
		if round == 0 {
			ctxs.waiting = append(ctxs.waiting, me)
			waits = true
		}
		ctxs.Unlock()
		if round > 0 && binary.LittleEndian.Uint64(buf[8*wOffered:]) == 1 {
			return 0, Errorf(ClassOther, op, "no context id is free on every member: %d communicators are alive; free some", 64*ctxWords)
		}
		yield.Gosched()
	}
}

// agreeBad agrees over m, with tag, on whether any member's arguments were bad (mine,
// this member's error, nil if none), as allocCtx's first round does: mine itself, or
// an error naming the lowest such member, at every member; nil if none was. For a
// creation that acts before it agrees on a context (a spawn starts processes).
func agreeBad(op string, m *Conn, tag int, mine error) error {
	buf := make([]byte, 16)
	putBad(buf, m, mine)
	if err := m.Run(tag, 16, func(s *coll.Sched) { s.Allreduce(buf, buf, coll.Op{Fn: lowerBad}) }); err != nil {
		return MapErr(op, err)
	}
	return agreedBad(op, m, buf, mine)
}

// badMember is the error of a creation that member who of m (a rank of m's first
// group, or of its second past it) refused: it has the class of that member's error,
// which says what was wrong.
func badMember(op string, m *Conn, who int, class ErrorClass) error {
	where := ""
	if m.b != nil {
		where = " of this group"
		if (who < m.na) != (m.me < m.na) {
			where = " of the other group"
		}
		if who >= m.na {
			who -= m.na
		}
	}
	return Errorf(class, op, "rank %d%s passed invalid arguments (its error says which), so the call failed at every process", who, where)
}

// lowest reports whether w is the process's first waiting creation (ctxs held).
func lowest(w waiter) bool {
	for _, o := range ctxs.waiting {
		if o.before(w) {
			return false
		}
	}
	return true
}

func releaseCtx(ctx uint32) {
	b := ctx / 2
	ctxs.Lock()
	ctxs.free[b/64] |= 1 << (b % 64)
	ctxs.Unlock()
}
