package mpi

import (
	"fmt"
	"sync"

	"github.com/mpigo/mpigo/internal/mpir"
)

// The tool information interface (MPI 4.1 chapter 15, MPI_T): every mpigo setting as
// a control variable, the engine's counts and the record of calls as performance
// variables, categories that group them, and events a Go function can subscribe to.
// It is usable before Init and after Finalize. ToolVars opens it; what it returns
// lists everything, and each variable reads and writes typed values.
//
// Errors are framed as every error of this package ("mpi: Tools.ControlVar: ..."),
// of the class that is their MPI_T return code (ClassOf); their cause is a *ToolError
// (errors.As), and errors.Is matches the sentinels ErrToolInvalidIndex, ...; the
// interface never runs an error handler.

// Tools is the process's tool information interface, open from ToolVars until Close
// (MPI_T_init_thread to MPI_T_finalize; the interface counts how often it is open).
type Tools struct {
	reg *mpir.ToolRegistry

	once       sync.Once
	cvars      []*ControlVar
	pvars      []*PerfVar
	events     []*EventType
	sources    []*EventSource
	categories []*ToolCategory

	mu     sync.Mutex
	closed bool
}

// framed frames *err, a tool call's error, as every error of this package
// (mpir.ToolFramed): deferred by each call that returns one.
func framed(err *error) { *err = mpir.ToolFramed(*err) }

// toolErr is err framed (mpir.ToolFramed).
func toolErr(err error) error { return mpir.ToolFramed(err) }

// ToolError is an error of the tool interface: its return code (Code), the call and
// what went wrong.
type ToolError = mpir.ToolError

// ToolCode is a return code of the tool interface (MPI_T_ERR_*).
type ToolCode = mpir.ToolCode

// Sentinels of the tool interface's return codes, for errors.Is.
var (
	ErrToolNotInitialized  error = &ToolError{Code: mpir.ToolErrNotInitialized}
	ErrToolInvalid         error = &ToolError{Code: mpir.ToolErrInvalid}
	ErrToolInvalidIndex    error = &ToolError{Code: mpir.ToolErrInvalidIndex}
	ErrToolInvalidItem     error = &ToolError{Code: mpir.ToolErrInvalidItem}
	ErrToolInvalidName     error = &ToolError{Code: mpir.ToolErrInvalidName}
	ErrToolInvalidHandle   error = &ToolError{Code: mpir.ToolErrInvalidHandle}
	ErrToolInvalidSession  error = &ToolError{Code: mpir.ToolErrInvalidSession}
	ErrToolNotSupported    error = &ToolError{Code: mpir.ToolErrNotSupported}
	ErrToolCvarSetNever    error = &ToolError{Code: mpir.ToolErrCvarSetNever}
	ErrToolCvarSetNotNow   error = &ToolError{Code: mpir.ToolErrCvarSetNotNow}
	ErrToolPvarNoWrite     error = &ToolError{Code: mpir.ToolErrPvarNoWrite}
	ErrToolPvarNoStartstop error = &ToolError{Code: mpir.ToolErrPvarNoStartstop}
	ErrToolPvarNoAtomic    error = &ToolError{Code: mpir.ToolErrPvarNoAtomic}
)

// ToolType is the type of a variable's values or an event's elements.
type ToolType = mpir.ToolType

// The types: ToolInt (MPI_INT) and ToolCount (MPI_COUNT) read as Int, ToolUint64
// (MPI_UNSIGNED_LONG_LONG) as Uint, ToolFloat64 (MPI_DOUBLE) as Float, ToolString
// (MPI_CHAR) as Text.
const (
	ToolInt     = mpir.ToolInt
	ToolCount   = mpir.ToolCount
	ToolUint64  = mpir.ToolUnsignedLongLong
	ToolFloat64 = mpir.ToolDouble
	ToolString  = mpir.ToolChar
)

// ToolVerbosity says who a variable is for and in how much detail.
type ToolVerbosity = mpir.ToolVerbosity

// The verbosity levels, from the user's basics to the implementors' details.
const (
	VerbosityUserBasic    = mpir.VerbosityUserBasic
	VerbosityUserDetail   = mpir.VerbosityUserDetail
	VerbosityUserAll      = mpir.VerbosityUserAll
	VerbosityTunerBasic   = mpir.VerbosityTunerBasic
	VerbosityTunerDetail  = mpir.VerbosityTunerDetail
	VerbosityTunerAll     = mpir.VerbosityTunerAll
	VerbosityMpidevBasic  = mpir.VerbosityMpidevBasic
	VerbosityMpidevDetail = mpir.VerbosityMpidevDetail
	VerbosityMpidevAll    = mpir.VerbosityMpidevAll
)

// ToolBind is the kind of object a variable or event is bound to.
type ToolBind = mpir.ToolBind

// The bindings mpigo's variables and events use.
const (
	BindNoObject = mpir.BindNoObject // the whole process: bound to nil
	BindComm     = mpir.BindComm     // a communicator: bound to a *Comm
)

// ToolScope says who may set a control variable, and how alike.
type ToolScope = mpir.ToolScope

// The scopes.
const (
	ScopeConstant = mpir.ScopeConstant // never changes
	ScopeReadonly = mpir.ScopeReadonly // cannot be written, but may change
	ScopeLocal    = mpir.ScopeLocal    // concerns this process alone
	ScopeGroup    = mpir.ScopeGroup    // consistent in a group of processes
	ScopeGroupEq  = mpir.ScopeGroupEq  // the same in a group of processes
	ScopeAll      = mpir.ScopeAll      // consistent in every connected process
	ScopeAllEq    = mpir.ScopeAllEq    // the same in every connected process
)

// PerfClass is a performance variable's class: what its value means and how it moves.
type PerfClass = mpir.PVarClass

// The classes.
const (
	PerfState         = mpir.ClassState         // one of a set of states (an enumeration names them)
	PerfLevel         = mpir.ClassLevel         // how much of a resource is in use now
	PerfSize          = mpir.ClassSize          // the size of a resource
	PerfPercentage    = mpir.ClassPercentage    // how much of a resource is in use, 0 to 1
	PerfHighWatermark = mpir.ClassHighwatermark // the most of a resource in use at once
	PerfLowWatermark  = mpir.ClassLowwatermark  // the least
	PerfCounter       = mpir.ClassCounter       // how many times something happened
	PerfAggregate     = mpir.ClassAggregate     // the sum of what something moved
	PerfTimer         = mpir.ClassTimer         // the time something took, in seconds
	PerfGeneric       = mpir.ClassGeneric       // none of the above
)

// CallbackSafety is what an event callback may do where it is called.
type CallbackSafety = mpir.CallbackSafety

// The safety levels, from the least to the most restrictive.
const (
	SafetyNone            = mpir.SafetyNone
	SafetyMPIRestricted   = mpir.SafetyMPIRestricted
	SafetyThreadSafe      = mpir.SafetyThreadSafe
	SafetyAsyncSignalSafe = mpir.SafetyAsyncSignalSafe
)

// ToolEnum is an enumeration: the names of an integer variable's values.
type ToolEnum = mpir.ToolEnum

// ToolEnumItem is one value of an enumeration and its name.
type ToolEnumItem = mpir.ToolEnumItem

// ToolVars opens the tool information interface (MPI_T_init_thread, at
// MPI_THREAD_MULTIPLE: every call is safe from any goroutine) and returns it. It may
// be called before Init and after Finalize, and any number of times: the interface
// stays open until each returned value is closed.
func ToolVars() (_ *Tools, err error) {
	defer framed(&err)
	return &Tools{reg: mpir.Tools.Init()}, nil
}

// Close closes the interface (MPI_T_finalize). The last Close frees every session,
// handle and subscription made since the interface was opened; closing t twice is an
// error of code MPI_T_ERR_NOT_INITIALIZED.
func (t *Tools) Close() (err error) {
	defer framed(&err)
	if err := t.ready("Tools.Close"); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return mpir.ToolErrorf(mpir.ToolErrNotInitialized, "Tools.Close", "closed already")
	}
	t.closed = true
	return mpir.Tools.Finalize("Tools.Close")
}

// ready is nil while the interface is open and t is a value ToolVars made.
func (t *Tools) ready(op string) error {
	if t == nil {
		return mpir.ToolErrorf(mpir.ToolErrNotInitialized, op, "the *Tools is nil (ToolVars makes one)")
	}
	_, err := mpir.Tools.Registry(op)
	return err
}

// list makes the values describing the registry's entries, once; a nil t lists
// nothing.
func (t *Tools) list() *Tools {
	if t == nil {
		return &Tools{}
	}
	t.once.Do(func() {
		r := t.reg
		for i, v := range r.CVars {
			t.cvars = append(t.cvars, &ControlVar{t: t, v: v, index: i})
		}
		for i, v := range r.PVars {
			t.pvars = append(t.pvars, &PerfVar{v: v, index: i})
		}
		for i, s := range r.Sources {
			t.sources = append(t.sources, &EventSource{t: t, s: s, index: i})
		}
		for i, e := range r.Events {
			t.events = append(t.events, &EventType{t: t, e: e, index: i, source: t.sources[e.Source]})
		}
		for i, c := range r.Categories {
			t.categories = append(t.categories, &ToolCategory{Name: c.Name, Desc: c.Desc, Index: i})
		}
		for i, c := range r.Categories {
			k := t.categories[i]
			for _, j := range c.CVars {
				k.ControlVars = append(k.ControlVars, t.cvars[j])
			}
			for _, j := range c.PVars {
				k.PerfVars = append(k.PerfVars, t.pvars[j])
			}
			for _, j := range c.Events {
				k.Events = append(k.Events, t.events[j])
			}
			for _, j := range c.Categories {
				k.Categories = append(k.Categories, t.categories[j])
			}
		}
	})
	return t
}

// ControlVars lists every control variable, by index (MPI_T_cvar_get_num and
// MPI_T_cvar_get_info): every mpigo setting, as `mpigo info` lists them.
func (t *Tools) ControlVars() []*ControlVar { return t.list().cvars }

// ControlVar is the control variable named name (MPI_T_cvar_get_index): an error of
// code MPI_T_ERR_INVALID_NAME if none has it.
func (t *Tools) ControlVar(name string) (_ *ControlVar, err error) {
	defer framed(&err)
	if err := t.ready("Tools.ControlVar"); err != nil {
		return nil, err
	}
	i, err := t.reg.CVarIndex("Tools.ControlVar", name)
	if err != nil {
		return nil, err
	}
	t.list()
	return t.cvars[i], nil
}

// PerfVars lists every performance variable, by index (MPI_T_pvar_get_num and
// MPI_T_pvar_get_info).
func (t *Tools) PerfVars() []*PerfVar { return t.list().pvars }

// PerfVar is the performance variable named name (MPI_T_pvar_get_index; mpigo's
// names are unique whatever the class).
func (t *Tools) PerfVar(name string) (_ *PerfVar, err error) {
	defer framed(&err)
	if err := t.ready("Tools.PerfVar"); err != nil {
		return nil, err
	}
	v, err := t.reg.PVarNamed("Tools.PerfVar", name)
	if err != nil {
		return nil, err
	}
	t.list()
	for _, p := range t.pvars {
		if p.v == v {
			return p, nil
		}
	}
	return nil, err
}

// Categories lists the categories, by index (MPI_T_category_get_num and
// MPI_T_category_get_info and its members).
func (t *Tools) Categories() []*ToolCategory { return t.list().categories }

// Category is the category named name (MPI_T_category_get_index).
func (t *Tools) Category(name string) (_ *ToolCategory, err error) {
	defer framed(&err)
	if err := t.ready("Tools.Category"); err != nil {
		return nil, err
	}
	i, err := t.reg.CategoryIndex("Tools.Category", name)
	if err != nil {
		return nil, err
	}
	t.list()
	return t.categories[i], nil
}

// CategoriesChanged is the categories' update number (MPI_T_category_changed): it
// stays the same while no category changes, and mpigo's never do.
func (t *Tools) CategoriesChanged() int { return 0 }

// ToolCategory is a category: variables, events and other categories grouped.
type ToolCategory struct {
	Name, Desc  string
	Index       int
	ControlVars []*ControlVar
	PerfVars    []*PerfVar
	Events      []*EventType
	Categories  []*ToolCategory
}

// ControlVar is a control variable: one of mpigo's settings.
type ControlVar struct {
	t     *Tools
	v     *mpir.CVar
	index int

	mu sync.Mutex
	h  *mpir.CVarHandle
}

// The descriptions of the tool values (a variable's name, type, ...) read a nil value
// as one with none: the empty description and the index -1, never a panic.
var (
	noCVar   mpir.CVar
	noPVar   mpir.PVar
	noSource mpir.EventSource
	noEvent  mpir.EventType
)

func (v *ControlVar) desc() *mpir.CVar {
	if v == nil {
		return &noCVar
	}
	return v.v
}

// Name, Desc, Verbosity, Type, Scope and Bind describe the variable
// (MPI_T_cvar_get_info); Index is its index, -1 for a nil variable.
func (v *ControlVar) Name() string             { return v.desc().Name }
func (v *ControlVar) Desc() string             { return v.desc().Desc }
func (v *ControlVar) Verbosity() ToolVerbosity { return v.desc().Verbosity }
func (v *ControlVar) Type() ToolType           { return v.desc().Type }
func (v *ControlVar) Scope() ToolScope         { return v.desc().Scope }
func (v *ControlVar) Bind() ToolBind           { return v.desc().Bind }
func (v *ControlVar) Index() int {
	if v == nil {
		return -1
	}
	return v.index
}

// Enum is the names of the variable's values, nil for one with none.
func (v *ControlVar) Enum() *ToolEnum { return v.desc().Enum }

// handle is v's handle (MPI_T_cvar_handle_alloc), made at first use.
func (v *ControlVar) handle(op string) (*mpir.CVarHandle, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.h == nil {
		h, _, err := mpir.Tools.AllocCVar(op, v.v, nil)
		if err != nil {
			return nil, err
		}
		v.h = h
	}
	return v.h, nil
}

func (v *ControlVar) read(op string, types ...ToolType) (mpir.ToolValue, error) {
	if v == nil {
		return mpir.ToolValue{}, errNilVar(op)
	}
	if err := wantType(op, v.v.Name, v.v.Type, types); err != nil {
		return mpir.ToolValue{}, err
	}
	h, err := v.handle(op)
	if err != nil {
		return mpir.ToolValue{}, err
	}
	return h.Read(op)
}

func (v *ControlVar) write(op string, val mpir.ToolValue, types ...ToolType) error {
	if v == nil {
		return errNilVar(op)
	}
	if err := wantType(op, v.v.Name, v.v.Type, types); err != nil {
		return err
	}
	h, err := v.handle(op)
	if err != nil {
		return err
	}
	return h.Write(op, val)
}

// errNilVar is the error of a call on a nil *ControlVar.
func errNilVar(op string) error {
	return mpir.ToolErrorf(mpir.ToolErrInvalidHandle, op, "the variable is nil")
}

// wantType says whether t is one of the types a typed call takes.
func wantType(op, name string, t ToolType, types []ToolType) error {
	for _, w := range types {
		if w == t {
			return nil
		}
	}
	return mpir.ToolErrorf(mpir.ToolErrInvalid, op, "%s holds %v values, which this call does not read or write", name, t)
}

// Int reads an integer variable (ToolInt, ToolCount; an enumerated one's value).
func (v *ControlVar) Int() (_ int64, err error) {
	defer framed(&err)
	val, err := v.read("ControlVar.Int", ToolInt, ToolCount)
	return val.Int, err
}

// Uint reads a ToolUint64 variable (a byte count).
func (v *ControlVar) Uint() (_ uint64, err error) {
	defer framed(&err)
	val, err := v.read("ControlVar.Uint", ToolUint64)
	return val.Uint, err
}

// Float reads a ToolFloat64 variable (a duration, in seconds).
func (v *ControlVar) Float() (_ float64, err error) {
	defer framed(&err)
	val, err := v.read("ControlVar.Float", ToolFloat64)
	return val.Float, err
}

// Text reads a ToolString variable.
func (v *ControlVar) Text() (_ string, err error) {
	defer framed(&err)
	val, err := v.read("ControlVar.Text", ToolString)
	return val.Str, err
}

// String is the value as text whatever its type (an enumerated value's name), or
// the error reading it.
func (v *ControlVar) String() string {
	if v == nil {
		return "<nil>"
	}
	val, err := v.read("ControlVar.String", v.v.Type)
	switch {
	case err != nil:
		return toolErr(err).Error()
	case v.v.Enum != nil:
		return v.v.Enum.NameOf(int(val.Int))
	}
	switch v.v.Type {
	case ToolInt, ToolCount:
		return fmt.Sprint(val.Int)
	case ToolUint64:
		return fmt.Sprint(val.Uint)
	case ToolFloat64:
		return fmt.Sprint(val.Float)
	}
	return val.Str
}

// SetInt writes an integer variable (an enumerated one: the value of one of its
// items). A value the setting's rule refuses is an error of code MPI_T_ERR_INVALID; a
// setting that can no longer change, MPI_T_ERR_CVAR_SET_NEVER.
func (v *ControlVar) SetInt(n int64) (err error) {
	defer framed(&err)
	return v.write("ControlVar.SetInt", mpir.ToolValue{Int: n}, ToolInt, ToolCount)
}

// SetUint writes a ToolUint64 variable.
func (v *ControlVar) SetUint(n uint64) (err error) {
	defer framed(&err)
	return v.write("ControlVar.SetUint", mpir.ToolValue{Uint: n}, ToolUint64)
}

// SetFloat writes a ToolFloat64 variable.
func (v *ControlVar) SetFloat(f float64) (err error) {
	defer framed(&err)
	return v.write("ControlVar.SetFloat", mpir.ToolValue{Float: f}, ToolFloat64)
}

// SetText writes a ToolString variable.
func (v *ControlVar) SetText(s string) (err error) {
	defer framed(&err)
	return v.write("ControlVar.SetText", mpir.ToolValue{Str: s}, ToolString)
}

// PerfVar is a performance variable: a count, level or time of the implementation,
// read through a handle of a session.
type PerfVar struct {
	v     *mpir.PVar
	index int
}

func (v *PerfVar) desc() *mpir.PVar {
	if v == nil {
		return &noPVar
	}
	return v.v
}

// Name, Desc, Verbosity, Class, Type and Bind describe the variable
// (MPI_T_pvar_get_info); Index is its index, -1 for a nil variable.
func (v *PerfVar) Name() string             { return v.desc().Name }
func (v *PerfVar) Desc() string             { return v.desc().Desc }
func (v *PerfVar) Verbosity() ToolVerbosity { return v.desc().Verbosity }
func (v *PerfVar) Class() PerfClass         { return v.desc().Class }
func (v *PerfVar) Type() ToolType           { return v.desc().Type }
func (v *PerfVar) Bind() ToolBind           { return v.desc().Bind }
func (v *PerfVar) Index() int {
	if v == nil {
		return -1
	}
	return v.index
}

// Enum is the names of a state's values, nil for a variable with none.
func (v *PerfVar) Enum() *ToolEnum { return v.desc().Enum }

// Readonly says that the variable cannot be written or reset.
func (v *PerfVar) Readonly() bool { return v.desc().Readonly }

// Continuous says that the variable is always active: it cannot be started or
// stopped.
func (v *PerfVar) Continuous() bool { return v.desc().Continuous }

// Atomic says that the variable can be read and reset at once (ReadReset).
func (v *PerfVar) Atomic() bool { return v.desc().Atomic }

// PerfSession is a performance experiment session: handles that start, stop and
// reset apart from every other session's (MPI_T_pvar_session).
type PerfSession struct{ s *mpir.PVarSession }

// NewPerfSession makes a session (MPI_T_pvar_session_create).
func (t *Tools) NewPerfSession() (_ *PerfSession, err error) {
	defer framed(&err)
	s, err := mpir.Tools.NewSession("Tools.NewPerfSession")
	if err != nil {
		return nil, err
	}
	return &PerfSession{s}, nil
}

// Free frees the session and its handles (MPI_T_pvar_session_free).
func (s *PerfSession) Free() error { return toolErr(s.session().Free("PerfSession.Free")) }

// session is s's session in mpir: nil for a nil s, which mpir's calls refuse with
// MPI_T_ERR_INVALID_SESSION.
func (s *PerfSession) session() *mpir.PVarSession {
	if s == nil {
		return nil
	}
	return s.s
}

// Handle binds v to obj in the session (MPI_T_pvar_handle_alloc): obj is nil for a
// variable bound to no object (BindNoObject), the *Comm for one bound to a
// communicator. A continuous variable counts from the handle's making, another from
// its Start.
func (s *PerfSession) Handle(v *PerfVar, obj any) (_ *PerfHandle, err error) {
	defer framed(&err)
	const op = "PerfSession.Handle"
	if v == nil {
		return nil, mpir.ToolErrorf(mpir.ToolErrInvalidIndex, op, "the variable is nil")
	}
	dev, err := toolObject(op, obj)
	if err != nil {
		return nil, err
	}
	h, _, err := s.session().Alloc(op, v.v, dev)
	if err != nil {
		return nil, err
	}
	return &PerfHandle{s: s, h: h, v: v}, nil
}

// toolObject is the device's object of a face's: a *Comm's core communicator.
func toolObject(op string, obj any) (any, error) {
	switch o := obj.(type) {
	case nil:
		return nil, nil
	case *Comm:
		if o == nil || o.dev() == nil {
			return nil, mpir.ToolErrorf(mpir.ToolErrInvalidHandle, op, "the communicator is nil or freed")
		}
		return o.dev(), nil
	}
	return nil, mpir.ToolErrorf(mpir.ToolErrInvalidHandle, op, "%T is no object a variable or event binds to (want nil or a *Comm)", obj)
}

// StartAll starts every handle of the session that is not continuous
// (MPI_T_PVAR_ALL_HANDLES).
func (s *PerfSession) StartAll() error {
	return toolErr(s.session().Start("PerfSession.StartAll", nil))
}

// StopAll stops every handle of the session that is not continuous.
func (s *PerfSession) StopAll() error { return toolErr(s.session().Stop("PerfSession.StopAll", nil)) }

// ResetAll resets every handle of the session that is not read-only.
func (s *PerfSession) ResetAll() error {
	return toolErr(s.session().Reset("PerfSession.ResetAll", nil))
}

// PerfHandle is a performance variable bound to an object in a session.
type PerfHandle struct {
	s *PerfSession
	h *mpir.PVarHandle
	v *PerfVar
}

// Var is the handle's variable.
func (h *PerfHandle) Var() *PerfVar {
	if h == nil {
		return nil
	}
	return h.v
}

// parts is h's session and handle in mpir, or the error of a nil h (which must not
// reach mpir as a nil handle: that is MPI_T_PVAR_ALL_HANDLES there).
func (h *PerfHandle) parts(op string) (*mpir.PVarSession, *mpir.PVarHandle, error) {
	if h == nil {
		return nil, nil, mpir.ToolErrorf(mpir.ToolErrInvalidHandle, op, "the handle is nil")
	}
	return h.s.s, h.h, nil
}

// Start starts the handle's variable (an error of code MPI_T_ERR_PVAR_NO_STARTSTOP
// for a continuous one).
func (h *PerfHandle) Start() (err error) {
	defer framed(&err)
	s, x, err := h.parts("PerfHandle.Start")
	if err != nil {
		return err
	}
	return s.Start("PerfHandle.Start", x)
}

// Stop stops it.
func (h *PerfHandle) Stop() (err error) {
	defer framed(&err)
	s, x, err := h.parts("PerfHandle.Stop")
	if err != nil {
		return err
	}
	return s.Stop("PerfHandle.Stop", x)
}

// Reset sets it to its starting value (MPI_T_ERR_PVAR_NO_WRITE for a read-only one).
func (h *PerfHandle) Reset() (err error) {
	defer framed(&err)
	s, x, err := h.parts("PerfHandle.Reset")
	if err != nil {
		return err
	}
	return s.Reset("PerfHandle.Reset", x)
}

// Free frees the handle (MPI_T_pvar_handle_free).
func (h *PerfHandle) Free() (err error) {
	defer framed(&err)
	s, x, err := h.parts("PerfHandle.Free")
	if err != nil {
		return err
	}
	return s.FreeHandle("PerfHandle.Free", x)
}

func (h *PerfHandle) read(op string, reset bool, types ...ToolType) (mpir.ToolValue, error) {
	s, x, err := h.parts(op)
	if err != nil {
		return mpir.ToolValue{}, err
	}
	if err := wantType(op, h.v.v.Name, h.v.v.Type, types); err != nil {
		return mpir.ToolValue{}, err
	}
	if reset {
		return s.ReadReset(op, x)
	}
	return s.Read(op, x)
}

// write writes val into h's variable, which must be of type t.
func (h *PerfHandle) write(op string, t ToolType, val mpir.ToolValue) error {
	s, x, err := h.parts(op)
	if err != nil {
		return err
	}
	if err := wantType(op, h.v.v.Name, h.v.v.Type, []ToolType{t}); err != nil {
		return err
	}
	return s.Write(op, x, val)
}

// Uint reads a ToolUint64 variable (counters, sizes, levels; MPI_T_pvar_read).
func (h *PerfHandle) Uint() (_ uint64, err error) {
	defer framed(&err)
	v, err := h.read("PerfHandle.Uint", false, ToolUint64)
	return v.Uint, err
}

// Float reads a ToolFloat64 variable (timers, in seconds).
func (h *PerfHandle) Float() (_ float64, err error) {
	defer framed(&err)
	v, err := h.read("PerfHandle.Float", false, ToolFloat64)
	return v.Float, err
}

// Int reads a ToolInt or ToolCount variable (states).
func (h *PerfHandle) Int() (_ int64, err error) {
	defer framed(&err)
	v, err := h.read("PerfHandle.Int", false, ToolInt, ToolCount)
	return v.Int, err
}

// ReadResetUint reads a ToolUint64 variable and resets it at once
// (MPI_T_pvar_readreset; MPI_T_ERR_PVAR_NO_ATOMIC for a variable that cannot).
func (h *PerfHandle) ReadResetUint() (_ uint64, err error) {
	defer framed(&err)
	v, err := h.read("PerfHandle.ReadResetUint", true, ToolUint64)
	return v.Uint, err
}

// ReadResetFloat reads a ToolFloat64 variable and resets it at once.
func (h *PerfHandle) ReadResetFloat() (_ float64, err error) {
	defer framed(&err)
	v, err := h.read("PerfHandle.ReadResetFloat", true, ToolFloat64)
	return v.Float, err
}

// WriteUint sets a ToolUint64 variable (MPI_T_pvar_write; MPI_T_ERR_PVAR_NO_WRITE
// for a read-only one).
func (h *PerfHandle) WriteUint(n uint64) (err error) {
	defer framed(&err)
	return h.write("PerfHandle.WriteUint", ToolUint64, mpir.ToolValue{Uint: n})
}

// WriteFloat sets a ToolFloat64 variable.
func (h *PerfHandle) WriteFloat(f float64) (err error) {
	defer framed(&err)
	return h.write("PerfHandle.WriteFloat", ToolFloat64, mpir.ToolValue{Float: f})
}

// EventSource is where events come from, with its clock.
type EventSource struct {
	t     *Tools
	s     *mpir.EventSource
	index int
}

func (s *EventSource) desc() *mpir.EventSource {
	if s == nil {
		return &noSource
	}
	return s.s
}

// Name and Desc describe the source (MPI_T_source_get_info); Index is its index, -1
// for a nil source.
func (s *EventSource) Name() string { return s.desc().Name }
func (s *EventSource) Desc() string { return s.desc().Desc }
func (s *EventSource) Index() int {
	if s == nil {
		return -1
	}
	return s.index
}

// Ordered says that the source's events come in the order of their timestamps.
func (s *EventSource) Ordered() bool { return s != nil && s.s.Order == mpir.SourceOrdered }

// TicksPerSecond is the rate of the source's clock; MaxTicks its largest reading.
func (s *EventSource) TicksPerSecond() int64 { return s.desc().TicksPerSecond }
func (s *EventSource) MaxTicks() int64       { return s.desc().MaxTicks }

// Timestamp reads the source's clock (MPI_T_source_get_timestamp).
func (s *EventSource) Timestamp() (_ int64, err error) {
	defer framed(&err)
	const op = "EventSource.Timestamp"
	if s == nil {
		return 0, mpir.ToolErrorf(mpir.ToolErrInvalidIndex, op, "the event source is nil")
	}
	if err := s.t.ready(op); err != nil {
		return 0, err
	}
	return s.s.Timestamp(op)
}

// EventSources lists the event sources (MPI_T_source_get_num and _get_info).
func (t *Tools) EventSources() []*EventSource { return t.list().sources }

// EventType is a kind of event mpigo raises.
type EventType struct {
	t      *Tools
	e      *mpir.EventType
	index  int
	source *EventSource
}

func (e *EventType) desc() *mpir.EventType {
	if e == nil {
		return &noEvent
	}
	return e.e
}

// Name, Desc, Verbosity and Bind describe the event type (MPI_T_event_get_info);
// Index is its index, -1 for a nil one; Source is where its events come from.
func (e *EventType) Name() string             { return e.desc().Name }
func (e *EventType) Desc() string             { return e.desc().Desc }
func (e *EventType) Verbosity() ToolVerbosity { return e.desc().Verbosity }
func (e *EventType) Bind() ToolBind           { return e.desc().Bind }
func (e *EventType) Index() int {
	if e == nil {
		return -1
	}
	return e.index
}
func (e *EventType) Source() *EventSource {
	if e == nil {
		return nil
	}
	return e.source
}

// Elements are the types of an event's data, in order.
func (e *EventType) Elements() []ToolType { return append([]ToolType(nil), e.desc().Elements...) }

// Events lists the event types (MPI_T_event_get_num and _get_info).
func (t *Tools) Events() []*EventType { return t.list().events }

// Event is the event type named name (MPI_T_event_get_index).
func (t *Tools) Event(name string) (_ *EventType, err error) {
	defer framed(&err)
	if err := t.ready("Tools.Event"); err != nil {
		return nil, err
	}
	i, err := t.reg.EventIndex("Tools.Event", name)
	if err != nil {
		return nil, err
	}
	t.list()
	return t.events[i], nil
}

// ToolEvent is one event, as a subscription's function gets it: its type, when its
// source observed it (in the source's ticks), and its data (one value per element).
type ToolEvent struct {
	Type *EventType
	Time int64
	Data []int64
	// Safety is what the function may do where it runs: at
	// SafetyMPIRestricted, call the tool interface (and Wtime) but no other MPI call.
	Safety CallbackSafety
}

// EventSubscription is a Go function's subscription to an event type
// (MPI_T_event_registration).
type EventSubscription struct {
	r *mpir.EventRegistration
}

// Subscribe calls fn for each event of type e bound to obj (nil for a type bound to no
// object, the *Comm for one bound to a communicator) until Close
// (MPI_T_event_handle_alloc and MPI_T_event_register_callback). fn runs on mpigo's
// event goroutine, one event at a time, in the source's order, outside every lock of
// mpigo's: it may call the tool interface, Close its own subscription included, and
// may run beside the program's own MPI calls, so it must not make other MPI calls.
// The event it gets is its to keep.
func (t *Tools) Subscribe(e *EventType, obj any, fn func(*ToolEvent)) (_ *EventSubscription, err error) {
	defer framed(&err)
	const op = "Tools.Subscribe"
	if e == nil || fn == nil {
		return nil, mpir.ToolErrorf(mpir.ToolErrInvalid, op, "the event type or the function is nil")
	}
	dev, err := toolObject(op, obj)
	if err != nil {
		return nil, err
	}
	r, err := mpir.Tools.Register(op, e.e, dev)
	if err != nil {
		return nil, err
	}
	err = r.SetCallback(op, mpir.SafetyMPIRestricted, func(in *mpir.EventInstance, _ *mpir.EventRegistration, s mpir.CallbackSafety) {
		fn(&ToolEvent{Type: e, Time: in.Time, Data: append([]int64(nil), in.Data...), Safety: s})
	})
	if err != nil {
		r.Free(op, nil)
		return nil, err
	}
	return &EventSubscription{r}, nil
}

// OnDropped has fn told how many events the subscription missed (the engine's log
// was full), before its next event (MPI_T_event_set_dropped_handler).
func (s *EventSubscription) OnDropped(fn func(n int64)) (err error) {
	defer framed(&err)
	var cb mpir.EventDroppedCallback
	if fn != nil {
		cb = func(n int64, _ *mpir.EventRegistration, _ int, _ mpir.CallbackSafety) { fn(n) }
	}
	return s.reg().SetDropped("EventSubscription.OnDropped", cb)
}

// SetInfo gives the subscription hints (MPI_T_event_handle_set_info and
// MPI_T_event_callback_set_info): mpigo's events take none, so every hint is ignored,
// as the standard lets an implementation do (Info shows what was kept: nothing).
func (s *EventSubscription) SetInfo(info *Info) (err error) {
	defer framed(&err)
	return s.reg().Check("EventSubscription.SetInfo")
}

// Info returns the hints in force (MPI_T_event_handle_get_info and
// MPI_T_event_callback_get_info): a new Info, with none.
func (s *EventSubscription) Info() (_ *Info, err error) {
	defer framed(&err)
	if err := s.reg().Check("EventSubscription.Info"); err != nil {
		return nil, err
	}
	return wrapInfo(mpir.NewInfo()), nil
}

// Close ends the subscription (MPI_T_event_handle_free): its function is not called
// once Close returns, but for a call under way, which finishes.
func (s *EventSubscription) Close() error {
	return toolErr(s.reg().Free("EventSubscription.Close", nil))
}

// reg is s's registration in mpir: nil for a nil s, which mpir's calls refuse with
// MPI_T_ERR_INVALID_HANDLE.
func (s *EventSubscription) reg() *mpir.EventRegistration {
	if s == nil {
		return nil
	}
	return s.r
}
