package mpir

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/window"
)

// mpir's window tests run in one process, the test binary being a singleton job
// (Init with no launcher is a job of one rank): a window's one target is this rank,
// which reaches every rule of the arguments and the epochs. What needs peers is
// tested through real jobs in mpi and abi. The job starts with the first test that
// needs it (startWorld), so that the tests of what holds before Init run before it.
func TestMain(m *testing.M) {
	code := m.Run()
	if core.Initialized() {
		if err := collective.Finalize(nil); err != nil && code == 0 {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

var worldOnce sync.Once

// startWorld starts the singleton job, once.
func startWorld(t *testing.T) {
	t.Helper()
	var err error
	worldOnce.Do(func() { err = collective.Init(core.ThreadMultiple) })
	mustOK(t, err)
	if !core.Initialized() {
		t.Fatal("the singleton job did not start")
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantClassOf(t *testing.T, what string, err error, want core.ErrorClass) {
	t.Helper()
	if err == nil || core.ClassOf(err) != want {
		t.Errorf("%s: got %v (class %v), want class %v", what, err, core.ClassOf(err), want)
	}
}

// testWin makes a window of flavour f with size bytes and 8-byte units over the
// singleton's world, freed when the test ends.
func testWin(t *testing.T, f window.Flavor, size int64) *Win {
	t.Helper()
	startWorld(t)
	a := WinArgs{Flavor: f, Size: size, DispUnit: 8}
	switch f {
	case window.FlavorCreate:
		a.Mem = make([]byte, size)
	case window.FlavorDynamic:
		a.Size, a.DispUnit = 0, 1
	}
	w, err := NewWin("WinCreate", core.World, nil, ErrorsReturn, a)
	mustOK(t, err)
	t.Cleanup(func() {
		if w.Check("WinFree") == nil {
			mustOK(t, w.Free("WinFree"))
		}
	})
	return w
}

func i64s(v ...int64) *window.RBuf {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		for j := range 8 {
			b[8*i+j] = byte(x >> (8 * j))
		}
	}
	return &window.RBuf{Mem: b, Count: int64(len(v)), Type: datatype.Int64}
}

func at(rank int, disp, count int64, dt *datatype.Type) *window.Target {
	return &window.Target{Rank: rank, Disp: disp, Count: count, Type: dt}
}

// TestWinCreateErrors: a new window's arguments give the classes MPI names, and no
// window is made.
func TestWinCreateErrors(t *testing.T) {
	startWorld(t)
	for _, tc := range []struct {
		name string
		c    *core.Comm
		a    WinArgs
		want core.ErrorClass
	}{
		{"negative size", core.World, WinArgs{Flavor: window.FlavorAllocate, Size: -1, DispUnit: 1}, core.ClassSize},
		{"disp unit 0", core.World, WinArgs{Flavor: window.FlavorAllocate, Size: 8, DispUnit: 0}, core.ClassDisp},
		{"disp unit past int", core.World, WinArgs{Flavor: window.FlavorAllocate, Size: 8, DispUnit: 1 << 31}, core.ClassDisp},
		{"nil communicator", nil, WinArgs{Flavor: window.FlavorAllocate, Size: 8, DispUnit: 1}, core.ClassComm},
	} {
		w, err := NewWin("WinAllocate", tc.c, nil, ErrorsReturn, tc.a)
		if w != nil {
			t.Errorf("%s: a window was made", tc.name)
		}
		wantClassOf(t, tc.name, err, tc.want)
	}
}

// TestWinOperationErrors: an operation's arguments, checked before the device
// sees them, give the classes MPI 4.1 sections 12.3 and 12.4 name; MPI_PROC_NULL
// makes the call do nothing, whatever else it is given.
func TestWinOperationErrors(t *testing.T) {
	w := testWin(t, window.FlavorAllocate, 32)
	put := func(o *window.RBuf, tg *window.Target) error { _, err := w.Put("Put", o, tg, false); return err }
	acc := func(o *window.RBuf, tg *window.Target, op window.RMAOp) error {
		_, err := w.Accumulate("Accumulate", o, tg, op, false)
		return err
	}
	wantClassOf(t, "Put outside an epoch", put(i64s(1), at(0, 0, 1, datatype.Int64)), core.ClassRMASync)
	mustOK(t, w.Lock("WinLock", window.LockShared, 0, 0))
	for _, tc := range []struct {
		name string
		err  error
		want core.ErrorClass
	}{
		{"Put to rank 1", put(i64s(1), at(1, 0, 1, datatype.Int64)), core.ClassRank},
		{"negative target count", put(i64s(1), at(0, 0, -1, datatype.Int64)), core.ClassCount},
		{"null target datatype", put(i64s(1), at(0, 0, 1, nil)), core.ClassType},
		{"negative displacement", put(i64s(1), at(0, -1, 1, datatype.Int64)), core.ClassDisp},
		{"signatures of different sizes", put(i64s(1, 2), at(0, 0, 1, datatype.Int64)), core.ClassType},
		{"origin past its buffer", put(&window.RBuf{Mem: make([]byte, 4), Count: 1, Type: datatype.Int64}, at(0, 0, 1, datatype.Int64)), core.ClassBuffer},
		{"Put past the window", put(i64s(1), at(0, 4, 1, datatype.Int64)), core.ClassRMARange},
		{"a user-defined op", acc(i64s(1), at(0, 0, 1, datatype.Int64), 0), core.ClassOp},
		{"Band on float64", acc(&window.RBuf{Mem: make([]byte, 8), Count: 1, Type: datatype.Float64}, at(0, 0, 1, datatype.Float64), OpBand), core.ClassOp},
		{"origin and target of different kinds", acc(&window.RBuf{Mem: make([]byte, 8), Count: 1, Type: datatype.Float64}, at(0, 0, 1, datatype.Int64), OpSum), core.ClassType},
		{"Compare_and_swap on float64", w.CompareAndSwap("CompareAndSwap", make([]byte, 8), make([]byte, 8), make([]byte, 8), datatype.Float64, 0, 0, true), core.ClassType},
		{"Fetch_and_op's result too small", w.FetchAndOp("FetchAndOp", make([]byte, 8), make([]byte, 4), datatype.Int64, 0, 0, OpSum, true), core.ClassBuffer},
	} {
		wantClassOf(t, tc.name, tc.err, tc.want)
	}
	// MPI_PROC_NULL: nothing is looked at, not even a null datatype.
	mustOK(t, put(&window.RBuf{}, at(core.ProcNull, -5, -1, nil)))
	if p, err := w.Put("Rput", &window.RBuf{}, at(core.ProcNull, 0, 1, nil), true); err != nil || p == nil {
		t.Errorf("Rput to MPI_PROC_NULL: %v, %v; want a completed request", p, err)
	}
	// An accumulate of no bytes combines nothing: a zero-size derived type takes
	// any predefined op, on any elements.
	empty, err := datatype.Contiguous(0, datatype.Float64)
	mustOK(t, err)
	mustOK(t, empty.Commit())
	mustOK(t, acc(&window.RBuf{Count: 1, Type: empty}, at(0, 0, 1, empty), OpBand))
	res := &window.RBuf{Count: 3, Type: empty}
	_, err = w.GetAccumulate("GetAccumulate", nil, res, at(0, 0, 1, empty), OpNoOp, false)
	mustOK(t, err)
	// With MPI_NO_OP, Get_accumulate's origin is not looked at.
	r := i64s(0)
	_, err = w.GetAccumulate("GetAccumulate", &window.RBuf{Count: -7}, r, at(0, 0, 1, datatype.Int64), OpNoOp, false)
	mustOK(t, err)
	mustOK(t, w.Unlock("WinUnlock", 0))
}

// TestWinEpochErrors: the synchronisation calls' arguments and epochs give the
// classes MPI 4.1 section 12.5 names: out of order MPI_ERR_RMA_SYNC, two kinds of
// access epoch at once MPI_ERR_RMA_CONFLICT.
func TestWinEpochErrors(t *testing.T) {
	w := testWin(t, window.FlavorAllocate, 16)
	g, err := w.Group("WinGetGroup")
	mustOK(t, err)
	check := func(name string, err error, want core.ErrorClass) {
		t.Helper()
		wantClassOf(t, name, err, want)
	}
	check("Unlock without Lock", w.Unlock("WinUnlock", 0), core.ClassRMASync)
	check("UnlockAll without LockAll", w.UnlockAll("WinUnlockAll"), core.ClassRMASync)
	check("Complete without Start", w.Complete("WinComplete"), core.ClassRMASync)
	check("Wait without Post", w.Wait("WinWait"), core.ClassRMASync)
	check("Flush outside a lock", w.Flush("WinFlush", 0, false), core.ClassRMASync)
	check("FlushAll outside a lock", w.FlushAll("WinFlushAll", true), core.ClassRMASync)
	check("lock type 0", w.Lock("WinLock", 0, 0, 0), core.ClassLocktype)
	check("Lock of rank 1", w.Lock("WinLock", window.LockShared, 1, 0), core.ClassRank)
	check("Fence with a lock's assertion", w.Fence("WinFence", window.ModeNoCheck), core.ClassAssert)
	check("Lock with Fence's assertion", w.Lock("WinLock", window.LockShared, 0, window.ModeNoPrecede), core.ClassAssert)
	check("Start of a null group", w.Start("WinStart", nil, 0), core.ClassGroup)
	mustOK(t, w.Lock("WinLock", window.LockShared, core.ProcNull, 0)) // does nothing
	mustOK(t, w.Flush("WinFlush", core.ProcNull, false))

	mustOK(t, w.Lock("WinLock", window.LockShared, 0, 0))
	check("Lock twice", w.Lock("WinLock", window.LockShared, 0, 0), core.ClassRMASync)
	check("LockAll inside Lock", w.LockAll("WinLockAll", 0), core.ClassRMASync)
	check("Fence inside Lock", w.Fence("WinFence", 0), core.ClassRMAConflict)
	check("Start inside Lock", w.Start("WinStart", g, 0), core.ClassRMAConflict)
	mustOK(t, w.Unlock("WinUnlock", 0))

	mustOK(t, w.LockAll("WinLockAll", 0))
	check("Unlock of LockAll", w.Unlock("WinUnlock", 0), core.ClassRMASync)
	mustOK(t, w.FlushAll("WinFlushAll", false))
	mustOK(t, w.UnlockAll("WinUnlockAll"))

	mustOK(t, w.Post("WinPost", g, 0))
	check("Post twice", w.Post("WinPost", g, 0), core.ClassRMASync)
	mustOK(t, w.Start("WinStart", g, 0))
	check("Start twice", w.Start("WinStart", g, 0), core.ClassRMASync)
	check("Lock inside Start", w.Lock("WinLock", window.LockShared, 0, 0), core.ClassRMAConflict)
	check("Fence inside Start", w.Fence("WinFence", 0), core.ClassRMAConflict)
	mustOK(t, w.Complete("WinComplete"))
	if done, err := w.Test("WinTest"); err != nil || !done {
		t.Errorf("Test after this rank's Complete: %v, %v; want true", done, err)
	}
	mustOK(t, w.Fence("WinFence", 0))
	mustOK(t, w.Fence("WinFence", window.ModeNoSucceed))
}

// TestWinSharedQuery: MPI_Win_shared_query answers for every flavour (MPI 4.1): this
// rank's own memory with its size and unit; none for a dynamic window's; the lowest
// non-empty part for MPI_PROC_NULL; MPI_ERR_RANK outside the group.
func TestWinSharedQuery(t *testing.T) {
	for _, f := range []window.Flavor{window.FlavorCreate, window.FlavorAllocate, window.FlavorShared, window.FlavorDynamic} {
		w := testWin(t, f, 24)
		want, unit := 24, 8
		if f == window.FlavorDynamic {
			want, unit = 0, 1
		}
		for _, r := range []int{0, core.ProcNull} {
			mem, u, err := w.SharedQuery("WinSharedQuery", r)
			if err != nil || len(mem) != want || u != unit {
				t.Errorf("%v: SharedQuery(%d) = %d bytes, unit %d, %v; want %d, %d", f, r, len(mem), u, err, want, unit)
			}
			if want > 0 && &mem[0] != &w.Predefined().Base[0] {
				t.Errorf("%v: SharedQuery(%d) is not the window's memory", f, r)
			}
		}
		_, _, err := w.SharedQuery("WinSharedQuery", 1)
		wantClassOf(t, fmt.Sprintf("%v: SharedQuery of rank 1", f), err, core.ClassRank)
	}
}

// TestWinObject: a window's name (cut at MPI_MAX_OBJECT_NAME), its group, its
// info, attach on a window that is not dynamic, and attributes whose delete
// function keeps the window from being freed until it succeeds.
func TestWinObject(t *testing.T) {
	w := testWin(t, window.FlavorAllocate, 8)
	if (*Win)(nil).Name() != "MPI_WIN_NULL" || w.Name() != "" {
		t.Errorf("names: %q and %q, want MPI_WIN_NULL and empty", (*Win)(nil).Name(), w.Name())
	}
	mustOK(t, w.SetName("WinSetName", strings.Repeat("x", 200)))
	if n := len(w.Name()); n != MaxObjectName {
		t.Errorf("a 200-byte name is kept as %d bytes, want %d", n, MaxObjectName)
	}
	if !strings.Contains(w.What(), "window x") {
		t.Errorf("What: %q", w.What())
	}
	g, err := w.Group("WinGetGroup")
	mustOK(t, err)
	if g.Size() != 1 {
		t.Errorf("the group has %d members, want 1", g.Size())
	}
	in, err := w.Info("WinGetInfo")
	mustOK(t, err)
	if v, ok, err := in.Get("no_locks"); !ok || v != "false" || err != nil {
		t.Errorf("no_locks in effect: %q %v %v, want false", v, ok, err)
	}
	mustOK(t, w.SetInfo("WinSetInfo", nil))
	_, err = w.Attach("WinAttach", make([]byte, 8))
	wantClassOf(t, "Attach to an allocated window", err, core.ClassRMAFlavor)

	refuse := true
	k := NewKeyval(AttrWin, nil, func(obj any, k *Keyval, val any) error {
		if obj != "handle" {
			t.Errorf("the delete function got %v, want the face's handle", obj)
		}
		if refuse {
			return errors.New("not yet")
		}
		return nil
	}, nil)
	w.Handle = "handle"
	mustOK(t, w.SetAttr("WinSetAttr", k, 5))
	if v, ok, err := w.Attr("WinGetAttr", k); err != nil || !ok || v != 5 {
		t.Errorf("Attr: %v %v %v, want 5", v, ok, err)
	}
	if v, ok, err := w.Attr("WinGetAttr", KeyWinSize); err != nil || !ok || v != 8 {
		t.Errorf("MPI_WIN_SIZE: %v %v %v, want 8", v, ok, err)
	}
	if err := w.Free("WinFree"); err == nil || w.Check("WinFence") != nil {
		t.Fatalf("Free with a failing delete function: %v; the window must stay", err)
	}
	refuse = false
	mustOK(t, w.Free("WinFree"))
	wantClassOf(t, "Fence on a freed window", w.Fence("WinFence", 0), core.ClassWin)
	wantClassOf(t, "Fence on MPI_WIN_NULL", (*Win)(nil).Fence("WinFence", 0), core.ClassWin)
}
