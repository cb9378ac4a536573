package mpir

import (
	"errors"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpit"
)

// The tool information interface (MPI 4.1 chapter 15, MPI_T) is internal/mpit's; this
// file and tool_*.go fill its registry with mpigo's settings (tool_cvars.go), the
// device's counts (tool_pvars.go) and events (tool_events.go), and give the faces the
// names they use. Both faces call Tools: one interface per process, whichever face
// initialised it, with one reference count.

// Tools is the process's tool information interface.
var Tools *mpit.Interface

// The registry's build refers to Tools (the event pump delivers to it), so Tools is
// made here rather than where it is declared.
func init() { Tools = mpit.New(buildTools) }

// The interface's types, for the faces.
type (
	ToolError            = mpit.Error
	ToolCode             = mpit.Code
	ToolRegistry         = mpit.Registry
	ToolValue            = mpit.Value
	ToolType             = mpit.Type
	ToolEnum             = mpit.Enum
	ToolEnumItem         = mpit.EnumItem
	ToolCategory         = mpit.Category
	ToolVerbosity        = mpit.Verbosity
	ToolBind             = mpit.Bind
	ToolScope            = mpit.Scope
	CVar                 = mpit.CVar
	CVarHandle           = mpit.CVarHandle
	PVar                 = mpit.PVar
	PVarClass            = mpit.Class
	PVarSession          = mpit.Session
	PVarHandle           = mpit.PVarHandle
	EventType            = mpit.EventType
	EventSource          = mpit.EventSource
	EventRegistration    = mpit.Registration
	EventInstance        = mpit.Instance
	CallbackSafety       = mpit.Safety
	SourceOrder          = mpit.Order
	EventCallback        = mpit.Callback
	EventFreeCallback    = mpit.FreeCallback
	EventDroppedCallback = mpit.DroppedCallback
)

// The types of values.
const (
	ToolInt              = mpit.TypeInt
	ToolCount            = mpit.TypeCount
	ToolUnsignedLongLong = mpit.TypeUnsignedLongLong
	ToolDouble           = mpit.TypeDouble
	ToolChar             = mpit.TypeChar
)

// The return codes.
const (
	ToolErrCannotInit      = mpit.CodeCannotInit
	ToolErrNotAccessible   = mpit.CodeNotAccessible
	ToolErrNotInitialized  = mpit.CodeNotInitialized
	ToolErrNotSupported    = mpit.CodeNotSupported
	ToolErrMemory          = mpit.CodeMemory
	ToolErrInvalid         = mpit.CodeInvalid
	ToolErrInvalidIndex    = mpit.CodeInvalidIndex
	ToolErrInvalidItem     = mpit.CodeInvalidItem
	ToolErrInvalidSession  = mpit.CodeInvalidSession
	ToolErrInvalidHandle   = mpit.CodeInvalidHandle
	ToolErrInvalidName     = mpit.CodeInvalidName
	ToolErrOutOfHandles    = mpit.CodeOutOfHandles
	ToolErrOutOfSessions   = mpit.CodeOutOfSessions
	ToolErrCvarSetNotNow   = mpit.CodeCvarSetNotNow
	ToolErrCvarSetNever    = mpit.CodeCvarSetNever
	ToolErrPvarNoWrite     = mpit.CodePvarNoWrite
	ToolErrPvarNoStartstop = mpit.CodePvarNoStartstop
	ToolErrPvarNoAtomic    = mpit.CodePvarNoAtomic
)

// The verbosity levels, bindings, scopes, classes, safety levels and source orders.
const (
	VerbosityUserBasic    = mpit.VerbosityUserBasic
	VerbosityUserDetail   = mpit.VerbosityUserDetail
	VerbosityUserAll      = mpit.VerbosityUserAll
	VerbosityTunerBasic   = mpit.VerbosityTunerBasic
	VerbosityTunerDetail  = mpit.VerbosityTunerDetail
	VerbosityTunerAll     = mpit.VerbosityTunerAll
	VerbosityMpidevBasic  = mpit.VerbosityMpidevBasic
	VerbosityMpidevDetail = mpit.VerbosityMpidevDetail
	VerbosityMpidevAll    = mpit.VerbosityMpidevAll

	BindNoObject   = mpit.BindNoObject
	BindComm       = mpit.BindComm
	BindDatatype   = mpit.BindDatatype
	BindErrhandler = mpit.BindErrhandler
	BindFile       = mpit.BindFile
	BindGroup      = mpit.BindGroup
	BindOp         = mpit.BindOp
	BindRequest    = mpit.BindRequest
	BindWin        = mpit.BindWin
	BindMessage    = mpit.BindMessage
	BindInfo       = mpit.BindInfo
	BindSession    = mpit.BindSession

	ScopeConstant = mpit.ScopeConstant
	ScopeReadonly = mpit.ScopeReadonly
	ScopeLocal    = mpit.ScopeLocal
	ScopeGroup    = mpit.ScopeGroup
	ScopeGroupEq  = mpit.ScopeGroupEq
	ScopeAll      = mpit.ScopeAll
	ScopeAllEq    = mpit.ScopeAllEq

	ClassState         = mpit.ClassState
	ClassLevel         = mpit.ClassLevel
	ClassSize          = mpit.ClassSize
	ClassPercentage    = mpit.ClassPercentage
	ClassHighwatermark = mpit.ClassHighwatermark
	ClassLowwatermark  = mpit.ClassLowwatermark
	ClassCounter       = mpit.ClassCounter
	ClassAggregate     = mpit.ClassAggregate
	ClassTimer         = mpit.ClassTimer
	ClassGeneric       = mpit.ClassGeneric

	SafetyNone            = mpit.SafetyNone
	SafetyMPIRestricted   = mpit.SafetyMPIRestricted
	SafetyThreadSafe      = mpit.SafetyThreadSafe
	SafetyAsyncSignalSafe = mpit.SafetyAsyncSignalSafe

	SourceOrdered   = mpit.SourceOrdered
	SourceUnordered = mpit.SourceUnordered
)

// ToolCodeOf is err's MPI_T return code (MPI_SUCCESS for nil).
func ToolCodeOf(err error) ToolCode { return mpit.CodeOf(err) }

// ToolFramed is err, an error of the tool interface, framed as every other error of
// the faces (core.Error: "mpi: <call>: ..."), of the class that is its MPI_T return
// code (MPI 4.1 gives the MPI_T_ERR_* codes as error classes), with the interface's
// error as its cause: errors.As still finds it, errors.Is matches its sentinels and
// ToolCodeOf gives the code back. nil and errors already framed pass unchanged.
func ToolFramed(err error) error {
	var te *mpit.Error
	if err == nil || !errors.As(err, &te) {
		return err
	}
	var e *core.Error
	if errors.As(err, &e) {
		return err
	}
	return &core.Error{Class: core.ErrorClass(te.Code), Op: te.Op, Err: err}
}

// ToolErrorf makes an error of the interface with code for the call op.
func ToolErrorf(code ToolCode, op, format string, args ...any) error {
	return mpit.Errorf(code, op, format, args...)
}

// CheckSafety says whether s is a callback safety level.
func CheckSafety(op string, s CallbackSafety) error { return mpit.CheckSafety(op, s) }

// buildTools fills the registry, once, when the interface is first initialised: by
// then every package of mpigo's has declared its settings.
func buildTools(r *mpit.Registry) {
	cvars := addCVars(r)
	pvars := addPVars(r)
	events := addEvents(r)
	addCategories(r, cvars, pvars, events)
}

// objComm is the communicator a variable or event is bound to, for op: an error of
// MPI_T_ERR_INVALID_HANDLE when obj is none.
func objComm(op string, obj any) (*core.Comm, error) {
	c, ok := obj.(*core.Comm)
	if !ok || c == nil {
		return nil, mpit.Errorf(mpit.CodeInvalidHandle, op, "obj_handle is no communicator")
	}
	if err := c.Check(op); err != nil {
		return nil, mpit.Errorf(mpit.CodeInvalidHandle, op, "obj_handle: %v", err)
	}
	return c, nil
}
