package window

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mpigo/mpigo/internal/core"
)

// The progress goroutine: one per process, serving every window of the process that
// is shipped to (served), from the first such window's creation to the last one's
// Free. A goroutine per window, each asleep in a wait of its own, cost hundreds of
// threads and wake-ups when hundreds of windows lived: every packet and every nap's
// end woke them all, for nothing but one (MPICH's rma/window_creation, 500 windows
// alive at once, took 25 s to two minutes on two cores). The engine notes which served
// window's context a request arrived on (p2p.ServeContext), and the goroutine waits
// for all of them in one wait (NextServed), in the engine's idle policy as any wait:
// an idle process pays for one waiter, however many windows live.
//
// The wait hands it a message of a window only when it could take that window's
// applyMu (the claim), and it applies the message holding it, as a call of the window
// that serves while it waits does (drain.go): a request is taken from the engine's
// queue only under applyMu, so the two never reorder an origin's requests.
var server struct {
	mu   sync.Mutex    // starting and stopping the goroutine
	n    int           // served windows alive
	done chan struct{} // closed when the goroutine has ended
	// threaded: GOMAXPROCS was raised for the goroutine, once for the process.
	threaded bool
	// wins are the served windows, for the look at queued locks' holders.
	winsMu sync.Mutex
	wins   map[*Win]struct{}
}

// queuedLocks counts the remote lock requests queued at every window of the process:
// while some are, the goroutine looks every checkEvery whether a holder of their lock
// has died (failQueuedLocks).
var queuedLocks atomic.Int64

// startServing hands w to the progress goroutine, starting it for the first window.
// The goroutine gets a thread of its own (GOMAXPROCS one higher from the first
// window on): a rank given one thread would otherwise serve requests only when its
// computation is preempted. The raise is kept when the last window goes: each change
// of GOMAXPROCS stops the world, and a program that makes and frees windows in turn
// paid two such stops a window, and its peers waited for them in their next
// collective; an idle P costs nothing.
func (w *Win) startServing() {
	eng().Concurrent()
	w.errs = map[int]string{}
	server.mu.Lock()
	defer server.mu.Unlock()
	server.winsMu.Lock()
	if server.wins == nil {
		server.wins = map[*Win]struct{}{}
	}
	server.wins[w] = struct{}{}
	server.winsMu.Unlock()
	eng().ServeContext(w.comm.Ctx(), tagRMA, w)
	server.n++
	if server.n == 1 {
		if !server.threaded {
			server.threaded = true
			runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
		}
		server.done = make(chan struct{})
		go serveAll(server.done)
	}
}

// stopServing takes w from the progress goroutine (Free, after the barrier that
// ends every rank's operations on w): what has arrived is applied, and the goroutine
// ends with the last window.
func (w *Win) stopServing() {
	if !w.served {
		return
	}
	ctx := w.comm.Ctx()
	w.applyMu.Lock()
	w.applyQueued()
	eng().UnserveContext(ctx)
	w.unserved = true
	if n := len(w.lockQ); n > 0 { // an erroneous program freed a window others wait to lock
		queuedLocks.Add(-int64(n))
		w.lockQ = nil
	}
	w.applyMu.Unlock()
	server.winsMu.Lock()
	delete(server.wins, w)
	server.winsMu.Unlock()
	server.mu.Lock()
	defer server.mu.Unlock()
	server.n--
	if server.n == 0 {
		eng().InterruptServed()
		<-server.done
	}
}

// serveAll is the progress goroutine. It ends when Free of the last served window
// interrupts its wait, or the engine is closed.
func serveAll(done chan struct{}) {
	defer close(done)
	var last time.Time // the last look at queued locks' holders
	claim := func(o any) bool { return o.(*Win).applyMu.TryLock() }
	for {
		var c context.Context
		var cancel context.CancelFunc
		if queuedLocks.Load() != 0 {
			// Lock requests wait: wake up now and then to look whether a holder died.
			c, cancel = context.WithTimeout(context.Background(), checkEvery)
		}
		o, m, st, err := eng().NextServed(c, claim)
		if cancel != nil {
			cancel()
		}
		switch {
		case err == nil:
			w := o.(*Win)
			if !w.unserved {
				w.apply(&m, &st)
			}
			w.applyMu.Unlock()
		case errors.Is(err, context.DeadlineExceeded): // the timer: look below
		default: // interrupted by Free of the last window, or the engine closed
			// Told by the error, not by c: cancel above has ended c whatever ended
			// the wait, and a stop taken for a timeout is never sent again (the Free
			// that sent it waits for this goroutine's end).
			return
		}
		if queuedLocks.Load() != 0 {
			if now := time.Now(); now.Sub(last) >= checkEvery {
				last = now
				checkQueuedLocks()
			}
		}
	}
}

// applyQueued applies the requests that have arrived for w (applyMu held) and reports
// whether there were any.
func (w *Win) applyQueued() bool {
	n := 0
	for {
		m, st, ok, err := eng().ImprobeQueued(core.AnySource, tagRMA, w.comm.Ctx())
		if err != nil || !ok {
			return n > 0
		}
		n++
		w.apply(&m, &st)
	}
}

// checkQueuedLocks answers the lock requests queued at every served window whose
// lock a dead rank holds (failQueuedLocks).
func checkQueuedLocks() {
	server.winsMu.Lock()
	ws := make([]*Win, 0, len(server.wins))
	for w := range server.wins {
		ws = append(ws, w)
	}
	server.winsMu.Unlock()
	for _, w := range ws {
		w.applyMu.Lock()
		if !w.unserved && atomic.LoadUint64(w.ctrl.queued()) != 0 {
			w.failQueuedLocks()
		}
		w.applyMu.Unlock()
	}
}
