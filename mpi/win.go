package mpi

import (
	"reflect"
	"sync"
	"sync/atomic"
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
// 8-byte Put plus Flush costs about what a store and a fence do). Targets on other
// nodes (and every target of WinCreate and WinCreateDynamic windows, whose memory is
// the owner's Go memory) get the operations shipped to a progress goroutine of
// theirs, which applies them while the target's program computes. Memory a window
// gives out (WinAllocate's, SharedQuery's) must not be used after Free.
//
// A window's error handler is ErrorsReturn until SetErrHandler changes it.
type Win struct {
	d *window.Win

	mu    sync.Mutex
	errh  mpir.Errh   // ErrorsReturn until SetErrHandler
	attrs mpir.Attrs  // win_errh.go
	hints *mpir.Hints // the info hints in effect

	lastGroup atomic.Pointer[groupRanks] // ranksOf's last translation

	s *mpir.Session // the owner of the window's communicator (see Group)
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

func newWin(op string, c *Comm, info *Info, a window.Args) (*Win, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	hints, err := mpir.NewWinHints(op, info.obj())
	if err != nil {
		return nil, c.fail(op, err)
	}
	hints.ShapeWin(&a)
	d, err := window.Create(c.d, op, a)
	if err != nil {
		return nil, c.fail(op, err)
	}
	return &Win{d: d, hints: hints, s: c.s}, nil
}

// WinCreate exposes mem, memory this rank owns, in a new window over c (collective;
// MPI_Win_create). dispUnit is the bytes one displacement unit of this rank stands
// for (the element size, typically). The memory stays the caller's, and every
// operation on it is applied by this rank's progress goroutine.
func WinCreate(mem []byte, dispUnit int, info *Info, c *Comm) (*Win, error) {
	defer prof.Exit(prof.WinCreate, c.enter(prof.WinCreate, prof.NoPeer, 0), 0)
	return newWin("WinCreate", c, info, window.Args{Flavor: window.FlavorCreate, Size: int64(len(mem)), DispUnit: dispUnit, Mem: mem})
}

// WinAllocate makes a window over c (collective) whose size bytes on this rank mpigo
// allocates, in node shared memory where the node's ranks map it, and returns them
// (MPI_Win_allocate). The memory is valid until Free.
func WinAllocate(size, dispUnit int, info *Info, c *Comm) (*Win, []byte, error) {
	defer prof.Exit(prof.WinAllocate, c.enter(prof.WinAllocate, prof.NoPeer, 0), 0)
	w, err := newWin("WinAllocate", c, info, window.Args{Flavor: window.FlavorAllocate, Size: int64(size), DispUnit: dispUnit})
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
	defer prof.Exit(prof.WinAllocateShared, c.enter(prof.WinAllocateShared, prof.NoPeer, 0), 0)
	w, err := newWin("WinAllocateShared", c, info, window.Args{Flavor: window.FlavorShared, Size: int64(size), DispUnit: dispUnit})
	if err != nil {
		return nil, nil, err
	}
	return w, w.d.Mem(), nil
}

// WinCreateDynamic makes a window over c with no memory (collective;
// MPI_Win_create_dynamic): Attach exposes memory, and origins address it by the
// displacement Attach returns (its address, which the owner tells them).
func WinCreateDynamic(info *Info, c *Comm) (*Win, error) {
	defer prof.Exit(prof.WinCreateDynamic, c.enter(prof.WinCreateDynamic, prof.NoPeer, 0), 0)
	return newWin("WinCreateDynamic", c, info, window.Args{Flavor: window.FlavorDynamic, DispUnit: 1})
}

// dev is w's device window, nil for a nil w.
func (w *Win) dev() *window.Win {
	if w == nil {
		return nil
	}
	return w.d
}

// SharedQuery returns rank's memory in a shared window, and its displacement unit
// (MPI_Win_shared_query); rank ProcNull gives the lowest rank's non-empty part.
func (w *Win) SharedQuery(rank int) ([]byte, int, error) {
	b, du, err := w.dev().SharedQuery("WinSharedQuery", rank)
	return b, du, w.fail("WinSharedQuery", err)
}

// Attach exposes mem in a dynamic window (MPI_Win_attach) and returns the
// displacement that names mem[0] to origins (MPI_Get_address of it).
func (w *Win) Attach(mem []byte) (int, error) {
	defer prof.Exit(prof.WinAttach, w.enter(prof.WinAttach, prof.NoPeer, len(mem)), len(mem))
	d, err := w.dev().Attach("WinAttach", mem)
	return int(d), w.fail("WinAttach", err)
}

// Detach stops exposing memory Attach exposed (MPI_Win_detach).
func (w *Win) Detach(mem []byte) error {
	defer prof.Exit(prof.WinDetach, w.enter(prof.WinDetach, prof.NoPeer, len(mem)), len(mem))
	return w.fail("WinDetach", w.dev().Detach("WinDetach", mem))
}

// Free frees the window (collective; MPI_Win_free): every rank's operations complete
// first. The attributes' delete functions run before, the last set first; if one
// fails, Free returns its error and w stays, with that attribute and those set before
// it.
func (w *Win) Free() error {
	defer prof.Exit(prof.WinFree, w.enterSync(prof.WinFree, prof.NoPeer), 0)
	if err := w.dev().Check("WinFree"); err != nil {
		return w.fail("WinFree", err)
	}
	if err := mpir.FreeAttrs("WinFree", &w.attrs, w); err != nil {
		return w.fail("WinFree", err) // w stays, with the attributes not deleted
	}
	return w.fail("WinFree", w.d.Free("WinFree"))
}

// Group returns the window's group (MPI_Win_get_group); nil for a nil or freed window.
func (w *Win) Group() *Group {
	if w.dev().Check("WinGetGroup") != nil {
		return nil
	}
	return wrapGroup(mpir.NewGroup(w.d.Comm().Group(), w.s))
}

// Name is the window's name (MPI_Win_get_name); "MPI_WIN_NULL" for a nil one.
func (w *Win) Name() string {
	if w == nil {
		return "MPI_WIN_NULL"
	}
	return w.d.Name()
}

// SetName names the window (MPI_Win_set_name).
func (w *Win) SetName(name string) error {
	if err := w.dev().Check("WinSetName"); err != nil {
		return w.fail("WinSetName", err)
	}
	w.d.SetName(name)
	return nil
}

// Base is this rank's memory in the window (the attribute MPI_WIN_BASE); nil for a
// dynamic window.
func (w *Win) Base() []byte {
	if w.dev() == nil {
		return nil
	}
	return w.d.Mem()
}

// Size is the size in bytes of this rank's memory (MPI_WIN_SIZE).
func (w *Win) Size() int { return len(w.Base()) }

// DispUnit is this rank's displacement unit (MPI_WIN_DISP_UNIT).
func (w *Win) DispUnit() int {
	if w.dev() == nil {
		return 0
	}
	return w.d.DispUnit()
}

// CreateFlavor is how the window was made (MPI_WIN_CREATE_FLAVOR).
func (w *Win) CreateFlavor() Flavor {
	if w.dev() == nil {
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
	if err := w.dev().Check("WinSetInfo"); err != nil {
		return w.fail("WinSetInfo", err)
	}
	return w.fail("WinSetInfo", w.hints.Set("WinSetInfo", info.obj()))
}

// Info returns the hints in use (MPI_Win_get_info): every key mpigo knows, with its
// value; keys mpigo ignored are not among them.
func (w *Win) Info() (*Info, error) {
	if err := w.dev().Check("WinGetInfo"); err != nil {
		return nil, w.fail("WinGetInfo", err)
	}
	return wrapInfo(w.hints.Info()), nil
}

// Synchronisation.

// Fence closes the current fence epoch and opens the next, collectively
// (MPI_Win_fence); assert ModeNoSucceed opens none.
func (w *Win) Fence(assert int) error {
	defer prof.Exit(prof.Fence, w.enterSync(prof.Fence, prof.NoPeer), 0)
	return w.fail("WinFence", w.dev().Fence("WinFence", assert))
}

// ranksOf translates g into ranks of the window. Groups never change, so the last
// translation is kept: an epoch loop that starts (or posts to) one group translates
// it once.
func (w *Win) ranksOf(op string, g *Group) ([]int, error) {
	if last := w.lastGroup.Load(); last != nil && g != nil && last.g == g {
		return last.ranks, nil
	}
	rs, err := mpir.RanksIn(op, g.obj(), w.s, w.d.Comm().Group())
	if err == nil {
		w.lastGroup.Store(&groupRanks{g, rs})
	}
	return rs, err
}

type groupRanks struct {
	g     *Group
	ranks []int
}

// Start opens an access epoch to the ranks of g, once each has posted
// (MPI_Win_start).
func (w *Win) Start(g *Group, assert int) error {
	defer prof.Exit(prof.WinStart, w.enterSync(prof.WinStart, prof.NoPeer), 0)
	if err := w.dev().Check("WinStart"); err != nil {
		return w.fail("WinStart", err)
	}
	rs, err := w.ranksOf("WinStart", g)
	if err != nil {
		return w.fail("WinStart", err)
	}
	return w.fail("WinStart", w.d.Start("WinStart", rs, assert))
}

// Complete closes the access epoch Start opened (MPI_Win_complete).
func (w *Win) Complete() error {
	defer prof.Exit(prof.Complete, w.enterSync(prof.Complete, prof.NoPeer), 0)
	return w.fail("WinComplete", w.dev().Complete("WinComplete"))
}

// Post opens an exposure epoch to the ranks of g (MPI_Win_post).
func (w *Win) Post(g *Group, assert int) error {
	defer prof.Exit(prof.Post, w.enterSync(prof.Post, prof.NoPeer), 0)
	if err := w.dev().Check("WinPost"); err != nil {
		return w.fail("WinPost", err)
	}
	rs, err := w.ranksOf("WinPost", g)
	if err != nil {
		return w.fail("WinPost", err)
	}
	return w.fail("WinPost", w.d.Post("WinPost", rs, assert))
}

// Wait closes the exposure epoch Post opened, once every origin has completed
// (MPI_Win_wait).
func (w *Win) Wait() error {
	defer prof.Exit(prof.WinWait, w.enterSync(prof.WinWait, prof.NoPeer), 0)
	_, err := w.dev().Wait("WinWait", false)
	return w.fail("WinWait", err)
}

// Test is Wait that does not wait (MPI_Win_test): it reports whether the epoch closed.
func (w *Win) Test() (bool, error) {
	defer prof.Exit(prof.WinTest, w.enterSync(prof.WinTest, prof.NoPeer), 0)
	ok, err := w.dev().Wait("WinTest", true)
	return ok, w.fail("WinTest", err)
}

// Lock opens a passive-target epoch at rank (MPI_Win_lock): LockShared or
// LockExclusive.
func (w *Win) Lock(lockType, rank, assert int) error {
	defer prof.Exit(prof.Lock, w.enterSync(prof.Lock, rank), 0)
	return w.fail("WinLock", w.dev().Lock("WinLock", lockType, rank, assert))
}

// Unlock closes the epoch at rank; every operation in it is complete, at the target
// too (MPI_Win_unlock).
func (w *Win) Unlock(rank int) error {
	defer prof.Exit(prof.Unlock, w.enterSync(prof.Unlock, rank), 0)
	return w.fail("WinUnlock", w.dev().Unlock("WinUnlock", rank))
}

// LockAll opens a shared passive-target epoch at every rank (MPI_Win_lock_all).
func (w *Win) LockAll(assert int) error {
	defer prof.Exit(prof.LockAll, w.enterSync(prof.LockAll, prof.NoPeer), 0)
	return w.fail("WinLockAll", w.dev().LockAll("WinLockAll", assert))
}

// UnlockAll closes LockAll's epoch (MPI_Win_unlock_all).
func (w *Win) UnlockAll() error {
	defer prof.Exit(prof.UnlockAll, w.enterSync(prof.UnlockAll, prof.NoPeer), 0)
	return w.fail("WinUnlockAll", w.dev().UnlockAll("WinUnlockAll"))
}

// Flush completes every operation to rank, at the target too (MPI_Win_flush).
func (w *Win) Flush(rank int) error {
	if w != nil && w.d.FlushDirect(rank) {
		prof.Done(prof.WinFlush, 0)
		return nil // a direct target's operations completed in their calls
	}
	return w.flush(rank)
}

func (w *Win) flush(rank int) error {
	defer prof.Exit(prof.WinFlush, w.enterSync(prof.WinFlush, rank), 0)
	return w.fail("WinFlush", w.dev().Flush("WinFlush", rank, false))
}

// FlushAll is Flush to every rank (MPI_Win_flush_all).
func (w *Win) FlushAll() error {
	defer prof.Exit(prof.FlushAll, w.enterSync(prof.FlushAll, prof.NoPeer), 0)
	return w.fail("WinFlushAll", w.dev().FlushAll("WinFlushAll", false))
}

// FlushLocal completes the operations to rank at this rank only: their buffers may be
// reused, or hold their results (MPI_Win_flush_local).
func (w *Win) FlushLocal(rank int) error {
	defer prof.Exit(prof.FlushLocal, w.enterSync(prof.FlushLocal, rank), 0)
	return w.fail("WinFlushLocal", w.dev().Flush("WinFlushLocal", rank, true))
}

// FlushLocalAll is FlushLocal to every rank (MPI_Win_flush_local_all).
func (w *Win) FlushLocalAll() error {
	defer prof.Exit(prof.FlushLocalAll, w.enterSync(prof.FlushLocalAll, prof.NoPeer), 0)
	return w.fail("WinFlushLocalAll", w.dev().FlushAll("WinFlushLocalAll", true))
}

// Sync makes this rank's own loads and stores and the window's memory agree
// (MPI_Win_sync): a memory barrier.
func (w *Win) Sync() error {
	defer prof.Exit(prof.Sync, w.enterSync(prof.Sync, prof.NoPeer), 0)
	return w.fail("WinSync", w.dev().Sync("WinSync"))
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

// accOp is o as the device's accumulate operation.
func accOp(name string, o Op) (window.RMAOp, error) {
	if o.user != nil {
		return 0, errorf(ClassOp, name, "one-sided accumulates take predefined ops only (MPI forbids user ops): got %v", o)
	}
	if o.code() == codeNone {
		return 0, errorf(ClassOp, name, "op is the zero Op (use Sum, Max, Replace, NoOp, ...)")
	}
	return window.RMAOp(o.code()), nil
}

// Put writes origin to rank's window, disp displacement units from its start, as
// len(origin) elements (MPI_Put).
func Put[T Elem](w *Win, origin []T, rank, disp int) error {
	if w != nil && w.d.PutBytes(rank, int64(disp), asBytes(origin)) {
		prof.Done(prof.Put, nbytes(origin))
		return nil
	}
	return put(w, origin, rank, disp)
}

func put[T Elem](w *Win, origin []T, rank, disp int) error {
	defer prof.Exit(prof.Put, w.enter(prof.Put, rank, nbytes(origin)), nbytes(origin))
	o, t := slice(origin), target[T](rank, disp, len(origin))
	return w.fail("Put", w.dev().Put("Put", &o, &t))
}

// Get reads len(origin) elements of rank's window at disp into origin (MPI_Get).
func Get[T Elem](w *Win, origin []T, rank, disp int) error {
	if w != nil && w.d.GetBytes(rank, int64(disp), asBytes(origin)) {
		prof.Done(prof.Get, nbytes(origin))
		return nil
	}
	return get(w, origin, rank, disp)
}

func get[T Elem](w *Win, origin []T, rank, disp int) error {
	defer prof.Exit(prof.Get, w.enter(prof.Get, rank, nbytes(origin)), nbytes(origin))
	o, t := slice(origin), target[T](rank, disp, len(origin))
	return w.fail("Get", w.dev().Get("Get", &o, &t))
}

// Accumulate combines origin into rank's window at disp with op, element by element
// and atomically per element (MPI_Accumulate): a predefined op, Replace or NoOp.
func Accumulate[T Elem](w *Win, origin []T, rank, disp int, op Op) error {
	if w != nil && op.user == nil && w.d.AccBytes(rank, int64(disp), asBytes(origin), window.RMAOp(op.code()), elemKind[T]()) {
		prof.Done(prof.Accumulate, nbytes(origin))
		return nil
	}
	defer prof.Exit(prof.Accumulate, w.enter(prof.Accumulate, rank, nbytes(origin)), nbytes(origin))
	o, t := slice(origin), target[T](rank, disp, len(origin))
	k, err := accOp("Accumulate", op)
	if err != nil {
		return w.fail("Accumulate", err)
	}
	return w.fail("Accumulate", w.dev().Accumulate("Accumulate", &o, &t, k))
}

// GetAccumulate stores the target's elements in result, then combines origin into
// them with op (MPI_Get_accumulate); with NoOp it reads atomically and ignores origin
// (which may be nil).
func GetAccumulate[T Elem](w *Win, origin, result []T, rank, disp int, op Op) error {
	defer prof.Exit(prof.GetAccumulate, w.enter(prof.GetAccumulate, rank, nbytes(origin)), nbytes(origin))
	o, r, t := slice(origin), slice(result), target[T](rank, disp, len(result))
	k, err := accOp("GetAccumulate", op)
	if err != nil {
		return w.fail("GetAccumulate", err)
	}
	if op.code() == codeNoOp {
		o = r
	}
	return w.fail("GetAccumulate", w.dev().GetAccumulate("GetAccumulate", &o, &r, &t, k))
}

// FetchAndOp returns rank's element at disp and combines origin into it with op,
// atomically (MPI_Fetch_and_op).
func FetchAndOp[T Elem](w *Win, origin T, rank, disp int, op Op) (T, error) {
	if w != nil && op.user == nil && isWord[T]() {
		if old, ok := w.d.FetchWord(rank, int64(disp), *(*uint64)(unsafe.Pointer(&origin)), window.RMAOp(op.code())); ok {
			prof.Done(prof.FetchAndOp, esize[T]())
			return *(*T)(unsafe.Pointer(&old)), nil
		}
	}
	return fetchAndOp(w, origin, rank, disp, op)
}

func fetchAndOp[T Elem](w *Win, origin T, rank, disp int, op Op) (T, error) {
	defer prof.Exit(prof.FetchAndOp, w.enter(prof.FetchAndOp, rank, esize[T]()), esize[T]())
	var res T
	k, err := accOp("FetchAndOp", op)
	if err != nil {
		return res, w.fail("FetchAndOp", err)
	}
	err = w.dev().FetchAndOp("FetchAndOp", elemBytes(&origin), elemBytes(&res), elemType[T](), rank, int64(disp), k)
	return res, w.fail("FetchAndOp", err)
}

// CompareAndSwap replaces rank's element at disp by origin if it equals compare, and
// returns the value it held, atomically (MPI_Compare_and_swap). T is an integer or
// bool type.
func CompareAndSwap[T Elem](w *Win, origin, compare T, rank, disp int) (T, error) {
	if w != nil && isWord[T]() {
		if old, ok := w.d.CasWord(rank, int64(disp), *(*uint64)(unsafe.Pointer(&compare)), *(*uint64)(unsafe.Pointer(&origin))); ok {
			prof.Done(prof.CompareAndSwap, esize[T]())
			return *(*T)(unsafe.Pointer(&old)), nil
		}
	}
	return compareAndSwap(w, origin, compare, rank, disp)
}

func compareAndSwap[T Elem](w *Win, origin, compare T, rank, disp int) (T, error) {
	defer prof.Exit(prof.CompareAndSwap, w.enter(prof.CompareAndSwap, rank, esize[T]()), esize[T]())
	var res T
	err := w.dev().CompareAndSwap("CompareAndSwap", elemBytes(&origin), elemBytes(&compare), elemBytes(&res), elemType[T](), rank, int64(disp))
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
	defer prof.Exit(prof.Rput, w.enter(prof.Rput, rank, nbytes(origin)), nbytes(origin))
	o, t := slice(origin), target[T](rank, disp, len(origin))
	p, err := w.dev().Rput("Rput", &o, &t)
	return Request{x: p}, w.fail("Rput", err)
}

// Rget is Get returning a request that completes when origin holds the data
// (MPI_Rget).
func Rget[T Elem](w *Win, origin []T, rank, disp int) (Request, error) {
	defer prof.Exit(prof.Rget, w.enter(prof.Rget, rank, nbytes(origin)), nbytes(origin))
	o, t := slice(origin), target[T](rank, disp, len(origin))
	p, err := w.dev().Rget("Rget", &o, &t)
	return Request{x: p}, w.fail("Rget", err)
}

// Raccumulate is Accumulate returning a request (MPI_Raccumulate).
func Raccumulate[T Elem](w *Win, origin []T, rank, disp int, op Op) (Request, error) {
	defer prof.Exit(prof.Raccumulate, w.enter(prof.Raccumulate, rank, nbytes(origin)), nbytes(origin))
	o, t := slice(origin), target[T](rank, disp, len(origin))
	k, err := accOp("Raccumulate", op)
	if err != nil {
		return Request{}, w.fail("Raccumulate", err)
	}
	p, err := w.dev().Raccumulate("Raccumulate", &o, &t, k)
	return Request{x: p}, w.fail("Raccumulate", err)
}

// RgetAccumulate is GetAccumulate returning a request that completes when result
// holds the values (MPI_Rget_accumulate).
func RgetAccumulate[T Elem](w *Win, origin, result []T, rank, disp int, op Op) (Request, error) {
	defer prof.Exit(prof.RgetAccumulate, w.enter(prof.RgetAccumulate, rank, nbytes(origin)), nbytes(origin))
	o, r, t := slice(origin), slice(result), target[T](rank, disp, len(result))
	k, err := accOp("RgetAccumulate", op)
	if err != nil {
		return Request{}, w.fail("RgetAccumulate", err)
	}
	if op.code() == codeNoOp {
		o = r
	}
	p, err := w.dev().RgetAccumulate("RgetAccumulate", &o, &r, &t, k)
	return Request{x: p}, w.fail("RgetAccumulate", err)
}
