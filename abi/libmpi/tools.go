package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"

enum {
	mpigo_T_INT = (intptr_t)MPI_INT,
	mpigo_T_COUNT = (intptr_t)MPI_COUNT,
	mpigo_T_UNSIGNED_LONG_LONG = (intptr_t)MPI_UNSIGNED_LONG_LONG,
	mpigo_T_DOUBLE = (intptr_t)MPI_DOUBLE,
	mpigo_T_CHAR = (intptr_t)MPI_CHAR,
	mpigo_T_ALL_HANDLES = (intptr_t)MPI_T_PVAR_ALL_HANDLES,
};

*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

// The tool information interface (MPI 4.1 chapter 15) is internal/mpir's (and
// internal/mpit's): this file turns C handles into its objects and C buffers into
// values, and C callbacks into Go functions that call them through trampolines.
// Every procedure returns its MPI_T return code as it is: MPI_T errors never reach an
// error handler, nor the ring of error codes.
//
// The interface's handles are pointers in C with no integer conversion, so they are
// not the tables' handles of handle.go: each kind numbers its objects from a base of
// its own above every value a program could mistake for one (MPI_T_PVAR_ALL_HANDLES
// is 1), and never reuses a number, so a freed handle names nothing. The objects of an
// initialisation of the interface go with its last MPI_T_finalize.

// toolKind is the kind of a tool interface handle.
type toolKind uintptr

const (
	tCVar toolKind = iota + 1
	tSession
	tPVar
	tEvent
	tInstance
	tEnum
)

// toolBase is the least handle of any kind; a kind's handles lie in [base(k),
// base(k+1)).
const toolBase uintptr = 1 << 40

func (k toolKind) base() uintptr { return toolBase + uintptr(k)<<32 }

// tools holds the C face's objects of the interface.
var tools struct {
	sync.Mutex
	next     [tEnum + 1]uintptr
	cvars    map[uintptr]*mpir.CVarHandle
	sessions map[uintptr]*mpir.PVarSession
	pvars    map[uintptr]*mpir.PVarHandle
	events   map[uintptr]*creg
	inst     map[uintptr]*mpir.EventInstance
}

// toolAdd names o with a new handle of kind k in m.
func toolAdd[T any](m *map[uintptr]T, k toolKind, o T) (uintptr, bool) {
	tools.Lock()
	defer tools.Unlock()
	if *m == nil {
		*m = map[uintptr]T{}
	}
	if tools.next[k] == 1<<32-1 {
		return 0, false // 4 billion of a kind made in one process
	}
	tools.next[k]++
	h := k.base() + tools.next[k]
	(*m)[h] = o
	return h, true
}

// toolGet is the object of handle h in *m, if any.
func toolGet[T any](m *map[uintptr]T, h uintptr) (T, bool) {
	tools.Lock()
	defer tools.Unlock()
	o, ok := (*m)[h]
	return o, ok
}

// toolLookup is the object of handle h in *m for op, or the code that says why not: the
// interface not initialised, or else c (the kind's: MPI_T_ERR_INVALID_HANDLE or
// _SESSION) and a message saying that h is no what.
func toolLookup[T any](op string, m *map[uintptr]T, h uintptr, c mpir.ToolCode, what string) (T, int32) {
	if o, ok := toolGet(m, h); ok {
		return o, 0
	}
	var none T
	if _, rc := registry(op); rc != 0 {
		return none, rc
	}
	return none, toolErr(c, op, "%#x is no %s (a null handle, a freed one, or not one at all)", h, what)
}

// toolDel forgets handle h of *m.
func toolDel[T any](m *map[uintptr]T, h uintptr) {
	tools.Lock()
	delete(*m, h)
	tools.Unlock()
}

func code(err error) int32 { return int32(mpir.ToolCodeOf(err)) }

func toolErr(c mpir.ToolCode, op, format string, args ...any) int32 {
	return code(mpir.ToolErrorf(c, op, format, args...))
}

// putToolString writes s by the interface's rule for strings: with lenp NULL nothing;
// with buf NULL or *lenp 0 only the length; else at most *lenp-1 bytes and a NUL. The
// length written back is len(s)+1 (MPI 4.1 §15.3.3).
func putToolString(buf, lenp unsafe.Pointer, s string) {
	if lenp == nil {
		return
	}
	n := *(*int32)(lenp)
	if buf != nil && n > 0 {
		m := min(len(s), int(n)-1)
		b := unsafe.Slice((*byte)(buf), m+1)
		copy(b, s[:m])
		b[m] = 0
	}
	*(*int32)(lenp) = int32(len(s) + 1)
}

// toolDatatype is the C datatype of a tool type.
func toolDatatype(t mpir.ToolType) uintptr {
	switch t {
	case mpir.ToolInt:
		return C.mpigo_T_INT
	case mpir.ToolCount:
		return C.mpigo_T_COUNT
	case mpir.ToolUnsignedLongLong:
		return C.mpigo_T_UNSIGNED_LONG_LONG
	case mpir.ToolDouble:
		return C.mpigo_T_DOUBLE
	}
	return C.mpigo_T_CHAR
}

// putValue writes v, of type t, into the C buffer buf of count elements.
func putValue(buf unsafe.Pointer, t mpir.ToolType, count int, v mpir.ToolValue) {
	switch t {
	case mpir.ToolInt:
		*(*int32)(buf) = int32(v.Int)
	case mpir.ToolCount:
		*(*int64)(buf) = v.Int
	case mpir.ToolUnsignedLongLong:
		*(*uint64)(buf) = v.Uint
	case mpir.ToolDouble:
		*(*float64)(buf) = v.Float
	case mpir.ToolChar:
		putCString(buf, count, v.Str, nil)
	}
}

// getValue reads a value of type t from the C buffer buf of count elements.
func getValue(buf unsafe.Pointer, t mpir.ToolType, count int) mpir.ToolValue {
	switch t {
	case mpir.ToolInt:
		return mpir.ToolValue{Int: int64(*(*int32)(buf))}
	case mpir.ToolCount:
		return mpir.ToolValue{Int: *(*int64)(buf)}
	case mpir.ToolUnsignedLongLong:
		return mpir.ToolValue{Uint: *(*uint64)(buf)}
	case mpir.ToolDouble:
		return mpir.ToolValue{Float: *(*float64)(buf)}
	}
	b := unsafe.Slice((*byte)(buf), count)
	for i, c := range b {
		if c == 0 {
			return mpir.ToolValue{Str: string(b[:i])}
		}
	}
	return mpir.ToolValue{Str: string(b)} // no NUL in count bytes: Write refuses it
}

// registry is the interface's registry, or the code that says why not.
func registry(op string) (*mpir.ToolRegistry, int32) {
	r, err := mpir.Tools.Registry(op)
	return r, code(err)
}

//export PMPI_T_init_thread
func PMPI_T_init_thread(required int32, provided unsafe.Pointer) int32 {
	const op = "MPI_T_init_thread"
	switch required {
	case C.MPI_THREAD_SINGLE, C.MPI_THREAD_FUNNELED, C.MPI_THREAD_SERIALIZED, C.MPI_THREAD_MULTIPLE:
	default:
		return toolErr(mpir.ToolErrInvalid, op, "required = %d is no thread level", required)
	}
	mpir.Tools.Init()
	setInt(provided, C.MPI_THREAD_MULTIPLE)
	return 0
}

//export PMPI_T_finalize
func PMPI_T_finalize() int32 {
	err := mpir.Tools.Finalize("MPI_T_finalize")
	if err == nil && !mpir.Tools.Initialized() {
		// The objects went with the interface: forget their handles.
		tools.Lock()
		tools.cvars, tools.sessions, tools.pvars, tools.events, tools.inst = nil, nil, nil, nil, nil
		tools.Unlock()
	}
	return code(err)
}

// The enumerations' handles are fixed: the registry's index from the kind's base.

func enumHandle(r *mpir.ToolRegistry, e *mpir.ToolEnum) uintptr {
	if e == nil {
		return 0 // MPI_T_ENUM_NULL
	}
	return tEnum.base() + uintptr(r.EnumIndex(e)) + 1
}

func enumOf(op string, h uintptr) (*mpir.ToolEnum, int32) {
	r, c := registry(op)
	if c != 0 {
		return nil, c
	}
	if i := h - tEnum.base() - 1; h > tEnum.base() && i < uintptr(len(r.Enums)) {
		return r.Enums[i], 0
	}
	return nil, toolErr(mpir.ToolErrInvalidIndex, op, "enumtype is no enumeration (MPI_T_cvar_get_info, MPI_T_pvar_get_info give them)")
}

//export PMPI_T_enum_get_info
func PMPI_T_enum_get_info(enumtype uintptr, num, name, nameLen unsafe.Pointer) int32 {
	e, c := enumOf("MPI_T_enum_get_info", enumtype)
	if c != 0 {
		return c
	}
	setInt(num, len(e.Items))
	putToolString(name, nameLen, e.Name)
	return 0
}

//export PMPI_T_enum_get_item
func PMPI_T_enum_get_item(enumtype uintptr, index int32, value, name, nameLen unsafe.Pointer) int32 {
	const op = "MPI_T_enum_get_item"
	e, c := enumOf(op, enumtype)
	if c != 0 {
		return c
	}
	it, err := e.Item(op, int(index))
	if err != nil {
		return code(err)
	}
	setInt(value, it.Value)
	putToolString(name, nameLen, it.Name)
	return 0
}

// Control variables.

//export PMPI_T_cvar_get_num
func PMPI_T_cvar_get_num(num unsafe.Pointer) int32 {
	r, c := registry("MPI_T_cvar_get_num")
	if c == 0 {
		setInt(num, len(r.CVars))
	}
	return c
}

//export PMPI_T_cvar_get_info
func PMPI_T_cvar_get_info(index int32, name, nameLen, verbosity, datatype, enumtype, desc, descLen, bind, scope unsafe.Pointer) int32 {
	const op = "MPI_T_cvar_get_info"
	r, c := registry(op)
	if c != 0 {
		return c
	}
	v, err := r.CVar(op, int(index))
	if err != nil {
		return code(err)
	}
	putToolString(name, nameLen, v.Name)
	setInt(verbosity, int(v.Verbosity))
	setHandle(datatype, toolDatatype(v.Type))
	setHandle(enumtype, enumHandle(r, v.Enum))
	putToolString(desc, descLen, v.Desc)
	setInt(bind, int(v.Bind))
	setInt(scope, int(v.Scope))
	return 0
}

// nameArg reads the C string name, which must not be NULL.
func nameArg(op string, p unsafe.Pointer) (string, int32) {
	if p == nil {
		return "", toolErr(mpir.ToolErrInvalidName, op, "name is NULL")
	}
	return cstr(p), 0
}

// getIndex is the body of the get_index procedures: the index of the C string name,
// by find, into *index.
func getIndex(op string, name, index unsafe.Pointer, find func(r *mpir.ToolRegistry, name string) (int, error)) int32 {
	r, c := registry(op)
	if c != 0 {
		return c
	}
	n, c := nameArg(op, name)
	if c != 0 {
		return c
	}
	i, err := find(r, n)
	if err == nil {
		setInt(index, i)
	}
	return code(err)
}

//export PMPI_T_cvar_get_index
func PMPI_T_cvar_get_index(name, index unsafe.Pointer) int32 {
	const op = "MPI_T_cvar_get_index"
	return getIndex(op, name, index, func(r *mpir.ToolRegistry, n string) (int, error) { return r.CVarIndex(op, n) })
}

// toolObject is the device's object a C obj_handle points to, for a variable or event
// bound to kind b: nil for an object of no kind.
func toolObject(op string, b mpir.ToolBind, obj unsafe.Pointer) (any, int32) {
	switch {
	case b == mpir.BindNoObject:
		return nil, 0
	case obj == nil:
		return nil, toolErr(mpir.ToolErrInvalidHandle, op, "obj_handle is NULL, but the variable or event is bound to %v", b)
	case b == mpir.BindComm:
		h := *(*uintptr)(obj)
		if c := commOf(h); c != nil && c.c != nil {
			return c.c, 0
		}
		return nil, toolErr(mpir.ToolErrInvalidHandle, op, "obj_handle points to %#x, no communicator", h)
	}
	return nil, toolErr(mpir.ToolErrInvalidHandle, op, "no object of kind %v is known", b)
}

//export PMPI_T_cvar_handle_alloc
func PMPI_T_cvar_handle_alloc(index int32, obj, handle, count unsafe.Pointer) int32 {
	const op = "MPI_T_cvar_handle_alloc"
	r, c := registry(op)
	if c != 0 {
		return c
	}
	v, err := r.CVar(op, int(index))
	if err != nil {
		return code(err)
	}
	if handle == nil {
		return toolErr(mpir.ToolErrInvalid, op, "handle is NULL")
	}
	o, c := toolObject(op, v.Bind, obj)
	if c != 0 {
		return c
	}
	h, n, err := mpir.Tools.AllocCVar(op, v, o)
	if err != nil {
		return code(err)
	}
	ch, ok := toolAdd(&tools.cvars, tCVar, h)
	if !ok {
		return toolErr(mpir.ToolErrOutOfHandles, op, "every control variable handle is used up")
	}
	setHandle(handle, ch)
	setInt(count, n)
	return 0
}

func cvarOf(op string, h uintptr) (*mpir.CVarHandle, int32) {
	return toolLookup(op, &tools.cvars, h, mpir.ToolErrInvalidHandle, "control variable handle")
}

//export PMPI_T_cvar_handle_free
func PMPI_T_cvar_handle_free(handle unsafe.Pointer) int32 {
	return freeHandle("MPI_T_cvar_handle_free", "handle", handle, cvarOf, &tools.cvars)
}

// freeHandle is the body of the procedures that free a handle of *m: the one at p
// (the argument arg) is looked up, freed, forgotten and set to its null (0).
func freeHandle[T interface{ Free(op string) error }](op, arg string, p unsafe.Pointer, lookup func(string, uintptr) (T, int32), m *map[uintptr]T) int32 {
	if p == nil {
		return toolErr(mpir.ToolErrInvalid, op, "%s is NULL", arg)
	}
	h := *(*uintptr)(p)
	o, c := lookup(op, h)
	if c != 0 {
		return c
	}
	if err := o.Free(op); err != nil {
		return code(err)
	}
	toolDel(m, h)
	setHandle(p, 0)
	return 0
}

//export PMPI_T_cvar_read
func PMPI_T_cvar_read(handle uintptr, buf unsafe.Pointer) int32 {
	const op = "MPI_T_cvar_read"
	h, c := cvarOf(op, handle)
	if c != 0 {
		return c
	}
	if buf == nil {
		return toolErr(mpir.ToolErrInvalid, op, "buf is NULL")
	}
	v, err := h.Read(op)
	if err != nil {
		return code(err)
	}
	putValue(buf, h.Var().Type, h.Var().Count, v)
	return 0
}

//export PMPI_T_cvar_write
func PMPI_T_cvar_write(handle uintptr, buf unsafe.Pointer) int32 {
	const op = "MPI_T_cvar_write"
	h, c := cvarOf(op, handle)
	if c != 0 {
		return c
	}
	if buf == nil {
		return toolErr(mpir.ToolErrInvalid, op, "buf is NULL")
	}
	return code(h.Write(op, getValue(buf, h.Var().Type, h.Var().Count)))
}

// Performance variables.

//export PMPI_T_pvar_get_num
func PMPI_T_pvar_get_num(num unsafe.Pointer) int32 {
	r, c := registry("MPI_T_pvar_get_num")
	if c == 0 {
		setInt(num, len(r.PVars))
	}
	return c
}

//export PMPI_T_pvar_get_info
func PMPI_T_pvar_get_info(index int32, name, nameLen, verbosity, varClass, datatype, enumtype, desc, descLen, bind, readonly, continuous, atomic unsafe.Pointer) int32 {
	const op = "MPI_T_pvar_get_info"
	r, c := registry(op)
	if c != 0 {
		return c
	}
	v, err := r.PVar(op, int(index))
	if err != nil {
		return code(err)
	}
	putToolString(name, nameLen, v.Name)
	setInt(verbosity, int(v.Verbosity))
	setInt(varClass, int(v.Class))
	setHandle(datatype, toolDatatype(v.Type))
	setHandle(enumtype, enumHandle(r, v.Enum))
	putToolString(desc, descLen, v.Desc)
	setInt(bind, int(v.Bind))
	setBool(readonly, v.Readonly)
	setBool(continuous, v.Continuous)
	setBool(atomic, v.Atomic)
	return 0
}

//export PMPI_T_pvar_get_index
func PMPI_T_pvar_get_index(name unsafe.Pointer, varClass int32, index unsafe.Pointer) int32 {
	const op = "MPI_T_pvar_get_index"
	return getIndex(op, name, index, func(r *mpir.ToolRegistry, n string) (int, error) {
		return r.PVarIndex(op, n, mpir.PVarClass(varClass))
	})
}

//export PMPI_T_pvar_session_create
func PMPI_T_pvar_session_create(session unsafe.Pointer) int32 {
	const op = "MPI_T_pvar_session_create"
	if session == nil {
		return toolErr(mpir.ToolErrInvalid, op, "session is NULL")
	}
	s, err := mpir.Tools.NewSession(op)
	if err != nil {
		return code(err)
	}
	h, ok := toolAdd(&tools.sessions, tSession, s)
	if !ok {
		s.Free(op)
		return toolErr(mpir.ToolErrOutOfSessions, op, "every session handle is used up")
	}
	setHandle(session, h)
	return 0
}

func sessionOf(op string, h uintptr) (*mpir.PVarSession, int32) {
	return toolLookup(op, &tools.sessions, h, mpir.ToolErrInvalidSession, "performance experiment session")
}

//export PMPI_T_pvar_session_free
func PMPI_T_pvar_session_free(session unsafe.Pointer) int32 {
	return freeHandle("MPI_T_pvar_session_free", "session", session, sessionOf, &tools.sessions)
}

//export PMPI_T_pvar_handle_alloc
func PMPI_T_pvar_handle_alloc(session uintptr, index int32, obj, handle, count unsafe.Pointer) int32 {
	const op = "MPI_T_pvar_handle_alloc"
	s, c := sessionOf(op, session)
	if c != 0 {
		return c
	}
	r, c := registry(op)
	if c != 0 {
		return c
	}
	v, err := r.PVar(op, int(index))
	if err != nil {
		return code(err)
	}
	if handle == nil {
		return toolErr(mpir.ToolErrInvalid, op, "handle is NULL")
	}
	o, c := toolObject(op, v.Bind, obj)
	if c != 0 {
		return c
	}
	h, n, err := s.Alloc(op, v, o)
	if err != nil {
		return code(err)
	}
	ph, ok := toolAdd(&tools.pvars, tPVar, h)
	if !ok {
		s.FreeHandle(op, h)
		return toolErr(mpir.ToolErrOutOfHandles, op, "every performance variable handle is used up")
	}
	setHandle(handle, ph)
	setInt(count, n)
	return 0
}

// pvarOf is the session and handle of a call on a performance variable: nil for
// MPI_T_PVAR_ALL_HANDLES where all says the call takes it.
func pvarOf(op string, session, handle uintptr, all bool) (*mpir.PVarSession, *mpir.PVarHandle, int32) {
	s, c := sessionOf(op, session)
	if c != 0 {
		return nil, nil, c
	}
	if handle == C.mpigo_T_ALL_HANDLES {
		if !all {
			return nil, nil, toolErr(mpir.ToolErrInvalidHandle, op, "handle is MPI_T_PVAR_ALL_HANDLES, which this call does not take")
		}
		return s, nil, 0
	}
	h, c := toolLookup(op, &tools.pvars, handle, mpir.ToolErrInvalidHandle, "performance variable handle")
	return s, h, c
}

//export PMPI_T_pvar_handle_free
func PMPI_T_pvar_handle_free(session uintptr, handle unsafe.Pointer) int32 {
	const op = "MPI_T_pvar_handle_free"
	if handle == nil {
		return toolErr(mpir.ToolErrInvalid, op, "handle is NULL")
	}
	ph := *(*uintptr)(handle)
	s, h, c := pvarOf(op, session, ph, false)
	if c != 0 {
		return c
	}
	if err := s.FreeHandle(op, h); err != nil {
		return code(err)
	}
	toolDel(&tools.pvars, ph)
	setHandle(handle, 0)
	return 0
}

//export PMPI_T_pvar_start
func PMPI_T_pvar_start(session, handle uintptr) int32 {
	const op = "MPI_T_pvar_start"
	s, h, c := pvarOf(op, session, handle, true)
	if c != 0 {
		return c
	}
	return code(s.Start(op, h))
}

//export PMPI_T_pvar_stop
func PMPI_T_pvar_stop(session, handle uintptr) int32 {
	const op = "MPI_T_pvar_stop"
	s, h, c := pvarOf(op, session, handle, true)
	if c != 0 {
		return c
	}
	return code(s.Stop(op, h))
}

//export PMPI_T_pvar_reset
func PMPI_T_pvar_reset(session, handle uintptr) int32 {
	const op = "MPI_T_pvar_reset"
	s, h, c := pvarOf(op, session, handle, true)
	if c != 0 {
		return c
	}
	return code(s.Reset(op, h))
}

//export PMPI_T_pvar_read
func PMPI_T_pvar_read(session, handle uintptr, buf unsafe.Pointer) int32 {
	return pvarRead("MPI_T_pvar_read", session, handle, buf, false)
}

//export PMPI_T_pvar_readreset
func PMPI_T_pvar_readreset(session, handle uintptr, buf unsafe.Pointer) int32 {
	return pvarRead("MPI_T_pvar_readreset", session, handle, buf, true)
}

func pvarRead(op string, session, handle uintptr, buf unsafe.Pointer, reset bool) int32 {
	s, h, c := pvarOf(op, session, handle, false)
	if c != 0 {
		return c
	}
	if buf == nil {
		return toolErr(mpir.ToolErrInvalid, op, "buf is NULL")
	}
	read := s.Read
	if reset {
		read = s.ReadReset
	}
	v, err := read(op, h)
	if err != nil {
		return code(err)
	}
	putValue(buf, h.Var().Type, 1, v)
	return 0
}

//export PMPI_T_pvar_write
func PMPI_T_pvar_write(session, handle uintptr, buf unsafe.Pointer) int32 {
	const op = "MPI_T_pvar_write"
	s, h, c := pvarOf(op, session, handle, false)
	if c != 0 {
		return c
	}
	if buf == nil {
		return toolErr(mpir.ToolErrInvalid, op, "buf is NULL")
	}
	return code(s.Write(op, h, getValue(buf, h.Var().Type, 1)))
}

// Categories.

//export PMPI_T_category_get_num
func PMPI_T_category_get_num(num unsafe.Pointer) int32 {
	r, c := registry("MPI_T_category_get_num")
	if c == 0 {
		setInt(num, len(r.Categories))
	}
	return c
}

func categoryOf(op string, index int32) (*mpir.ToolCategory, int32) {
	r, c := registry(op)
	if c != 0 {
		return nil, c
	}
	k, err := r.Category(op, int(index))
	return k, code(err)
}

//export PMPI_T_category_get_info
func PMPI_T_category_get_info(index int32, name, nameLen, desc, descLen, numCVars, numPVars, numCategories unsafe.Pointer) int32 {
	k, c := categoryOf("MPI_T_category_get_info", index)
	if c != 0 {
		return c
	}
	putToolString(name, nameLen, k.Name)
	putToolString(desc, descLen, k.Desc)
	setInt(numCVars, len(k.CVars))
	setInt(numPVars, len(k.PVars))
	setInt(numCategories, len(k.Categories))
	return 0
}

//export PMPI_T_category_get_num_events
func PMPI_T_category_get_num_events(index int32, num unsafe.Pointer) int32 {
	k, c := categoryOf("MPI_T_category_get_num_events", index)
	if c == 0 {
		setInt(num, len(k.Events))
	}
	return c
}

//export PMPI_T_category_get_index
func PMPI_T_category_get_index(name, index unsafe.Pointer) int32 {
	const op = "MPI_T_category_get_index"
	return getIndex(op, name, index, func(r *mpir.ToolRegistry, n string) (int, error) { return r.CategoryIndex(op, n) })
}

// members writes up to n of the members pick gives of category index into the C array
// p: the body of the category_get_* procedures.
func members(op string, index, n int32, p unsafe.Pointer, pick func(*mpir.ToolCategory) []int) int32 {
	k, c := categoryOf(op, index)
	if c != 0 {
		return c
	}
	if n < 0 {
		return toolErr(mpir.ToolErrInvalid, op, "len = %d is negative", n)
	}
	if n > 0 && p == nil {
		return toolErr(mpir.ToolErrInvalid, op, "indices is NULL")
	}
	ix, out := pick(k), ints(p, int(n))
	for i := range min(len(out), len(ix)) {
		out[i] = int32(ix[i])
	}
	return 0
}

//export PMPI_T_category_get_cvars
func PMPI_T_category_get_cvars(index, n int32, indices unsafe.Pointer) int32 {
	return members("MPI_T_category_get_cvars", index, n, indices, func(k *mpir.ToolCategory) []int { return k.CVars })
}

//export PMPI_T_category_get_pvars
func PMPI_T_category_get_pvars(index, n int32, indices unsafe.Pointer) int32 {
	return members("MPI_T_category_get_pvars", index, n, indices, func(k *mpir.ToolCategory) []int { return k.PVars })
}

//export PMPI_T_category_get_events
func PMPI_T_category_get_events(index, n int32, indices unsafe.Pointer) int32 {
	return members("MPI_T_category_get_events", index, n, indices, func(k *mpir.ToolCategory) []int { return k.Events })
}

//export PMPI_T_category_get_categories
func PMPI_T_category_get_categories(index, n int32, indices unsafe.Pointer) int32 {
	return members("MPI_T_category_get_categories", index, n, indices, func(k *mpir.ToolCategory) []int { return k.Categories })
}

// PMPI_T_category_changed gives 0: mpigo's categories never change.
//
//export PMPI_T_category_changed
func PMPI_T_category_changed(update unsafe.Pointer) int32 {
	const op = "MPI_T_category_changed"
	if _, c := registry(op); c != 0 {
		return c
	}
	if update == nil {
		return toolErr(mpir.ToolErrInvalid, op, "update_number is NULL")
	}
	setInt(update, 0)
	return 0
}
