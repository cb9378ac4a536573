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
	"cmp"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/window"
)

// One-sided communication (MPI 4.1 chapter 12): the C binding of internal/mpir's
// windows (win*.go there), which hold what MPI says of each call; this file converts
// C's arguments (handles, pointers, counts, the ABI's constants) and raises the
// errors through the window's handler (MPI_ERRORS_ARE_FATAL unless set, MPI 4.1
// section 12.6). MPI_Win_allocate(_shared) hand C a pointer into the window's
// memory, which is node shared memory or, where the device would put it in the Go
// heap (no shared-memory transport, or rma_shm=off), memory from C's calloc, which
// the device takes (mpir.WinArgs.Alloc) and this file frees with the window.

type win struct {
	w     *mpir.Win
	d     *window.Win    // w's device window, which never changes: the short ways'
	cmem  unsafe.Pointer // calloc'd memory of an allocated window, freed with it
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
	w.w.Errh.Raise(ce.op, wh, w.w.What, ce)
	return ce.code
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

// newWin registers a window mpir made and writes its handle. The predefined
// attributes' values go to C memory.
func newWin(x *mpir.Win, base, cmem unsafe.Pointer, out unsafe.Pointer) {
	w := &win{w: x, d: x.Dev(), cmem: cmem, base: base}
	a := x.Predefined()
	w.pre = (*C.winattrs)(C.calloc(1, C.size_t(unsafe.Sizeof(C.winattrs{}))))
	w.pre.size, w.pre.disp_unit = C.MPI_Aint(a.Size), C.int(a.DispUnit)
	w.pre.flavor, w.pre.model = winFlavors[a.Flavor], winModels[a.Model]
	h := wins.add(w)
	x.Handle = h
	newShort(w, h)
	setHandle(out, h)
}

// makeWin makes a window over communicator ch (the creation calls' common part) and
// writes its handle to out. Errors in this rank's arguments go to mpir as a.Bad, which
// fails the creation, collective, on every rank rather than leave them waiting.
func makeWin(op string, ch, info uintptr, out unsafe.Pointer, a mpir.WinArgs, base unsafe.Pointer) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	in, err := infoArg(op, info)
	a.Info, a.Bad = in, cmp.Or(a.Bad, nullOut(op, "win", out), err)
	x, err := mpir.NewWin(op, c.c, c.x.Owner(), mpir.ErrorsAreFatal, a)
	if err != nil {
		return fail(op, ch, err)
	}
	newWin(x, base, nil, out)
	return 0
}

func winCreate(op string, base unsafe.Pointer, size, unit int64, info, ch uintptr, out unsafe.Pointer) int32 {
	var mem []byte
	var bad error
	if size > 0 && base == nil {
		bad = errorf(errBuffer, op, "base is NULL for %d bytes", size)
	} else if size > 0 {
		mem = unsafe.Slice((*byte)(base), size)
	}
	return makeWin(op, ch, info, out, mpir.WinArgs{Flavor: window.FlavorCreate, Size: size, DispUnit: unit, Mem: mem, Bad: bad}, base)
}

//export PMPI_Win_create
func PMPI_Win_create(base unsafe.Pointer, size int64, unit int32, info, ch uintptr, out unsafe.Pointer) int32 {
	return winCreate("Win_create", base, size, int64(unit), info, ch, out)
}

//export PMPI_Win_create_c
func PMPI_Win_create_c(base unsafe.Pointer, size, unit int64, info, ch uintptr, out unsafe.Pointer) int32 {
	return winCreate("Win_create_c", base, size, unit, info, ch, out)
}

func winAllocate(op string, size, unit int64, info, ch uintptr, baseptr, out unsafe.Pointer, f window.Flavor) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	// As in makeWin, this rank's bad arguments fail the creation on every rank.
	in, err := infoArg(op, info)
	bad := cmp.Or(nullOut(op, "baseptr, win", baseptr, out), err)
	// Memory C may hold a pointer to, where the device would use Go's.
	var cmem unsafe.Pointer
	alloc := func(n int64) ([]byte, error) {
		if cmem = C.calloc(C.size_t(max(n, 1)), 1); cmem == nil {
			return nil, errorf(errNoMem, op, "cannot allocate %d bytes", n)
		}
		return unsafe.Slice((*byte)(cmem), n), nil
	}
	x, err := mpir.NewWin(op, c.c, c.x.Owner(), mpir.ErrorsAreFatal, mpir.WinArgs{Flavor: f, Size: size, DispUnit: unit, Info: in, Alloc: alloc, Bad: bad})
	if err != nil {
		if cmem != nil {
			C.free(cmem)
		}
		return fail(op, ch, err)
	}
	var base unsafe.Pointer
	if m := x.Dev().Mem(); len(m) > 0 {
		base = unsafe.Pointer(unsafe.SliceData(m))
	}
	*(*unsafe.Pointer)(baseptr) = base
	newWin(x, base, cmem, out)
	return 0
}

//export PMPI_Win_allocate
func PMPI_Win_allocate(size int64, unit int32, info, ch uintptr, baseptr, out unsafe.Pointer) int32 {
	return winAllocate("Win_allocate", size, int64(unit), info, ch, baseptr, out, window.FlavorAllocate)
}

//export PMPI_Win_allocate_c
func PMPI_Win_allocate_c(size, unit int64, info, ch uintptr, baseptr, out unsafe.Pointer) int32 {
	return winAllocate("Win_allocate_c", size, unit, info, ch, baseptr, out, window.FlavorAllocate)
}

//export PMPI_Win_allocate_shared
func PMPI_Win_allocate_shared(size int64, unit int32, info, ch uintptr, baseptr, out unsafe.Pointer) int32 {
	return winAllocate("Win_allocate_shared", size, int64(unit), info, ch, baseptr, out, window.FlavorShared)
}

//export PMPI_Win_allocate_shared_c
func PMPI_Win_allocate_shared_c(size, unit int64, info, ch uintptr, baseptr, out unsafe.Pointer) int32 {
	return winAllocate("Win_allocate_shared_c", size, unit, info, ch, baseptr, out, window.FlavorShared)
}

//export PMPI_Win_create_dynamic
func PMPI_Win_create_dynamic(info, ch uintptr, out unsafe.Pointer) int32 {
	return makeWin("Win_create_dynamic", ch, info, out, mpir.WinArgs{Flavor: window.FlavorDynamic, DispUnit: 1}, nil)
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
	mem := unsafe.Slice((*byte)(base), size)
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
	return failWin(op, wh, w.w.Detach(op, base))
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
	hideShort(wh)
	if err := w.w.Free(op); err != nil {
		w.showShort(wh) // the window stays (an attribute's delete function failed)
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
	r := sharedQuery("Win_shared_query", wh, rank, size, narrowOut(unit, &u), baseptr)
	if r == 0 {
		setInt(unit, int(u))
	}
	return r
}

//export PMPI_Win_shared_query_c
func PMPI_Win_shared_query_c(wh uintptr, rank int32, size, unit, baseptr unsafe.Pointer) int32 {
	return sharedQuery("Win_shared_query_c", wh, rank, size, unit, baseptr)
}

func sharedQuery(op string, wh uintptr, rank int32, size, unit, baseptr unsafe.Pointer) int32 {
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	if err := nullOut(op, "size, disp_unit, baseptr", size, unit, baseptr); err != nil {
		return failWin(op, wh, err)
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
	const op = "Win_get_group"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	if out == nil {
		return failWin(op, wh, errorf(errArg, op, "group is NULL"))
	}
	g, err := w.w.Group(op)
	if err != nil {
		return failWin(op, wh, err)
	}
	setHandle(out, newGroup(g))
	return 0
}

//export PMPI_Win_set_name
func PMPI_Win_set_name(wh uintptr, name unsafe.Pointer) int32 {
	const op = "Win_set_name"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	if name == nil {
		return failWin(op, wh, errorf(errArg, op, "win_name is NULL"))
	}
	return failWin(op, wh, w.w.SetName(op, cstr(name)))
}

//export PMPI_Win_get_name
func PMPI_Win_get_name(wh uintptr, name, n unsafe.Pointer) int32 {
	const op = "Win_get_name"
	var x *mpir.Win // MPI_WIN_NULL, which has a name too
	if wh != hWinNull {
		w, r := needWin(op, wh)
		if w == nil {
			return r
		}
		x = w.w
	}
	if err := nullOut(op, "win_name, resultlen", name, n); err != nil {
		return failWin(op, wh, err)
	}
	putCString(name, C.MPI_MAX_OBJECT_NAME, x.Name(), n)
	return 0
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
	return failWin(op, wh, w.w.SetInfo(op, in))
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
	in, err := w.w.Info(op)
	if err != nil {
		return failWin(op, wh, err)
	}
	setHandle(out, newInfoHandle(in))
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
	return failWin(op, wh, w.w.SetAttr(op, k, uintptr(val)))
}

//export PMPI_Win_get_attr
func PMPI_Win_get_attr(wh uintptr, key int32, val, flag unsafe.Pointer) int32 {
	const op = "Win_get_attr"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	if err := nullOut(op, "attribute_val, flag", val, flag); err != nil {
		return failWin(op, wh, err)
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
	v, ok, err := w.w.Attr(op, k)
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
	return failWin(op, wh, w.w.DeleteAttr(op, k))
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
	return failWin(op, wh, setErrh(op, &w.w.Errh, mpir.KindWin, eh))
}

//export PMPI_Win_get_errhandler
func PMPI_Win_get_errhandler(wh uintptr, eh unsafe.Pointer) int32 {
	const op = "Win_get_errhandler"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	return failWin(op, wh, getErrh(op, &w.w.Errh, eh))
}

//export PMPI_Win_call_errhandler
func PMPI_Win_call_errhandler(wh uintptr, code int32) int32 {
	const op = "Win_call_errhandler"
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	w.w.Errh.Raise("MPI_"+op, wh, w.w.What, codeErr(op, code))
	return 0
}

// --- operations ---

// rbuf is an origin or result buffer (arg names its datatype): count items of dh at
// p, shifted (as cvec does) so that the items start at the slice's start.
func rbuf(op, arg string, p unsafe.Pointer, count int64, dh uintptr) (window.RBuf, error) {
	t, err := argTypeFor(op, arg, dh, count)
	if err != nil {
		return window.RBuf{}, err
	}
	if count < 0 {
		return window.RBuf{Count: count, Type: t}, nil // mpir says what is wrong
	}
	if t.IsDense() {
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

// rmaOp is op handle oh as an accumulate of tc items of tdt applies it (mpir's
// Operation.AccOp); an operation on MPI_PROC_NULL looks at nothing (OpNone).
func rmaOp(op string, oh, tdt uintptr, tc int64, rank int) (window.RMAOp, error) {
	if rank == core.ProcNull {
		return mpir.OpNone, nil
	}
	return accOp(op, oh, tdt, tc)
}

// rmaArgs converts an operation's window, origin and target. The buffers of an
// operation on MPI_PROC_NULL are not converted: mpir looks at nothing else then.
func rmaArgs(op string, wh uintptr, o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt uintptr) (*win, window.RBuf, window.Target, int32) {
	w, r := needWin(op, wh)
	if w == nil {
		return nil, window.RBuf{}, window.Target{}, r
	}
	t := window.Target{Rank: rankIn(rank), Disp: disp, Count: tc}
	if t.Rank == core.ProcNull {
		return w, window.RBuf{}, t, 0
	}
	ob, err := rbuf(op, "origin datatype", o, oc, odt)
	if err == nil {
		t.Type, err = argTypeFor(op, "target datatype", tdt, tc)
	}
	if err != nil {
		return nil, window.RBuf{}, window.Target{}, failWin(op, wh, err)
	}
	return w, ob, t, 0
}

// rmaDone ends an operation: its error through the window's handler, or the request
// of an R form.
func rmaDone(op string, wh uintptr, p *core.Pending, err error, req unsafe.Pointer) int32 {
	if err != nil {
		return failWin(op, wh, err)
	}
	if req != nil {
		addPending(p, nil, 0, nil, req)
	}
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

// word reports whether t is a predefined 8-byte integer, which the short ways of
// MPI_Fetch_and_op and MPI_Compare_and_swap update with one atomic instruction (a
// derived type of one, which those calls refuse, takes the long way to say so).
func word(t *datatype.Type) bool {
	switch t.Kind() {
	case datatype.KindInt64, datatype.KindUint64, datatype.KindInt, datatype.KindUint:
		return t.Size() == 8 && t.IsPredefined()
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
		if b, _, ok := contigBytes(o, oc, odt); ok && w.d.PutBytes(int(rank), disp, b) {
			w.streamed(len(b))
			return 0
		}
	}
	w, ob, t, r := rmaArgs(op, wh, o, oc, odt, rank, disp, tc, tdt)
	if w == nil {
		return r
	}
	w.streamed(len(ob.Mem))
	p, err := w.w.Put(op, &ob, &t, req != nil)
	return rmaDone(op, wh, p, err, req)
}

func get(op string, o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt uintptr, wh uintptr, req unsafe.Pointer) int32 {
	if w := short(wh, req, oc, odt, tc, tdt); w != nil {
		if b, _, ok := contigBytes(o, oc, odt); ok && w.d.GetBytes(int(rank), disp, b) {
			w.streamed(len(b))
			return 0
		}
	}
	w, ob, t, r := rmaArgs(op, wh, o, oc, odt, rank, disp, tc, tdt)
	if w == nil {
		return r
	}
	p, err := w.w.Get(op, &ob, &t, req != nil)
	return rmaDone(op, wh, p, err, req)
}

func accumulate(op string, o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt, oh, wh uintptr, req unsafe.Pointer) int32 {
	if w := short(wh, req, oc, odt, tc, tdt); w != nil {
		if rop, ok := shortAccOp(oh, odt); ok {
			if b, t, ok := contigBytes(o, oc, odt); ok && t.Kind() != datatype.KindNone && w.d.AccBytes(int(rank), disp, b, rop, t.Kind()) {
				return 0
			}
		}
	}
	w, ob, t, r := rmaArgs(op, wh, o, oc, odt, rank, disp, tc, tdt)
	if w == nil {
		return r
	}
	rop, err := rmaOp(op, oh, tdt, tc, t.Rank)
	if err != nil {
		return failWin(op, wh, err)
	}
	p, err := w.w.Accumulate(op, &ob, &t, rop, req != nil)
	return rmaDone(op, wh, p, err, req)
}

func getAccumulate(op string, o unsafe.Pointer, oc int64, odt uintptr, res unsafe.Pointer, rc int64, rdt uintptr, rank int32, disp, tc int64, tdt, oh, wh uintptr, req unsafe.Pointer) int32 {
	if oh == opNoOp {
		// The origin is ignored (mpir): not converted, whatever it holds.
		o, oc, odt = nil, 0, rdt
	}
	w, ob, t, r := rmaArgs(op, wh, o, oc, odt, rank, disp, tc, tdt)
	if w == nil {
		return r
	}
	var rb window.RBuf
	if t.Rank != core.ProcNull {
		var err error
		if rb, err = rbuf(op, "result datatype", res, rc, rdt); err != nil {
			return failWin(op, wh, err)
		}
	}
	rop, err := rmaOp(op, oh, tdt, tc, t.Rank)
	if err != nil {
		return failWin(op, wh, err)
	}
	p, err := w.w.GetAccumulate(op, &ob, &rb, &t, rop, req != nil)
	return rmaDone(op, wh, p, err, req)
}

//export goPMPI_Put
func goPMPI_Put(o unsafe.Pointer, oc int32, odt uintptr, rank int32, disp int64, tc int32, tdt, wh uintptr) int32 {
	goHalves.Add(1)
	return put("Put", o, int64(oc), odt, rank, disp, int64(tc), tdt, wh, nil)
}

//export goPMPI_Put_c
func goPMPI_Put_c(o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt, wh uintptr) int32 {
	goHalves.Add(1)
	return put("Put_c", o, oc, odt, rank, disp, tc, tdt, wh, nil)
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
		return failWin("Rput_c", wh, errorf(errArg, "Rput_c", "request is NULL"))
	}
	return put("Rput_c", o, oc, odt, rank, disp, tc, tdt, wh, req)
}

//export goPMPI_Get
func goPMPI_Get(o unsafe.Pointer, oc int32, odt uintptr, rank int32, disp int64, tc int32, tdt, wh uintptr) int32 {
	goHalves.Add(1)
	return get("Get", o, int64(oc), odt, rank, disp, int64(tc), tdt, wh, nil)
}

//export goPMPI_Get_c
func goPMPI_Get_c(o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt, wh uintptr) int32 {
	goHalves.Add(1)
	return get("Get_c", o, oc, odt, rank, disp, tc, tdt, wh, nil)
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
		return failWin("Rget_c", wh, errorf(errArg, "Rget_c", "request is NULL"))
	}
	return get("Rget_c", o, oc, odt, rank, disp, tc, tdt, wh, req)
}

//export goPMPI_Accumulate
func goPMPI_Accumulate(o unsafe.Pointer, oc int32, odt uintptr, rank int32, disp int64, tc int32, tdt, oh, wh uintptr) int32 {
	goHalves.Add(1)
	return accumulate("Accumulate", o, int64(oc), odt, rank, disp, int64(tc), tdt, oh, wh, nil)
}

//export goPMPI_Accumulate_c
func goPMPI_Accumulate_c(o unsafe.Pointer, oc int64, odt uintptr, rank int32, disp, tc int64, tdt, oh, wh uintptr) int32 {
	goHalves.Add(1)
	return accumulate("Accumulate_c", o, oc, odt, rank, disp, tc, tdt, oh, wh, nil)
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
		return failWin("Raccumulate_c", wh, errorf(errArg, "Raccumulate_c", "request is NULL"))
	}
	return accumulate("Raccumulate_c", o, oc, odt, rank, disp, tc, tdt, oh, wh, req)
}

//export goPMPI_Get_accumulate
func goPMPI_Get_accumulate(o unsafe.Pointer, oc int32, odt uintptr, res unsafe.Pointer, rc int32, rdt uintptr, rank int32, disp int64, tc int32, tdt, oh, wh uintptr) int32 {
	return getAccumulate("Get_accumulate", o, int64(oc), odt, res, int64(rc), rdt, rank, disp, int64(tc), tdt, oh, wh, nil)
}

//export goPMPI_Get_accumulate_c
func goPMPI_Get_accumulate_c(o unsafe.Pointer, oc int64, odt uintptr, res unsafe.Pointer, rc int64, rdt uintptr, rank int32, disp, tc int64, tdt, oh, wh uintptr) int32 {
	return getAccumulate("Get_accumulate_c", o, oc, odt, res, rc, rdt, rank, disp, tc, tdt, oh, wh, nil)
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
		return failWin("Rget_accumulate_c", wh, errorf(errArg, "Rget_accumulate_c", "request is NULL"))
	}
	return getAccumulate("Rget_accumulate_c", o, oc, odt, res, rc, rdt, rank, disp, tc, tdt, oh, wh, req)
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
	rop, err := rmaOp(op, oh, dh, 1, rankIn(rank))
	if err != nil {
		return failWin(op, wh, err)
	}
	if oh == opNoOp {
		o = nil // ignored
	}
	if word(t) && res != nil && (o != nil || oh == opNoOp) {
		var v uint64
		if o != nil {
			v = *(*uint64)(o)
		}
		if old, ok := w.d.FetchWord(rankIn(rank), disp, v, rop, prof.FetchAndOp); ok {
			*(*uint64)(res) = old
			return 0
		}
	}
	return failWin(op, wh, w.w.FetchAndOp(op, cbytes(o, t), cbytes(res, t), t, rankIn(rank), disp, rop, false))
}

// cbytes is one element of predefined type t at p, nil for a NULL p: its extent,
// which for a pair type counts the padding (MPI_SHORT_INT has 6 bytes of data in 8).
func cbytes(p unsafe.Pointer, t *datatype.Type) []byte {
	if p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(p), max(t.Size(), t.Extent()))
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
	if word(t) && o != nil && cmp != nil && res != nil {
		if old, ok := w.d.CasWord(rankIn(rank), disp, *(*uint64)(cmp), *(*uint64)(o), prof.CompareAndSwap); ok {
			*(*uint64)(res) = old
			return 0
		}
	}
	return failWin(op, wh, w.w.CompareAndSwap(op, cbytes(o, t), cbytes(cmp, t), cbytes(res, t), t, rankIn(rank), disp, false))
}

// --- synchronisation ---

// assertBits are the ABI's MPI_MODE_* bits of the synchronisation calls and the
// device's.
var assertBits = [...]struct {
	abi int32
	dev int
}{{C.MPI_MODE_NOCHECK, window.ModeNoCheck}, {C.MPI_MODE_NOPRECEDE, window.ModeNoPrecede}, {C.MPI_MODE_NOPUT, window.ModeNoPut},
	{C.MPI_MODE_NOSTORE, window.ModeNoStore}, {C.MPI_MODE_NOSUCCEED, window.ModeNoSucceed}}

// assertIn maps the ABI's MPI_MODE_* bits to the device's.
func assertIn(a int32) int {
	out := 0
	for _, b := range assertBits {
		if a&b.abi != 0 {
			out |= b.dev
			a &^= b.abi
		}
	}
	return out | int(a)<<16 // bits no call takes stay wrong: mpir refuses them
}

// winCall runs a call that changes no epoch (the flushes, Win_sync): the copy of the
// window's state that short.c reads stays true.
func winCall(op string, wh uintptr, f func(w *mpir.Win) error) int32 {
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	return failWin(op, wh, f(w.w))
}

// winSync runs a synchronisation call, then refreshes the copy of the window's state
// that short.c reads.
func winSync(op string, wh uintptr, f func(w *mpir.Win) error) int32 {
	w, r := needWin(op, wh)
	if w == nil {
		return r
	}
	err := f(w.w)
	w.refreshShort()
	return failWin(op, wh, err)
}

//export goPMPI_Win_fence
func goPMPI_Win_fence(assert int32, wh uintptr) int32 {
	goHalves.Add(1)
	return winSync("Win_fence", wh, func(w *mpir.Win) error { return w.Fence("Win_fence", assertIn(assert)) })
}

// groupArg is group handle gh of op.
func groupArg(op string, gh uintptr) (*mpir.Group, error) {
	if g := groupOf(gh); g != nil {
		return g, nil
	}
	return nil, badHandle(op, "group", gh, kGroup)
}

//export goPMPI_Win_start
func goPMPI_Win_start(gh uintptr, assert int32, wh uintptr) int32 {
	goHalves.Add(1)
	const op = "Win_start"
	return winSync(op, wh, func(w *mpir.Win) error {
		g, err := groupArg(op, gh)
		if err != nil {
			return err
		}
		if err := w.Start(op, g, assertIn(assert)); err != nil {
			return err
		}
		winOf(wh).showGroup(false, gh, w, g)
		return nil
	})
}

//export goPMPI_Win_post
func goPMPI_Win_post(gh uintptr, assert int32, wh uintptr) int32 {
	goHalves.Add(1)
	const op = "Win_post"
	return winSync(op, wh, func(w *mpir.Win) error {
		g, err := groupArg(op, gh)
		if err != nil {
			return err
		}
		if err := w.Post(op, g, assertIn(assert)); err != nil {
			return err
		}
		winOf(wh).showGroup(true, gh, w, g)
		return nil
	})
}

//export goPMPI_Win_complete
func goPMPI_Win_complete(wh uintptr) int32 {
	goHalves.Add(1)
	return winSync("Win_complete", wh, func(w *mpir.Win) error { return w.Complete("Win_complete") })
}

//export goPMPI_Win_wait
func goPMPI_Win_wait(wh uintptr) int32 {
	goHalves.Add(1)
	return winSync("Win_wait", wh, func(w *mpir.Win) error { return w.Wait("Win_wait") })
}

//export PMPI_Win_test
func PMPI_Win_test(wh uintptr, flag unsafe.Pointer) int32 {
	const op = "Win_test"
	return winSync(op, wh, func(w *mpir.Win) error {
		if flag == nil {
			return errorf(errArg, op, "flag is NULL")
		}
		ok, err := w.Test(op)
		setBool(flag, ok)
		return err
	})
}

// lockIn is the ABI's lock type as the device's, -1 (which mpir refuses) for none.
func lockIn(typ int32) int {
	switch typ {
	case C.MPI_LOCK_EXCLUSIVE:
		return window.LockExclusive
	case C.MPI_LOCK_SHARED:
		return window.LockShared
	}
	return -1
}

//export goPMPI_Win_lock
func goPMPI_Win_lock(typ, rank, assert int32, wh uintptr) int32 {
	goHalves.Add(1)
	return winSync("Win_lock", wh, func(w *mpir.Win) error { return w.Lock("Win_lock", lockIn(typ), rankIn(rank), assertIn(assert)) })
}

//export goPMPI_Win_unlock
func goPMPI_Win_unlock(rank int32, wh uintptr) int32 {
	goHalves.Add(1)
	return winSync("Win_unlock", wh, func(w *mpir.Win) error { return w.Unlock("Win_unlock", rankIn(rank)) })
}

//export PMPI_Win_lock_all
func PMPI_Win_lock_all(assert int32, wh uintptr) int32 {
	return winSync("Win_lock_all", wh, func(w *mpir.Win) error { return w.LockAll("Win_lock_all", assertIn(assert)) })
}

//export PMPI_Win_unlock_all
func PMPI_Win_unlock_all(wh uintptr) int32 {
	return winSync("Win_unlock_all", wh, func(w *mpir.Win) error { return w.UnlockAll("Win_unlock_all") })
}

//export goPMPI_Win_flush
func goPMPI_Win_flush(rank int32, wh uintptr) int32 {
	goHalves.Add(1)
	if w := winOf(wh); w != nil && w.d.FlushDirect(int(rank)) {
		w.flushed()
		return 0 // a direct target's operations completed in their calls
	}
	return winCall("Win_flush", wh, func(w *mpir.Win) error { return w.Flush("Win_flush", rankIn(rank), false) })
}

//export goPMPI_Win_flush_local
func goPMPI_Win_flush_local(rank int32, wh uintptr) int32 {
	goHalves.Add(1)
	return winCall("Win_flush_local", wh, func(w *mpir.Win) error { return w.Flush("Win_flush_local", rankIn(rank), true) })
}

//export goPMPI_Win_flush_all
func goPMPI_Win_flush_all(wh uintptr) int32 {
	goHalves.Add(1)
	return winCall("Win_flush_all", wh, func(w *mpir.Win) error { return w.FlushAll("Win_flush_all", false) })
}

//export goPMPI_Win_flush_local_all
func goPMPI_Win_flush_local_all(wh uintptr) int32 {
	goHalves.Add(1)
	return winCall("Win_flush_local_all", wh, func(w *mpir.Win) error { return w.FlushAll("Win_flush_local_all", true) })
}

//export goPMPI_Win_sync
func goPMPI_Win_sync(wh uintptr) int32 {
	goHalves.Add(1)
	return winCall("Win_sync", wh, func(w *mpir.Win) error { return w.Sync("Win_sync") })
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
	h, err := mpir.AllocHints(op, in, true)
	if err != nil {
		return fail(op, 0, err)
	}
	align := h.Align
	var p unsafe.Pointer
	if h.Mapped {
		p = core.SharedMem(int(size), align)
	}
	switch {
	case p != nil:
	case align > 16: // malloc's alignment serves every predefined type
		if C.posix_memalign(&p, C.size_t(align), C.size_t(max(size, 1))) != 0 {
			p = nil
		}
	default:
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
	if !core.FreeSharedMem(base) {
		C.free(base)
	}
	return 0
}
