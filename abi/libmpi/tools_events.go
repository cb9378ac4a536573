package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
// extern void call_event_cb(uintptr_t fn, uintptr_t inst, uintptr_t reg, int safety, void *ud);
// extern void call_free_cb(uintptr_t fn, uintptr_t reg, int safety, void *ud);
// extern void call_dropped_cb(uintptr_t fn, MPI_Count count, uintptr_t reg, int source, int safety, void *ud);
import "C"

import (
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

// Events: a registration made in C holds its C callback and user data per safety
// level (the dropped handler is called with the user data of the callback whose level
// it runs at), and an event instance is a handle valid while its callback runs.

// creg is a C event registration.
type creg struct {
	r *mpir.EventRegistration
	h uintptr

	mu sync.Mutex
	fn [4]uintptr
	ud [4]unsafe.Pointer
}

// safetyIndex is s's place among the four levels.
func safetyIndex(s mpir.CallbackSafety) int {
	switch s {
	case mpir.SafetyNone:
		return 0
	case mpir.SafetyMPIRestricted:
		return 1
	case mpir.SafetyThreadSafe:
		return 2
	}
	return 3
}

//export PMPI_T_source_get_num
func PMPI_T_source_get_num(num unsafe.Pointer) int32 {
	r, c := registry("MPI_T_source_get_num")
	if c == 0 {
		setInt(num, len(r.Sources))
	}
	return c
}

// newEmptyInfo gives the program a new info with no hints in *p (if p is not NULL):
// every hint a program gives the interface is ignored, and none has a default.
func newEmptyInfo(p unsafe.Pointer) {
	if p != nil {
		setHandle(p, newInfoHandle(mpir.NewInfo()))
	}
}

// sourceOf is the event source of index, or the code that says why not.
func sourceOf(op string, index int32) (*mpir.EventSource, int32) {
	r, c := registry(op)
	if c != 0 {
		return nil, c
	}
	s, err := r.Source(op, int(index))
	return s, code(err)
}

//export PMPI_T_source_get_info
func PMPI_T_source_get_info(index int32, name, nameLen, desc, descLen, ordering, ticks, maxTicks, info unsafe.Pointer) int32 {
	s, c := sourceOf("MPI_T_source_get_info", index)
	if c != 0 {
		return c
	}
	putToolString(name, nameLen, s.Name)
	putToolString(desc, descLen, s.Desc)
	setInt(ordering, int(s.Order))
	if ticks != nil {
		*(*int64)(ticks) = s.TicksPerSecond
	}
	if maxTicks != nil {
		*(*int64)(maxTicks) = s.MaxTicks
	}
	newEmptyInfo(info)
	return 0
}

//export PMPI_T_source_get_timestamp
func PMPI_T_source_get_timestamp(index int32, ts unsafe.Pointer) int32 {
	const op = "MPI_T_source_get_timestamp"
	s, c := sourceOf(op, index)
	if c != 0 {
		return c
	}
	t, err := s.Timestamp(op)
	if err == nil && ts != nil {
		*(*int64)(ts) = t
	}
	return code(err)
}

//export PMPI_T_event_get_num
func PMPI_T_event_get_num(num unsafe.Pointer) int32 {
	r, c := registry("MPI_T_event_get_num")
	if c == 0 {
		setInt(num, len(r.Events))
	}
	return c
}

//export PMPI_T_event_get_info
func PMPI_T_event_get_info(index int32, name, nameLen, verbosity, types, displs, num, enumtype, info, desc, descLen, bind unsafe.Pointer) int32 {
	const op = "MPI_T_event_get_info"
	r, c := registry(op)
	if c != 0 {
		return c
	}
	e, err := r.Event(op, int(index))
	if err != nil {
		return code(err)
	}
	putToolString(name, nameLen, e.Name)
	setInt(verbosity, int(e.Verbosity))
	if num != nil {
		n := min(int(*(*int32)(num)), len(e.Elements))
		for i := 0; i < n; i++ {
			if types != nil {
				*(*uintptr)(unsafe.Add(types, i*int(unsafe.Sizeof(uintptr(0))))) = toolDatatype(e.Elements[i])
			}
			if displs != nil {
				*(*int64)(unsafe.Add(displs, i*8)) = int64(e.Displacements()[i])
			}
		}
		setInt(num, len(e.Elements))
	}
	setHandle(enumtype, enumHandle(r, e.Enum))
	newEmptyInfo(info)
	putToolString(desc, descLen, e.Desc)
	setInt(bind, int(e.Bind))
	return 0
}

//export PMPI_T_event_get_index
func PMPI_T_event_get_index(name, index unsafe.Pointer) int32 {
	const op = "MPI_T_event_get_index"
	return getIndex(op, name, index, func(r *mpir.ToolRegistry, n string) (int, error) { return r.EventIndex(op, n) })
}

// toolInfo checks an info argument of the interface: MPI_INFO_NULL or an info.
func toolInfo(op string, h uintptr) int32 {
	if _, err := infoArg(op, h); err != nil {
		return toolErr(mpir.ToolErrInvalid, op, "info: %v", err)
	}
	return 0
}

//export PMPI_T_event_handle_alloc
func PMPI_T_event_handle_alloc(index int32, obj unsafe.Pointer, info uintptr, reg unsafe.Pointer) int32 {
	const op = "MPI_T_event_handle_alloc"
	r, c := registry(op)
	if c != 0 {
		return c
	}
	e, err := r.Event(op, int(index))
	if err != nil {
		return code(err)
	}
	if c := toolInfo(op, info); c != 0 {
		return c
	}
	if reg == nil {
		return toolErr(mpir.ToolErrInvalid, op, "event_registration is NULL")
	}
	o, c := toolObject(op, e.Bind, obj)
	if c != 0 {
		return c
	}
	er, err := mpir.Tools.Register(op, e, o)
	if err != nil {
		return code(err)
	}
	cr := &creg{r: er}
	h, ok := toolAdd(&tools.events, tEvent, cr)
	if !ok {
		er.Free(op, nil)
		return toolErr(mpir.ToolErrOutOfHandles, op, "every event registration handle is used up")
	}
	cr.h = h
	setHandle(reg, h)
	return 0
}

func cregOf(op string, h uintptr) (*creg, int32) {
	return toolLookup(op, &tools.events, h, mpir.ToolErrInvalidHandle, "event registration")
}

//export PMPI_T_event_handle_set_info
func PMPI_T_event_handle_set_info(reg, info uintptr) int32 {
	const op = "MPI_T_event_handle_set_info"
	cr, c := cregOf(op, reg)
	if c != 0 {
		return c
	}
	if c := toolInfo(op, info); c != 0 {
		return c
	}
	return code(cr.r.Check(op))
}

//export PMPI_T_event_handle_get_info
func PMPI_T_event_handle_get_info(reg uintptr, info unsafe.Pointer) int32 {
	const op = "MPI_T_event_handle_get_info"
	cr, c := cregOf(op, reg)
	if c != 0 {
		return c
	}
	if info == nil {
		return toolErr(mpir.ToolErrInvalid, op, "info_used is NULL")
	}
	if err := cr.r.Check(op); err != nil {
		return code(err)
	}
	newEmptyInfo(info)
	return 0
}

//export PMPI_T_event_register_callback
func PMPI_T_event_register_callback(reg uintptr, safety int32, info uintptr, ud unsafe.Pointer, fn uintptr) int32 {
	const op = "MPI_T_event_register_callback"
	cr, c := cregOf(op, reg)
	if c != 0 {
		return c
	}
	if c := toolInfo(op, info); c != 0 {
		return c
	}
	s := mpir.CallbackSafety(safety)
	if err := mpir.CheckSafety(op, s); err != nil {
		return code(err)
	}
	var cb mpir.EventCallback
	if fn != 0 {
		cb = func(in *mpir.EventInstance, _ *mpir.EventRegistration, at mpir.CallbackSafety) {
			ih, _ := toolAdd(&tools.inst, tInstance, in)
			C.call_event_cb(C.uintptr_t(fn), C.uintptr_t(ih), C.uintptr_t(cr.h), C.int(at), ud)
			toolDel(&tools.inst, ih)
		}
	}
	if err := cr.r.SetCallback(op, s, cb); err != nil {
		return code(err)
	}
	cr.mu.Lock()
	cr.fn[safetyIndex(s)], cr.ud[safetyIndex(s)] = fn, ud
	cr.mu.Unlock()
	return 0
}

//export PMPI_T_event_callback_set_info
func PMPI_T_event_callback_set_info(reg uintptr, safety int32, info uintptr) int32 {
	const op = "MPI_T_event_callback_set_info"
	cr, c := cregOf(op, reg)
	if c != 0 {
		return c
	}
	if c := toolInfo(op, info); c != 0 {
		return c
	}
	if err := mpir.CheckSafety(op, mpir.CallbackSafety(safety)); err != nil {
		return code(err)
	}
	return code(cr.r.Check(op))
}

//export PMPI_T_event_callback_get_info
func PMPI_T_event_callback_get_info(reg uintptr, safety int32, info unsafe.Pointer) int32 {
	const op = "MPI_T_event_callback_get_info"
	cr, c := cregOf(op, reg)
	if c != 0 {
		return c
	}
	if err := mpir.CheckSafety(op, mpir.CallbackSafety(safety)); err != nil {
		return code(err)
	}
	if info == nil {
		return toolErr(mpir.ToolErrInvalid, op, "info_used is NULL")
	}
	if err := cr.r.Check(op); err != nil {
		return code(err)
	}
	newEmptyInfo(info)
	return 0
}

//export PMPI_T_event_set_dropped_handler
func PMPI_T_event_set_dropped_handler(reg, fn uintptr) int32 {
	const op = "MPI_T_event_set_dropped_handler"
	cr, c := cregOf(op, reg)
	if c != 0 {
		return c
	}
	var cb mpir.EventDroppedCallback
	if fn != 0 {
		cb = func(n int64, _ *mpir.EventRegistration, source int, at mpir.CallbackSafety) {
			cr.mu.Lock()
			ud := cr.ud[safetyIndex(at)]
			cr.mu.Unlock()
			C.call_dropped_cb(C.uintptr_t(fn), C.MPI_Count(n), C.uintptr_t(cr.h), C.int(source), C.int(at), ud)
		}
	}
	return code(cr.r.SetDropped(op, cb))
}

//export PMPI_T_event_handle_free
func PMPI_T_event_handle_free(reg uintptr, ud unsafe.Pointer, fn uintptr) int32 {
	const op = "MPI_T_event_handle_free"
	cr, c := cregOf(op, reg)
	if c != 0 {
		return c
	}
	var cb mpir.EventFreeCallback
	if fn != 0 {
		cb = func(_ *mpir.EventRegistration, at mpir.CallbackSafety) {
			C.call_free_cb(C.uintptr_t(fn), C.uintptr_t(cr.h), C.int(at), ud)
		}
	}
	toolDel(&tools.events, reg)
	return code(cr.r.Free(op, cb))
}

// instanceOf is the event instance of handle h, valid inside its callback.
func instanceOf(op string, h uintptr) (*mpir.EventInstance, int32) {
	if in, ok := toolGet(&tools.inst, h); ok && in.Valid() {
		return in, 0
	}
	return nil, toolErr(mpir.ToolErrInvalidHandle, op, "event_instance %#x is no event instance: one is valid only inside the callback it is passed to", h)
}

//export PMPI_T_event_read
func PMPI_T_event_read(inst uintptr, element int32, buf unsafe.Pointer) int32 {
	const op = "MPI_T_event_read"
	in, c := instanceOf(op, inst)
	if c != 0 {
		return c
	}
	v, err := in.Read(op, int(element))
	if err != nil {
		return code(err)
	}
	if buf == nil {
		return toolErr(mpir.ToolErrInvalid, op, "buffer is NULL")
	}
	putValue(buf, in.Event.Elements[element], 1, v)
	return 0
}

//export PMPI_T_event_copy
func PMPI_T_event_copy(inst uintptr, buf unsafe.Pointer) int32 {
	const op = "MPI_T_event_copy"
	in, c := instanceOf(op, inst)
	if c != 0 {
		return c
	}
	if buf == nil {
		return toolErr(mpir.ToolErrInvalid, op, "buffer is NULL")
	}
	for i, t := range in.Event.Elements {
		putValue(unsafe.Add(buf, in.Event.Displacements()[i]), t, 1, mpir.ToolValue{Int: in.Data[i]})
	}
	return 0
}

// instanceOut is the instance of handle h and the out argument p (named name) of a
// call that reads one, or the code that says why not.
func instanceOut(op string, h uintptr, p unsafe.Pointer, name string) (*mpir.EventInstance, int32) {
	in, c := instanceOf(op, h)
	if c == 0 && p == nil {
		c = toolErr(mpir.ToolErrInvalid, op, "%s is NULL", name)
	}
	return in, c
}

//export PMPI_T_event_get_timestamp
func PMPI_T_event_get_timestamp(inst uintptr, ts unsafe.Pointer) int32 {
	in, c := instanceOut("MPI_T_event_get_timestamp", inst, ts, "event_timestamp")
	if c == 0 {
		*(*int64)(ts) = in.Time
	}
	return c
}

//export PMPI_T_event_get_source
func PMPI_T_event_get_source(inst uintptr, source unsafe.Pointer) int32 {
	in, c := instanceOut("MPI_T_event_get_source", inst, source, "source_index")
	if c == 0 {
		setInt(source, in.Source)
	}
	return c
}
