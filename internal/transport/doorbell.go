package transport

import (
	"sync/atomic"
	"time"

	"github.com/mpigo/mpigo/internal/idle"
)

// Doorbell is what a rank sleeps on when it has waited long enough for a packet, and
// what a peer (or a local reader goroutine) rings after handing it one. It is a pair of
// 32-bit words that may live in shared memory: a counter that every ring bumps, and the
// number of sleepers, so that a ring costs one atomic load when nobody sleeps.
//
// The futex (idle.FutexWait) is not process-private, so the words may be in a mapping
// shared between processes. Waits always carry a timeout: a peer can die without ringing.
type Doorbell struct {
	seq      *uint32
	sleepers *uint32
}

// NewDoorbell makes a doorbell over two words; they must be 4-byte aligned and stay
// mapped as long as the doorbell is used. NewLocalDoorbell makes one in Go memory.
func NewDoorbell(seq, sleepers *uint32) Doorbell { return Doorbell{seq, sleepers} }

// NewLocalDoorbell makes a doorbell for this process alone.
func NewLocalDoorbell() Doorbell {
	w := new([2]uint32)
	return Doorbell{&w[0], &w[1]}
}

// Seq returns the current ring count. A sleeper reads it, checks for work, then sleeps
// with Wait(seq): a ring in between makes Wait return at once.
func (d Doorbell) Seq() uint32 { return atomic.LoadUint32(d.seq) }

// Ring wakes the sleepers, if any.
func (d Doorbell) Ring() {
	atomic.AddUint32(d.seq, 1)
	if atomic.LoadUint32(d.sleepers) != 0 {
		idle.FutexWake(d.seq)
	}
}

// Wait sleeps until the ring count differs from seq, or timeout passes.
func (d Doorbell) Wait(seq uint32, timeout time.Duration) {
	atomic.AddUint32(d.sleepers, 1)
	if atomic.LoadUint32(d.seq) == seq {
		idle.FutexWait(d.seq, seq, timeout)
	}
	atomic.AddUint32(d.sleepers, ^uint32(0))
}

// Prepare, Sleep and Leave are Wait in three steps, for a sleeper that checks for work
// after announcing itself: seq := d.Prepare(); if no work { d.Sleep(seq, timeout) };
// d.Leave(). A sleeper that follows this order is woken by WakeSleepers too, which
// costs a ringer one load, not a read-modify-write, when nobody sleeps.
func (d Doorbell) Prepare() uint32 {
	atomic.AddUint32(d.sleepers, 1)
	return atomic.LoadUint32(d.seq)
}

// Sleep sleeps until the ring count differs from seq, or timeout passes; the caller
// has called Prepare (and calls Leave after).
func (d Doorbell) Sleep(seq uint32, timeout time.Duration) {
	if atomic.LoadUint32(d.seq) == seq {
		idle.FutexWait(d.seq, seq, timeout)
	}
}

// Leave ends what Prepare began.
func (d Doorbell) Leave() { atomic.AddUint32(d.sleepers, ^uint32(0)) }

// WakeSleepers is Ring for doorbells whose sleepers all use Prepare, Sleep and Leave
// (the point-to-point engine does): the ring count moves only when someone sleeps. The
// work the sleeper checks for must have been published before. If it was published
// with an atomic store, either the sleeper's Prepare comes first, and this sees it and
// rings, or it comes after, and the sleeper's check sees the work. A plain store (shm
// on amd64, idle.Publish) may still sit in the store buffer when this looks: the
// sleeper then misses it until its sleep times out, which is why the first sleep of a
// wait is short (idle.FirstNap).
//
// It is within the inliner's budget: a sender pays the load, and a call only when
// someone sleeps.
func (d Doorbell) WakeSleepers() {
	if atomic.LoadUint32(d.sleepers) != 0 {
		d.wake()
	}
}

// wake is WakeSleepers' ring, kept out of line so that WakeSleepers is inlined.
//
//go:noinline
func (d Doorbell) wake() {
	atomic.AddUint32(d.seq, 1)
	idle.FutexWake(d.seq)
}
