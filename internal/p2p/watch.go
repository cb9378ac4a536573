package p2p

import (
	"context"

	"github.com/mpigo/mpigo/internal/idle"
)

// A wait given a context learns that the context ended through an idle.Watch, which
// allocates nothing: block reads it where its idle policy would yield or sleep, and
// arms it before it sleeps, so that the context's end rings the doorbell and wakes it.
// A nil *idle.Watch is a wait with no context.

// watch starts watching c into *w, returning w (nil for a nil c).
func (e *Engine) watch(c context.Context, w *idle.Watch) *idle.Watch {
	if c == nil {
		return nil
	}
	*w = idle.NewWatch(c, &e.db)
	return w
}
