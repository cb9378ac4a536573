package idle

import (
	"sync"
	"sync/atomic"
)

// A node is shared while other processes keep its CPUs busy beside the job's ranks, as
// the launcher's CPU watch sees it (internal/launch, cpuwatch.go) and tells each rank
// (wireup's MsgShared). Meanwhile every wait of the rank follows Policy.Oversubscribed,
// whatever its policy: the ranks and the other processes together outnumber the cores,
// so a rank that spins keeps a core from the one it waits for, which another job may
// have pushed off its core. That is the case of two jobs on one machine: each one's
// ranks, spinning as if alone, starve the other's in turns. A rank with no such
// launcher is never told, and waits by its own policy.
var shared atomic.Bool

var sharedHooks struct {
	sync.Mutex
	fs []func(bool)
}

// SetShared records whether the node is shared, and tells the hooks (OnShared).
func SetShared(on bool) {
	sharedHooks.Lock()
	defer sharedHooks.Unlock()
	shared.Store(on)
	for _, f := range sharedHooks.fs {
		f(on)
	}
}

// Shared reports whether the node is shared, as the launcher last said.
func Shared() bool { return shared.Load() }

// OnShared makes f be called with every change SetShared records, and at once with the
// state now: for waits that do not go through an Adaptive (the C library's short ways).
func OnShared(f func(bool)) {
	sharedHooks.Lock()
	defer sharedHooks.Unlock()
	sharedHooks.fs = append(sharedHooks.fs, f)
	f(shared.Load())
}
