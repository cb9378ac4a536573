package mpi

import (
	"reflect"
	"unsafe"

	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/window"
)

// Win is a window of one-sided communication (MPI_Win): memory each rank of a
// communicator exposes, which the others read and write with Put, Get, Accumulate and
// their kin, inside epochs opened by Fence, Start/Post, or Lock/LockAll. A nil *Win is
// MPI_WIN_NULL; every call on it, as on a freed window, returns an error of class
// ErrWin.
//
// On one node the memory of WinAllocate and WinAllocateShared windows is node shared
// memory every rank maps: an operation there is a load or store by the origin (an
// 8-byte Put plus Flush costs about what a store and a fence do), and so is a
// WinCreate window's where every rank gave memory of AllocMem's with
// mpigo_node_mapped. Targets on other nodes (and every target of other WinCreate
// windows and of WinCreateDynamic windows, whose memory is the owner's Go memory)
// get the operations shipped to a progress goroutine of theirs, which applies them
// while the target's program computes. Memory a window
// gives out (WinAllocate's, SharedQuery's) must not be used after Free.
//
// A window's error handler is ErrorsReturn until SetErrHandler changes it.
type Win struct {
	w *mpir.Win
	d *window.Win // w's device window, which never changes: the short ways' (nil for a nil w)
}

// Lock types for Lock.
const (
	LockExclusive = window.LockExclusive // MPI_LOCK_EXCLUSIVE: no other epoch at the target
	LockShared    = window.LockShared    // MPI_LOCK_SHARED: other shared epochs may overlap
)

// Assertions for Fence, Start, Post, Lock and LockAll (MPI_MODE_*): promises that let
// the synchronisation do less. mpigo takes NoCheck (Lock, LockAll: no lock is taken;
// Start and Post: no notification, which both sides must then promise) and
// NoSucceed (Fence: no epoch follows); the others are accepted.
const (
	ModeNoCheck   = window.ModeNoCheck
	ModeNoStore   = window.ModeNoStore
	ModeNoPut     = window.ModeNoPut
	ModeNoPrecede = window.ModeNoPrecede
	ModeNoSucceed = window.ModeNoSucceed
)

// Flavor is how a window's memory came to be (MPI_WIN_FLAVOR_*).
type Flavor = window.Flavor

const (
	FlavorCreate   = window.FlavorCreate   // WinCreate: memory the caller owns
	FlavorAllocate = window.FlavorAllocate // WinAllocate
	FlavorDynamic  = window.FlavorDynamic  // WinCreateDynamic
	FlavorShared   = window.FlavorShared   // WinAllocateShared
)

// Memory models (MPI_WIN_SEPARATE, MPI_WIN_UNIFIED): every mpigo window is unified,
// its public and private copies being the same memory.
const (
	WinSeparate = 1
	WinUnified  = 2
)

func newWin(op string, c *Comm, info *Info, a mpir.WinArgs) (*Win, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	a.Info = info.obj()
	x, err := mpir.NewWin(op, c.d, c.owner(), mpir.ErrorsReturn, a)
	if err != nil {
		return nil, c.fail(op, err)
	}
	w := &Win{w: x, d: x.Dev()}
	x.Handle = w
	return w, nil
}

// WinCreate exposes mem, memory this rank owns, in a new window over c (collective;
// MPI_Win_create). dispUnit is the bytes one displacement unit of this rank stands
// for (the element size, typically). The memory stays the caller's. Where every
// rank's mem is memory of AllocMem's that the node's ranks map (mpigo_node_mapped),
// the window is node shared memory as WinAllocate's is; otherwise the operations on
// this rank's memory are applied by its progress goroutine.
func WinCreate(mem []byte, dispUnit int, info *Info, c *Comm) (*Win, error) {
	return newWin("WinCreate", c, info, mpir.WinArgs{Flavor: window.FlavorCreate, Size: int64(len(mem)), DispUnit: int64(dispUnit), Mem: mem})
}

// WinAllocate makes a window over c (collective) whose size bytes on this rank mpigo
// allocates, in node shared memory where the node's ranks map it, and returns them
// (MPI_Win_allocate). The memory is valid until Free.
func WinAllocate(size, dispUnit int, info *Info, c *Comm) (*Win, []byte, error) {
	w, err := newWin("WinAllocate", c, info, mpir.WinArgs{Flavor: window.FlavorAllocate, Size: int64(size), DispUnit: int64(dispUnit)})
	if err != nil {
		return nil, nil, err
	}
	return w, w.d.Mem(), nil
}

// WinAllocateShared is WinAllocate whose memory every rank of c, which must all run
// on one node, can read and write with plain loads and stores: SharedQuery gives a
// rank's part (MPI_Win_allocate_shared). The parts follow each other in rank order
// unless the info key alloc_shared_noncontig is "true".
func WinAllocateShared(size, dispUnit int, info *Info, c *Comm) (*Win, []byte, error) {
	w, err := newWin("WinAllocateShared", c, info, mpir.WinArgs{Flavor: window.FlavorShared, Size: int64(size), DispUnit: int64(dispUnit)})
	if err != nil {
		return nil, nil, err
	}
	return w, w.d.Mem(), nil
}

// WinCreateDynamic makes a window over c with no memory (collective;
// MPI_Win_create_dynamic): Attach exposes memory, and origins address it by the
// displacement Attach returns (its address, which the owner tells them).
func WinCreateDynamic(info *Info, c *Comm) (*Win, error) {
	return newWin("WinCreateDynamic", c, info, mpir.WinArgs{Flavor: window.FlavorDynamic, DispUnit: 1})
}

// obj is w's object, nil for a nil w.
func (w *Win) obj() *mpir.Win {
	if w == nil {
		return nil
	}
	return w.w
}

// SharedQuery returns rank's memory in the window and its displacement unit
// (MPI_Win_shared_query), for a window of any flavour, as MPI 4.1 defines it: the
// memory of a shared window's rank, or of one whose memory this rank maps (node
// shared memory, or its own); none (nil) for one it cannot load and store, and for
// a dynamic window's ranks. Rank ProcNull gives the lowest rank's non-empty part.
func (w *Win) SharedQuery(rank int) ([]byte, int, error) {
	b, du, err := w.obj().SharedQuery("WinSharedQuery", rank)
	return b, du, w.fail("WinSharedQuery", err)
}

// Attach exposes mem in a dynamic window (MPI_Win_attach) and returns the
// displacement that names mem[0] to origins (MPI_Get_address of it).
func (w *Win) Attach(mem []byte) (int, error) {
	d, err := w.obj().Attach("WinAttach", mem)
	return int(d), w.fail("WinAttach", err)
}

// Detach stops exposing memory Attach exposed (MPI_Win_detach).
func (w *Win) Detach(mem []byte) error {
	return w.fail("WinDetach", w.obj().Detach("WinDetach", unsafe.Pointer(unsafe.SliceData(mem))))
}

// Free frees the window (collective; MPI_Win_free): every rank's operations complete
// first. The attributes' delete functions run before, the last set first; if one
// fails, Free returns its error and w stays, with that attribute and those set before
// it.
func (w *Win) Free() error {
	return w.fail("WinFree", w.obj().Free("WinFree"))
}

// Group returns the window's group (MPI_Win_get_group); nil for a nil or freed window.
func (w *Win) Group() *Group {
	g, err := w.obj().Group("WinGetGroup")
	if err != nil {
		return nil
	}
	return wrapGroup(g)
}

// Name is the window's name (MPI_Win_get_name); "MPI_WIN_NULL" for a nil one.
func (w *Win) Name() string { return w.obj().Name() }

// SetName names the window (MPI_Win_set_name); a name longer than MaxObjectName
// bytes is cut there.
func (w *Win) SetName(name string) error {
	return w.fail("WinSetName", w.obj().SetName("WinSetName", name))
}

// Base is this rank's memory in the window (the attribute MPI_WIN_BASE); nil for a
// dynamic window.
func (w *Win) Base() []byte {
	if w.d == nil {
		return nil
	}
	return w.d.Mem()
}

// Size is the size in bytes of this rank's memory (MPI_WIN_SIZE).
func (w *Win) Size() int { return len(w.Base()) }

// DispUnit is this rank's displacement unit (MPI_WIN_DISP_UNIT).
func (w *Win) DispUnit() int {
	if w.d == nil {
		return 0
	}
	return w.d.DispUnit()
}

// CreateFlavor is how the window was made (MPI_WIN_CREATE_FLAVOR).
func (w *Win) CreateFlavor() Flavor {
	if w.d == nil {
		return 0
	}
	return w.d.Flavor()
}

// Model is the memory model (MPI_WIN_MODEL): WinUnified.
func (w *Win) Model() int { return WinUnified }

// SetInfo sets the window's hints (MPI_Win_set_info): the keys of one-sided
// communication are recorded (alloc_shared_noncontig, which shaped the window's
// memory, keeps its value); others are ignored, as MPI allows. A nil info changes
// nothing.
func (w *Win) SetInfo(info *Info) error {
	return w.fail("WinSetInfo", w.obj().SetInfo("WinSetInfo", info.obj()))
}

// Info returns the hints in use (MPI_Win_get_info): every key mpigo knows, with its
// value; keys mpigo ignored are not among them.
func (w *Win) Info() (*Info, error) {
	in, err := w.obj().Info("WinGetInfo")
	if err != nil {
		return nil, w.fail("WinGetInfo", err)
	}
	return wrapInfo(in), nil
}

// Synchronisation.

// Fence closes the current fence epoch and opens the next, collectively
// (MPI_Win_fence); assert ModeNoSucceed opens none.
func (w *Win) Fence(assert int) error {
	return w.fail("WinFence", w.obj().Fence("WinFence", assert))
}

// Start opens an access epoch to the ranks of g, once each has posted
// (MPI_Win_start).
func (w *Win) Start(g *Group, assert int) error {
	return w.fail("WinStart", w.obj().Start("WinStart", g.obj(), assert))
}

// Complete closes the access epoch Start opened (MPI_Win_complete).
func (w *Win) Complete() error {
	return w.fail("WinComplete", w.obj().Complete("WinComplete"))
}

// Post opens an exposure epoch to the ranks of g (MPI_Win_post).
func (w *Win) Post(g *Group, assert int) error {
	return w.fail("WinPost", w.obj().Post("WinPost", g.obj(), assert))
}

// Wait closes the exposure epoch Post opened, once every origin has completed
// (MPI_Win_wait).
func (w *Win) Wait() error {
	return w.fail("WinWait", w.obj().Wait("WinWait"))
}

// Test is Wait that does not wait (MPI_Win_test): it reports whether the epoch closed.
func (w *Win) Test() (bool, error) {
	ok, err := w.obj().Test("WinTest")
	return ok, w.fail("WinTest", err)
}

// Lock opens a passive-target epoch at rank (MPI_Win_lock): LockShared or
// LockExclusive.
func (w *Win) Lock(lockType, rank, assert int) error {
	return w.fail("WinLock", w.obj().Lock("WinLock", lockType, rank, assert))
}

// Unlock closes the epoch at rank; every operation in it is complete, at the target
// too (MPI_Win_unlock).
func (w *Win) Unlock(rank int) error {
	return w.fail("WinUnlock", w.obj().Unlock("WinUnlock", rank))
}

// LockAll opens a shared passive-target epoch at every rank (MPI_Win_lock_all).
func (w *Win) LockAll(assert int) error {
	return w.fail("WinLockAll", w.obj().LockAll("WinLockAll", assert))
}

// UnlockAll closes LockAll's epoch (MPI_Win_unlock_all).
func (w *Win) UnlockAll() error {
	return w.fail("WinUnlockAll", w.obj().UnlockAll("WinUnlockAll"))
}

// Flush completes every operation to rank, at the target too (MPI_Win_flush).
func (w *Win) Flush(rank int) error {
	if w != nil && w.d.FlushDirect(rank) {
		return nil // a direct target's operations completed in their calls
	}
	return w.flush(rank)
}

func (w *Win) flush(rank int) error {
	return w.fail("WinFlush", w.obj().Flush("WinFlush", rank, false))
}

// FlushAll is Flush to every rank (MPI_Win_flush_all).
func (w *Win) FlushAll() error {
	return w.fail("WinFlushAll", w.obj().FlushAll("WinFlushAll", false))
}

// FlushLocal completes the operations to rank at this rank only: their buffers may be
// reused, or hold their results (MPI_Win_flush_local).
func (w *Win) FlushLocal(rank int) error {
	return w.fail("WinFlushLocal", w.obj().Flush("WinFlushLocal", rank, true))
}

// FlushLocalAll is FlushLocal to every rank (MPI_Win_flush_local_all).
func (w *Win) FlushLocalAll() error {
	return w.fail("WinFlushLocalAll", w.obj().FlushAll("WinFlushLocalAll", true))
}

// Sync makes this rank's own loads and stores and the window's memory agree
// (MPI_Win_sync): a memory barrier.
func (w *Win) Sync() error {
	return w.fail("WinSync", w.obj().Sync("WinSync"))
}

// Operations.

// elemType is the predefined datatype of T: a type switch for the plain element
// types (no reflection on the path of a small Put), reflection for named ones.
func elemType[T Elem]() *datatype.Type {
	var z T
	switch any(z).(type) {
	case byte:
		return datatype.Uint8
	case int64:
		return datatype.Int64
	case float64:
		return datatype.Float64
	case int32:
		return datatype.Int32
	case int:
		return datatype.Int
	}
	return elemTypeOf(reflect.TypeFor[T]().Kind())
}

// elemKind is elemType[T]().Kind() without the call for the element types
// accumulates take most.
func elemKind[T Elem]() datatype.Kind {
	var z T
	switch any(z).(type) {
	case int32:
		return datatype.KindInt32
	case float64:
		return datatype.KindFloat64
	case int64:
		return datatype.KindInt64
	case float32:
		return datatype.KindFloat32
	}
	return elemType[T]().Kind()
}

func elemTypeOf(k reflect.Kind) *datatype.Type {
	switch k {
	case reflect.Int8:
		return datatype.Int8
	case reflect.Int16:
		return datatype.Int16
	case reflect.Int32:
		return datatype.Int32
	case reflect.Int64:
		return datatype.Int64
	case reflect.Int:
		return datatype.Int
	case reflect.Uint8:
		return datatype.Uint8
	case reflect.Uint16:
		return datatype.Uint16
	case reflect.Uint32:
		return datatype.Uint32
	case reflect.Uint64, reflect.Uintptr:
		return datatype.Uint64
	case reflect.Uint:
		return datatype.Uint
	case reflect.Float32:
		return datatype.Float32
	case reflect.Float64:
		return datatype.Float64
	case reflect.Complex64:
		return datatype.Complex64
	case reflect.Complex128:
		return datatype.Complex128
	}
	return datatype.Bool
}

func slice[T Elem](s []T) window.RBuf {
	return window.RBuf{Mem: asBytes(s), Count: int64(len(s)), Type: elemType[T]()}
}

func target[T Elem](rank, disp, count int) window.Target {
	return window.Target{Rank: rank, Disp: int64(disp), Count: int64(count), Type: elemType[T]()}
}

// accOp is o as the device's accumulate operation: codeNone, which mpir refuses,
// for one that is none (a user-defined op, the zero Op).
func accOp(o Op) window.RMAOp { return o.code() }

// Put writes origin to rank's window, disp displacement units from its start, as
// len(origin) elements (MPI_Put).
func Put[T Elem](w *Win, origin []T, rank, disp int) error {
	if w != nil && w.d.PutBytes(rank, int64(disp), asBytes(origin)) {
		return nil
	}
	return put(w, origin, rank, disp)
}

// put is Put's general path, apart so that Put's short way keeps a small frame.
func put[T Elem](w *Win, origin []T, rank, disp int) error {
	o, t := slice(origin), target[T](rank, disp, len(origin))
	_, err := w.obj().Put("Put", &o, &t, false)
	return w.fail("Put", err)
}

// Get reads len(origin) elements of rank's window at disp into origin (MPI_Get).
func Get[T Elem](w *Win, origin []T, rank, disp int) error {
	if w != nil && w.d.GetBytes(rank, int64(disp), asBytes(origin)) {
		return nil
	}
	return get(w, origin, rank, disp)
}

func get[T Elem](w *Win, origin []T, rank, disp int) error {
	o, t := slice(origin), target[T](rank, disp, len(origin))
	_, err := w.obj().Get("Get", &o, &t, false)
	return w.fail("Get", err)
}

// Accumulate combines origin into rank's window at disp with op, element by element
// and atomically per element (MPI_Accumulate): a predefined op, Replace or NoOp.
func Accumulate[T Elem](w *Win, origin []T, rank, disp int, op Op) error {
	if w != nil && op.user == nil && w.d.AccBytes(rank, int64(disp), asBytes(origin), window.RMAOp(op.code()), elemKind[T]()) {
		return nil
	}
	return accumulate(w, origin, rank, disp, op)
}

func accumulate[T Elem](w *Win, origin []T, rank, disp int, op Op) error {
	o, t := slice(origin), target[T](rank, disp, len(origin))
	_, err := w.obj().Accumulate("Accumulate", &o, &t, accOp(op), false)
	return w.fail("Accumulate", err)
}

// GetAccumulate stores the target's elements in result, then combines origin into
// them with op (MPI_Get_accumulate); with NoOp it reads atomically and ignores origin
// (which may be nil).
func GetAccumulate[T Elem](w *Win, origin, result []T, rank, disp int, op Op) error {
	o, r, t := slice(origin), slice(result), target[T](rank, disp, len(result))
	_, err := w.obj().GetAccumulate("GetAccumulate", &o, &r, &t, accOp(op), false)
	return w.fail("GetAccumulate", err)
}

// FetchAndOp returns rank's element at disp and combines origin into it with op,
// atomically (MPI_Fetch_and_op).
func FetchAndOp[T Elem](w *Win, origin T, rank, disp int, op Op) (T, error) {
	if w != nil && op.user == nil && isWord[T]() {
		if old, ok := w.d.FetchWord(rank, int64(disp), *(*uint64)(unsafe.Pointer(&origin)), window.RMAOp(op.code()), prof.FetchAndOp); ok {
			return *(*T)(unsafe.Pointer(&old)), nil
		}
	}
	return fetchAndOp(w, origin, rank, disp, op)
}

func fetchAndOp[T Elem](w *Win, origin T, rank, disp int, op Op) (T, error) {
	var res T
	err := w.obj().FetchAndOp("FetchAndOp", elemBytes(&origin), elemBytes(&res), elemType[T](), rank, int64(disp), accOp(op), true)
	return res, w.fail("FetchAndOp", err)
}

// CompareAndSwap replaces rank's element at disp by origin if it equals compare, and
// returns the value it held, atomically (MPI_Compare_and_swap). T is an integer or
// bool type.
func CompareAndSwap[T Elem](w *Win, origin, compare T, rank, disp int) (T, error) {
	if w != nil && isWord[T]() {
		if old, ok := w.d.CasWord(rank, int64(disp), *(*uint64)(unsafe.Pointer(&compare)), *(*uint64)(unsafe.Pointer(&origin)), prof.CompareAndSwap); ok {
			return *(*T)(unsafe.Pointer(&old)), nil
		}
	}
	return compareAndSwap(w, origin, compare, rank, disp)
}

func compareAndSwap[T Elem](w *Win, origin, compare T, rank, disp int) (T, error) {
	var res T
	err := w.obj().CompareAndSwap("CompareAndSwap", elemBytes(&origin), elemBytes(&compare), elemBytes(&res), elemType[T](), rank, int64(disp), true)
	return res, w.fail("CompareAndSwap", err)
}

// isWord reports whether T is an 8-byte integer type, whose FetchAndOp and
// CompareAndSwap on a direct target are one atomic instruction. Named types take the
// general path.
func isWord[T Elem]() bool {
	var z T
	switch any(z).(type) {
	case int64, uint64, int, uint, uintptr:
		return true
	}
	return false
}

func elemBytes[T Elem](p *T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), unsafe.Sizeof(*p))
}

// Rput is Put returning a request that completes when origin may be reused
// (MPI_Rput); the operation is complete at the target after a Flush or the epoch's
// end.
func Rput[T Elem](w *Win, origin []T, rank, disp int) (Request, error) {
	o, t := slice(origin), target[T](rank, disp, len(origin))
	p, err := w.obj().Put("Rput", &o, &t, true)
	return Request{x: p}, w.fail("Rput", err)
}

// Rget is Get returning a request that completes when origin holds the data
// (MPI_Rget).
func Rget[T Elem](w *Win, origin []T, rank, disp int) (Request, error) {
	o, t := slice(origin), target[T](rank, disp, len(origin))
	p, err := w.obj().Get("Rget", &o, &t, true)
	return Request{x: p}, w.fail("Rget", err)
}

// Raccumulate is Accumulate returning a request (MPI_Raccumulate).
func Raccumulate[T Elem](w *Win, origin []T, rank, disp int, op Op) (Request, error) {
	o, t := slice(origin), target[T](rank, disp, len(origin))
	p, err := w.obj().Accumulate("Raccumulate", &o, &t, accOp(op), true)
	return Request{x: p}, w.fail("Raccumulate", err)
}

// RgetAccumulate is GetAccumulate returning a request that completes when result
// holds the values (MPI_Rget_accumulate).
func RgetAccumulate[T Elem](w *Win, origin, result []T, rank, disp int, op Op) (Request, error) {
	o, r, t := slice(origin), slice(result), target[T](rank, disp, len(result))
	p, err := w.obj().GetAccumulate("RgetAccumulate", &o, &r, &t, accOp(op), true)
	return Request{x: p}, w.fail("RgetAccumulate", err)
}
