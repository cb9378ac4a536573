package window

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/ntcopy"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/rma"
	"golang.org/x/sys/unix"
)

// The window package's own tests run in one process: the test binary is a singleton
// job (Init with no launcher is a job of one rank, pm.Singleton), whose windows
// have one target, this rank. That reaches every path that needs no second process:
// creation of each flavour, the epochs and their errors, the short ways and the
// general path to a direct target, and the shipped path (a dynamic window ships even
// to its own rank, through the progress goroutine). What needs peers (other nodes,
// lock contention, a dead holder) is tested through real jobs in mpi and abi.
func TestMain(m *testing.M) {
	if err := collective.Init(core.ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := collective.Finalize(nil); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

func class(err error) core.ErrorClass { return core.ClassOf(err) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantClass(t *testing.T, what string, err error, want core.ErrorClass) {
	t.Helper()
	if err == nil || class(err) != want {
		t.Errorf("%s: got %v (class %v), want class %v", what, err, class(err), want)
	}
}

func newWin(t *testing.T, f Flavor, size int64) *Win {
	t.Helper()
	a := Args{Flavor: f, Size: size, DispUnit: 8}
	switch f {
	case FlavorCreate:
		a.Mem = make([]byte, size)
	case FlavorDynamic:
		a.Size, a.DispUnit = 0, 1
	}
	w, err := Create(core.World, "WinCreate", a)
	must(t, err)
	t.Cleanup(func() {
		if w.Check("Free") == nil {
			must(t, w.Free("Free"))
		}
	})
	return w
}

func word(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) }

func bytesOf(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

// TestCreateFlavors: each flavour makes a window of one target, this rank, whose
// memory and attributes are what was asked; Free closes it to every later call.
func TestCreateFlavors(t *testing.T) {
	for _, tc := range []struct {
		f        Flavor
		size     int64
		inRegion bool // node shared memory: a shared window's always (a memfd needs no transport)
	}{
		{FlavorCreate, 64, false},
		{FlavorAllocate, 64, false}, // a singleton has no shared-memory transport
		{FlavorShared, 64, true},
		{FlavorDynamic, 0, false},
	} {
		t.Run(tc.f.String(), func(t *testing.T) {
			w := newWin(t, tc.f, tc.size)
			if w.Flavor() != tc.f || w.Size() != 1 || w.Rank() != 0 || len(w.Mem()) != int(tc.size) {
				t.Errorf("flavor %v size %d rank %d mem %d; want %v, 1, 0, %d", w.Flavor(), w.Size(), w.Rank(), len(w.Mem()), tc.f, tc.size)
			}
			if w.InRegion() != tc.inRegion {
				t.Errorf("InRegion %v, want %v", w.InRegion(), tc.inRegion)
			}
			if w.Comm() == core.World || w.Comm().Size() != 1 {
				t.Errorf("the window's communicator is %p (World %p), size %d: want a duplicate of World", w.Comm(), core.World, w.Comm().Size())
			}
			if !w.Unified() {
				t.Error("Unified: windows are of the unified memory model")
			}
			w.SetName("w")
			if w.Name() != "w" {
				t.Errorf("Name %q after SetName(w)", w.Name())
			}
			if r := w.Route(); !strings.Contains(r, tc.f.String()+" window") {
				t.Errorf("Route %q does not name the flavour", r)
			}
			must(t, w.Free("Free"))
			wantClass(t, "Check after Free", w.Check("Fence"), core.ClassWin)
			wantClass(t, "Free twice", w.Free("Free"), core.ClassWin)
			wantClass(t, "the window's communicator after Free", w.Comm().Check("Send"), core.ClassComm)
		})
	}
	var nilWin *Win
	wantClass(t, "a nil window", nilWin.Check("Fence"), core.ClassWin)
}

// TestLargeWindowUntouched: a window's memory is not faulted in when it is made (as
// a malloc'd buffer's is not): a gigabyte per rank made by every rank of a node took
// seconds, and that much resident memory, for memory the program may never touch
// (MPICH's rma/win_large_shm). Its pages read as zero untouched.
func TestLargeWindowUntouched(t *testing.T) {
	const size = 256 << 20
	for _, f := range []Flavor{FlavorShared, FlavorAllocate} {
		w := newWin(t, f, size)
		if !w.InRegion() {
			continue // a singleton's WinAllocate is Go memory, which Go zeroes itself
		}
		mem := w.Mem()
		pages := make([]byte, (len(mem)+os.Getpagesize()-1)/os.Getpagesize())
		if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)), uintptr(unsafe.Pointer(&pages[0]))); e != 0 {
			t.Fatalf("mincore: %v", e)
		}
		resident := 0
		for _, p := range pages {
			resident += int(p & 1)
		}
		if resident != 0 {
			t.Errorf("%v window of %d MiB: %d of its %d pages are resident after creation; want none", f, size>>20, resident, len(pages))
		}
		if mem[0] != 0 || mem[size-1] != 0 {
			t.Errorf("%v window: untouched memory reads %d and %d, want zeros", f, mem[0], mem[size-1])
		}
		must(t, w.Free("Free"))
	}
}

// TestCreateErrors: what the device checks of a new window (the arguments' other
// rules are internal/mpir's) names its class, and no window is made.
func TestCreateErrors(t *testing.T) {
	w, err := Create(nil, "WinAllocate", Args{Flavor: FlavorAllocate, Size: 8, DispUnit: 1})
	if w != nil {
		t.Error("a window was made over a nil communicator")
	}
	wantClass(t, "nil communicator", err, core.ClassComm)
}

// TestOperationsOnSelf: Put, Get, Accumulate, GetAccumulate, FetchAndOp and
// CompareAndSwap on the window's one target, in each kind of epoch, through the
// general path; every flavour but dynamic reaches its own memory directly, a
// dynamic window through its progress goroutine.
func TestOperationsOnSelf(t *testing.T) {
	for _, f := range []Flavor{FlavorCreate, FlavorAllocate, FlavorShared, FlavorDynamic} {
		t.Run(f.String(), func(t *testing.T) {
			w := newWin(t, f, 32)
			mem, base := w.Mem(), int64(0)
			if f == FlavorDynamic {
				mem = make([]byte, 32)
				a, err := w.Attach("WinAttach", mem)
				must(t, err)
				base = a
				defer w.Detach("WinDetach", uintptr(a))
			}
			// Word i of the target: its index in units of 8 bytes, or in a dynamic
			// window (unit 1) its address.
			tgt := func(i, n int64) *Target {
				d := i
				if f == FlavorDynamic {
					d = base + 8*i
				}
				return &Target{Rank: 0, Disp: d, Count: n, Type: datatype.Int64}
			}
			direct, shipped := 1, 0
			if f == FlavorDynamic {
				direct, shipped = 0, 1
			}
			if want := fmt.Sprintf("%d targets direct (node shared memory), %d shipped", direct, shipped); !strings.Contains(w.Route(), want) {
				t.Errorf("Route %q, want %q", w.Route(), want)
			}
			must(t, w.Lock("WinLock", LockExclusive, 0, 0))
			must(t, w.Put("Put", &RBuf{Mem: bytesOf(5, 6), Count: 2, Type: datatype.Int64}, tgt(0, 2)))
			must(t, w.Accumulate("Accumulate", &RBuf{Mem: bytesOf(10, 20), Count: 2, Type: datatype.Int64}, tgt(0, 2), rma.OpSum))
			must(t, w.Flush("WinFlush", 0, false))
			got := make([]byte, 16)
			must(t, w.Get("Get", &RBuf{Mem: got, Count: 2, Type: datatype.Int64}, tgt(0, 2)))
			must(t, w.Flush("WinFlush", 0, false))
			if word(got) != 15 || word(got[8:]) != 26 {
				t.Errorf("Get after Put and Accumulate: %d %d, want 15 26", word(got), word(got[8:]))
			}
			old := make([]byte, 8)
			must(t, w.FetchAndOp("FetchAndOp", bytesOf(100), old, datatype.Int64, 0, tgt(2, 1).Disp, rma.OpSum, true))
			if word(old) != 0 {
				t.Errorf("FetchAndOp's old value %d, want 0", word(old))
			}
			must(t, w.CompareAndSwap("CompareAndSwap", bytesOf(7), bytesOf(100), old, datatype.Int64, 0, tgt(2, 1).Disp, true))
			if word(old) != 100 {
				t.Errorf("CompareAndSwap's old value %d, want 100", word(old))
			}
			res := make([]byte, 8)
			must(t, w.GetAccumulate("GetAccumulate", &RBuf{Mem: bytesOf(1), Count: 1, Type: datatype.Int64},
				&RBuf{Mem: res, Count: 1, Type: datatype.Int64}, tgt(2, 1), rma.OpSum))
			must(t, w.Unlock("WinUnlock", 0))
			if word(res) != 7 {
				t.Errorf("GetAccumulate's old value %d, want 7", word(res))
			}
			if v := word(mem[16:]); v != 8 {
				t.Errorf("the target word after the atomics: %d, want 8", v)
			}

			// A fence epoch and a PSCW epoch on the one target.
			must(t, w.Fence("WinFence", 0))
			p, err := w.Rput("Rput", &RBuf{Mem: bytesOf(42), Count: 1, Type: datatype.Int64}, tgt(3, 1))
			must(t, err)
			must(t, p.Wait())
			must(t, w.Fence("WinFence", ModeNoSucceed))
			must(t, w.Post("WinPost", []int{0}, 0))
			must(t, w.Start("WinStart", []int{0}, 0))
			must(t, w.Accumulate("Accumulate", &RBuf{Mem: bytesOf(1), Count: 1, Type: datatype.Int64}, tgt(3, 1), rma.OpSum))
			must(t, w.Complete("WinComplete"))
			if _, err := w.Wait("WinWait", false); err != nil {
				t.Fatal(err)
			}
			if v := word(mem[24:]); v != 43 {
				t.Errorf("the word after Rput in a fence and Accumulate in PSCW: %d, want 43", v)
			}
		})
	}
}

// TestDeviceErrors: what only the device knows, a target's extent and a freed
// window, gives the classes MPI names for it; the arguments and epochs were checked
// above it (internal/mpir).
func TestDeviceErrors(t *testing.T) {
	w := newWin(t, FlavorAllocate, 16)
	one := &RBuf{Mem: bytesOf(1), Count: 1, Type: datatype.Int64}
	must(t, w.Lock("WinLock", LockShared, 0, 0))
	if !w.InEpoch(0) || !w.Locking() || w.LockedAll() || w.Accessing() || w.Exposing() {
		t.Errorf("inside Lock: InEpoch %v Locking %v LockedAll %v Accessing %v Exposing %v; want true true false false false",
			w.InEpoch(0), w.Locking(), w.LockedAll(), w.Accessing(), w.Exposing())
	}
	wantClass(t, "Put past the window", w.Put("Put", one, &Target{Rank: 0, Disp: 2, Count: 1, Type: datatype.Int64}), core.ClassRMARange)
	must(t, w.Unlock("WinUnlock", 0))
	if w.InEpoch(0) || w.Locking() {
		t.Error("after Unlock the rank is still in an epoch")
	}
	must(t, w.Free("WinFree"))
	wantClass(t, "Check of a freed window", w.Check("WinFence"), core.ClassWin)
	wantClass(t, "Check of a nil window", (*Win)(nil).Check("WinFence"), core.ClassWin)
}

// TestSegment: a rank's part as this rank sees it, for each flavour: its own memory
// is mapped (a dynamic window's is what it attaches, so none).
func TestSegment(t *testing.T) {
	for _, f := range []Flavor{FlavorCreate, FlavorAllocate, FlavorShared, FlavorDynamic} {
		w := newWin(t, f, 24)
		mem, size, unit, mapped := w.Segment(0)
		want := int64(24)
		if f == FlavorDynamic {
			want = 0
		}
		if !mapped || size != want || int64(len(mem)) != want || unit != w.DispUnit() {
			t.Errorf("%v: Segment(0) = %d bytes, size %d, unit %d, mapped %v; want %d, %d, %d, true", f, len(mem), size, unit, mapped, want, want, w.DispUnit())
		}
	}
}

// TestDynamicAttach: memory is attached and detached by address; overlaps and
// unknown memory are refused.
func TestDynamicAttach(t *testing.T) {
	w := newWin(t, FlavorDynamic, 0)
	mem := make([]byte, 64)
	a, err := w.Attach("WinAttach", mem[:32])
	must(t, err)
	if a != int64(uintptr(unsafe.Pointer(&mem[0]))) {
		t.Errorf("Attach gave %#x, want the memory's address %p", a, &mem[0])
	}
	_, err = w.Attach("WinAttach", mem[16:48])
	wantClass(t, "an overlapping Attach", err, core.ClassRMAAttach)
	wantClass(t, "Detach of memory not attached", w.Detach("WinDetach", uintptr(unsafe.Pointer(&mem[32]))), core.ClassRMAAttach)
	must(t, w.Lock("WinLock", LockExclusive, 0, 0))
	wantClass(t, "Put past the attached memory", func() error {
		err := w.Put("Put", &RBuf{Mem: bytesOf(1), Count: 1, Type: datatype.Int64}, &Target{Rank: 0, Disp: a + 32, Count: 1, Type: datatype.Int64})
		if err == nil {
			err = w.Flush("WinFlush", 0, false)
		}
		return err
	}(), core.ClassRMARange)
	must(t, w.Unlock("WinUnlock", 0))
	must(t, w.Detach("WinDetach", uintptr(a)))
}

// TestDynamicSpanning: an access across regions attached side by side (one array
// attached in halves) reaches both, as MPICH's rma/win_dynamic_rma_flush_get does:
// Put, Get, Accumulate and GetAccumulate across the seam, and a typed (strided)
// target that crosses it; an access reaching past the last region is refused.
func TestDynamicSpanning(t *testing.T) {
	w := newWin(t, FlavorDynamic, 0)
	mem := make([]byte, 64)
	a, err := w.Attach("WinAttach", mem[:24])
	must(t, err)
	_, err = w.Attach("WinAttach", mem[24:])
	must(t, err)
	_, err = w.Attach("WinAttach", mem[24:24]) // empty, at the seam: found by neither access
	must(t, err)
	i64 := func(n int64) *Target { return &Target{Rank: 0, Disp: a + 16, Count: n, Type: datatype.Int64} }
	must(t, w.Lock("WinLock", LockExclusive, 0, 0))
	must(t, w.Put("Put", &RBuf{Mem: bytesOf(1, 2, 3), Count: 3, Type: datatype.Int64}, i64(3)))
	must(t, w.Accumulate("Accumulate", &RBuf{Mem: bytesOf(10, 20, 30), Count: 3, Type: datatype.Int64}, i64(3), rma.OpSum))
	res := make([]byte, 24)
	must(t, w.GetAccumulate("GetAccumulate", &RBuf{Mem: bytesOf(100, 100, 100), Count: 3, Type: datatype.Int64}, &RBuf{Mem: res, Count: 3, Type: datatype.Int64}, i64(3), rma.OpSum))
	got := make([]byte, 24)
	must(t, w.Get("Get", &RBuf{Mem: got, Count: 3, Type: datatype.Int64}, i64(3)))
	must(t, w.Flush("WinFlush", 0, false))
	for i, want := range []int64{11, 22, 33} {
		if v := word(res[8*i:]); v != want {
			t.Errorf("GetAccumulate across the seam: word %d is %d, want %d", i, v, want)
		}
		if v := word(got[8*i:]); v != want+100 {
			t.Errorf("Get across the seam: word %d is %d, want %d", i, v, want+100)
		}
	}
	// Words 1 and 4 (one each side of the seam at byte 24) through a vector type.
	vec, err := datatype.Vector(2, 1, 3, datatype.Int64)
	must(t, err)
	must(t, vec.Commit())
	must(t, w.Put("Put", &RBuf{Mem: bytesOf(7, 8), Count: 2, Type: datatype.Int64}, &Target{Rank: 0, Disp: a + 8, Count: 1, Type: vec}))
	wantClass(t, "Put past the last region", func() error {
		err := w.Put("Put", &RBuf{Mem: bytesOf(1, 2), Count: 2, Type: datatype.Int64}, &Target{Rank: 0, Disp: a + 56, Count: 2, Type: datatype.Int64})
		if err == nil {
			err = w.Flush("WinFlush", 0, false)
		}
		return err
	}(), core.ClassRMARange)
	must(t, w.Unlock("WinUnlock", 0))
	if word(mem[8:]) != 7 || word(mem[32:]) != 8 || word(mem[16:]) != 111 || word(mem[24:]) != 122 {
		t.Errorf("the memory after the accesses: %d %d %d %d, want 7 111 122 8", word(mem[8:]), word(mem[16:]), word(mem[24:]), word(mem[32:]))
	}
	must(t, w.Detach("WinDetach", uintptr(a)))
}

// TestShortWays: the device's short ways take an 8-byte access to the one target
// inside an epoch, refuse it outside one or beyond the window, and allocate nothing.
func TestShortWays(t *testing.T) {
	w := newWin(t, FlavorAllocate, 16)
	v := bytesOf(9)
	if w.PutBytes(0, 0, v) {
		t.Error("PutBytes outside an epoch took the short way")
	}
	must(t, w.Lock("WinLock", LockShared, 0, 0))
	if !w.PutBytes(0, 1, v) || !w.FlushDirect(0) {
		t.Fatal("PutBytes and FlushDirect inside a lock epoch did not take the short way")
	}
	if w.PutBytes(0, 2, v) || w.PutBytes(1, 0, v) || w.PutBytes(0, -1, v) {
		t.Error("PutBytes past the window, to rank 1 or before the window took the short way")
	}
	got := make([]byte, 8)
	if !w.GetBytes(0, 1, got) || word(got) != 9 {
		t.Errorf("GetBytes: %d, want 9", word(got))
	}
	if !w.AccBytes(0, 1, bytesOf(1), rma.OpSum, datatype.KindInt64) {
		t.Error("AccBytes of an int64 Sum did not take the short way")
	}
	if old, ok := w.FetchWord(0, 1, 5, rma.OpSum, prof.None); !ok || old != 10 {
		t.Errorf("FetchWord: %d %v, want 10 true", old, ok)
	}
	if old, ok := w.CasWord(0, 1, 15, 3, prof.None); !ok || old != 15 {
		t.Errorf("CasWord: %d %v, want 15 true", old, ok)
	}
	if !w.Locked(0) || w.ShortState(0) == 0 || w.TargetWorld(0) != 0 {
		t.Errorf("Locked %v, ShortState %d, TargetWorld %d inside a lock epoch", w.Locked(0), w.ShortState(0), w.TargetWorld(0))
	}
	// The accumulate lock word is handed out only where it lies in node shared
	// memory: a shared window's, not an allocated one's of a singleton (Go memory).
	if mem, unit, acc, ok := w.DirectTarget(0); !ok || len(mem) != 16 || unit != 8 || acc != nil {
		t.Errorf("DirectTarget: %d bytes, unit %d, lock word %p, %v; want 16, 8, nil, true", len(mem), unit, acc, ok)
	}
	if _, _, acc, ok := newWin(t, FlavorShared, 8).DirectTarget(0); !ok || acc == nil {
		t.Errorf("DirectTarget of a shared window: lock word %p, %v; want one, true", acc, ok)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		w.PutBytes(0, 0, v)
		w.GetBytes(0, 0, got)
		w.AccBytes(0, 0, v, rma.OpSum, datatype.KindInt64)
		w.FlushDirect(0)
	})
	if allocs != 0 {
		t.Errorf("the short ways allocate %v times per Put+Get+Accumulate+Flush", allocs)
	}
	must(t, w.Unlock("WinUnlock", 0))
	if word(w.Mem()[8:]) != 3 {
		t.Errorf("the word after the short ways: %d, want 3", word(w.Mem()[8:]))
	}
}

// TestRMAInfo: mpigo info's line on how windows reach their targets.
func TestRMAInfo(t *testing.T) {
	s := RMAInfo()
	if !strings.HasPrefix(s, "rma: WinAllocate targets on this node: shipped") {
		t.Errorf("RMAInfo of a singleton (no shared-memory transport): %q", s)
	}
}

// TestOpNames: the element kinds the faces learn are updated atomically through this
// package are the ones rma updates so (which operations apply is mpir's, by op).
func TestOpNames(t *testing.T) {
	if !RMAAtomic(datatype.KindInt64) || RMAAtomic(datatype.KindComplex128) {
		t.Error("int64 is updated by one atomic instruction, complex128 not")
	}
}

// CopyREP tells the C face the size from which the direct copies take REP MOVSB:
// Move's, since copyDirect copies with Move (abi's rmashort.c Puts and Gets them).
func TestCopyREP(t *testing.T) {
	if CopyREP() != ntcopy.MoveREP() {
		t.Fatalf("CopyREP %d, ntcopy.MoveREP %d", CopyREP(), ntcopy.MoveREP())
	}
}

// TestPutWays: every contiguous Put to a target taken by single copy, up to the single
// way's bound, joins the target's batch or goes by single copy at once; none is
// shipped alone (a gap below batchAlone, where the header pushed a Put out of the
// batch, once shipped Puts of 16 KiB to the target's progress goroutine).
func TestPutWays(t *testing.T) {
	for _, mapped := range []bool{false, true} {
		p := &winPeer{mapped: mapped}
		p.single.Store(true)
		bound := int64(singleMax)
		if mapped {
			bound = singleMapped
		}
		for n := int64(1); n <= bound; n++ {
			if !batched(n, 1) && !putSingly(p, n) {
				t.Fatalf("mapped %v: a Put of %d bytes is neither batched nor single", mapped, n)
			}
		}
		if putSingly(p, bound+1) {
			t.Errorf("mapped %v: a Put of %d bytes, past the bound, goes by single copy", mapped, bound+1)
		}
		// An 8-byte Put joins the batch, unless its memmove through a mapping is cheaper.
		if got := putSingly(p, 8); got != mapped {
			t.Errorf("mapped %v: an 8-byte Put by single copy at once: %v, want %v", mapped, got, mapped)
		}
	}
	p := &winPeer{}
	if putSingly(p, 20000) {
		t.Error("a Put to a target without single copies goes by single copy")
	}
}
