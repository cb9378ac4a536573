package core

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/idle"
)

// Waiting on a set of requests that mixes messages with operations of many messages
// (nonblocking collectives, Idup, generalized requests) cannot be one engine Waitany:
// the operations complete in the background. Such a wait polls the set through the
// idle policy, and in its sleep phase sleeps on doneWord, which every completing
// operation bumps, so the completion of an operation wakes it at once and a message's
// completion is seen within the policy's nap.

var (
	doneWord uint32       // counts operations completed
	sleepers atomic.Int32 // waiters asleep (or about to be) on doneWord
)

// NoteDone records that an operation completed and wakes the waiters asleep on it
// (Await): every operation a Pending stands for calls it as it completes, unless its
// completion is an engine request's. A waiter announces itself before it reads the
// word and polls once more, and this bumps the word before it looks for waiters, so
// one of the two sees the other.
func NoteDone() {
	atomic.AddUint32(&doneWord, 1)
	if sleepers.Load() > 0 {
		idle.FutexWake(&doneWord)
	}
}

// awaitPolicy is the idle policy's settings, read once (Get parses them).
var awaitPolicy = sync.OnceValue(idle.Configured)

// Await waits, through the idle policy, until poll reports true. poll tests the set
// (and so drives the engine's progress), and may take what it finds (a Waitany's poll
// completes and releases the request it reports), so Await returns at its first true
// and never polls after it.
func Await(poll func() bool) { AwaitCtx(nil, poll) }

// AwaitCtx is Await whose sleeps also end when ctx (nil: none) ends, so that a poll
// that gives up when ctx has ended sees it at once rather than after a nap: the
// context is watched through idle.Watch, whose watcher rings doneWord.
func AwaitCtx(ctx context.Context, poll func() bool) {
	if poll() {
		return
	}
	cw := idle.NewWatch(ctx, doneBell{})
	a := idle.NewAdaptive(awaitPolicy(), 0)
	w := a.Begin()
	for {
		if w.Next(1) {
			w.Gosched()
		} else if w.Yielding() {
			w.Yield()
		} else {
			cw.Arm()
			sleepers.Add(1)
			v := atomic.LoadUint32(&doneWord)
			if poll() {
				sleepers.Add(-1)
				cw.Stop()
				return
			}
			w.Sleep(&doneWord, v)
			sleepers.Add(-1)
		}
		if poll() {
			cw.Stop()
			return
		}
	}
}

// doneBell wakes the waits asleep on doneWord.
type doneBell struct{}

func (doneBell) Ring() { NoteDone() }
