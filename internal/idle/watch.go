package idle

import (
	"context"
	"sync"
)

// A wait given a context ends when the context does. It learns of that without
// allocating: it polls the context's Done channel (one non-blocking receive) where
// its policy would yield or sleep, never while it spins; and before it first sleeps
// it arms a pooled watcher goroutine that rings the wait's bell when the context ends,
// so a sleeping wait wakes at once. context.AfterFunc would do the same, but it
// allocates a record and two closures per wait; a watcher is reused from one wait to
// the next, and waits that end within their spin and yield phases never arm one.

// Bell is what wakes a sleeping waiter (a doorbell, a condition variable's broadcast).
// Ring may be called after the wait has ended, and must be harmless then.
type Bell interface{ Ring() }

// Watch is a wait's watch of its context. The zero Watch, and nil, watch nothing.
// A Watch is one waiter's: not safe for concurrent use.
type Watch struct {
	ctx  context.Context
	done <-chan struct{}
	bell Bell
	w    *watcher // armed; nil until the wait first sleeps
}

// NewWatch watches ctx (nil: nothing) for a wait whose sleeps bell interrupts. A
// context that can never end (context.Background) is watched at no cost.
func NewWatch(ctx context.Context, bell Bell) Watch {
	if ctx == nil {
		return Watch{}
	}
	return Watch{ctx: ctx, done: ctx.Done(), bell: bell}
}

// Ended reports whether the watched context has ended.
func (w *Watch) Ended() bool {
	if w == nil || w.done == nil {
		return false
	}
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// Err is the watched context's error (nil if it has not ended, or for no context).
func (w *Watch) Err() error {
	if w == nil || w.ctx == nil {
		return nil
	}
	return w.ctx.Err()
}

// Arm makes sure, before the waiter sleeps, that the bell rings once the context
// ends. The waiter then looks at Ended once more before it sleeps: a context that
// ends after that look rings the bell.
func (w *Watch) Arm() {
	if w == nil || w.done == nil || w.w != nil {
		return
	}
	x := takeWatcher()
	x.jobs <- watchJob{done: w.done, bell: w.bell}
	w.w = x
}

// Stop ends the watch (the wait is over). It waits for the watcher to let go of the
// context (a goroutine switch, paid only by a wait that slept), so that the watcher
// can serve the next wait at once; the caller must not hold a lock that its Bell's
// Ring takes.
func (w *Watch) Stop() {
	if w != nil && w.w != nil {
		x := w.w
		w.w = nil
		x.stop <- struct{}{}
		<-x.ack
		watchers.Lock()
		if len(watchers.free) < maxIdleWatchers {
			watchers.free = append(watchers.free, x)
			x = nil
		}
		watchers.Unlock()
		if x != nil {
			close(x.jobs) // one too many: its goroutine ends
		}
	}
}

// watcher is a goroutine that serves one armed Watch at a time.
type watcher struct {
	jobs chan watchJob // buffered: Arm never blocks
	stop chan struct{} // buffered: the watcher may be ringing the bell
	ack  chan struct{}
	gone chan struct{} // closed when its goroutine ends
}

type watchJob struct {
	done <-chan struct{}
	bell Bell
}

// maxIdleWatchers bounds the watchers kept for reuse: as many as a process has waits
// asleep on contexts at once, in practice a few; more end their goroutines.
const maxIdleWatchers = 64

var watchers struct {
	sync.Mutex
	free []*watcher
}

func takeWatcher() *watcher {
	watchers.Lock()
	if k := len(watchers.free); k > 0 {
		x := watchers.free[k-1]
		watchers.free[k-1] = nil
		watchers.free = watchers.free[:k-1]
		watchers.Unlock()
		return x
	}
	watchers.Unlock()
	x := &watcher{jobs: make(chan watchJob, 1), stop: make(chan struct{}, 1), ack: make(chan struct{}), gone: make(chan struct{})}
	go x.loop()
	return x
}

// StopWatchers ends the goroutines of the idle watchers and waits until they have
// ended: the runtime calls it when it stops, so that nothing of MPI's is left running
// after Finalize. A watcher armed meanwhile (a wait still under way) ends when its
// wait stops; a later wait starts a new one.
func StopWatchers() {
	watchers.Lock()
	free := watchers.free
	watchers.free = nil
	watchers.Unlock()
	for _, x := range free {
		close(x.jobs)
	}
	for _, x := range free {
		<-x.gone
	}
}

func (x *watcher) loop() {
	defer close(x.gone)
	for j := range x.jobs {
		select {
		case <-j.done:
			j.bell.Ring()
			<-x.stop
		case <-x.stop:
		}
		x.ack <- struct{}{}
	}
}
