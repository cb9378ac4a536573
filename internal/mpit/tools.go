package mpit

import "sync"

// Interface is a process's tool information interface: its registry and what the
// tools made with it since the interface was initialised.
type Interface struct {
	build     func(*Registry)
	buildOnce sync.Once
	reg       Registry

	mu    sync.Mutex
	inits int
	// epoch numbers the initialisations: an object made in one is valid while it
	// lasts (0 is no epoch: freed objects carry it).
	epoch    uint64
	sessions map[*Session]struct{}
	regs     map[*EventType][]*Registration
	// delivering is the registration whose callback runs now; pendingFree the frees
	// asked meanwhile, which the deliverer completes after it.
	delivering  *Registration
	pendingFree []pendingFree
}

// New makes a process's interface; build fills its registry when it is first
// initialised.
func New(build func(*Registry)) *Interface {
	return &Interface{build: build, sessions: map[*Session]struct{}{}, regs: map[*EventType][]*Registration{}}
}

// Init initialises the interface, or counts one more initialisation of it
// (MPI_T_init_thread), and returns its registry. The interface is thread-safe: it
// provides MPI_THREAD_MULTIPLE whatever is required.
func (t *Interface) Init() *Registry {
	t.buildOnce.Do(func() { t.build(&t.reg) })
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.inits == 0 {
		t.epoch++
	}
	t.inits++
	return &t.reg
}

// Finalize counts one finalisation (MPI_T_finalize); the last of as many as there were
// initialisations ends the interface and releases every session, handle and
// registration made in it.
func (t *Interface) Finalize(op string) error {
	t.mu.Lock()
	if t.inits == 0 {
		t.mu.Unlock()
		return errorf(CodeNotInitialized, op, "the tool interface is not initialised: MPI_T_finalize was called as often as MPI_T_init_thread")
	}
	t.inits--
	if t.inits > 0 {
		t.mu.Unlock()
		return nil
	}
	var hs []*PVarHandle
	for s := range t.sessions {
		hs = append(hs, s.release()...)
	}
	for ev, rs := range t.regs {
		for _, r := range rs {
			r.freeing = true
		}
		delete(t.regs, ev)
		if ev.Want != nil {
			ev.Want(false)
		}
	}
	t.epoch++ // the next initialisation's objects differ from this one's
	t.mu.Unlock()
	for _, h := range hs {
		h.free()
	}
	return nil
}

// Initialized reports whether the interface is initialised.
func (t *Interface) Initialized() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.inits > 0
}

// ready says whether the interface is initialised; the caller holds t.mu.
func (t *Interface) ready(op string) error {
	if t.inits == 0 {
		return errorf(CodeNotInitialized, op, "the tool interface is not initialised (call MPI_T_init_thread first)")
	}
	return nil
}

// Registry returns the registry while the interface is initialised.
func (t *Interface) Registry(op string) (*Registry, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.ready(op); err != nil {
		return nil, err
	}
	return &t.reg, nil
}
