package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"
#include <stdlib.h>
#include <string.h>

// The predefined attributes of a window live in C memory: MPI_WIN_BASE's value is the
// base address itself, the others point to an MPI_Aint or an int.
typedef struct { MPI_Aint size; int disp_unit, flavor, model; } winattrs;
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/window"
)

// One-sided communication (MPI 4.1 chapter 12) on the device's windows
// (internal/core/win*.go). MPI_Win_allocate(_shared) hand C a pointer into the
// window's memory, which is node shared memory (a mapped region, never Go's heap):
// where the device would put an allocated window's memory in the Go heap (no shared
// memory transport, or rma_shm=off), the window is made again, collectively, over
// memory from C's malloc, as MPI_Win_create would, and reports the allocate flavour.
// Errors of window calls go to the window's error handler (MPI_ERRORS_ARE_FATAL
// unless set), as MPI 4.1 section 12.6 says.

type win struct {
	w     *window.Win
	errh  mpir.Errh
	mu    sync.Mutex
	attrs mpir.Attrs // attr.go
	name  string
	sess  *mpir.Session  // the owner of its communicator (see grp)
	hints *mpir.Hints    // the info hints in effect
	cmem  unsafe.Pointer // malloc'd memory of an allocated window, freed with it
	pre   *C.winattrs
	base  unsafe.Pointer
	short *shortWin // the copy short.c reads (short.go)
}

var wins = table[win]{kind: kWin}

const hWinNull = 0x110

func winOf(h uintptr) *win { return wins.get(h) }

// failWin is fail for a window's calls: the window's handler.
func failWin(op string, wh uintptr, err error) int32 {
	if err == nil {
		return 0
	}
	return raiseWin(op, wh, err)
}

func raiseWin(op string, wh uintptr, err error) int32 {
	w := winOf(wh)
	if w == nil {
		return raise(op, 0, err)
	}
	ce := cerror(op, err)
	w.errh.Raise(ce.op, wh, w.what, ce)
	return ce.code
}

// what names w in the message of a fatal error.
func (w *win) what() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return "window " + w.name
}

func needWin(op string, h uintptr) (*win, int32) {
	w := winOf(h)
	if w == nil {
		return nil, raise(op, 0, badHandle(op, "win", h, kWin))
	}
	return w, 0
}

var winFlavors = map[window.Flavor]C.int{window.FlavorCreate: C.MPI_WIN_FLAVOR_CREATE, window.FlavorAllocate: C.MPI_WIN_FLAVOR_ALLOCATE,
	window.FlavorDynamic: C.MPI_WIN_FLAVOR_DYNAMIC, window.FlavorShared: C.MPI_WIN_FLAVOR_SHARED}

var winModels = map[int]C.int{mpir.ModelUnified: C.MPI_WIN_UNIFIED, mpir.ModelSeparate: C.MPI_WIN_SEPARATE}

// newWin registers a window the device made and writes its handle. flavor is the one
// the program asked for: an allocated window made again over C memory (winAllocate)
// is still of the allocate flavour. The predefined attributes' values go to C memory.
func newWin(cw *window.Win, c *comm, hints *mpir.Hints, base, cmem unsafe.Pointer, flavor window.Flavor, out unsafe.Pointer) {
	w := &win{w: cw, cmem: cmem, base: base, sess: c.sess, hints: hints}
	w.errh.Init(mpir.ErrorsAreFatal)
	a := mpir.WinAttrsOf(cw)
	a.Flavor = flavor
	w.pre = (*C.winattrs)(C.calloc(1, C.size_t(unsafe.Sizeof(C.winattrs{}))))
	w.pre.size, w.pre.disp_unit = C.MPI_Aint(a.Size), C.int(a.DispUnit)
	w.pre.flavor, w.pre.model = winFlavors[a.Flavor], winModels[a.Model]
	h := wins.add(w)
	newShort(w, h)
	setHandle(out, h)
}

func winArgs(op string, ch uintptr, size, unit int64, out unsafe.Pointer) (*comm, int32) {
	c, r := needComm(op, ch)
	if c == nil {
		return nil, r
	}
	if out == nil {
		return nil, fail(op, ch, errorf(errArg, op, "win is NULL"))
	}
	if size < 0 {
		return nil, fail(op, ch, errorf(core.ClassSize, op, "size %d is negative", size))
	}
	if unit <= 0 || unit > 1<<30 {
		return nil, fail(op, ch, errorf(core.ClassDisp, op, "disp_unit %d must be positive", unit))
	}
	return c, 0
}

func winCreate(base unsafe.Pointer, size, unit int64, info, ch uintptr, out unsafe.Pointer) int32 {
	const op = "Win_create"
	c, r := winArgs(op, ch, size, unit, out)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.WinCreate, c.enterTimed(prof.WinCreate, prof.NoPeer, -1, 0), 0)
	var mem []byte
	if size > 0 {
		if base == nil {
			return fail(op, ch, errorf(errBuffer, op, "base is NULL for %d bytes", size))
		}
		mem = unsafe.Slice((*byte)(base), size)
	}
	hints, err := newWinHints(op, info)
	if err != nil {
		return fail(op, ch, err)
	}
	cw, err := window.Create(c.c, op, window.Args{Flavor: window.FlavorCreate, Size: size, DispUnit: int(unit), Mem: mem})
	if err != nil {
		return fail(op, ch, err)
	}
	newWin(cw, c, hints, base, nil, window.FlavorCreate, out)
	return 0
}

//export PMPI_Win_create
func PMPI_Win_create(base unsafe.Pointer, size int64, unit int32, info, ch uintptr, out unsafe.Pointer) int32 {
	return winCreate(base, size, int64(unit), info, ch, out)
}

//export PMPI_Win_create_c
func PMPI_Win_create_c(base unsafe.Pointer, size, unit int64, info, ch uintptr, out unsafe.Pointer) int32 {
	return winCreate(base, size, unit, info, ch, out)
}

func winAllocate(op string, size, unit int64, info, ch uintptr, baseptr, out unsafe.Pointer, shared bool) int32 {
	c, r := winArgs(op, ch, size, unit, out)
	if c == nil {
		return r
	}
	call := prof.WinAllocate
	if shared {
		call = prof.WinAllocateShared
	}
	defer prof.Exit(call, c.enterTimed(call, prof.NoPeer, -1, 0), 0)
	if baseptr == nil {
		return fail(op, ch, errorf(errArg, op, "baseptr is NULL"))
	}
	hints, err := newWinHints(op, info)
	if err != nil {
		return fail(op, ch, err)
	}
	a := window.Args{Flavor: window.FlavorAllocate, Size: size, DispUnit: int(unit)}
	if shared {
		a.Flavor = window.FlavorShared
	}
	hints.ShapeWin(&a)
	cw, err := window.Create(c.c, op, a)
	if err != nil {
		return fail(op, ch, err)
	}
	var cmem unsafe.Pointer
	if !cw.InRegion() {
		// The device put the memory in the Go heap: C may not hold it. Every rank
		// sees the same, so all make the window again over C memory.
		if err := cw.Free(op); err != nil {
			return fail(op, ch, err)
		}
		cmem = C.calloc(C.size_t(max(size, 1)), 1)
		if cmem == nil {
			return fail(op, ch, errorf(errNoMem, op, "cannot allocate %d bytes", size))
		}
		var mem []byte
		if size > 0 {
			mem = unsafe.Slice((*byte)(cmem), size)
		}
		if cw, err = window.Create(c.c, op, window.Args{Flavor: window.FlavorCreate, Size: size, DispUnit: int(unit), Mem: mem}); err != nil {
			C.free(cmem)
			return fail(op, ch, err)
		}
	}
	var base unsafe.Pointer
	if cmem != nil {
		base = cmem
	} else if m := cw.Mem(); len(m) > 0 {
		base = unsafe.Pointer(unsafe.SliceData(m))
	}
	*(*unsafe.Pointer)(baseptr) = base
	newWin(cw, c, hints, base, cmem, a.Flavor, out)
	return 0
}

//export PMPI_Win_allocate
func PMPI_Win_allocate(size int64, unit int32, info, ch uintptr, baseptr, out unsafe.Pointer) int32 {
	return winAllocate("Win_allocate", size, int64(unit), info, ch, baseptr, out, false)
}

//export PMPI_Win_allocate_c
func PMPI_Win_allocate_c(size, unit int64, info, ch uintptr, baseptr, out unsafe.Pointer) int32 {
	return winAllocate("Win_allocate", size, unit, info, ch, baseptr, out, false)
}

//export PMPI_Win_allocate_shared
func PMPI_Win_allocate_shared(size int64, unit int32, info, ch uintptr, baseptr, out unsafe.Pointer) int32 {
	return winAllocate("Win_allocate_shared", size, int64(unit), info, ch, baseptr, out, true)
}

//export PMPI_Win_allocate_shared_c
func PMPI_Win_allocate_shared_c(size, unit int64, info, ch uintptr, baseptr, out unsafe.Pointer) int32 {
	return winAllocate("Win_allocate_shared", size, unit, info, ch, baseptr, out, true)
}

//export PMPI_Win_create_dynamic
func PMPI_Win_create_dynamic(info, ch uintptr, out unsafe.Pointer) int32 {
	const op = "Win_create_dynamic"
	c, r := winArgs(op, ch, 0, 1, out)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.WinCreateDynamic, c.enterTimed(prof.WinCreateDynamic, prof.NoPeer, -1, 0), 0)
	hints, err := newWinHints(op, info)
	if err != nil {
		return fail(op, ch, err)
	}
	cw, err := window.Create(c.c, op, window.Args{Flavor: window.FlavorDynamic, DispUnit: 1})
	if err != nil {
		return fail(op, ch, err)
	}
	newWin(cw, c, hints, nil, nil, window.FlavorDynamic, out)
	return 0
}

//export PMPI_Win_attach
func PMPI_Win_attach(wh uintptr, base unsafe.Pointer, size int64) int32 {
	const op = "Win_attach"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	if size < 0 || size > 0 && base == nil {
		return failWin(op, wh, errorf(core.ClassSize, op, "base %p and size %d do not name memory", base, size))
	}
	var mem []byte
	if size > 0 {
		mem = unsafe.Slice((*byte)(base), size)
	}
	defer prof.Exit(prof.WinAttach, w.enter(prof.WinAttach, prof.NoPeer, int(size)), int(size))
	_, err := w.w.Attach(op, mem)
	return failWin(op, wh, err)
}

//export PMPI_Win_detach
func PMPI_Win_detach(wh uintptr, base unsafe.Pointer) int32 {
	const op = "Win_detach"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	defer prof.Exit(prof.WinDetach, w.enter(prof.WinDetach, prof.NoPeer, 0), 0)
	// The device finds the attachment by its first byte.
	return failWin(op, wh, w.w.Detach(op, unsafe.Slice((*byte)(base), 1)))
}

//export PMPI_Win_free
func PMPI_Win_free(p unsafe.Pointer) int32 {
	const op = "Win_free"
	if p == nil {
		return raise(op, 0, errorf(errArg, op, "win is NULL"))
	}
	wh := *(*uintptr)(p)
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	defer prof.Exit(prof.WinFree, prof.EnterTimed(prof.WinFree, w.pc(), prof.NoPeer, -2, 0), 0)
	if err := mpir.FreeAttrs(op, &w.attrs, wh); err != nil {
		return failWin(op, wh, err) // the window stays, with the attributes not deleted
	}
	hideShort(wh)
	if err := w.w.Free(op); err != nil {
		w.showShort(wh)
		return failWin(op, wh, err)
	}
	w.freeShort()
	if w.cmem != nil {
		C.free(w.cmem)
	}
	C.free(unsafe.Pointer(w.pre))
	wins.remove(wh)
	setHandle(p, hWinNull)
	return 0
}

//export PMPI_Win_shared_query
func PMPI_Win_shared_query(wh uintptr, rank int32, size, unit, baseptr unsafe.Pointer) int32 {
	var u int64
	r := sharedQuery(wh, rank, size, unsafe.Pointer(&u), baseptr)
	if r == 0 {
		setInt(unit, int(u))
	}
	return r
}

//export PMPI_Win_shared_query_c
func PMPI_Win_shared_query_c(wh uintptr, rank int32, size, unit, baseptr unsafe.Pointer) int32 {
	return sharedQuery(wh, rank, size, unit, baseptr)
}

func sharedQuery(wh uintptr, rank int32, size, unit, baseptr unsafe.Pointer) int32 {
	const op = "Win_shared_query"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	mem, u, err := w.w.SharedQuery(op, rankIn(rank))
	if err != nil {
		return failWin(op, wh, err)
	}
	var base unsafe.Pointer
	if len(mem) > 0 {
		base = unsafe.Pointer(unsafe.SliceData(mem))
	}
	*(*int64)(size) = int64(len(mem))
	*(*int64)(unit) = int64(u)
	*(*unsafe.Pointer)(baseptr) = base
	return 0
}

//export PMPI_Win_get_group
func PMPI_Win_get_group(wh uintptr, out unsafe.Pointer) int32 {
	w, r := needWin("Win_get_group", wh)
	if w == nil {
		return r
	}
	setHandle(out, newGroup(mpir.NewGroup(w.w.Comm().Group(), w.sess)))
	return 0
}

//export PMPI_Win_set_name
func PMPI_Win_set_name(wh uintptr, name unsafe.Pointer) int32 {
	w, r := needWin("Win_set_name", wh)
	if w == nil {
		return r
	}
	w.mu.Lock()
	w.name = cstr(name)
	w.mu.Unlock()
	return 0
}

//export PMPI_Win_get_name
func PMPI_Win_get_name(wh uintptr, name, n unsafe.Pointer) int32 {
	w, r := needWin("Win_get_name", wh)
	if w == nil {
		return r
	}
	w.mu.Lock()
	s := w.name
	w.mu.Unlock()
	putCString(name, C.MPI_MAX_OBJECT_NAME, s, n)
	return 0
}

// newWinHints is the hints of a window op makes with info handle h.
func newWinHints(op string, h uintptr) (*mpir.Hints, error) {
	in, err := infoArg(op, h)
	if err != nil {
		return nil, err
	}
	return mpir.NewWinHints(op, in)
}

//export PMPI_Win_set_info
func PMPI_Win_set_info(wh uintptr, ih uintptr) int32 {
	const op = "Win_set_info"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	in, err := infoArg(op, ih)
	if err != nil {
		return failWin(op, wh, err)
	}
	return failWin(op, wh, w.hints.Set(op, in))
}

//export PMPI_Win_get_info
func PMPI_Win_get_info(wh uintptr, out unsafe.Pointer) int32 {
	const op = "Win_get_info"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	if out == nil {
		return failWin(op, wh, errorf(errArg, op, "info_used is NULL"))
	}
	setHandle(out, newInfoHandle(w.hints.Info()))
	return 0
}

// --- attributes and error handlers ---

//export PMPI_Win_create_keyval
func PMPI_Win_create_keyval(copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	return createKeyval("Win_create_keyval", mpir.AttrWin, copyFn, deleteFn, key, extra)
}

//export PMPI_Win_free_keyval
func PMPI_Win_free_keyval(key unsafe.Pointer) int32 {
	return freeKeyval("Win_free_keyval", mpir.AttrWin, key)
}

//export PMPI_Win_set_attr
func PMPI_Win_set_attr(wh uintptr, key int32, val unsafe.Pointer) int32 {
	const op = "Win_set_attr"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	k, err := keyArg(op, key)
	if err != nil {
		return failWin(op, wh, err)
	}
	return failWin(op, wh, mpir.SetAttr(op, mpir.AttrWin, &w.attrs, wh, k, uintptr(val)))
}

//export PMPI_Win_get_attr
func PMPI_Win_get_attr(wh uintptr, key int32, val, flag unsafe.Pointer) int32 {
	const op = "Win_get_attr"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	if val == nil || flag == nil {
		return failWin(op, wh, errorf(errArg, op, "attribute_val or flag is NULL"))
	}
	k, err := keyArg(op, key)
	if err != nil {
		return failWin(op, wh, err)
	}
	if p, ok := w.predefined(k); ok {
		*(*unsafe.Pointer)(val) = p
		setInt(flag, 1)
		return 0
	}
	v, ok, err := mpir.WinAttr(op, &w.attrs, k, mpir.WinAttrs{})
	if err == nil {
		err = getAttr(op, val, flag, v, ok)
	}
	return failWin(op, wh, err)
}

// predefined is the value of w's predefined attribute k as C takes it: MPI_WIN_BASE's
// is the base address itself, the others point to w.pre; ok is false for a keyval
// that is none.
func (w *win) predefined(k *mpir.Keyval) (unsafe.Pointer, bool) {
	switch k {
	case mpir.KeyWinBase:
		return w.base, true
	case mpir.KeyWinSize:
		return unsafe.Pointer(&w.pre.size), true
	case mpir.KeyWinDispUnit:
		return unsafe.Pointer(&w.pre.disp_unit), true
	case mpir.KeyWinCreateFlavor:
		return unsafe.Pointer(&w.pre.flavor), true
	case mpir.KeyWinModel:
		return unsafe.Pointer(&w.pre.model), true
	}
	return nil, false
}

//export PMPI_Win_delete_attr
func PMPI_Win_delete_attr(wh uintptr, key int32) int32 {
	const op = "Win_delete_attr"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	k, err := keyArg(op, key)
	if err != nil {
		return failWin(op, wh, err)
	}
	return failWin(op, wh, mpir.DeleteAttr(op, mpir.AttrWin, &w.attrs, wh, k))
}

//export PMPI_Win_create_errhandler
func PMPI_Win_create_errhandler(fn, eh unsafe.Pointer) int32 {
	return createErrh("Win_create_errhandler", fn, eh, mpir.KindWin)
}

//export PMPI_Win_set_errhandler
func PMPI_Win_set_errhandler(wh uintptr, eh uintptr) int32 {
	const op = "Win_set_errhandler"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	return failWin(op, wh, setErrh(op, &w.errh, mpir.KindWin, eh))
}

//export PMPI_Win_get_errhandler
func PMPI_Win_get_errhandler(wh uintptr, eh unsafe.Pointer) int32 {
	const op = "Win_get_errhandler"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	return failWin(op, wh, getErrh(op, &w.errh, eh))
}

//export PMPI_Win_call_errhandler
func PMPI_Win_call_errhandler(wh uintptr, code int32) int32 {
	const op = "Win_call_errhandler"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	w.errh.Raise("MPI_"+op, wh, w.what, codeErr(op, code))
	return 0
}

// --- operations ---

// rbuf is an origin or result buffer: count items of dh at p, shifted (as cvec
// does) so that the items start at the slice's start.
func rbuf(op string, p unsafe.Pointer, count int64, dh uintptr) (window.RBuf, error) {
	t, err := typeOf(op, dh)
	if err != nil {
		return window.RBuf{}, err
	}
	if count < 0 {
		return window.RBuf{}, errorf(errCount, op, "count %d is negative", count)
	}
	if t.IsContiguous() && t.LB() == 0 {
		n := count * t.Size()
		if n == 0 {
			return window.RBuf{Count: count, Type: t}, nil
		}
		if p == nil {
			return window.RBuf{}, errorf(errBuffer, op, "buffer is NULL for %d items", count)
		}
		return window.RBuf{Mem: unsafe.Slice((*byte)(p), n), Count: count, Type: t}, nil
	}
	mem, origin, err := span(op, p, count, t)
	if err != nil {
		return window.RBuf{}, err
	}
	if origin != 0 {
		st, err := datatype.Hindexed([]int64{1}, []int64{origin}, t)
		if err == nil {
			err = st.Commit()
		}
		if err != nil {
			return window.RBuf{}, core.TypeErr(op, err)
		}
		t = st
	}
	return window.RBuf{Mem: mem, Count: count, Type: t}, nil
}

func targetOf(op string, rank int32, disp, count int64, dh uintptr) (window.Target, error) {
	t, err := typeOf(op, dh)
	if err != nil {
		return window.Target{}, err
	}
	return window.Target{Rank: rankIn(rank), Disp: disp, Count: count, Type: t}, nil
}

// rmaCall is the common start of an operation: the window, the origin and the target.
func rmaCall(op string, wh uintptr, o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt uintptr) (*win, window.RBuf, window.Target, int32) {
	w, r := needWin(op, wh)
	if w == nil {
		return nil, window.RBuf{}, window.Target{}, r
	}
	ob, err := rbuf(op, o, oc, odt)
	if err != nil {
		return nil, window.RBuf{}, window.Target{}, failWin(op, wh, err)
	}
	t, err := targetOf(op, rank, disp, tc, tdt)
	if err != nil {
		return nil, window.RBuf{}, window.Target{}, failWin(op, wh, err)
	}
	return w, ob, t, 0
}

// rmaReq makes the request of an R operation.
func rmaReq(op string, wh uintptr, p *core.Pending, err error, req unsafe.Pointer) int32 {
	if err != nil {
		return failWin(op, wh, err)
	}
	addPending(p, nil, 0, nil, req)
	return 0
}

// contigBytes is count items of datatype h at p as bytes when the type is committed
// and contiguous from its start and count is positive: what the one-sided calls'
// short ways take, as the Go facade's do. ok false sends the call the long way, which
// also reports every bad argument.
func contigBytes(p unsafe.Pointer, count int64, h uintptr) (b []byte, t *datatype.Type, ok bool) {
	d := dtOf(h)
	if d == nil || p == nil || count <= 0 {
		return nil, nil, false
	}
	t = d.t
	n := count * t.Size()
	if !t.IsCommitted() || !t.IsContiguous() || t.LB() != 0 || n <= 0 || n/count != t.Size() {
		return nil, nil, false
	}
	return unsafe.Slice((*byte)(p), n), t, true
}

// word reports whether t is an 8-byte integer, which the short ways of
// MPI_Fetch_and_op and MPI_Compare_and_swap update with one atomic instruction.
func word(t *datatype.Type) bool {
	switch t.Kind() {
	case datatype.KindInt64, datatype.KindUint64, datatype.KindInt, datatype.KindUint:
		return t.Size() == 8 && t.IsContiguous()
	}
	return false
}

// short is the window of a call that may take a short way: a blocking operation
// (no request) whose origin and target are the same count of the same datatype.
func short(wh uintptr, req unsafe.Pointer, oc int64, odt uintptr, tc int64, tdt uintptr) *win {
	if req != nil || odt != tdt || oc != tc {
		return nil
	}
	return winOf(wh)
}

func put(op string, o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt uintptr, wh uintptr, req unsafe.Pointer) int32 {
	if w := short(wh, req, oc, odt, tc, tdt); w != nil {
		if b, _, ok := contigBytes(o, oc, odt); ok && w.w.PutBytes(int(rank), disp, b) {
			w.streamed(len(b))
			prof.Done(prof.Put, len(b))
			return 0
		}
	}
	w, ob, t, r := rmaCall(op, wh, o, oc, odt, rank, disp, tc, tdt)
	if w == nil {
		return r
	}
	call := rmaCalls[rmaPut][b2i(req != nil)]
	n := typeBytes(oc, odt)
	defer exit(call, w.enter(call, rankIn(rank), n), n)
	w.streamed(len(ob.Mem))
	if req == nil {
		return failWin(op, wh, w.w.Put(op, &ob, &t))
	}
	p, err := w.w.Rput(op, &ob, &t)
	return rmaReq(op, wh, p, err, req)
}

func get(op string, o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt uintptr, wh uintptr, req unsafe.Pointer) int32 {
	if w := short(wh, req, oc, odt, tc, tdt); w != nil {
		if b, _, ok := contigBytes(o, oc, odt); ok && w.w.GetBytes(int(rank), disp, b) {
			w.streamed(len(b))
			prof.Done(prof.Get, len(b))
			return 0
		}
	}
	w, ob, t, r := rmaCall(op, wh, o, oc, odt, rank, disp, tc, tdt)
	if w == nil {
		return r
	}
	call := rmaCalls[rmaGet][b2i(req != nil)]
	n := typeBytes(oc, odt)
	defer exit(call, w.enter(call, rankIn(rank), n), n)
	if req == nil {
		return failWin(op, wh, w.w.Get(op, &ob, &t))
	}
	p, err := w.w.Rget(op, &ob, &t)
	return rmaReq(op, wh, p, err, req)
}

func accumulate(op string, o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt, oh, wh uintptr, req unsafe.Pointer) int32 {
	if w := short(wh, req, oc, odt, tc, tdt); w != nil {
		if rop, ok := shortAccOp(oh, odt); ok {
			if b, t, ok := contigBytes(o, oc, odt); ok && t.Kind() != datatype.KindNone && w.w.AccBytes(int(rank), disp, b, rop, t.Kind()) {
				prof.Done(prof.Accumulate, len(b))
				return 0
			}
		}
	}
	w, ob, t, r := rmaCall(op, wh, o, oc, odt, rank, disp, tc, tdt)
	if w == nil {
		return r
	}
	call := rmaCalls[rmaAcc][b2i(req != nil)]
	n := typeBytes(oc, odt)
	defer exit(call, w.enter(call, rankIn(rank), n), n)
	rop, err := accOp(op, oh, tdt, tc)
	if err != nil {
		return failWin(op, wh, err)
	}
	if req == nil {
		return failWin(op, wh, w.w.Accumulate(op, &ob, &t, rop))
	}
	p, err := w.w.Raccumulate(op, &ob, &t, rop)
	return rmaReq(op, wh, p, err, req)
}

func getAccumulate(op string, o unsafe.Pointer, oc int64, odt uintptr, res unsafe.Pointer, rc int64, rdt uintptr, rank int32, disp, tc int64, tdt, oh, wh uintptr, req unsafe.Pointer) int32 {
	if oh == opNoOp {
		// With MPI_NO_OP origin_addr, origin_count and origin_datatype are ignored
		// (MPI 4.1 sec. 12.3.4): any of them may be NULL or meaningless.
		o, odt, oc = nil, rdt, 0
	}
	w, ob, t, r := rmaCall(op, wh, o, oc, odt, rank, disp, tc, tdt)
	if w == nil {
		return r
	}
	call := rmaCalls[rmaGetAcc][b2i(req != nil)]
	n := typeBytes(oc, odt)
	defer exit(call, w.enter(call, rankIn(rank), n), n)
	if oh == opNoOp {
		ob = window.RBuf{Count: 0, Type: t.Type}
	}
	rb, err := rbuf(op, res, rc, rdt)
	if err != nil {
		return failWin(op, wh, err)
	}
	rop, err := accOp(op, oh, tdt, tc)
	if err != nil {
		return failWin(op, wh, err)
	}
	if req == nil {
		return failWin(op, wh, w.w.GetAccumulate(op, &ob, &rb, &t, rop))
	}
	p, err := w.w.RgetAccumulate(op, &ob, &rb, &t, rop)
	return rmaReq(op, wh, p, err, req)
}

//export goPMPI_Put
func goPMPI_Put(o unsafe.Pointer, oc int32, odt uintptr, rank int32, disp int64, tc int32, tdt, wh uintptr) int32 {
	goHalves.Add(1)
	return put("Put", o, int64(oc), odt, rank, disp, int64(tc), tdt, wh, nil)
}

//export goPMPI_Put_c
func goPMPI_Put_c(o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt, wh uintptr) int32 {
	goHalves.Add(1)
	return put("Put", o, oc, odt, rank, disp, tc, tdt, wh, nil)
}

//export PMPI_Rput
func PMPI_Rput(o unsafe.Pointer, oc int32, odt uintptr, rank int32, disp int64, tc int32, tdt, wh uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return failWin("Rput", wh, errorf(errArg, "Rput", "request is NULL"))
	}
	return put("Rput", o, int64(oc), odt, rank, disp, int64(tc), tdt, wh, req)
}

//export PMPI_Rput_c
func PMPI_Rput_c(o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt, wh uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return failWin("Rput", wh, errorf(errArg, "Rput", "request is NULL"))
	}
	return put("Rput", o, oc, odt, rank, disp, tc, tdt, wh, req)
}

//export goPMPI_Get
func goPMPI_Get(o unsafe.Pointer, oc int32, odt uintptr, rank int32, disp int64, tc int32, tdt, wh uintptr) int32 {
	goHalves.Add(1)
	return get("Get", o, int64(oc), odt, rank, disp, int64(tc), tdt, wh, nil)
}

//export goPMPI_Get_c
func goPMPI_Get_c(o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt, wh uintptr) int32 {
	goHalves.Add(1)
	return get("Get", o, oc, odt, rank, disp, tc, tdt, wh, nil)
}

//export PMPI_Rget
func PMPI_Rget(o unsafe.Pointer, oc int32, odt uintptr, rank int32, disp int64, tc int32, tdt, wh uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return failWin("Rget", wh, errorf(errArg, "Rget", "request is NULL"))
	}
	return get("Rget", o, int64(oc), odt, rank, disp, int64(tc), tdt, wh, req)
}

//export PMPI_Rget_c
func PMPI_Rget_c(o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt, wh uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return failWin("Rget", wh, errorf(errArg, "Rget", "request is NULL"))
	}
	return get("Rget", o, oc, odt, rank, disp, tc, tdt, wh, req)
}

//export goPMPI_Accumulate
func goPMPI_Accumulate(o unsafe.Pointer, oc int32, odt uintptr, rank int32, disp int64, tc int32, tdt, oh, wh uintptr) int32 {
	goHalves.Add(1)
	return accumulate("Accumulate", o, int64(oc), odt, rank, disp, int64(tc), tdt, oh, wh, nil)
}

//export goPMPI_Accumulate_c
func goPMPI_Accumulate_c(o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt, oh, wh uintptr) int32 {
	goHalves.Add(1)
	return accumulate("Accumulate", o, oc, odt, rank, disp, tc, tdt, oh, wh, nil)
}

//export PMPI_Raccumulate
func PMPI_Raccumulate(o unsafe.Pointer, oc int32, odt uintptr, rank int32, disp int64, tc int32, tdt, oh, wh uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return failWin("Raccumulate", wh, errorf(errArg, "Raccumulate", "request is NULL"))
	}
	return accumulate("Raccumulate", o, int64(oc), odt, rank, disp, int64(tc), tdt, oh, wh, req)
}

//export PMPI_Raccumulate_c
func PMPI_Raccumulate_c(o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt, oh, wh uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return failWin("Raccumulate", wh, errorf(errArg, "Raccumulate", "request is NULL"))
	}
	return accumulate("Raccumulate", o, oc, odt, rank, disp, tc, tdt, oh, wh, req)
}

//export PMPI_Get_accumulate
func PMPI_Get_accumulate(o unsafe.Pointer, oc int32, odt uintptr, res unsafe.Pointer, rc int32, rdt uintptr, rank int32, disp int64, tc int32, tdt, oh, wh uintptr) int32 {
	return getAccumulate("Get_accumulate", o, int64(oc), odt, res, int64(rc), rdt, rank, disp, int64(tc), tdt, oh, wh, nil)
}

//export PMPI_Get_accumulate_c
func PMPI_Get_accumulate_c(o unsafe.Pointer, oc int64, odt uintptr, res unsafe.Pointer, rc int64, rdt uintptr, rank int32, disp, tc int64, tdt, oh, wh uintptr) int32 {
	return getAccumulate("Get_accumulate", o, oc, odt, res, rc, rdt, rank, disp, tc, tdt, oh, wh, nil)
}

//export PMPI_Rget_accumulate
func PMPI_Rget_accumulate(o unsafe.Pointer, oc int32, odt uintptr, res unsafe.Pointer, rc int32, rdt uintptr, rank int32, disp int64, tc int32, tdt, oh, wh uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return failWin("Rget_accumulate", wh, errorf(errArg, "Rget_accumulate", "request is NULL"))
	}
	return getAccumulate("Rget_accumulate", o, int64(oc), odt, res, int64(rc), rdt, rank, disp, int64(tc), tdt, oh, wh, req)
}

//export PMPI_Rget_accumulate_c
func PMPI_Rget_accumulate_c(o unsafe.Pointer, oc int64, odt uintptr, res unsafe.Pointer, rc int64, rdt uintptr, rank int32, disp, tc int64, tdt, oh, wh uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return failWin("Rget_accumulate", wh, errorf(errArg, "Rget_accumulate", "request is NULL"))
	}
	return getAccumulate("Rget_accumulate", o, oc, odt, res, rc, rdt, rank, disp, tc, tdt, oh, wh, req)
}

//export goPMPI_Fetch_and_op
func goPMPI_Fetch_and_op(o, res unsafe.Pointer, dh uintptr, rank int32, disp int64, oh, wh uintptr) int32 {
	goHalves.Add(1)
	const op = "Fetch_and_op"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	t, err := typeOf(op, dh)
	if err != nil {
		return failWin(op, wh, err)
	}
	rop, err := accOp(op, oh, dh, 1)
	if err != nil {
		return failWin(op, wh, err)
	}
	n := t.Size()
	if res == nil || o == nil && oh != opNoOp {
		return failWin(op, wh, errorf(errBuffer, op, "origin_addr or result_addr is NULL"))
	}
	if word(t) {
		var v uint64
		if o != nil {
			v = *(*uint64)(o)
		}
		if old, ok := w.w.FetchWord(rankIn(rank), disp, v, rop); ok {
			*(*uint64)(res) = old
			prof.Done(prof.FetchAndOp, 8)
			return 0
		}
	}
	defer exit(prof.FetchAndOp, w.enter(prof.FetchAndOp, rankIn(rank), int(n)), int(n))
	// The buffers hold one item: its extent, which for a pair type counts the
	// padding (MPI_SHORT_INT has 6 bytes of data in 8).
	m := n
	if t.IsPredefined() {
		m = t.Extent()
	}
	var ob []byte
	if o != nil {
		ob = unsafe.Slice((*byte)(o), m)
	} else {
		ob = make([]byte, m)
	}
	return failWin(op, wh, w.w.FetchAndOp(op, ob, unsafe.Slice((*byte)(res), m), t, rankIn(rank), disp, rop))
}

//export goPMPI_Compare_and_swap
func goPMPI_Compare_and_swap(o, cmp, res unsafe.Pointer, dh uintptr, rank int32, disp int64, wh uintptr) int32 {
	goHalves.Add(1)
	const op = "Compare_and_swap"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	t, err := typeOf(op, dh)
	if err != nil {
		return failWin(op, wh, err)
	}
	if err := compareSwapType(op, dh); err != nil {
		return failWin(op, wh, err)
	}
	if o == nil || cmp == nil || res == nil {
		return failWin(op, wh, errorf(errBuffer, op, "origin_addr, compare_addr or result_addr is NULL"))
	}
	if word(t) {
		if old, ok := w.w.CasWord(rankIn(rank), disp, *(*uint64)(cmp), *(*uint64)(o)); ok {
			*(*uint64)(res) = old
			prof.Done(prof.CompareAndSwap, 8)
			return 0
		}
	}
	n := t.Size()
	defer exit(prof.CompareAndSwap, w.enter(prof.CompareAndSwap, rankIn(rank), int(n)), int(n))
	b := func(p unsafe.Pointer) []byte { return unsafe.Slice((*byte)(p), n) }
	return failWin(op, wh, w.w.CompareAndSwap(op, b(o), b(cmp), b(res), t, rankIn(rank), disp))
}

// --- synchronisation ---

// assertIn maps the ABI's MPI_MODE_* bits to the device's.
func assertIn(a int32) int {
	m := map[int32]int{C.MPI_MODE_NOCHECK: window.ModeNoCheck, C.MPI_MODE_NOPRECEDE: window.ModeNoPrecede, C.MPI_MODE_NOPUT: window.ModeNoPut,
		C.MPI_MODE_NOSTORE: window.ModeNoStore, C.MPI_MODE_NOSUCCEED: window.ModeNoSucceed}
	out := 0
	for bit, v := range m {
		if a&bit != 0 {
			out |= v
			a &^= bit
		}
	}
	return out | int(a)<<16 // bits the device does not know stay wrong: it refuses them
}

// winSync runs a synchronisation call, then refreshes the copy of the window's state
// that short.c reads.
func winSync(call prof.Call, peer int, op string, wh uintptr, f func(w *window.Win) error) int32 {
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	t := prof.Enter(call, w.pc(), peer, -2, 0)
	err := f(w.w)
	prof.Exit(call, t, 0)
	w.refreshShort()
	return failWin(op, wh, err)
}

//export PMPI_Win_fence
func PMPI_Win_fence(assert int32, wh uintptr) int32 {
	return winSync(prof.Fence, prof.NoPeer, "Win_fence", wh, func(w *window.Win) error { return w.Fence("Win_fence", assertIn(assert)) })
}

// ranksIn is group gh as ranks of the window's group.
func ranksIn(op string, w *window.Win, wh, gh uintptr) ([]int, error) {
	g := groupOf(gh)
	if g == nil {
		return nil, badHandle(op, "group", gh, kGroup)
	}
	var owner *mpir.Session
	if cw := winOf(wh); cw != nil {
		owner = cw.sess
	}
	return mpir.RanksIn(op, g, owner, w.Comm().Group())
}

//export PMPI_Win_start
func PMPI_Win_start(gh uintptr, assert int32, wh uintptr) int32 {
	const op = "Win_start"
	return winSync(prof.WinStart, prof.NoPeer, op, wh, func(w *window.Win) error {
		rs, err := ranksIn(op, w, wh, gh)
		if err != nil {
			return err
		}
		return w.Start(op, rs, assertIn(assert))
	})
}

//export PMPI_Win_post
func PMPI_Win_post(gh uintptr, assert int32, wh uintptr) int32 {
	const op = "Win_post"
	return winSync(prof.Post, prof.NoPeer, op, wh, func(w *window.Win) error {
		rs, err := ranksIn(op, w, wh, gh)
		if err != nil {
			return err
		}
		return w.Post(op, rs, assertIn(assert))
	})
}

//export PMPI_Win_complete
func PMPI_Win_complete(wh uintptr) int32 {
	return winSync(prof.Complete, prof.NoPeer, "Win_complete", wh, func(w *window.Win) error { return w.Complete("Win_complete") })
}

//export PMPI_Win_wait
func PMPI_Win_wait(wh uintptr) int32 {
	return winSync(prof.WinWait, prof.NoPeer, "Win_wait", wh, func(w *window.Win) error { _, err := w.Wait("Win_wait", false); return err })
}

//export PMPI_Win_test
func PMPI_Win_test(wh uintptr, flag unsafe.Pointer) int32 {
	return winSync(prof.WinTest, prof.NoPeer, "Win_test", wh, func(w *window.Win) error {
		ok, err := w.Wait("Win_test", true)
		setBool(flag, ok)
		return err
	})
}

//export PMPI_Win_lock
func PMPI_Win_lock(typ, rank, assert int32, wh uintptr) int32 {
	t := -1
	switch typ {
	case C.MPI_LOCK_EXCLUSIVE:
		t = window.LockExclusive
	case C.MPI_LOCK_SHARED:
		t = window.LockShared
	}
	return winSync(prof.Lock, rankIn(rank), "Win_lock", wh, func(w *window.Win) error { return w.Lock("Win_lock", t, rankIn(rank), assertIn(assert)) })
}

//export PMPI_Win_unlock
func PMPI_Win_unlock(rank int32, wh uintptr) int32 {
	return winSync(prof.Unlock, rankIn(rank), "Win_unlock", wh, func(w *window.Win) error { return w.Unlock("Win_unlock", rankIn(rank)) })
}

//export PMPI_Win_lock_all
func PMPI_Win_lock_all(assert int32, wh uintptr) int32 {
	return winSync(prof.LockAll, prof.NoPeer, "Win_lock_all", wh, func(w *window.Win) error { return w.LockAll("Win_lock_all", assertIn(assert)) })
}

//export PMPI_Win_unlock_all
func PMPI_Win_unlock_all(wh uintptr) int32 {
	return winSync(prof.UnlockAll, prof.NoPeer, "Win_unlock_all", wh, func(w *window.Win) error { return w.UnlockAll("Win_unlock_all") })
}

//export goPMPI_Win_flush
func goPMPI_Win_flush(rank int32, wh uintptr) int32 {
	goHalves.Add(1)
	if w := winOf(wh); w != nil && w.w.FlushDirect(int(rank)) {
		w.flushed()
		prof.Done(prof.WinFlush, 0)
		return 0 // a direct target's operations completed in their calls
	}
	return winSync(prof.WinFlush, rankIn(rank), "Win_flush", wh, func(w *window.Win) error { return w.Flush("Win_flush", rankIn(rank), false) })
}

//export goPMPI_Win_flush_local
func goPMPI_Win_flush_local(rank int32, wh uintptr) int32 {
	goHalves.Add(1)
	return winSync(prof.FlushLocal, rankIn(rank), "Win_flush_local", wh, func(w *window.Win) error { return w.Flush("Win_flush_local", rankIn(rank), true) })
}

//export goPMPI_Win_flush_all
func goPMPI_Win_flush_all(wh uintptr) int32 {
	goHalves.Add(1)
	return winSync(prof.FlushAll, prof.NoPeer, "Win_flush_all", wh, func(w *window.Win) error { return w.FlushAll("Win_flush_all", false) })
}

//export goPMPI_Win_flush_local_all
func goPMPI_Win_flush_local_all(wh uintptr) int32 {
	goHalves.Add(1)
	return winSync(prof.FlushLocalAll, prof.NoPeer, "Win_flush_local_all", wh, func(w *window.Win) error { return w.FlushAll("Win_flush_local_all", true) })
}

//export PMPI_Win_sync
func PMPI_Win_sync(wh uintptr) int32 {
	return winSync(prof.Sync, prof.NoPeer, "Win_sync", wh, func(w *window.Win) error { return w.Sync("Win_sync") })
}

//export PMPI_Alloc_mem
func PMPI_Alloc_mem(size int64, info uintptr, baseptr unsafe.Pointer) int32 {
	const op = "Alloc_mem"
	if size < 0 || baseptr == nil {
		return fail(op, 0, errorf(errArg, op, "size %d is negative or baseptr is NULL", size))
	}
	in, err := infoArg(op, info)
	if err != nil {
		return fail(op, 0, err)
	}
	align, err := mpir.MemAlignment(op, in)
	if err != nil {
		return fail(op, 0, err)
	}
	var p unsafe.Pointer
	if align > 16 { // malloc's alignment serves every predefined type
		if C.posix_memalign(&p, C.size_t(align), C.size_t(max(size, 1))) != 0 {
			p = nil
		}
	} else {
		p = C.malloc(C.size_t(max(size, 1)))
	}
	if p == nil {
		return fail(op, 0, errorf(errNoMem, op, "cannot allocate %d bytes", size))
	}
	*(*unsafe.Pointer)(baseptr) = p
	return 0
}

//export PMPI_Free_mem
func PMPI_Free_mem(base unsafe.Pointer) int32 {
	C.free(base)
	return 0
}
