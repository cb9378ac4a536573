package mpi_test

import (
	"errors"
	"fmt"
	"os"
	ossignal "os/signal"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// The window's handles and housekeeping (error handlers, attributes, name, info,
// group), the flush variants' completion rules, the request forms, and the atomics in
// active-target epochs, each checked against what MPI 4.1 chapter 12 says of it.

// TestWinErrHandler: a handler made by NewWinErrHandler is called with the window and
// the error of every failing call on it, which still returns the error; ErrorsReturn
// is the default and nil restores it; a communicator's handler is refused;
// CallErrHandler passes its error as it is; World's handler is not involved.
func TestWinErrHandler(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		var commCalls int
		must(t, mpi.World.SetErrHandler(mpi.NewErrHandler(func(*mpi.Comm, error) { commCalls++ })))
		w, _, err := mpi.WinAllocate(16, 8, nil, mpi.World)
		must(t, err)
		if h := w.ErrHandler(); h != mpi.ErrorsReturn {
			t.Errorf("a new window's handler is %v, want ErrorsReturn", h)
		}
		var seenW *mpi.Win
		var seen []error
		h := mpi.NewWinErrHandler(func(x *mpi.Win, err error) { seenW = x; seen = append(seen, err) })
		must(t, w.SetErrHandler(h))
		if w.ErrHandler() != h {
			t.Errorf("ErrHandler does not give back the handler set")
		}
		peer := 1 - rank
		err = mpi.Put(w, []int64{1}, peer, 0) // outside any epoch
		if !errors.Is(err, mpi.ErrRMASync) || seenW != w || len(seen) != 1 || seen[0] != err {
			t.Fatalf("Put outside an epoch returned %v; the handler saw window %p (want %p) and %v", err, seenW, w, seen)
		}
		if err := w.Lock(mpi.LockShared, 9, 0); !errors.Is(err, mpi.ErrRank) || len(seen) != 2 || seen[1] != err {
			t.Errorf("Lock of rank 9 returned %v; the handler saw %v", err, seen)
		}
		_, err = mpi.Rput(w, []int64{1}, peer, 0) // the request forms too
		if !errors.Is(err, mpi.ErrRMASync) || len(seen) != 3 {
			t.Errorf("Rput outside an epoch returned %v; the handler saw %v", err, seen)
		}
		mine := errors.New("the program's own error")
		if got := w.CallErrHandler(mine); got != mine || seen[len(seen)-1] != mine {
			t.Errorf("CallErrHandler returned %v; the handler saw %v", got, seen[len(seen)-1])
		}
		if err := w.SetErrHandler(mpi.NewErrHandler(func(*mpi.Comm, error) {})); !errors.Is(err, mpi.ErrErrhandler) {
			t.Errorf("a communicator's handler on a window: %v, want ErrErrhandler", err)
		}
		if w.ErrHandler() != h {
			t.Errorf("a refused handler replaced the window's")
		}
		must(t, w.SetErrHandler(nil))
		if w.ErrHandler() != mpi.ErrorsReturn {
			t.Errorf("SetErrHandler(nil) left %v, want ErrorsReturn", w.ErrHandler())
		}
		n := len(seen)
		if err := mpi.Put(w, []int64{1}, peer, 0); !errors.Is(err, mpi.ErrRMASync) || len(seen) != n {
			t.Errorf("after ErrorsReturn: Put returned %v and the old handler ran %d more times", err, len(seen)-n)
		}
		if commCalls != 0 {
			t.Errorf("World's handler ran %d times for window errors", commCalls)
		}
		must(t, w.Free())
		if err := w.SetErrHandler(h); !errors.Is(err, mpi.ErrWin) {
			t.Errorf("SetErrHandler on a freed window: %v, want ErrWin", err)
		}
		var nilw *mpi.Win
		if nilw.ErrHandler() != mpi.ErrorsReturn {
			t.Errorf("a nil window's handler is not ErrorsReturn")
		}
		must(t, mpi.World.SetErrHandler(nil))
	})
}

// TestWinErrorsAreFatal: with ErrorsAreFatal on a window, a bad call ends the whole
// job with a message naming the rank, the call and the window.
func TestWinErrorsAreFatal(t *testing.T) {
	res := mpitest.Job(t, mpitest.Options{N: 2, Fail: true}, func(t *testing.T) {
		must(t, mpi.Init())
		w, _, err := mpi.WinAllocate(8, 8, nil, mpi.World)
		must(t, err)
		must(t, w.SetName("halo"))
		must(t, w.SetErrHandler(mpi.ErrorsAreFatal))
		if mpi.World.Rank() == 1 {
			mpi.Put(w, []int64{1}, 0, 0) // outside any epoch
			t.Errorf("Put returned under ErrorsAreFatal")
		}
		mpi.World.Barrier()
		w.Free()
		mpi.Finalize()
	})
	if res.Code == 0 || !fatalLine(res.Stderr, 1, "): mpi: Put:") || !contains(res.Stderr, "in Put on window halo") {
		t.Errorf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
}

// winOfFlavor makes a window of the flavour named, size bytes (rounded for create)
// with displacement unit du on this rank.
func winOfFlavor(t *testing.T, flavor string, size, du int) (*mpi.Win, []byte) {
	t.Helper()
	var w *mpi.Win
	var mem []byte
	var err error
	switch flavor {
	case "allocate":
		w, mem, err = mpi.WinAllocate(size, du, nil, mpi.World)
	case "create":
		mem = make([]byte, size)
		w, err = mpi.WinCreate(mem, du, nil, mpi.World)
	case "shared":
		w, mem, err = mpi.WinAllocateShared(size, du, nil, mpi.World)
	case "dynamic":
		w, err = mpi.WinCreateDynamic(nil, mpi.World)
	}
	must(t, err)
	return w, mem
}

// TestWinAttributes: the predefined attributes (base, size, displacement unit,
// creation flavour, memory model) for every flavour, as methods and through Attr;
// user attributes with their delete function called for a replaced value, by
// DeleteAttr and by Free, also after WinFreeKeyval; a failing delete function fails
// DeleteAttr and Free, which keep the attribute and the window; a freed keyval may be
// freed again while an attribute holds it (MPICH's keyval_double_free_win.c), not
// after; predefined keyvals are read-only.
// Windows are never duplicated, so a window keyval has no copy function.
func TestWinAttributes(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		for _, c := range []struct {
			flavor   string
			size, du int
			want     mpi.Flavor
		}{
			{"allocate", 24, 8, mpi.FlavorAllocate},
			{"create", 40, 4, mpi.FlavorCreate},
			{"shared", 16 * (rank + 1), 2, mpi.FlavorShared},
			{"dynamic", 0, 1, mpi.FlavorDynamic},
		} {
			w, mem := winOfFlavor(t, c.flavor, c.size, c.du)
			if w.Size() != c.size || w.DispUnit() != c.du || w.CreateFlavor() != c.want || w.Model() != mpi.WinUnified {
				t.Errorf("%s: Size %d DispUnit %d CreateFlavor %v Model %d, want %d %d %v %d", c.flavor,
					w.Size(), w.DispUnit(), w.CreateFlavor(), w.Model(), c.size, c.du, c.want, mpi.WinUnified)
			}
			base, ok := w.Attr(mpi.WinBase)
			b, _ := base.([]byte)
			if !ok || len(b) != c.size || (c.size > 0 && unsafe.SliceData(b) != unsafe.SliceData(mem)) {
				t.Errorf("%s: WinBase is %d bytes (ok %v), not this rank's %d bytes of memory", c.flavor, len(b), ok, c.size)
			}
			for _, kv := range []struct {
				name string
				k    *mpi.WinKeyval
				want any
			}{{"WinSizeKey", mpi.WinSizeKey, c.size}, {"WinDispUnitKey", mpi.WinDispUnitKey, c.du},
				{"WinCreateFlavor", mpi.WinCreateFlavor, c.want}, {"WinModel", mpi.WinModel, mpi.WinUnified}} {
				if v, ok := w.Attr(kv.k); !ok || v != kv.want {
					t.Errorf("%s: attribute %s is %v (set %v), want %v", c.flavor, kv.name, v, ok, kv.want)
				}
			}
			must(t, w.Free())
		}

		w, _ := winOfFlavor(t, "allocate", 8, 8)
		var deleted []string
		var k *mpi.WinKeyval
		k = mpi.NewWinKeyval(func(x *mpi.Win, kk *mpi.WinKeyval, v any) error {
			if x != w || kk != k {
				t.Errorf("delete function called with window %p keyval %p, want %p %p", x, kk, w, k)
			}
			deleted = append(deleted, v.(string))
			return nil
		})
		plain := mpi.NewWinKeyval(nil)
		refuse := true
		refusing := mpi.NewWinKeyval(func(*mpi.Win, *mpi.WinKeyval, any) error {
			if refuse {
				return errors.New("still in use")
			}
			return nil
		})
		if _, ok := w.Attr(k); ok {
			t.Errorf("an attribute never set is reported set")
		}
		must(t, w.SetAttr(k, "a"))
		must(t, w.SetAttr(k, "b")) // replaces: delete("a")
		if v, ok := w.Attr(k); !ok || v != "b" || !slices.Equal(deleted, []string{"a"}) {
			t.Errorf("after two SetAttr: %v %v, deleted %v", v, ok, deleted)
		}
		must(t, w.DeleteAttr(k))
		if _, ok := w.Attr(k); ok || !slices.Equal(deleted, []string{"a", "b"}) {
			t.Errorf("after DeleteAttr: set %v, deleted %v", ok, deleted)
		}
		must(t, w.SetAttr(k, fmt.Sprint("rank ", rank)))
		must(t, w.SetAttr(plain, 42))
		must(t, w.SetAttr(refusing, 1))
		if err := w.DeleteAttr(refusing); err == nil || !strings.Contains(err.Error(), "still in use") {
			t.Errorf("a delete function's error was not returned by DeleteAttr: %v", err)
		}
		if v, ok := w.Attr(refusing); !ok || v != 1 {
			t.Errorf("after a failed DeleteAttr the attribute is %v (set %v), want it kept", v, ok)
		}
		must(t, mpi.WinFreeKeyval(refusing))
		must(t, mpi.WinFreeKeyval(k))
		if err := w.SetAttr(k, "c"); !errors.Is(err, mpi.ErrKeyval) {
			t.Errorf("SetAttr with a freed keyval: %v, want ErrKeyval", err)
		}
		if v, ok := w.Attr(k); !ok || v != fmt.Sprint("rank ", rank) {
			t.Errorf("the value set before WinFreeKeyval is gone: %v %v", v, ok)
		}
		must(t, mpi.WinFreeKeyval(k)) // again, while an attribute holds it: nothing to do
		for what, err := range map[string]error{
			"WinFreeKeyval(nil)":          mpi.WinFreeKeyval(nil),
			"WinFreeKeyval(WinBase)":      mpi.WinFreeKeyval(mpi.WinBase),
			"SetAttr(WinSizeKey)":         w.SetAttr(mpi.WinSizeKey, 1),
			"DeleteAttr(WinCreateFlavor)": w.DeleteAttr(mpi.WinCreateFlavor),
			"SetAttr(nil)":                w.SetAttr(nil, 1),
		} {
			if !errors.Is(err, mpi.ErrKeyval) {
				t.Errorf("%s: %v, want ErrKeyval", what, err)
			}
		}
		if err := w.Free(); err == nil || !strings.Contains(err.Error(), "still in use") {
			t.Errorf("Free with a failing delete function: %v, want its error", err)
		}
		refuse = false
		must(t, w.Free()) // deletes "rank r" through the freed keyval's function
		if want := []string{"a", "b", fmt.Sprint("rank ", rank)}; !slices.Equal(deleted, want) {
			t.Errorf("deleted %v, want %v", deleted, want)
		}
		if err := mpi.WinFreeKeyval(k); !errors.Is(err, mpi.ErrKeyval) {
			t.Errorf("WinFreeKeyval once its last attribute went: %v, want ErrKeyval", err)
		}
		if _, ok := w.Attr(plain); ok {
			t.Errorf("a freed window still reports attributes")
		}
	})
}

// TestWinNameInfoGroup: a window's name starts empty and is local; its info reports
// every key mpigo takes, with the values creation or SetInfo gave and the defaults
// otherwise, in a new object each time; its group is the group of the communicator it
// was made over, not World's.
func TestWinNameInfoGroup(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		half, err := mpi.World.Split(rank%2, rank)
		must(t, err)
		in := mpi.InfoCreate()
		must(t, in.Set("no_locks", "true"))
		must(t, in.Set("same_size", "true"))
		must(t, in.Set("not_a_window_key", "x"))
		w, _, err := mpi.WinAllocate(8, 8, in, half)
		must(t, err)
		must(t, in.Free())
		if w.Name() != "" {
			t.Errorf("a new window is named %q, want \"\"", w.Name())
		}
		must(t, w.SetName(fmt.Sprint("win of rank ", rank)))
		if w.Name() != fmt.Sprint("win of rank ", rank) {
			t.Errorf("Name is %q after SetName", w.Name())
		}
		var nilw *mpi.Win
		if nilw.Name() != "MPI_WIN_NULL" {
			t.Errorf("a nil window is named %q", nilw.Name())
		}

		get := func(in *mpi.Info, key string) string {
			v, ok, err := in.Get(key)
			must(t, err)
			if !ok {
				return "<unset>"
			}
			return v
		}
		got, err := w.Info()
		must(t, err)
		for k, want := range map[string]string{"no_locks": "true", "same_size": "true", "accumulate_ordering": "rar,raw,war,waw",
			"accumulate_ops": "same_op_no_op", "same_disp_unit": "false", "alloc_shared_noncontig": "false", "not_a_window_key": "<unset>"} {
			if v := get(got, k); v != want {
				t.Errorf("Info: %s = %s, want %s", k, v, want)
			}
		}
		must(t, got.Set("no_locks", "false")) // a new object: the window keeps its hints
		set := mpi.InfoCreate()
		must(t, set.Set("accumulate_ordering", "none"))
		must(t, w.SetInfo(set))
		again, err := w.Info()
		must(t, err)
		if get(again, "no_locks") != "true" || get(again, "accumulate_ordering") != "none" {
			t.Errorf("after SetInfo: no_locks %s, accumulate_ordering %s; want true, none", get(again, "no_locks"), get(again, "accumulate_ordering"))
		}
		must(t, set.Free())
		if err := w.SetInfo(set); !errors.Is(err, mpi.ErrInfo) {
			t.Errorf("SetInfo with a freed info: %v, want ErrInfo", err)
		}

		g := w.Group()
		if g.Size() != 2 || g.Rank() != rank/2 {
			t.Errorf("window group: size %d, my rank %d; want 2, %d", g.Size(), g.Rank(), rank/2)
		}
		if cmp, err := mpi.GroupCompare(g, half.Group()); err != nil || cmp != mpi.Ident {
			t.Errorf("the window's group compares %v to its communicator's (%v), want Ident", cmp, err)
		}
		world, err := mpi.TranslateRanks(g, []int{0, 1}, mpi.World.Group())
		must(t, err)
		if want := []int{rank % 2, rank%2 + 2}; !slices.Equal(world, want) {
			t.Errorf("the window's ranks are World's %v, want %v", world, want)
		}
		must(t, w.Free())
		if w.Group() != nil {
			t.Errorf("a freed window has a group")
		}
		if _, err := w.Info(); !errors.Is(err, mpi.ErrWin) {
			t.Errorf("Info of a freed window: %v, want ErrWin", err)
		}
		if err := w.SetName("x"); !errors.Is(err, mpi.ErrWin) {
			t.Errorf("SetName on a freed window: %v, want ErrWin", err)
		}
		must(t, half.Free())
	})
}

// TestWinFlushVariants: in a LockAll epoch, FlushLocal and FlushLocalAll make origin
// buffers reusable (a Put's data already taken) and Get's buffers full, per target and
// for all; Flush and FlushAll complete operations at the targets, which see them after
// a barrier and Sync. On every flavour whose targets are reached differently.
func TestWinFlushVariants(t *testing.T) {
	winJob(t, 3, func(t *testing.T, rank, size int) {
		for _, flavor := range []string{"allocate", "create"} {
			w, mem := winOfFlavor(t, flavor, 8*size*2, 8)
			clear(mem)
			must(t, mpi.World.Barrier())
			must(t, w.LockAll(0))
			// Put to each target, FlushLocal, scribble the buffer: the target must hold
			// what the buffer held at the Put.
			bufs := make([][]int64, size)
			for r := range size {
				bufs[r] = []int64{int64(1000*rank + r)}
				must(t, mpi.Put(w, bufs[r], r, rank))
				must(t, w.FlushLocal(r))
				bufs[r][0] = -1
			}
			must(t, w.FlushAll())
			must(t, mpi.World.Barrier()) // every rank's FlushAll is done: the values are at their targets
			must(t, w.Sync())
			for o := range size {
				if got := i64view(mem[:8*size])[o]; got != int64(1000*o+rank) {
					t.Fatalf("%s: slot %d holds %d after FlushLocal+FlushAll, want %d", flavor, o, got, 1000*o+rank)
				}
			}
			must(t, mpi.World.Barrier())
			// Put then Flush per target; Get back from every target with FlushLocalAll.
			for r := range size {
				must(t, mpi.Put(w, []int64{int64(-rank - 1)}, r, size+rank))
				must(t, w.Flush(r))
			}
			must(t, mpi.World.Barrier())
			gets := make([][]int64, size)
			for r := range size {
				gets[r] = make([]int64, size)
				must(t, mpi.Get(w, gets[r], r, size))
			}
			must(t, w.FlushLocalAll())
			for r := range size {
				for o := range size {
					if gets[r][o] != int64(-o-1) {
						t.Fatalf("%s: Get of rank %d's slot %d gave %d after FlushLocalAll, want %d", flavor, r, size+o, gets[r][o], -o-1)
					}
				}
			}
			must(t, w.UnlockAll())
			if err := w.FlushAll(); !errors.Is(err, mpi.ErrRMASync) {
				t.Errorf("%s: FlushAll outside a passive-target epoch: %v, want ErrRMASync", flavor, err)
			}
			if err := w.FlushLocal(0); !errors.Is(err, mpi.ErrRMASync) {
				t.Errorf("%s: FlushLocal outside a lock: %v, want ErrRMASync", flavor, err)
			}
			must(t, mpi.World.Barrier())
			must(t, w.Free())
		}
	})
}

// TestWinRequestForms: Rput, Rget, Raccumulate and RgetAccumulate, typed and with
// datatypes, in a lock epoch: each request's Wait makes the origin buffer reusable
// (or the result buffer full), Flush completes the operation at the target, and
// GetAccumulate returns the values before the combination.
func TestWinRequestForms(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		vec, err := mpi.TypeVector(3, 1, 2, mpi.Int64) // elements 0, 2, 4
		must(t, err)
		must(t, vec.Commit())
		for _, flavor := range []string{"allocate", "create"} {
			w, mem := winOfFlavor(t, flavor, 8*10, 8)
			clear(mem)
			peer := 1 - rank
			must(t, mpi.World.Barrier())
			wait := func(r mpi.Request, err error) {
				t.Helper()
				must(t, err)
				_, err = r.Wait()
				must(t, err)
			}
			must(t, w.Lock(mpi.LockShared, peer, 0))
			src := []int64{1, 2, 3, 4}
			wait(mpi.Rput(w, src, peer, 0))
			src[0] = 99 // reusable after Wait
			must(t, w.Flush(peer))
			got := make([]int64, 4)
			wait(mpi.Rget(w, got, peer, 0))
			if !slices.Equal(got, []int64{1, 2, 3, 4}) {
				t.Fatalf("%s: Rput then Rget gave %v", flavor, got)
			}
			wait(mpi.Raccumulate(w, []int64{10, 10, 10, 10}, peer, 0, mpi.Sum))
			must(t, w.Flush(peer))
			old := make([]int64, 4)
			wait(mpi.RgetAccumulate(w, []int64{100, 100, 100, 100}, old, peer, 0, mpi.Sum))
			if !slices.Equal(old, []int64{11, 12, 13, 14}) {
				t.Fatalf("%s: RgetAccumulate's old values %v, want [11 12 13 14]", flavor, old)
			}
			// GetAccumulate (blocking) with Max, then NoOp: an atomic read.
			old2 := make([]int64, 2)
			must(t, mpi.GetAccumulate(w, []int64{200, 0}, old2, peer, 0, mpi.Max))
			must(t, w.Flush(peer))
			now := make([]int64, 2)
			must(t, mpi.GetAccumulate(w, nil, now, peer, 0, mpi.NoOp))
			must(t, w.Flush(peer))
			if !slices.Equal(old2, []int64{111, 112}) || !slices.Equal(now, []int64{200, 112}) {
				t.Fatalf("%s: GetAccumulate Max gave %v then NoOp %v; want [111 112], [200 112]", flavor, old2, now)
			}
			// Datatype forms: the vector at disp 4 covers elements 4, 6 and 8.
			wait(mpi.RaccumulateBuf(w, mpi.Typed([]int64{5, 6, 7}, 3, mpi.Int64), peer, 4, 1, vec, mpi.Sum))
			must(t, w.Flush(peer))
			strided := make([]int64, 5)
			wait(mpi.RgetBuf(w, mpi.Typed(strided, 1, vec), peer, 4, 1, vec))
			if !slices.Equal(strided, []int64{5, 0, 6, 0, 7}) {
				t.Fatalf("%s: RgetBuf of the vector gave %v, want [5 0 6 0 7]", flavor, strided)
			}
			old3 := make([]int64, 3)
			wait(mpi.RgetAccumulateBuf(w, mpi.Typed([]int64{1, 1, 1}, 3, mpi.Int64), mpi.Typed(old3, 3, mpi.Int64), peer, 4, 1, vec, mpi.Prod))
			wait(mpi.RgetAccumulateBuf(w, mpi.Buf{}, mpi.Typed(old3, 3, mpi.Int64), peer, 4, 1, vec, mpi.NoOp))
			if !slices.Equal(old3, []int64{5, 6, 7}) {
				t.Fatalf("%s: RgetAccumulateBuf gave %v, want [5 6 7]", flavor, old3)
			}
			must(t, w.Unlock(peer))
			must(t, mpi.World.Barrier())
			must(t, w.Lock(mpi.LockShared, rank, 0))
			if v := i64view(mem); !slices.Equal(v, []int64{200, 112, 113, 114, 5, 0, 6, 0, 7, 0}) {
				t.Errorf("%s: my window holds %v, want [200 112 113 114 5 0 6 0 7 0]", flavor, v)
			}
			must(t, w.Unlock(rank))
			must(t, mpi.World.Barrier())
			must(t, w.Free())
		}
	})
}

// TestWinAtomicsActiveTarget: FetchAndOp and CompareAndSwap in fence and PSCW epochs
// (not only under a lock): every rank takes a ticket from rank 0's counter and swaps
// its rank into a slot only the first one wins.
func TestWinAtomicsActiveTarget(t *testing.T) {
	winJob(t, 4, func(t *testing.T, rank, size int) {
		for _, flavor := range []string{"allocate", "create"} {
			for _, mode := range []string{"fence", "pscw"} {
				w, mem := winOfFlavor(t, flavor, 16, 8)
				clear(mem)
				wg := mpi.World.Group()
				zero, err := wg.Incl([]int{0})
				must(t, err)
				open := func() {
					if mode == "fence" {
						must(t, w.Fence(0))
						return
					}
					if rank == 0 {
						must(t, w.Post(wg, 0))
					}
					must(t, w.Start(zero, 0))
				}
				close := func() {
					if mode == "fence" {
						must(t, w.Fence(mpi.ModeNoSucceed))
						return
					}
					must(t, w.Complete())
					if rank == 0 {
						must(t, w.Wait())
					}
				}
				open()
				ticket, err := mpi.FetchAndOp(w, int64(1), 0, 0, mpi.Sum)
				must(t, err)
				winner, err := mpi.CompareAndSwap(w, int64(rank+1), int64(0), 0, 1)
				must(t, err)
				close()
				tickets := make([]int64, size)
				must(t, mpi.Allgather(mpi.World, []int64{ticket}, tickets))
				slices.Sort(tickets)
				for i, v := range tickets {
					if v != int64(i) {
						t.Fatalf("%s %s: tickets %v, want 0..%d each once", flavor, mode, tickets, size-1)
					}
				}
				winners := make([]int64, size)
				must(t, mpi.Allgather(mpi.World, []int64{winner}, winners))
				zeros := 0
				for _, v := range winners {
					if v == 0 {
						zeros++
					}
				}
				if rank == 0 {
					v := i64view(mem)
					if v[0] != int64(size) || zeros != 1 || v[1] < 1 || v[1] > int64(size) {
						t.Fatalf("%s %s: counter %d (want %d), slot %d, %d ranks saw it empty (want 1)", flavor, mode, v[0], size, v[1], zeros)
					}
					if winners[v[1]-1] != 0 {
						t.Fatalf("%s %s: slot holds rank %d, which did not see it empty", flavor, mode, v[1]-1)
					}
				}
				must(t, mpi.World.Barrier())
				must(t, w.Free())
			}
		}
	})
}

// TestWinExclusiveLockCounter: every rank increments a counter at rank 0 with Get and
// Put under an exclusive lock, many times; the count must be exact. Remote requests
// for the lock queue at rank 0 while rank 0 itself (direct) and the others hold it.
func TestWinExclusiveLockCounter(t *testing.T) {
	winJob(t, 4, func(t *testing.T, rank, size int) {
		for _, flavor := range []string{"allocate", "create"} {
			w, mem := winOfFlavor(t, flavor, 8, 8)
			clear(mem)
			must(t, mpi.World.Barrier())
			const N = 100
			v := make([]int64, 1)
			for i := 0; i < N; i++ {
				must(t, w.Lock(mpi.LockExclusive, 0, 0))
				must(t, mpi.Get(w, v, 0, 0))
				must(t, w.Flush(0))
				v[0]++
				must(t, mpi.Put(w, v, 0, 0))
				must(t, w.Unlock(0))
			}
			must(t, mpi.World.Barrier())
			if rank == 0 {
				must(t, w.Lock(mpi.LockShared, 0, 0))
				if got := i64view(mem)[0]; got != int64(N*size) {
					t.Errorf("%s: counter %d, want %d", flavor, got, N*size)
				}
				must(t, w.Unlock(0))
			}
			must(t, w.Free())
		}
	})
}

// TestWinLockHolderDies: rank 1 dies while it holds rank 0's lock exclusively; the
// ranks waiting for that lock must not hang: a direct wait asks whether the holder
// lives and ends with an error naming it (ErrProcFailed), or the launcher ends the
// job first. Either way the job ends within bounded time naming rank 1.
func TestWinLockHolderDies(t *testing.T) {
	winRankDies(t, "Lock", func(t *testing.T, w *mpi.Win) {
		if mpi.World.Rank() == 1 {
			must(t, w.Lock(mpi.LockExclusive, 0, 0))
		}
	}, func(w *mpi.Win) error { return w.Lock(mpi.LockExclusive, 0, 0) })
}

// TestWinFenceRankDies: rank 1 dies before a fence the others enter (on one node a
// barrier on the window's control blocks); they must not hang, as in
// TestWinLockHolderDies.
func TestWinFenceRankDies(t *testing.T) {
	winRankDies(t, "Fence", func(t *testing.T, w *mpi.Win) { must(t, w.Fence(0)) }, func(w *mpi.Win) error { return w.Fence(0) })
}

// winRankDies runs, on 3 ranks over each transport, a window of WinAllocate, before
// on it, a barrier, then rank 1 dies and the others call call: each must end with
// ErrProcFailed, or the launcher end the job first, within bounded time naming rank 1.
func winRankDies(t *testing.T, what string, before func(*testing.T, *mpi.Win), call func(*mpi.Win) error) {
	for _, tr := range mpitest.Transports {
		t.Run(tr.Name, func(t *testing.T) {
			start := time.Now()
			res := mpitest.Job(t, mpitest.Options{N: 3, Transport: tr, Fail: true}, func(t *testing.T) {
				must(t, mpi.Init())
				w, _, err := mpi.WinAllocate(8, 8, nil, mpi.World)
				must(t, err)
				before(t, w)
				must(t, mpi.World.Barrier())
				if mpi.World.Rank() == 1 {
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
				}
				if err := call(w); err != nil {
					fmt.Fprintf(os.Stderr, "rank %d: %s: %v\n", mpi.World.Rank(), what, err)
					if !errors.Is(err, mpi.ErrProcFailed) {
						os.Exit(4)
					}
					os.Exit(3) // an error on a survivor is a correct ending
				}
				t.Errorf("%s returned although rank 1 died", what)
			})
			if res.Code == 0 || res.Code == 4 || !contains(res.Stderr, "rank 1") {
				t.Errorf("exit %d, stderr:\n%s", res.Code, res.Stderr)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v to end", took)
			}
		})
	}
}

// TestWinLockWaiterHolderDies: rank 1 dies while it holds rank 0's lock; rank 2's
// Lock of rank 0 waits (on the lock word on one node; over TCP queued at rank 0, which
// answers it) and must end with ErrProcFailed naming rank 1 by itself, not only by the
// launcher stopping the job: the survivors ignore the launcher's SIGTERM, so only the
// SIGKILL a second later would end them.
func TestWinLockWaiterHolderDies(t *testing.T) {
	for _, tr := range mpitest.Transports {
		t.Run(tr.Name, func(t *testing.T) {
			start := time.Now()
			res := mpitest.Job(t, mpitest.Options{N: 3, Transport: tr, Fail: true}, func(t *testing.T) {
				must(t, mpi.Init())
				rank := mpi.World.Rank()
				w, _, err := mpi.WinAllocate(8, 8, nil, mpi.World)
				must(t, err)
				if rank == 1 {
					must(t, w.Lock(mpi.LockExclusive, 0, 0))
				} else {
					ossignal.Ignore(syscall.SIGTERM)
				}
				must(t, mpi.World.Barrier())
				switch rank {
				case 1:
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
				case 0:
					// Serve (over TCP) until rank 2 is done.
					mpi.World.SetErrHandler(mpi.ErrorsReturn)
					var b [1]byte
					mpi.Recv(mpi.World, b[:], 2, 0)
					os.Exit(3)
				}
				err = w.Lock(mpi.LockExclusive, 0, 0)
				fmt.Fprintf(os.Stderr, "rank 2: Lock: %v\n", err)
				if !errors.Is(err, mpi.ErrProcFailed) {
					os.Exit(4)
				}
				os.Exit(3)
			})
			if !contains(res.Stderr, "rank 2: Lock:") || !contains(res.Stderr, "rank 1 of the window, which holds the lock on rank 0, is gone") {
				t.Errorf("rank 2's Lock did not end naming rank 1: exit %d, stderr:\n%s", res.Code, res.Stderr)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v to end", took)
			}
		})
	}
}

// TestWinLockWaiterHolderDiesTargetBusy is TestWinLockWaiterHolderDies with the
// target inside a call on the window all along (Wait of an exposure epoch that rank 3
// completes only once rank 2's Lock has returned), so that over TCP the target's own
// call, not only its progress goroutine, may queue rank 2's request, and must then
// answer it when the holder dies.
func TestWinLockWaiterHolderDiesTargetBusy(t *testing.T) {
	for _, tr := range mpitest.Transports {
		t.Run(tr.Name, func(t *testing.T) {
			start := time.Now()
			res := mpitest.Job(t, mpitest.Options{N: 4, Transport: tr, Fail: true}, func(t *testing.T) {
				must(t, mpi.Init())
				rank := mpi.World.Rank()
				w, _, err := mpi.WinAllocate(8, 8, nil, mpi.World)
				must(t, err)
				if rank == 1 {
					must(t, w.Lock(mpi.LockExclusive, 0, 0))
				} else {
					ossignal.Ignore(syscall.SIGTERM)
				}
				g := mpi.World.Group()
				g0, err := g.Incl([]int{0})
				must(t, err)
				g3, err := g.Incl([]int{3})
				must(t, err)
				if rank == 0 {
					must(t, w.Post(g3, 0))
				}
				must(t, mpi.World.Barrier())
				switch rank {
				case 1:
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
				case 0:
					err := w.Wait()
					fmt.Fprintf(os.Stderr, "rank 0: Wait: %v\n", err)
					os.Exit(3)
				case 3:
					must(t, w.Start(g0, 0))
					mpi.World.SetErrHandler(mpi.ErrorsReturn)
					var b [1]byte
					mpi.Recv(mpi.World, b[:], 2, 0)
					w.Complete()
					os.Exit(3)
				}
				err = w.Lock(mpi.LockExclusive, 0, 0)
				fmt.Fprintf(os.Stderr, "rank 2: Lock: %v\n", err)
				mpi.World.SetErrHandler(mpi.ErrorsReturn)
				mpi.Send(mpi.World, []byte{1}, 3, 0)
				if !errors.Is(err, mpi.ErrProcFailed) {
					os.Exit(4)
				}
				os.Exit(3)
			})
			if !contains(res.Stderr, "rank 2: Lock:") || !contains(res.Stderr, "rank 1 of the window, which holds the lock on rank 0, is gone") {
				t.Errorf("rank 2's Lock did not end naming rank 1: exit %d, stderr:\n%s", res.Code, res.Stderr)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v to end", took)
			}
		})
	}
}

// TestWinLargeOperations: Put, Get, Accumulate and GetAccumulate of hundreds of
// kilobytes, contiguous and strided on the target: shipped ones go alone, a Put's
// and a Get's data in messages of their own, received straight into the window and
// the caller's buffer; a large Put past the window's end is an error and writes
// nothing.
func TestWinLargeOperations(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		const n = 1<<17 + 3 // int64s: 1 MiB and a bit
		vec, err := mpi.TypeVector(n/2, 1, 2, mpi.Int64)
		must(t, err)
		must(t, vec.Commit())
		for _, flavor := range []string{"allocate", "create"} {
			w, mem := winOfFlavor(t, flavor, 8*n, 8)
			clear(mem)
			peer := 1 - rank
			src := make([]int64, n)
			for i := range src {
				src[i] = int64(i*7 + rank)
			}
			must(t, mpi.World.Barrier())
			must(t, w.Lock(mpi.LockShared, peer, 0))
			must(t, mpi.Put(w, src, peer, 0))
			must(t, w.Flush(peer))
			got := make([]int64, n)
			must(t, mpi.Get(w, got, peer, 0))
			must(t, w.Flush(peer))
			if !slices.Equal(got, src) {
				t.Fatalf("%s: a 1 MiB Put then Get differ", flavor)
			}
			// strided: every other element, from the origin's first n/2
			must(t, mpi.PutBuf(w, mpi.Typed(make([]int64, n/2), n/2, mpi.Int64), peer, 0, 1, vec))
			ones := make([]int32, 2*n)
			for i := range ones {
				ones[i] = 1
			}
			m := 2 * (n / 2) // int32s: the first n/2 int64s
			must(t, mpi.Accumulate(w, ones[:m], peer, 0, mpi.Sum))
			old := make([]int32, m)
			must(t, mpi.GetAccumulate(w, ones[:m], old, peer, 0, mpi.Sum))
			must(t, w.Flush(peer))
			must(t, mpi.Get(w, got, peer, 0))
			must(t, w.Flush(peer))
			for i := 0; i < n; i++ {
				want := src[i]
				if i%2 == 0 && i/2 < n/2 {
					want = 0 // the strided Put's zeros
				}
				if i < n/2 {
					want += 2 + 2<<32 // two Sums of 1 on each int32 half (no carries: halves < 2^31)
				}
				if got[i] != want {
					t.Fatalf("%s: element %d is %#x, want %#x", flavor, i, got[i], want)
				}
			}
			if old[0] != 1 || old[1] != 1 {
				t.Fatalf("%s: GetAccumulate's first old values %v, want 1 1", flavor, old[:2])
			}
			err := mpi.Put(w, src, peer, 1) // one element past the end
			if uerr := w.Unlock(peer); err == nil {
				err = uerr
			}
			if !errors.Is(err, mpi.ErrRMARange) {
				t.Errorf("%s: a large Put past the end: %v, want ErrRMARange", flavor, err)
			}
			must(t, mpi.World.Barrier())
			must(t, w.Lock(mpi.LockShared, rank, 0))
			if v := i64view(mem); v[n-1] != int64((n-1)*7+peer) { // the peer's first Put
				t.Errorf("%s: the refused Put wrote the window's last element: %d", flavor, v[n-1])
			}
			must(t, w.Unlock(rank))
			must(t, mpi.World.Barrier())
			must(t, w.Free())
		}
	})
}

// TestWinBatchesOfMediumPuts: runs of 4 KiB Puts and Accumulates at consecutive
// offsets, then one Flush, as a bandwidth loop does: shipped ones travel in batches
// larger than one request, which the target applies in order, all of them.
func TestWinBatchesOfMediumPuts(t *testing.T) {
	winJob(t, 2, func(t *testing.T, rank, size int) {
		const k, n = 64, 512 // operations, int64s each
		w, mem := winOfFlavor(t, "create", 8*k*n, 8)
		clear(mem)
		peer := 1 - rank
		must(t, mpi.World.Barrier())
		must(t, w.Lock(mpi.LockShared, peer, 0))
		src := make([]int64, k*n)
		for i := range src {
			src[i] = int64(i + 1)
		}
		for round := 0; round < 3; round++ {
			for j := 0; j < k; j++ {
				if round < 2 {
					must(t, mpi.Put(w, src[j*n:(j+1)*n], peer, j*n))
				} else {
					must(t, mpi.Accumulate(w, src[j*n:(j+1)*n], peer, j*n, mpi.Sum))
				}
			}
			must(t, w.Flush(peer))
		}
		got := make([]int64, k*n)
		must(t, mpi.Get(w, got, peer, 0))
		must(t, w.Unlock(peer))
		for i := range got {
			if got[i] != 2*src[i] {
				t.Fatalf("element %d is %d after Puts and an Accumulate of %d, want %d", i, got[i], src[i], 2*src[i])
			}
		}
		must(t, mpi.World.Barrier())
		must(t, w.Free())
	})
}
