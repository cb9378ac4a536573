package mpit

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// fake is a device for the tests: counters a test moves by hand, and the watches the
// interface asked for.
type fake struct {
	count, level atomic.Uint64
	seconds      float64
	watched      atomic.Int32
	cells        []*atomic.Uint64
	wanted       map[string]bool
	stored       Value
}

func (f *fake) build(r *Registry) {
	onoff := &Enum{Name: "onoff", Items: []EnumItem{{0, "off"}, {1, "on"}}}
	r.AddCVar(&CVar{Name: "limit", Desc: "a limit", Verbosity: VerbosityUserBasic, Type: TypeUnsignedLongLong,
		Bind: BindNoObject, Scope: ScopeLocal, Count: 1,
		Read:  func() Value { return f.stored },
		Write: func(op string, v Value) error { f.stored = v; return nil }})
	r.AddCVar(&CVar{Name: "mode", Type: TypeInt, Enum: onoff, Bind: BindNoObject, Scope: ScopeLocal, Count: 1,
		Read: func() Value { return Value{} }, Write: func(string, Value) error { return nil }})
	r.AddCVar(&CVar{Name: "fixed", Type: TypeChar, Bind: BindNoObject, Scope: ScopeConstant, Count: 8,
		Read: func() Value { return Value{Str: "abc"} }})
	r.AddCVar(&CVar{Name: "text", Type: TypeChar, Bind: BindNoObject, Scope: ScopeLocal, Count: 8,
		Read: func() Value { return Value{} }, Write: func(string, Value) error { return nil }})
	counter := func(string, any) (Source, error) { return Source{Uint: f.count.Load}, nil }
	r.AddPVar(&PVar{Name: "msgs", Class: ClassCounter, Type: TypeUnsignedLongLong, Bind: BindNoObject,
		Continuous: true, Atomic: true, Source: counter})
	r.AddPVar(&PVar{Name: "msgs_started", Class: ClassCounter, Type: TypeUnsignedLongLong, Bind: BindNoObject,
		Atomic: true, Source: func(string, any) (Source, error) {
			return Source{Uint: f.count.Load, Watch: func(d int) { f.watched.Add(int32(d)) }}, nil
		}})
	r.AddPVar(&PVar{Name: "queue", Class: ClassLevel, Type: TypeUnsignedLongLong, Bind: BindNoObject,
		Readonly: true, Continuous: true, Source: func(string, any) (Source, error) { return Source{Uint: f.level.Load}, nil }})
	r.AddPVar(&PVar{Name: "queue", Class: ClassHighwatermark, Type: TypeUnsignedLongLong, Bind: BindNoObject,
		Source: func(string, any) (Source, error) {
			return Source{Uint: f.level.Load, Track: func(c *atomic.Uint64) func() {
				f.cells = append(f.cells, c)
				return func() { f.cells = nil }
			}}, nil
		}})
	r.AddPVar(&PVar{Name: "wait", Class: ClassTimer, Type: TypeDouble, Bind: BindNoObject, Continuous: true, Atomic: true,
		Source: func(string, any) (Source, error) { return Source{Float: func() float64 { return f.seconds }}, nil }})
	r.AddPVar(&PVar{Name: "per_comm", Class: ClassCounter, Type: TypeUnsignedLongLong, Bind: BindComm, Continuous: true,
		Source: func(op string, obj any) (Source, error) {
			if obj != "world" {
				return Source{}, errorf(CodeInvalidHandle, op, "no such communicator")
			}
			return Source{Uint: f.count.Load}, nil
		}})
	src := r.AddSource(&EventSource{Name: "engine", Order: SourceOrdered, TicksPerSecond: 1e9, MaxTicks: 1 << 62,
		Now: func() int64 { return 42 }})
	r.AddSource(&EventSource{Name: "clockless", Order: SourceUnordered})
	f.wanted = map[string]bool{}
	for _, name := range []string{"unexpected", "failed"} {
		b := BindComm
		if name == "failed" {
			b = BindNoObject
		}
		r.AddEvent(&EventType{Name: name, Bind: b, Source: src, Elements: []Type{TypeInt, TypeInt, TypeCount},
			Key:  func(op string, obj any) (any, error) { return obj, nil },
			Want: func(on bool) { f.wanted[name] = on }})
	}
	r.AddCategory(&Category{Name: "p2p", CVars: []int{0}, PVars: []int{0, 1}})
	r.AddCategory(&Category{Name: "all", Categories: []int{0}, Events: []int{0, 1}})
}

func newFake(t *testing.T) (*Interface, *fake, *Registry) {
	f := &fake{}
	ti := New(f.build)
	return ti, f, ti.Init()
}

func wantCode(t *testing.T, what string, err error, code Code) {
	t.Helper()
	if CodeOf(err) != code {
		t.Errorf("%s: %v, want %v", what, err, code)
		return
	}
	if code != 0 && (!errors.Is(err, &Error{Code: code}) || !strings.Contains(err.Error(), code.String())) {
		t.Errorf("%s: %v does not name its code", what, err)
	}
}

func TestInitFinalize(t *testing.T) {
	ti, _, _ := newFake(t)
	ti.Init()
	s, err := ti.NewSession("create")
	wantCode(t, "session", err, 0)
	wantCode(t, "first finalize", ti.Finalize("fin"), 0)
	if !ti.Initialized() {
		t.Fatal("finalized once of twice, the interface ended")
	}
	wantCode(t, "last finalize", ti.Finalize("fin"), 0)
	wantCode(t, "finalize again", ti.Finalize("fin"), CodeNotInitialized)
	_, err = ti.Registry("op")
	wantCode(t, "registry after finalize", err, CodeNotInitialized)
	_, err = ti.NewSession("create")
	wantCode(t, "session after finalize", err, CodeNotInitialized)
	ti.Init()
	wantCode(t, "a session of the last initialisation", s.Free("free"), CodeInvalidSession)
}

func TestRegistryLookups(t *testing.T) {
	_, _, r := newFake(t)
	for _, c := range []struct {
		name string
		err  error
		code Code
	}{
		{"cvar -1", func() error { _, err := r.CVar("op", -1); return err }(), CodeInvalidIndex},
		{"cvar 4", func() error { _, err := r.CVar("op", 4); return err }(), CodeInvalidIndex},
		{"cvar 3", func() error { _, err := r.CVar("op", 3); return err }(), 0},
		{"pvar 99", func() error { _, err := r.PVar("op", 99); return err }(), CodeInvalidIndex},
		{"event 2", func() error { _, err := r.Event("op", 2); return err }(), CodeInvalidIndex},
		{"source 2", func() error { _, err := r.Source("op", 2); return err }(), CodeInvalidIndex},
		{"category 2", func() error { _, err := r.Category("op", 2); return err }(), CodeInvalidIndex},
		{"cvar name", func() error { _, err := r.CVarIndex("op", "nope"); return err }(), CodeInvalidName},
		{"pvar wrong class", func() error { _, err := r.PVarIndex("op", "msgs", ClassLevel); return err }(), CodeInvalidName},
		{"pvar no class", func() error { _, err := r.PVarIndex("op", "msgs", 99); return err }(), CodeInvalidName},
		{"event name", func() error { _, err := r.EventIndex("op", ""); return err }(), CodeInvalidName},
		{"category name", func() error { _, err := r.CategoryIndex("op", "p3p"); return err }(), CodeInvalidName},
		{"enum item", func() error { _, err := r.Enums[0].Item("op", 2); return err }(), CodeInvalidItem},
		{"clockless", func() error { _, err := r.Sources[1].Timestamp("op"); return err }(), CodeNotSupported},
	} {
		wantCode(t, c.name, c.err, c.code)
	}
	if i, err := r.PVarIndex("op", "queue", ClassHighwatermark); err != nil || r.PVars[i].Class != ClassHighwatermark {
		t.Errorf("two classes of one name: %d %v", i, err)
	}
	if i, _ := r.CategoryIndex("op", "all"); i != 1 || r.EnumIndex(r.Enums[0]) != 0 {
		t.Errorf("category all at %d", i)
	}
	if d := r.Events[0].Displacements(); d[0] != 0 || d[1] != 4 || d[2] != 8 || r.Events[0].Extent() != 16 {
		t.Errorf("layout %v, extent %d", d, r.Events[0].Extent())
	}
}

// A registry that breaks its rules is a programming error, found when it is built.
func TestRegistryRefuses(t *testing.T) {
	read := func() Value { return Value{} }
	src := func(string, any) (Source, error) { return Source{}, nil }
	for name, build := range map[string]func(r *Registry){
		"duplicate cvar": func(r *Registry) {
			r.AddCVar(&CVar{Name: "a", Count: 1, Read: read})
			r.AddCVar(&CVar{Name: "a", Count: 1, Read: read})
		},
		"enum on a count": func(r *Registry) {
			r.AddCVar(&CVar{Name: "a", Count: 1, Read: read, Type: TypeCount, Enum: &Enum{Name: "e", Items: []EnumItem{{0, "x"}}}})
		},
		"writable level": func(r *Registry) {
			r.AddPVar(&PVar{Name: "l", Class: ClassLevel, Bind: BindNoObject, Source: src})
		},
		"category of nothing": func(r *Registry) { r.AddCategory(&Category{Name: "c", PVars: []int{0}}) },
		"event of no source":  func(r *Registry) { r.AddEvent(&EventType{Name: "e", Elements: []Type{TypeInt}}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: accepted", name)
				}
			}()
			build(&Registry{})
		}()
	}
}

func TestCVars(t *testing.T) {
	ti, f, r := newFake(t)
	h, n, err := ti.AllocCVar("alloc", r.CVars[0], nil)
	if err != nil || n != 1 {
		t.Fatalf("alloc: %v, count %d", err, n)
	}
	wantCode(t, "write", h.Write("write", Value{Uint: 7}), 0)
	if v, err := h.Read("read"); err != nil || v.Uint != 7 || f.stored.Uint != 7 {
		t.Errorf("read back %+v, %v", v, err)
	}
	mode, _, _ := ti.AllocCVar("alloc", r.CVars[1], nil)
	wantCode(t, "enum value out of its items", mode.Write("write", Value{Int: 123}), CodeInvalid)
	fixed, n, _ := ti.AllocCVar("alloc", r.CVars[2], nil)
	wantCode(t, "a constant", fixed.Write("write", Value{Str: "x"}), CodeCvarSetNever)
	if v, _ := fixed.Read("read"); v.Str != "abc" || n != 8 {
		t.Errorf("constant %q, count %d", v.Str, n)
	}
	text, _, _ := ti.AllocCVar("alloc", r.CVars[3], nil)
	wantCode(t, "too long", text.Write("write", Value{Str: "12345678"}), CodeInvalid)
	wantCode(t, "free", h.Free("free"), 0)
	_, err = h.Read("read")
	wantCode(t, "read a freed handle", err, CodeInvalidHandle)
	wantCode(t, "free twice", h.Free("free"), CodeInvalidHandle)
	var null *CVarHandle
	_, err = null.Read("read")
	wantCode(t, "null handle", err, CodeInvalidHandle)
}

func TestPVarSessions(t *testing.T) {
	ti, f, r := newFake(t)
	s, _ := ti.NewSession("create")
	other, _ := ti.NewSession("create")
	f.count.Store(100)
	cont, _, _ := s.Alloc("alloc", r.PVars[0], nil)
	started, _, _ := s.Alloc("alloc", r.PVars[1], nil)
	level, _, _ := s.Alloc("alloc", r.PVars[2], nil)
	hwm, _, _ := s.Alloc("alloc", r.PVars[3], nil)
	read := func(h *PVarHandle) uint64 {
		t.Helper()
		v, err := s.Read("read", h)
		if err != nil {
			t.Fatal(err)
		}
		return v.Uint
	}
	f.count.Add(5)
	if read(cont) != 5 || read(started) != 0 {
		t.Errorf("continuous %d (want 5, from its allocation), stopped %d (want 0)", read(cont), read(started))
	}
	wantCode(t, "start a continuous one", s.Start("start", cont), CodePvarNoStartstop)
	wantCode(t, "start all", s.Start("start", nil), 0)
	if f.watched.Load() != 1 {
		t.Errorf("start did not watch: %d", f.watched.Load())
	}
	f.count.Add(3)
	f.level.Store(4)
	f.level.Store(9)
	for _, c := range f.cells {
		c.Store(max(c.Load(), 9)) // the device raising the watermark
	}
	f.level.Store(2)
	if read(started) != 3 || read(cont) != 8 || read(level) != 2 || read(hwm) != 9 {
		t.Errorf("started %d (3), continuous %d (8), level %d (2), watermark %d (9)", read(started), read(cont), read(level), read(hwm))
	}
	wantCode(t, "stop all", s.Stop("stop", nil), 0)
	f.count.Add(10)
	if read(started) != 3 || f.watched.Load() != 0 || len(f.cells) != 0 {
		t.Errorf("stopped: %d, watched %d, cells %d", read(started), f.watched.Load(), len(f.cells))
	}
	v, err := s.ReadReset("readreset", cont)
	if err != nil || v.Uint != 18 || read(cont) != 0 {
		t.Errorf("readreset %d %v, then %d", v.Uint, err, read(cont))
	}
	wantCode(t, "write", s.Write("write", cont, Value{Uint: 50}), 0)
	f.count.Add(1)
	if read(cont) != 51 {
		t.Errorf("written 50, one more: %d", read(cont))
	}
	wantCode(t, "reset a level", s.Reset("reset", level), CodePvarNoWrite)
	wantCode(t, "write a level", s.Write("write", level, Value{}), CodePvarNoWrite)
	_, err = s.ReadReset("readreset", hwm)
	wantCode(t, "readreset a watermark", err, CodePvarNoAtomic)
	wantCode(t, "reset all", s.Reset("reset", nil), 0)
	if read(hwm) != 2 {
		t.Errorf("a reset watermark starts at the level now: %d", read(hwm))
	}
	wantCode(t, "handle of another session", other.Start("start", started), CodeInvalidHandle)
	_, err = other.Read("read", cont)
	wantCode(t, "read through another session", err, CodeInvalidHandle)
	_, err = s.Read("read", nil)
	wantCode(t, "read all handles", err, CodeInvalidHandle)
	_, _, err = s.Alloc("alloc", r.PVars[5], nil)
	wantCode(t, "bound without an object", err, CodeInvalidHandle)
	_, _, err = s.Alloc("alloc", r.PVars[5], "self")
	wantCode(t, "bound to a bad object", err, CodeInvalidHandle)
	if h, n, err := s.Alloc("alloc", r.PVars[5], "world"); err != nil || n != 1 || h.Var() != r.PVars[5] {
		t.Errorf("bound to world: %v", err)
	}
	wantCode(t, "free a handle", s.FreeHandle("free", started), 0)
	_, err = s.Read("read", started)
	wantCode(t, "read a freed handle", err, CodeInvalidHandle)
	wantCode(t, "free the session", s.Free("free"), 0)
	_, err = s.Read("read", cont)
	wantCode(t, "read in a freed session", err, CodeInvalidSession)
	var null *Session
	_, _, err = null.Alloc("alloc", r.PVars[0], nil)
	wantCode(t, "null session", err, CodeInvalidSession)
}

func TestEvents(t *testing.T) {
	ti, f, r := newFake(t)
	ev := r.Events[0]
	reg, err := ti.Register("alloc", ev, "world")
	if err != nil || !f.wanted["unexpected"] {
		t.Fatalf("register: %v, wanted %v", err, f.wanted)
	}
	_, err = ti.Register("alloc", ev, nil)
	wantCode(t, "bound without an object", err, CodeInvalidHandle)
	var got []string
	var held *Instance
	wantCode(t, "bad level", reg.SetCallback("cb", 7, nil), CodeInvalid)
	wantCode(t, "callback", reg.SetCallback("cb", SafetyThreadSafe, func(in *Instance, r *Registration, s Safety) {
		v, err := in.Read("read", 2)
		got = append(got, s.String())
		if err != nil || v.Int != in.Data[2] || in.Time != 5 || in.Source != 0 {
			t.Errorf("instance: %+v %v", v, err)
		}
		_, err = in.Read("read", 3)
		wantCode(t, "element 3", err, CodeInvalidIndex)
		held = in
	}), 0)
	var drops []int64
	wantCode(t, "dropped handler", reg.SetDropped("drop", func(n int64, r *Registration, src int, s Safety) { drops = append(drops, n) }), 0)
	ti.Deliver(ev, "world", 5, []int64{1, 2, 3}, SafetyMPIRestricted)
	ti.Deliver(ev, "self", 5, []int64{1, 2, 3}, SafetyMPIRestricted)    // another object's
	ti.Deliver(ev, "world", 5, []int64{1, 2, 4}, SafetyAsyncSignalSafe) // no callback that safe: dropped
	ti.Dropped(ev, 2)
	wantCode(t, "a lower callback", reg.SetCallback("cb", SafetyNone, func(*Instance, *Registration, Safety) { got = append(got, "none") }), 0)
	ti.Deliver(ev, "world", 5, []int64{1, 2, 5}, SafetyNone)
	if strings.Join(got, ",") != "MPI_T_CB_REQUIRE_THREAD_SAFE,none" || len(drops) != 1 || drops[0] != 3 {
		t.Errorf("callbacks %v, drops %v", got, drops)
	}
	if _, err := held.Read("read", 0); CodeOf(err) != CodeInvalidHandle {
		t.Errorf("an instance read after its callback: %v", err)
	}
	// Freed from inside its callback: the free callback runs after it, once.
	freed := 0
	wantCode(t, "callback", reg.SetCallback("cb", SafetyNone, func(in *Instance, r *Registration, s Safety) {
		wantCode(t, "free inside", r.Free("free", func(*Registration, Safety) { freed++ }), 0)
		if freed != 0 {
			t.Error("free callback ran inside the callback")
		}
	}), 0)
	ti.Deliver(ev, "world", 5, []int64{1, 2, 6}, SafetyNone)
	ti.Deliver(ev, "world", 5, []int64{1, 2, 7}, SafetyNone)
	if freed != 1 || f.wanted["unexpected"] {
		t.Errorf("freed %d times, still wanted %v", freed, f.wanted["unexpected"])
	}
	wantCode(t, "use after free", reg.SetCallback("cb", SafetyNone, nil), CodeInvalidHandle)
	// Finalising the interface releases its registrations.
	reg2, _ := ti.Register("alloc", r.Events[1], nil)
	wantCode(t, "finalize", ti.Finalize("fin"), 0)
	if f.wanted["failed"] {
		t.Error("still wanted after finalize")
	}
	wantCode(t, "after finalize", reg2.Check("info"), CodeNotInitialized)
	ti.Init()
	wantCode(t, "after reinit", reg2.Check("info"), CodeInvalidHandle)
	var null *Registration
	wantCode(t, "a null registration's info", null.Check("info"), CodeInvalidHandle)
	wantCode(t, "a null registration's callback", null.SetCallback("cb", SafetyNone, nil), CodeInvalidHandle)
	wantCode(t, "a null registration's dropped handler", null.SetDropped("drop", nil), CodeInvalidHandle)
	wantCode(t, "free a null registration", null.Free("free", nil), CodeInvalidHandle)
	if ts, err := r.Sources[0].Timestamp("ts"); ts != 42 || err != nil {
		t.Errorf("timestamp %d %v", ts, err)
	}
}
