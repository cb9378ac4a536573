package mpir

import (
	"errors"
	"testing"

	"github.com/mpigo/mpigo/internal/core"
)

// TestErrhandlerKindsAndFreeing: a handler fits the kind it was made for and the
// predefined ones fit every kind; freeing drops the program's references, a freed
// handler fits nothing new and a second free is an error; a reference given back
// (Retain) makes it usable again; objects that have it keep it.
func TestErrhandlerKindsAndFreeing(t *testing.T) {
	h := NewErrhandler(KindWin, nil)
	for _, k := range []Kind{KindComm, KindWin, KindFile, KindSession} {
		for _, p := range []*Errhandler{ErrorsReturn, ErrorsAreFatal, ErrorsAbort} {
			if err := p.Fits("Set", k); err != nil {
				t.Errorf("%s on %s: %v", p.Name(), k, err)
			}
		}
		if err := h.Fits("Set", k); (err == nil) != (k == KindWin) || err != nil && core.ClassOf(err) != core.ClassErrhandler {
			t.Errorf("a window's handler on %s: %v", k, err)
		}
	}
	if err := (*Errhandler)(nil).Fits("Set", KindComm); core.ClassOf(err) != core.ClassErrhandler {
		t.Errorf("a null handler fits: %v", err)
	}
	var w Errh
	if w.Get() != ErrorsReturn {
		t.Error("a zero Errh does not hold ErrorsReturn")
	}
	if old, err := w.Set("Win_set_errhandler", KindWin, h); err != nil || old != ErrorsReturn || w.Get() != h {
		t.Fatalf("Set: %v, %v", old, err)
	}
	if err := h.Free("Errhandler_free"); err != nil || !h.Freed() {
		t.Fatalf("Free: %v, freed %v", err, h.Freed())
	}
	if err := h.Free("Errhandler_free"); core.ClassOf(err) != core.ClassErrhandler {
		t.Errorf("a second Free: %v", err)
	}
	var w2 Errh
	if _, err := w2.Set("Win_set_errhandler", KindWin, h); core.ClassOf(err) != core.ClassErrhandler || w2.Get() != ErrorsReturn {
		t.Errorf("setting a freed handler: %v, and it was set", err)
	}
	if w.Get() != h {
		t.Error("Free took the handler off the object it was set on")
	}
	h.Retain() // MPI_Win_get_errhandler's reference
	if h.Freed() || h.Fits("Set", KindWin) != nil {
		t.Error("a handler given back is still freed")
	}
	for _, p := range []*Errhandler{ErrorsReturn, ErrorsAreFatal, ErrorsAbort} {
		if err := p.Free("Errhandler_free"); err != nil || p.Freed() {
			t.Errorf("freeing %s: %v", p.Name(), err)
		}
	}
}

// TestRaiseCallsTheUsersFunction: a user's handler is given the object and the error,
// and the error comes back; ErrorsReturn only returns it; a handler that panics
// leaves through Raise.
func TestRaiseCallsTheUsersFunction(t *testing.T) {
	var gotObj any
	var gotErr error
	h := NewErrhandler(KindComm, func(obj any, err error) { gotObj, gotErr = obj, err })
	var c Errh
	c.Init(h)
	e := core.Errorf(core.ClassRank, "Send", "dest 9")
	if err := c.Raise("Send", "the comm", Text("communicator x"), e); err != e || gotObj != "the comm" || gotErr != e {
		t.Errorf("Raise returned %v; the handler got %v, %v", err, gotObj, gotErr)
	}
	var r Errh
	if err := r.Raise("Send", nil, Text("x"), e); err != e {
		t.Errorf("ErrorsReturn: %v", err)
	}
	boom := errors.New("boom")
	p := NewErrhandler(KindComm, func(any, error) { panic(boom) })
	defer func() {
		if v := recover(); v != boom {
			t.Errorf("recovered %v", v)
		}
	}()
	p.Run("Send", nil, Text("x"), e)
}

// TestNoObjectBeforeInit: with no world model running, an error with no valid object
// goes to the initial handler.
func TestNoObjectBeforeInit(t *testing.T) {
	if core.Initialized() {
		t.Skip("the world model runs: a test that ran before this one started it (win_test.go's startWorld)")
	}
	var self, initial Errh
	if NoObject(&self, &initial) != &initial {
		t.Error("before Init, NoObject is not the initial handler")
	}
}
