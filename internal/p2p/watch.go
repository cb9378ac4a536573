package p2p

import (
	"context"
	"sync/atomic"
)

// watch is how a wait given a context learns that the context ended without polling
// it: context.AfterFunc (no goroutine until the context ends) sets the flag and rings
// the doorbell, which wakes the waiter if it sleeps; the waiter reads the flag (one
// load) where its idle policy would yield or sleep. nil is a wait with no context.
type watch struct {
	c    context.Context
	done atomic.Bool
	stop func() bool
}

// watch starts watching c (nil for a nil c).
func (e *Engine) watch(c context.Context) *watch {
	if c == nil {
		return nil
	}
	w := &watch{c: c}
	db := e.db
	w.stop = context.AfterFunc(c, func() {
		w.done.Store(true)
		db.Ring()
	})
	return w
}

// end stops watching.
func (w *watch) end() {
	if w != nil {
		w.stop()
	}
}

// ended reports whether the watched context has ended.
func (w *watch) ended() bool { return w != nil && w.done.Load() }
