package core

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sync"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/yield"
)

// Context ids. Each communicator takes one bit of a process-wide mask, which gives it
// the two contexts 2*bit (point-to-point) and 2*bit+1 (internal). A new communicator's
// bit is agreed by a bitwise AND of the members' masks, as in MPICH: only a process's
// lowest waiting creation may offer its mask at a time (the others offer nothing and
// try again), so that creations running at once from different goroutines, on
// different communicators, in any order, neither collide nor livelock.
const ctxWords = 64 // 4096 bits: 4096 communicators alive at once

var ctxs struct {
	sync.Mutex
	free    [ctxWords]uint64
	inUse   bool
	waiting []uint32 // the parent contexts of creations in progress
}

func init() {
	for i := range ctxs.free {
		ctxs.free[i] = ^uint64(0)
	}
	ctxs.free[0] &^= 15 // World (bit 0), Self (bit 1), sessions' creations (bit 2, sessCtx), dynamic connections' (bit 3, dynCtx)
}

// andKernel is the agreement's reduction: a bitwise AND of words.
func andKernel(acc, in []byte) {
	for i := 0; i+8 <= len(acc); i += 8 {
		binary.LittleEndian.PutUint64(acc[i:], binary.LittleEndian.Uint64(acc[i:])&binary.LittleEndian.Uint64(in[i:]))
	}
}

// allocCtx agrees with the members of m on a context id that all of them have free.
// parent is the context the agreement runs on; it orders concurrent creations.
func allocCtx(op string, m *Conn, parent uint32, tag int) (uint32, error) {
	ctxs.Lock()
	ctxs.waiting = append(ctxs.waiting, parent)
	ctxs.Unlock()
	defer func() {
		ctxs.Lock()
		if i := slices.Index(ctxs.waiting, parent); i >= 0 {
			ctxs.waiting = slices.Delete(ctxs.waiting, i, i+1)
		}
		ctxs.Unlock()
	}()
	buf := make([]byte, 8*(ctxWords+1))
	for {
		ctxs.Lock()
		own := !ctxs.inUse && parent == slices.Min(ctxs.waiting)
		clear(buf)
		if own {
			ctxs.inUse = true
			for i, w := range ctxs.free {
				binary.LittleEndian.PutUint64(buf[8*i:], w)
			}
			binary.LittleEndian.PutUint64(buf[8*ctxWords:], 1) // "I offered my mask"
		}
		ctxs.Unlock()
		err := m.Run(tag, 8, func(s *coll.Sched) { s.Allreduce(buf, buf, coll.Op{Fn: andKernel, Commute: true}) })
		ctxs.Lock()
		if own {
			ctxs.inUse = false
		}
		if err != nil {
			ctxs.Unlock()
			return 0, MapErr(op, err)
		}
		allOffered := binary.LittleEndian.Uint64(buf[8*ctxWords:]) == 1
		for i := 0; i < ctxWords && allOffered; i++ {
			if w := binary.LittleEndian.Uint64(buf[8*i:]); w != 0 {
				b := bits.TrailingZeros64(w)
				ctxs.free[i] &^= 1 << b
				ctxs.Unlock()
				return uint32(2 * (64*i + b)), nil
			}
		}
		ctxs.Unlock()
		if allOffered {
			return 0, Errorf(ClassOther, op, "no context id is free on every member: %d communicators are alive; free some", 64*ctxWords)
		}
		yield.Gosched()
	}
}

func releaseCtx(ctx uint32) {
	b := ctx / 2
	ctxs.Lock()
	ctxs.free[b/64] |= 1 << (b % 64)
	ctxs.Unlock()
}
