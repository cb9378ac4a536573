package mpi_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestFinalizeDeletesSelfAttributesLastSetFirst: "when MPI_FINALIZE is called, it will
// first execute the equivalent of an MPI_COMM_FREE on MPI_COMM_SELF. This will cause the
// delete callback function to be executed on all keys associated with MPI_COMM_SELF, in
// the reverse order that they were set on MPI_COMM_SELF. [...] The 'freeing' of
// MPI_COMM_SELF occurs before any other parts of MPI are affected. Thus, for example,
// calling MPI_FINALIZED will return false in any of these callback functions." (MPI 4.1,
// section 11.2.4). An attribute set again counts as set then; one deleted before is not
// deleted again; World's attributes are not deleted; a delete function's error is
// Finalize's, which still ends MPI.
func TestFinalizeDeletesSelfAttributesLastSetFirst(t *testing.T) {
	mpitest.Run(t, 2, func(t *testing.T) {
		must(t, mpi.Init())
		var calls []string
		fail := errors.New("a refusing delete function")
		del := func(c *mpi.Comm, k *mpi.Keyval, v any) error {
			name := v.(string)
			if mpi.Finalized() {
				t.Errorf("delete of %s: Finalized() is true already", name)
			}
			if c == mpi.Self && name != "a1" {
				// MPI is still usable: a collective over World runs.
				sum := []int{0}
				if err := mpi.Allreduce(mpi.World, []int{1}, sum, mpi.Sum); err != nil || sum[0] != 2 {
					t.Errorf("delete of %s: Allreduce %v, %v", name, sum, err)
				}
			}
			calls = append(calls, name)
			if name == "c" {
				return fail
			}
			return nil
		}
		a, b, c, d, w := mpi.NewKeyval(nil, del), mpi.NewKeyval(nil, del), mpi.NewKeyval(nil, del),
			mpi.NewKeyval(nil, del), mpi.NewKeyval(nil, del)
		must(t, mpi.Self.SetAttr(a, "a1"))
		must(t, mpi.Self.SetAttr(b, "b"))
		must(t, mpi.Self.SetAttr(d, "d"))
		must(t, mpi.Self.SetAttr(c, "c"))
		must(t, mpi.Self.SetAttr(a, "a2")) // set again: now the last set; a1 is deleted now
		must(t, mpi.Self.DeleteAttr(d))
		must(t, mpi.World.SetAttr(w, "world"))
		if !slices.Equal(calls, []string{"a1", "d"}) {
			t.Fatalf("before Finalize: delete calls %v, want [a1 d]", calls)
		}
		err := mpi.Finalize()
		if !errors.Is(err, fail) || !strings.Contains(err.Error(), "Self") {
			t.Errorf("Finalize with a failing delete function: %v, want its error, naming Self", err)
		}
		if want := []string{"a1", "d", "a2", "c", "b"}; !slices.Equal(calls, want) {
			t.Errorf("delete calls %v, want %v (Self's, the last set first; World's not at all)", calls, want)
		}
		if !mpi.Finalized() {
			t.Error("a failing delete function kept Finalize from ending MPI")
		}
	})
}

// TestCommFreeKeyval: "MPI_COMM_FREE_KEYVAL ... Note that it is not erroneous to free an
// attribute key that is in use, because the actual free does not transpire until after
// all references (in other communicators on the process) to the key have been freed.
// These references need to be explicitly freed by the program, either via calls to
// MPI_COMM_DELETE_ATTR [...] or by calls to MPI_COMM_FREE" (MPI 4.1, section 7.7.2).
// A freed keyval cannot be set again (MPI_ERR_KEYVAL); predefined ones cannot be freed.
func TestCommFreeKeyval(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		var deleted []any
		k := mpi.NewKeyval(mpi.CopyDup, func(_ *mpi.Comm, _ *mpi.Keyval, v any) error {
			deleted = append(deleted, v)
			return nil
		})
		d, err := mpi.World.Dup()
		must(t, err)
		must(t, d.SetAttr(k, 7))
		must(t, mpi.CommFreeKeyval(k))
		if v, ok := d.Attr(k); !ok || v != 7 {
			t.Errorf("after CommFreeKeyval the attribute is %v (set %v), want 7", v, ok)
		}
		if err := mpi.World.SetAttr(k, 8); !errors.Is(err, mpi.ErrKeyval) {
			t.Errorf("SetAttr with a freed keyval: %v, want ErrKeyval", err)
		}
		e, err := d.Dup() // the copy function still runs
		must(t, err)
		if v, ok := e.Attr(k); !ok || v != 7 {
			t.Errorf("Dup after CommFreeKeyval: attribute %v (set %v), want 7", v, ok)
		}
		must(t, d.DeleteAttr(k))
		must(t, e.Free())
		if !slices.Equal(deleted, []any{7, 7}) {
			t.Errorf("delete calls %v, want two of 7 (DeleteAttr, Free)", deleted)
		}
		for name, err := range map[string]error{
			"twice":              mpi.CommFreeKeyval(k),
			"KeyTagUB":           mpi.CommFreeKeyval(mpi.KeyTagUB),
			"nil keyval":         mpi.CommFreeKeyval(nil),
			"SetAttr of KeyHost": mpi.World.SetAttr(mpi.KeyHost, 1),
		} {
			if !errors.Is(err, mpi.ErrKeyval) || !strings.Contains(err.Error(), "keyval") {
				t.Errorf("CommFreeKeyval %s: %v, want ErrKeyval naming the keyval", name, err)
			}
		}
		must(t, d.Free())
	})
}

// TestPredefinedAttributes: MPI_HOST (MPI_PROC_NULL "if there is no host"), MPI_IO
// (MPI_ANY_SOURCE when "every process can provide I/O"), MPI 4.1 section 9.1.2, and
// MPI_LASTUSEDCODE, which AddErrorClass and AddErrorCode raise (section 9.5).
func TestPredefinedAttributes(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		attr := func(k *mpi.Keyval) any {
			v, ok := mpi.World.Attr(k)
			if !ok {
				t.Fatal("a predefined attribute is not set")
			}
			return v
		}
		if h, io := attr(mpi.KeyHost), attr(mpi.KeyIO); h != mpi.ProcNull || io != mpi.AnySource {
			t.Errorf("MPI_HOST = %v, MPI_IO = %v; want ProcNull (%d) and AnySource (%d)", h, io, mpi.ProcNull, mpi.AnySource)
		}
		last := attr(mpi.KeyLastUsedCode).(mpi.ErrorCode)
		if last < mpi.LastErrorCode {
			t.Errorf("MPI_LASTUSEDCODE = %d, below MPI_ERR_LASTCODE (%d)", last, mpi.LastErrorCode)
		}
		class, err := mpi.AddErrorClass()
		must(t, err)
		if got := attr(mpi.KeyLastUsedCode); got != mpi.ErrorCode(class) || mpi.ErrorCode(class) <= last {
			t.Errorf("after AddErrorClass (%d): MPI_LASTUSEDCODE = %v, was %d", class, got, last)
		}
		code, err := mpi.AddErrorCode(class)
		must(t, err)
		if got := attr(mpi.KeyLastUsedCode); got != code {
			t.Errorf("after AddErrorCode (%d): MPI_LASTUSEDCODE = %v", code, got)
		}
	})
}

// TestErrorClassesAndCodes follows MPI 4.1 section 9.5: classes and codes added are
// above MPI_ERR_LASTCODE; MPI_ERROR_CLASS maps a code to its class and a class to
// itself; MPI_ERROR_STRING gives every predefined class a text, an added one its string
// or "" (the standard's empty string when none was set); it is erroneous to set or
// remove the string of a predefined class, to remove a class that has codes, a code
// that has a string, or anything not added. These calls may be made before Init and
// after Finalize ("MPI Functionality that is Always Available"). An error of an added code reaches an
// error handler with its class, code and string.
func TestErrorClassesAndCodes(t *testing.T) {
	mpitest.Run(t, 2, func(t *testing.T) {
		// Before Init.
		if v, s := mpi.GetVersion(); v != 4 || s != 1 || mpi.Version != 4 || mpi.Subversion != 1 {
			t.Errorf("GetVersion = %d.%d, want 4.1", v, s)
		}
		class, err := mpi.AddErrorClass()
		must(t, err)
		code, err := mpi.AddErrorCode(class)
		must(t, err)
		if mpi.ErrorCode(class) <= mpi.LastErrorCode || code <= mpi.ErrorCode(class) {
			t.Errorf("added class %d and code %d: want both above LastErrorCode (%d)", class, code, mpi.LastErrorCode)
		}
		must(t, mpi.AddErrorString(mpi.ErrorCode(class), "my library's error"))
		must(t, mpi.AddErrorString(code, "my library ran out of widgets"))
		must(t, mpi.Init())

		if c, err := mpi.ErrorClassOf(code); err != nil || c != class {
			t.Errorf("ErrorClassOf(code) = %v, %v; want %d", c, err, class)
		}
		if c, err := mpi.ErrorClassOf(mpi.ErrorCode(mpi.ClassTruncate)); err != nil || c != mpi.ClassTruncate {
			t.Errorf("ErrorClassOf(ClassTruncate) = %v, %v", c, err)
		}
		for _, c := range []mpi.ErrorClass{mpi.ClassSuccess, mpi.ClassComm, mpi.ClassInfo, mpi.ClassInfoKey,
			mpi.ClassInfoValue, mpi.ClassInfoNokey, mpi.ClassNoMem, mpi.ClassBase, mpi.ClassKeyval, mpi.ClassProcFailed} {
			s, err := mpi.ErrorString(mpi.ErrorCode(c))
			if err != nil || !strings.HasPrefix(s, c.String()+": ") || len(s) <= len(c.String())+2 {
				t.Errorf("ErrorString(%v) = %q, %v; want its name and meaning", c, s, err)
			}
		}
		if s, err := mpi.ErrorString(code); s != "my library ran out of widgets" || err != nil {
			t.Errorf("ErrorString(code) = %q, %v", s, err)
		}
		if class.String() != "my library's error" {
			t.Errorf("an added class's String: %q", class.String())
		}
		// The standard ABI's numbers (MPI 5.0, the ABI's table of error classes), which
		// a C program of the ABI sees too.
		for c, n := range map[mpi.ErrorClass]int{mpi.ClassPending: 18, mpi.ClassInStatus: 19, mpi.ClassInfo: 34,
			mpi.ClassInfoKey: 31, mpi.ClassInfoValue: 33, mpi.ClassInfoNokey: 32, mpi.ClassNoMem: 39, mpi.ClassBase: 24,
			mpi.ClassKeyval: 36, mpi.ClassWin: 56, mpi.ClassSession: 60, mpi.ClassErrhandler: 61, mpi.ClassABI: 62} {
			if int(c) != n {
				t.Errorf("%v = %d, want %d", c, int(c), n)
			}
		}

		// An error of the code, through a user handler.
		var seen error
		d, err := mpi.World.Dup()
		must(t, err)
		must(t, d.SetErrHandler(mpi.NewErrHandler(func(_ *mpi.Comm, err error) { seen = err })))
		e := mpi.NewError(code, "3 needed, 0 left")
		if err := d.CallErrHandler(e); err != e || seen != e {
			t.Errorf("CallErrHandler: returned %v, handler saw %v", err, seen)
		}
		if mpi.ClassOf(e) != class || mpi.CodeOf(e) != code || !errors.Is(fmt.Errorf("w: %w", e), mpi.NewError(code, "")) ||
			errors.Is(e, mpi.NewError(mpi.ErrorCode(mpi.ClassOther), "")) {
			t.Errorf("NewError: class %v code %v", mpi.ClassOf(e), mpi.CodeOf(e))
		}
		if e.Error() != "mpi: my library ran out of widgets: 3 needed, 0 left" {
			t.Errorf("NewError's text: %q", e.Error())
		}
		if e := mpi.NewError(-5, "x"); !errors.Is(e, mpi.ErrArg) || !strings.Contains(e.Error(), "-5") {
			t.Errorf("NewError of no code: %v", e)
		}
		if mpi.CodeOf(mpi.ErrTruncate) != mpi.ErrorCode(mpi.ClassTruncate) || mpi.CodeOf(nil) != 0 {
			t.Error("CodeOf of a class's error, or of nil")
		}
		must(t, d.Free())

		// What the standard calls erroneous is an error of class MPI_ERR_ARG.
		long := strings.Repeat("x", mpi.MaxErrorString+1)
		erroneous := map[string]error{
			"AddErrorString(ClassTruncate)":  mpi.AddErrorString(mpi.ErrorCode(mpi.ClassTruncate), "mine"),
			"AddErrorString(too long)":       mpi.AddErrorString(code, long),
			"AddErrorString(not a code)":     mpi.AddErrorString(mpi.LastErrorCode+100000, "x"),
			"AddErrorCode(ClassSuccess)":     func() error { _, err := mpi.AddErrorCode(mpi.ClassSuccess); return err }(),
			"AddErrorCode(a code)":           func() error { _, err := mpi.AddErrorCode(mpi.ErrorClass(code)); return err }(),
			"RemoveErrorClass(with a code)":  mpi.RemoveErrorClass(class),
			"RemoveErrorCode(with a string)": mpi.RemoveErrorCode(code),
			"RemoveErrorClass(ClassOther)":   mpi.RemoveErrorClass(mpi.ClassOther),
			"RemoveErrorCode(a class)":       mpi.RemoveErrorCode(mpi.ErrorCode(class)),
			"RemoveErrorString(ClassOther)":  mpi.RemoveErrorString(mpi.ErrorCode(mpi.ClassOther)),
			"ErrorString(not a code)":        func() error { _, err := mpi.ErrorString(-1); return err }(),
			"ErrorClassOf(not a code)":       func() error { _, err := mpi.ErrorClassOf(mpi.LastErrorCode + 100000); return err }(),
		}
		for name, err := range erroneous {
			if !errors.Is(err, mpi.ErrArg) {
				t.Errorf("%s: %v, want ErrArg", name, err)
			}
		}
		// In the standard's order: the code's string, the code, the class.
		must(t, mpi.RemoveErrorString(code))
		if s, err := mpi.ErrorString(code); s != "" || err != nil {
			t.Errorf("ErrorString after RemoveErrorString: %q, %v; want the empty string", s, err)
		}
		if err := mpi.RemoveErrorString(code); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("RemoveErrorString twice: %v", err)
		}
		must(t, mpi.RemoveErrorCode(code))
		if _, err := mpi.ErrorClassOf(code); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("ErrorClassOf of a removed code: %v", err)
		}
		// A class with a string left is not removed, as a code is not (mpi4py's
		// test_errorcode checks both).
		must(t, mpi.AddErrorString(mpi.ErrorCode(class), "my class"))
		if err := mpi.RemoveErrorClass(class); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("RemoveErrorClass with its string left: %v, want ErrArg", err)
		}
		must(t, mpi.RemoveErrorString(mpi.ErrorCode(class)))
		must(t, mpi.RemoveErrorClass(class))
		if _, err := mpi.ErrorString(mpi.ErrorCode(class)); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("ErrorString of a removed class: %v", err)
		}
		again, err := mpi.AddErrorClass()
		if err != nil || again <= class {
			t.Errorf("a class added after a removal: %d, %v; numbers are not reused (last %d)", again, err, class)
		}
		must(t, mpi.Finalize())

		// After Finalize.
		if s, err := mpi.ErrorString(mpi.ErrorCode(mpi.ClassRank)); err != nil || !strings.HasPrefix(s, "MPI_ERR_RANK") {
			t.Errorf("ErrorString after Finalize: %q, %v", s, err)
		}
		if _, err := mpi.AddErrorCode(again); err != nil {
			t.Errorf("AddErrorCode after Finalize: %v", err)
		}
	})
}

// TestAllocMem: MPI_ALLOC_MEM returns memory of the size asked (zeroed Go memory here),
// aligned as the mpi_minimum_memory_alignment hint (MPI 4.1, section 9.2) asks;
// MPI_FREE_MEM takes back only what it gave, once (MPI_ERR_BASE otherwise); a bad size
// is MPI_ERR_ARG, a bad hint value MPI_ERR_INFO_VALUE, a freed info MPI_ERR_INFO.
func TestAllocMem(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		b, err := mpi.AllocMem(1000, nil)
		must(t, err)
		if len(b) != 1000 || slices.ContainsFunc(b, func(x byte) bool { return x != 0 }) {
			t.Fatalf("AllocMem(1000): %d bytes", len(b))
		}
		// It is a message buffer like any other.
		peer := 1 - rank
		for i := range b {
			b[i] = byte(rank + i)
		}
		got, err := mpi.AllocMem(1000, nil)
		must(t, err)
		_, err = mpi.Sendrecv(mpi.World, b, peer, 0, got, peer, 0)
		must(t, err)
		if got[999] != byte(peer+999) {
			t.Errorf("received %d, want %d", got[999], byte(peer+999))
		}
		info := mpi.InfoCreate()
		must(t, info.Set("mpi_minimum_memory_alignment", "4096"))
		a, err := mpi.AllocMem(10, info)
		must(t, err)
		if p := uintptr(unsafe.Pointer(&a[0])); p%4096 != 0 || len(a) != 10 {
			t.Errorf("aligned AllocMem: address %#x, length %d", p, len(a))
		}
		z, err := mpi.AllocMem(0, nil)
		must(t, err)
		for _, s := range [][]byte{b, got, a[:0], z} {
			must(t, mpi.FreeMem(s))
		}
		bad := map[string]error{}
		_, bad["negative size"] = mpi.AllocMem(-1, nil)
		must(t, info.Set("mpi_minimum_memory_alignment", "48"))
		_, bad["alignment 48"] = mpi.AllocMem(8, info)
		must(t, info.Free())
		_, bad["freed info"] = mpi.AllocMem(8, info)
		_, bad["too large"] = mpi.AllocMem(1<<62, nil)
		bad["FreeMem twice"] = mpi.FreeMem(b)
		bad["FreeMem of make"] = mpi.FreeMem(make([]byte, 10))
		c, err := mpi.AllocMem(100, nil)
		must(t, err)
		bad["FreeMem of a slice inside"] = mpi.FreeMem(c[1:])
		bad["FreeMem(nil)"] = mpi.FreeMem(nil)
		want := map[string]*mpi.Error{"negative size": mpi.ErrArg, "alignment 48": mpi.ErrInfoValue,
			"freed info": mpi.ErrInfo, "too large": mpi.ErrNoMem, "FreeMem twice": mpi.ErrBase,
			"FreeMem of make": mpi.ErrBase, "FreeMem of a slice inside": mpi.ErrBase, "FreeMem(nil)": mpi.ErrBase}
		for name, err := range bad {
			if !errors.Is(err, want[name]) {
				t.Errorf("%s: %v, want %v", name, err, want[name].Class)
			}
		}
		must(t, mpi.FreeMem(c))
	})
}

// TestAllocMemMapped: with the hint mpigo_node_mapped, AllocMem of 16 KiB and more gives
// zeroed memory the node's ranks map: exchanges and one-way sends of large messages
// between such buffers arrive whole and go through the mappings (the performance
// variable shm_mapped_bytes grows), FreeMem takes it back once, and an allocation the
// mapping cannot serve (small) is ordinary memory that works the same.
func TestAllocMemMapped(t *testing.T) {
	jobWith(t, mpitest.Options{N: 2, Transport: mpitest.Shm}, func(t *testing.T, rank, size int) {
		tools := openTools(t)
		s, err := tools.NewPerfSession()
		must(t, err)
		pv, err := tools.PerfVar("shm_mapped_bytes")
		must(t, err)
		h, err := s.Handle(pv, nil)
		must(t, err)
		before, err := h.Uint()
		must(t, err)
		info := mpi.InfoCreate()
		must(t, info.Set("mpigo_node_mapped", "true"))
		peer := 1 - rank
		for _, n := range []int{1000, 16 << 10, 300000, 1 << 20} {
			out, err := mpi.AllocMem(n+3, info)
			must(t, err)
			in, err := mpi.AllocMem(n+3, info)
			must(t, err)
			if len(out) != n+3 || slices.ContainsFunc(in, func(x byte) bool { return x != 0 }) {
				t.Fatalf("AllocMem(%d): %d bytes, or not zeroed", n+3, len(out))
			}
			for i := range out {
				out[i] = byte(rank*7 + i)
			}
			// At an odd offset, both ways at once, then one way.
			_, err = mpi.Sendrecv(mpi.World, out[3:], peer, 0, in[3:], peer, 0)
			must(t, err)
			if rank == 0 {
				must(t, mpi.Send(mpi.World, out[1:n], 1, 1))
			} else {
				_, err = mpi.Recv(mpi.World, in[:n-1], 0, 1)
				must(t, err)
			}
			for i := 3; i < n+3; i++ {
				want := byte(peer*7 + i)
				if rank == 1 && i < n-1 {
					want = byte(i + 1)
				}
				if in[i] != want {
					t.Fatalf("%d bytes: byte %d is %d, want %d", n, i, in[i], want)
				}
			}
			must(t, mpi.FreeMem(out))
			must(t, mpi.FreeMem(in[:0]))
			if err := mpi.FreeMem(out); !errors.Is(err, mpi.ErrBase) {
				t.Errorf("FreeMem of %d mapped bytes twice: %v, want ErrBase", n+3, err)
			}
		}
		after, err := h.Uint()
		must(t, err)
		if after-before < 1<<20 {
			t.Errorf("shm_mapped_bytes grew by %d over the exchanges, want at least 1 MiB", after-before)
		}
		must(t, info.Set("mpigo_node_mapped", "sometimes"))
		if _, err := mpi.AllocMem(1<<20, info); !errors.Is(err, mpi.ErrInfoValue) {
			t.Errorf("AllocMem with mpigo_node_mapped = sometimes: %v, want ErrInfoValue", err)
		}
		must(t, info.Free())
		must(t, s.Free())
	})
}

// TestIsThreadMain: MPI_IS_THREAD_MAIN is true on the goroutine that called Init, false
// on others; before Init it says MPI has not started.
func TestIsThreadMain(t *testing.T) {
	mpitest.Run(t, 1, func(t *testing.T) {
		if _, err := mpi.IsThreadMain(); err == nil || !strings.Contains(err.Error(), "not initialised yet") {
			t.Errorf("IsThreadMain before Init: %v", err)
		}
		must(t, mpi.Init())
		if main, err := mpi.IsThreadMain(); !main || err != nil {
			t.Errorf("IsThreadMain on Init's goroutine: %v, %v", main, err)
		}
		other := make(chan bool)
		go func() {
			main, _ := mpi.IsThreadMain()
			other <- main
		}()
		if <-other {
			t.Error("IsThreadMain is true on another goroutine")
		}
		must(t, mpi.Finalize())
	})
}
