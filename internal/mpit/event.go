package mpit

import "math"

// EventSource is where events come from, with its clock.
type EventSource struct {
	Name, Desc     string
	Order          Order
	TicksPerSecond int64
	MaxTicks       int64
	// Now is the source's clock, in ticks; nil: the source cannot tell the time on
	// demand (MPI_T_source_get_timestamp says MPI_T_ERR_NOT_SUPPORTED).
	Now func() int64
}

// Timestamp is the source's time now.
func (s *EventSource) Timestamp(op string) (int64, error) {
	if s.Now == nil {
		return 0, errorf(CodeNotSupported, op, "event source %s has no clock to read on demand", s.Name)
	}
	return s.Now(), nil
}

// EventType is a kind of event the implementation raises.
type EventType struct {
	Name, Desc string
	Verbosity  Verbosity
	Bind       Bind
	Elements   []Type
	Enum       *Enum
	Source     int // the index of the source that raises it
	// Key is the key of the object a registration binds to, which the instances for
	// it carry (Deliver's key): for BindNoObject it is not called, the key is nil.
	Key func(op string, obj any) (any, error)
	// Want is told true when the first registration of the type is made, false when
	// the last goes: the device raises the type only while wanted.
	Want func(on bool)

	displ  []int // each element's offset in a copy (MPI_T_event_copy)
	extent int
}

// layout places the elements one after the other, each at a multiple of its size.
func (e *EventType) layout() {
	e.displ = make([]int, len(e.Elements))
	off := 0
	for i, t := range e.Elements {
		sz := t.Size()
		off = (off + sz - 1) / sz * sz
		e.displ[i] = off
		off += sz
	}
	e.extent = off
}

// Displacements are the elements' byte offsets in an event's copy.
func (e *EventType) Displacements() []int { return e.displ }

// Extent is the bytes of an event's copy.
func (e *EventType) Extent() int { return e.extent }

// Callback is an event callback; FreeCallback runs once a freed registration will see
// no more events; DroppedCallback is told how many events a registration missed.
type (
	Callback        func(in *Instance, r *Registration, safety Safety)
	FreeCallback    func(r *Registration, safety Safety)
	DroppedCallback func(count int64, r *Registration, source int, safety Safety)
)

// Registration is an event registration (MPI_T_event_registration): an event type
// bound to an object, with a callback per safety level.
type Registration struct {
	t     *Interface
	ev    *EventType
	key   any
	epoch uint64

	// Under t.mu:
	cbs      [len(levels)]Callback
	dropped  DroppedCallback
	ndropped int64
	freeing  bool
	// Face is the face's name for the registration (a C handle), set by the face.
	Face any
}

// Event is r's event type.
func (r *Registration) Event() *EventType { return r.ev }

// Instance is one raised event, valid only inside the callback it is passed to.
type Instance struct {
	Event  *EventType
	Time   int64
	Source int
	Data   []int64 // one per element (every element of mpigo's events is an integer)
	valid  bool
}

// Register binds event type ev to obj (MPI_T_event_handle_alloc).
func (t *Interface) Register(op string, ev *EventType, obj any) (*Registration, error) {
	t.mu.Lock()
	err := t.ready(op)
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var key any
	if ev.Bind != BindNoObject {
		if obj == nil {
			return nil, errorf(CodeInvalidHandle, op, "obj_handle is NULL, but event type %s must be bound to an object (%v)", ev.Name, ev.Bind)
		}
		if key, err = ev.Key(op, obj); err != nil {
			return nil, err
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.ready(op); err != nil {
		return nil, err
	}
	r := &Registration{t: t, ev: ev, key: key, epoch: t.epoch}
	t.regs[ev] = append(t.regs[ev], r)
	if len(t.regs[ev]) == 1 && ev.Want != nil {
		ev.Want(true)
	}
	return r, nil
}

// check says whether r may be used now; the caller holds t.mu.
func (r *Registration) check(op string) error {
	if r == nil {
		return errorf(CodeInvalidHandle, op, "event_registration is NULL")
	}
	if err := r.t.ready(op); err != nil {
		return err
	}
	if r.epoch != r.t.epoch || r.freeing {
		return errorf(CodeInvalidHandle, op, "event_registration was freed (by MPI_T_event_handle_free, or with the interface by its last MPI_T_finalize)")
	}
	return nil
}

// Check says whether r may be used now (the info calls, which only validate it).
func (r *Registration) Check(op string) error {
	if r == nil {
		return r.check(op)
	}
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	return r.check(op)
}

// SetCallback registers fn for safety level s, replacing any; nil fn removes it.
func (r *Registration) SetCallback(op string, s Safety, fn Callback) error {
	if r == nil {
		return r.check(op)
	}
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	if err := r.check(op); err != nil {
		return err
	}
	if !s.Valid() {
		return errorf(CodeInvalid, op, "cb_safety %d is none of MPI_T_CB_REQUIRE_NONE, _MPI_RESTRICTED, _THREAD_SAFE and _ASYNC_SIGNAL_SAFE", int32(s))
	}
	r.cbs[s.level()] = fn
	return nil
}

// CheckSafety says whether s is a safety level, for op's argument cb_safety.
func CheckSafety(op string, s Safety) error {
	if !s.Valid() {
		return errorf(CodeInvalid, op, "cb_safety %d is none of MPI_T_CB_REQUIRE_NONE, _MPI_RESTRICTED, _THREAD_SAFE and _ASYNC_SIGNAL_SAFE", int32(s))
	}
	return nil
}

// SetDropped sets r's dropped handler (nil: none; dropped events are then not counted).
func (r *Registration) SetDropped(op string, fn DroppedCallback) error {
	if r == nil {
		return r.check(op)
	}
	r.t.mu.Lock()
	defer r.t.mu.Unlock()
	if err := r.check(op); err != nil {
		return err
	}
	r.dropped, r.ndropped = fn, 0
	return nil
}

// Free ends r (MPI_T_event_handle_free): no event reaches it once Free returns, but a
// callback of it that runs now finishes first; fn (if not nil) runs once none can,
// after that callback, or at once.
func (r *Registration) Free(op string, fn FreeCallback) error {
	if r == nil {
		return r.check(op)
	}
	t := r.t
	t.mu.Lock()
	if err := r.check(op); err != nil {
		t.mu.Unlock()
		return err
	}
	r.freeing = true
	t.unregister(r)
	if t.delivering != nil && t.delivering == r {
		// Its callback runs (this may be that callback): the deliverer calls fn after.
		t.pendingFree = append(t.pendingFree, pendingFree{r, fn})
		t.mu.Unlock()
		return nil
	}
	t.mu.Unlock()
	if fn != nil {
		fn(r, SafetyMPIRestricted)
	}
	return nil
}

type pendingFree struct {
	r  *Registration
	fn FreeCallback
}

// unregister removes r from its type's registrations; the caller holds t.mu.
func (t *Interface) unregister(r *Registration) {
	rs := t.regs[r.ev]
	for i, x := range rs {
		if x == r {
			t.regs[r.ev] = append(rs[:i:i], rs[i+1:]...)
			break
		}
	}
	if len(t.regs[r.ev]) == 0 {
		delete(t.regs, r.ev)
		if r.ev.Want != nil {
			r.ev.Want(false)
		}
	}
}

// pick is the callback r has at the lowest level valid where level is required, and
// that level; nil if none.
func (r *Registration) pick(level Safety) (Callback, Safety) {
	for i := level.level(); i >= 0 && i < len(levels); i++ {
		if r.cbs[i] != nil {
			return r.cbs[i], levels[i]
		}
	}
	return nil, 0
}

// Deliver raises an instance of ev, observed at ts, with data (one value per
// element), for the registrations bound to key (nil for an event of no object), in a
// context where callbacks must meet level. Each gets the callback it registered at the
// lowest level valid there, after its dropped handler if it missed events; one with
// none valid misses this one. One goroutine delivers at a time (the caller's
// promise); callbacks run with no lock held.
func (t *Interface) Deliver(ev *EventType, key any, ts int64, data []int64, level Safety) {
	in := &Instance{Event: ev, Time: ts, Source: ev.Source, Data: data, valid: true}
	t.mu.Lock()
	rs := append([]*Registration(nil), t.regs[ev]...)
	t.mu.Unlock()
	for _, r := range rs {
		if r.key != key {
			continue
		}
		t.mu.Lock()
		if r.epoch != t.epoch || r.freeing {
			t.mu.Unlock()
			continue
		}
		cb, at := r.pick(level)
		if cb == nil {
			if r.dropped != nil && r.ndropped < math.MaxInt64 {
				r.ndropped++
			}
			t.mu.Unlock()
			continue
		}
		dropped, n := r.dropped, r.ndropped
		r.ndropped = 0
		t.delivering = r
		t.mu.Unlock()
		if n > 0 && dropped != nil {
			dropped(n, r, ev.Source, at)
		}
		cb(in, r, at)
		t.mu.Lock()
		t.delivering = nil
		frees := t.pendingFree
		t.pendingFree = nil
		t.mu.Unlock()
		for _, f := range frees {
			if f.fn != nil {
				f.fn(f.r, at)
			}
		}
	}
	in.valid = false
}

// Dropped counts n instances of ev that the device could not keep (its log was full)
// as missed by every registration of ev that has a dropped handler.
func (t *Interface) Dropped(ev *EventType, n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range t.regs[ev] {
		if r.dropped != nil {
			r.ndropped = min(r.ndropped+n, math.MaxInt64) // n is small: no overflow
		}
	}
}

// Valid says whether in may be read: inside the callback it was passed to.
func (in *Instance) Valid() bool { return in != nil && in.valid }

// Read is element i of in.
func (in *Instance) Read(op string, i int) (Value, error) {
	if !in.Valid() {
		return Value{}, errorf(CodeInvalidHandle, op, "event_instance is valid only inside the callback it was passed to")
	}
	if err := index(op, "element_index", i, len(in.Data), "elements in event "+in.Event.Name); err != nil {
		return Value{}, err
	}
	return Value{Int: in.Data[i]}, nil
}
