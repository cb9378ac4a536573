package mpit

import (
	"sync"
	"sync/atomic"
)

// PVar is a performance variable: a count, level or time of the implementation.
type PVar struct {
	Name, Desc string
	Verbosity  Verbosity
	Class      Class
	Type       Type  // TypeUnsignedLongLong, TypeDouble (timers, in seconds), TypeInt (states)
	Enum       *Enum // names for a state's values, or nil
	Bind       Bind
	// Readonly: the variable cannot be written or reset. Continuous: it is always
	// active and cannot be started or stopped. Atomic: it can be read and reset at
	// once (MPI_T_pvar_readreset).
	Readonly, Continuous, Atomic bool
	// Source binds the variable to obj (nil for BindNoObject): where its value lives.
	// An error is returned as it is (an *Error of its code).
	Source func(op string, obj any) (Source, error)
}

// Source is where a bound performance variable's value lives: the device's memory,
// read with atomic loads when the handle is read.
type Source struct {
	Uint  func() uint64  // TypeUnsignedLongLong: the value now
	Float func() float64 // TypeDouble
	Int   func() int64   // TypeInt, TypeCount
	// Watch, when set, is told +1 when a handle starts and -1 when it stops: the
	// device counts only while watched.
	Watch func(delta int)
	// Track, for a watermark: the device keeps cell at least as high as its resource
	// until untrack is called.
	Track func(cell *atomic.Uint64) (untrack func())
}

// kind groups the classes by how a handle keeps their values.
type kind uint8

const (
	current      kind = iota // state, level, size, percentage, generic: the resource now
	accumulating             // counter, aggregate, timer: from zero while started
	watermark                // high and low watermarks: the extreme while started
)

func (v *PVar) kind() kind {
	switch v.Class {
	case ClassCounter, ClassAggregate, ClassTimer:
		return accumulating
	case ClassHighwatermark, ClassLowwatermark:
		return watermark
	}
	return current
}

// Session is a performance experiment session (MPI_T_pvar_session).
type Session struct {
	t       *Interface
	epoch   uint64
	handles []*PVarHandle
}

// PVarHandle is a performance variable bound to an object in a session
// (MPI_T_pvar_handle).
type PVarHandle struct {
	s   *Session
	v   *PVar
	src Source

	mu      sync.Mutex
	freed   bool
	running bool  // started, or continuous
	acc     Value // accumulating: the value up to mark
	mark    Value // accumulating: the source when last started or reset
	last    Value // current: the value when stopped; watermark: when stopped
	cell    atomic.Uint64
	untrack func()
}

// Var is h's variable.
func (h *PVarHandle) Var() *PVar { return h.v }

// NewSession makes a session (MPI_T_pvar_session_create).
func (t *Interface) NewSession(op string) (*Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.ready(op); err != nil {
		return nil, err
	}
	s := &Session{t: t, epoch: t.epoch}
	t.sessions[s] = struct{}{}
	return s, nil
}

// check says whether s may be used now; the caller holds t.mu.
func (s *Session) check(op string) error {
	if s == nil {
		return errorf(CodeInvalidSession, op, "session is MPI_T_PVAR_SESSION_NULL")
	}
	if err := s.t.ready(op); err != nil {
		return err
	}
	if s.epoch != s.t.epoch {
		return errorf(CodeInvalidSession, op, "session was freed (by MPI_T_pvar_session_free, or with the interface by its last MPI_T_finalize)")
	}
	return nil
}

// valid says whether s may be used now.
func (s *Session) valid(op string) error {
	if s == nil {
		return s.check(op)
	}
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	return s.check(op)
}

// Free releases s and its handles (MPI_T_pvar_session_free).
func (s *Session) Free(op string) error {
	if err := s.valid(op); err != nil {
		return err
	}
	s.t.mu.Lock()
	if err := s.check(op); err != nil {
		s.t.mu.Unlock()
		return err
	}
	hs := s.release()
	s.t.mu.Unlock()
	for _, h := range hs {
		h.free()
	}
	return nil
}

// release ends s and returns its handles to free; the caller holds t.mu.
func (s *Session) release() []*PVarHandle {
	s.epoch = 0
	delete(s.t.sessions, s)
	hs := s.handles
	s.handles = nil
	return hs
}

// Alloc binds performance variable v to obj in s (MPI_T_pvar_handle_alloc) and
// returns the handle and its count (always 1).
func (s *Session) Alloc(op string, v *PVar, obj any) (*PVarHandle, int, error) {
	if err := s.valid(op); err != nil {
		return nil, 0, err
	}
	if v.Bind != BindNoObject && obj == nil {
		return nil, 0, errorf(CodeInvalidHandle, op, "obj_handle is NULL, but performance variable %s must be bound to an object (%v)", v.Name, v.Bind)
	}
	if v.Bind == BindNoObject {
		obj = nil
	}
	src, err := v.Source(op, obj)
	if err != nil {
		return nil, 0, err
	}
	h := &PVarHandle{s: s, v: v, src: src}
	if v.Continuous {
		h.start()
	}
	s.t.mu.Lock()
	if err := s.check(op); err != nil {
		s.t.mu.Unlock()
		h.free()
		return nil, 0, err
	}
	s.handles = append(s.handles, h)
	s.t.mu.Unlock()
	return h, 1, nil
}

// handle checks that h is a live handle of s; nil h is MPI_T_PVAR_ALL_HANDLES where
// all says it may be, and the result is then every handle of s.
func (s *Session) handle(op string, h *PVarHandle, all bool) ([]*PVarHandle, error) {
	if s == nil {
		return nil, s.check(op)
	}
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	if err := s.check(op); err != nil {
		return nil, err
	}
	if h == nil {
		if !all {
			return nil, errorf(CodeInvalidHandle, op, "handle is MPI_T_PVAR_ALL_HANDLES, which this call does not take")
		}
		return append([]*PVarHandle(nil), s.handles...), nil
	}
	if h.s != s {
		return nil, errorf(CodeInvalidHandle, op, "handle belongs to another session")
	}
	for _, x := range s.handles {
		if x == h {
			return []*PVarHandle{h}, nil
		}
	}
	return nil, errorf(CodeInvalidHandle, op, "handle was freed")
}

// FreeHandle releases h, a handle of s (MPI_T_pvar_handle_free).
func (s *Session) FreeHandle(op string, h *PVarHandle) error {
	if h == nil {
		return errorf(CodeInvalidHandle, op, "handle is MPI_T_PVAR_HANDLE_NULL or MPI_T_PVAR_ALL_HANDLES")
	}
	if _, err := s.handle(op, h, false); err != nil {
		return err
	}
	s.t.mu.Lock()
	for i, x := range s.handles {
		if x == h {
			s.handles = append(s.handles[:i], s.handles[i+1:]...)
			break
		}
	}
	s.t.mu.Unlock()
	h.free()
	return nil
}

// Start starts h, or with h nil every handle of s that is not continuous
// (MPI_T_PVAR_ALL_HANDLES).
func (s *Session) Start(op string, h *PVarHandle) error {
	return s.each(op, h, (*PVarHandle).startable, (*PVarHandle).start)
}

// Stop stops h, or with h nil every handle of s that is not continuous.
func (s *Session) Stop(op string, h *PVarHandle) error {
	return s.each(op, h, (*PVarHandle).startable, (*PVarHandle).stop)
}

// Reset sets h, or with h nil every handle of s that is not read-only, to its
// starting value.
func (s *Session) Reset(op string, h *PVarHandle) error {
	return s.each(op, h, (*PVarHandle).writable, (*PVarHandle).reset)
}

// each does do to h, which must pass can, or to every handle of s that passes it
// (h nil: MPI_T_PVAR_ALL_HANDLES, which passes over the others).
func (s *Session) each(op string, h *PVarHandle, can func(*PVarHandle, string) error, do func(*PVarHandle)) error {
	hs, err := s.handle(op, h, true)
	if err != nil {
		return err
	}
	if h != nil {
		if err := can(h, op); err != nil {
			return err
		}
	}
	for _, x := range hs {
		if can(x, op) == nil {
			do(x)
		}
	}
	return nil
}

// startable says whether h's variable can be started and stopped.
func (h *PVarHandle) startable(op string) error {
	if h.v.Continuous {
		return errorf(CodePvarNoStartstop, op, "performance variable %s is continuous: it cannot be started or stopped", h.v.Name)
	}
	return nil
}

// writable says whether h's variable can be written and reset.
func (h *PVarHandle) writable(op string) error {
	if h.v.Readonly {
		return errorf(CodePvarNoWrite, op, "performance variable %s is read-only: it cannot be written or reset", h.v.Name)
	}
	return nil
}

// Read returns h's value.
func (s *Session) Read(op string, h *PVarHandle) (Value, error) {
	if _, err := s.handle(op, h, false); err != nil {
		return Value{}, err
	}
	return h.read(), nil
}

// Write sets h's value to v.
func (s *Session) Write(op string, h *PVarHandle, v Value) error {
	if _, err := s.handle(op, h, false); err != nil {
		return err
	}
	if err := h.writable(op); err != nil {
		return err
	}
	h.write(v)
	return nil
}

// ReadReset returns h's value and resets it, at once.
func (s *Session) ReadReset(op string, h *PVarHandle) (Value, error) {
	if _, err := s.handle(op, h, false); err != nil {
		return Value{}, err
	}
	if !h.v.Atomic {
		return Value{}, errorf(CodePvarNoAtomic, op, "performance variable %s cannot be read and reset at once", h.v.Name)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.readLocked()
	h.resetLocked()
	return v, nil
}

// now reads the source.
func (h *PVarHandle) now() Value {
	switch h.v.Type {
	case TypeDouble:
		return Value{Float: h.src.Float()}
	case TypeInt, TypeCount:
		return Value{Int: h.src.Int()}
	}
	return Value{Uint: h.src.Uint()}
}

func plus(a, b Value) Value {
	return Value{Int: a.Int + b.Int, Uint: a.Uint + b.Uint, Float: a.Float + b.Float}
}
func minus(a, b Value) Value {
	return Value{Int: a.Int - b.Int, Uint: a.Uint - b.Uint, Float: a.Float - b.Float}
}

func (h *PVarHandle) start() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.freed || h.running {
		return
	}
	h.running = true
	if h.src.Watch != nil {
		h.src.Watch(1)
	}
	switch h.v.kind() {
	case accumulating:
		h.mark = h.now()
	case watermark:
		h.cell.Store(h.now().Uint)
		if h.src.Track != nil {
			h.untrack = h.src.Track(&h.cell)
		}
	}
}

func (h *PVarHandle) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.freed || !h.running {
		return
	}
	h.last = h.readLocked()
	if h.v.kind() == accumulating {
		h.acc = h.last
	}
	h.running = false
	if h.untrack != nil {
		h.untrack()
		h.untrack = nil
	}
	if h.src.Watch != nil {
		h.src.Watch(-1)
	}
}

// free stops h for good.
func (h *PVarHandle) free() {
	h.stop()
	h.mu.Lock()
	h.freed = true
	h.mu.Unlock()
}

func (h *PVarHandle) read() Value {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.readLocked()
}

func (h *PVarHandle) readLocked() Value {
	switch h.v.kind() {
	case accumulating:
		if h.running {
			return plus(h.acc, minus(h.now(), h.mark))
		}
		return h.acc
	case watermark:
		if h.running {
			return Value{Uint: h.cell.Load()}
		}
		return h.last
	}
	if h.running {
		return h.now()
	}
	return h.last
}

func (h *PVarHandle) reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.resetLocked()
}

// resetLocked sets h to its class's starting value: zero for an accumulating class,
// the resource's level now for a watermark.
func (h *PVarHandle) resetLocked() {
	switch h.v.kind() {
	case accumulating:
		h.acc = Value{}
		if h.running {
			h.mark = h.now()
		}
	case watermark:
		h.last = h.now()
		h.cell.Store(h.last.Uint)
	}
}

func (h *PVarHandle) write(v Value) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch h.v.kind() {
	case accumulating:
		h.acc = v
		if h.running {
			h.mark = h.now()
		}
	case watermark:
		h.last = v
		h.cell.Store(v.Uint)
	}
}
