package attr

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recorder is the delete function of a test's keyvals: it records "obj:val" and
// fails while refuse says so.
type recorder struct {
	mu      sync.Mutex
	calls   []string
	refuse  bool
	refused error
}

func (r *recorder) del(obj any, k *Keyval, val any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse {
		return r.refused
	}
	r.calls = append(r.calls, fmt.Sprint(obj, ":", val))
	return nil
}

func (r *recorder) took() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// values lists s's values in the order of setting.
func values(s *Set) []any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []any
	for _, e := range s.list {
		out = append(out, e.val)
	}
	return out
}

// TestSetGetReplaceDelete: a value set is read back; setting again deletes the old
// value and counts as the last set; Delete runs the delete function; deleting what is
// not set does nothing.
func TestSetGetReplaceDelete(t *testing.T) {
	r := &recorder{}
	a, b := New(Comm, nil, r.del, nil), New(Comm, nil, r.del, nil)
	var s Set
	must(t, s.Put(Comm, "c", a, 1))
	must(t, s.Put(Comm, "c", b, 2))
	must(t, s.Put(Comm, "c", a, 3))
	if v, ok, err := s.Get(Comm, a); v != 3 || !ok || err != nil {
		t.Errorf("Get(a) = %v, %v, %v", v, ok, err)
	}
	if got := values(&s); !slices.Equal(got, []any{2, 3}) {
		t.Errorf("order %v, want [2 3]: a set again is the last set", got)
	}
	must(t, s.Delete(Comm, "c", b))
	must(t, s.Delete(Comm, "c", b))
	if _, ok, _ := s.Get(Comm, b); ok || s.Len() != 1 {
		t.Errorf("b still set after Delete (%d attributes)", s.Len())
	}
	if got := r.took(); !slices.Equal(got, []string{"c:1", "c:2"}) {
		t.Errorf("delete calls %v, want [c:1 c:2]", got)
	}
}

// TestDeleteAllOrder: the last set is deleted first (MPI_COMM_SELF at Finalize);
// a delete function may delete other attributes of the same object.
func TestDeleteAllOrder(t *testing.T) {
	r := &recorder{}
	var s Set
	keys := make([]*Keyval, 20)
	for i := range keys {
		keys[i] = New(Comm, nil, r.del, nil)
		must(t, s.Put(Comm, "self", keys[i], i))
	}
	must(t, s.Put(Comm, "self", keys[3], 3)) // now the last set
	var want []string
	want = append(want, "self:3")
	for i := 19; i >= 0; i-- {
		if i != 3 {
			want = append(want, fmt.Sprint("self:", i))
		}
	}
	want = append([]string{"self:3"}, want...) // the replaced value's delete first
	must(t, s.DeleteAll("self", false))
	if got := r.took(); !slices.Equal(got, want) {
		t.Errorf("delete calls\n got %v\nwant %v", got, want)
	}

	// A delete function that deletes the other two attributes (MPICH's attrdelete.c).
	var s2 Set
	r2 := &recorder{}
	k1, k3 := New(Comm, nil, r2.del, nil), New(Comm, nil, r2.del, nil)
	k2 := New(Comm, nil, func(obj any, k *Keyval, v any) error {
		must(t, s2.Delete(Comm, obj, k1))
		must(t, s2.Delete(Comm, obj, k3))
		return nil
	}, nil)
	must(t, s2.Put(Comm, "w", k1, 1))
	must(t, s2.Put(Comm, "w", k2, 2))
	must(t, s2.Put(Comm, "w", k3, 3))
	must(t, s2.Delete(Comm, "w", k2))
	if s2.Len() != 0 || !slices.Equal(r2.took(), []string{"w:1", "w:3"}) {
		t.Errorf("after the nested deletes: %d left, calls %v", s2.Len(), r2.took())
	}
	must(t, s2.Put(Comm, "w", k2, 2))
	must(t, s2.Put(Comm, "w", k1, 1))
	must(t, s2.DeleteAll("w", false)) // k1 first, then k2, which finds k3 unset
	if s2.Len() != 0 {
		t.Errorf("DeleteAll left %d", s2.Len())
	}
}

// TestFailingCallbacks: a delete function that fails makes Put, Delete and DeleteAll
// fail with its error and changes nothing; DeleteAll with all goes on and returns the
// first error; a copy function that fails stops CopyTo.
func TestFailingCallbacks(t *testing.T) {
	refused := errors.New("refused")
	r := &recorder{refused: refused}
	k := New(Type, Dup, r.del, nil)
	other := New(Type, nil, r.del, nil)
	var s Set
	must(t, s.Put(Type, "d", other, "o"))
	must(t, s.Put(Type, "d", k, "a"))
	r.refuse = true
	for name, err := range map[string]error{
		"Put":       s.Put(Type, "d", k, "b"),
		"Delete":    s.Delete(Type, "d", k),
		"DeleteAll": s.DeleteAll("d", false),
	} {
		var cb *CallbackError
		if !errors.As(err, &cb) || !cb.Delete || !errors.Is(err, refused) || !strings.Contains(err.Error(), "delete function") {
			t.Errorf("%s with a failing delete function: %v", name, err)
		}
	}
	if got := values(&s); !slices.Equal(got, []any{"o", "a"}) {
		t.Errorf("after failed calls the attributes are %v, want [o a]", got)
	}
	if err := s.DeleteAll("d", true); !errors.Is(err, refused) || s.Len() != 0 {
		t.Errorf("DeleteAll(all): %v, %d left", err, s.Len())
	}

	r.refuse = false
	bomb := New(Win, func(any, *Keyval, any) (any, bool, error) { return nil, true, refused }, nil, nil)
	kept := New(Win, Dup, r.del, nil)
	var w, dup Set
	must(t, w.Put(Win, "w", kept, 1))
	must(t, w.Put(Win, "w", bomb, 2))
	err := w.CopyTo("w", &dup)
	var cb *CallbackError
	if !errors.As(err, &cb) || cb.Delete || !strings.Contains(err.Error(), "copy function") {
		t.Errorf("CopyTo with a failing copy function: %v", err)
	}
	if got := values(&dup); !slices.Equal(got, []any{1}) {
		t.Errorf("the copies made before the failure: %v, want [1] for the caller to delete", got)
	}
	must(t, dup.DeleteAll("dup", true))
}

// TestCopy: the copy function decides; nil copies nothing; Dup copies the value; the
// duplicate keeps the original's order.
func TestCopy(t *testing.T) {
	double := New(Comm, func(obj any, k *Keyval, v any) (any, bool, error) { return v.(int) * 2, true, nil }, nil, nil)
	none := New(Comm, nil, nil, nil)
	same := New(Comm, Dup, nil, nil)
	refuse := New(Comm, func(any, *Keyval, any) (any, bool, error) { return 9, false, nil }, nil, nil)
	var s, d Set
	must(t, s.Put(Comm, "c", same, 1))
	must(t, s.Put(Comm, "c", none, 2))
	must(t, s.Put(Comm, "c", double, 3))
	must(t, s.Put(Comm, "c", refuse, 4))
	must(t, s.CopyTo("c", &d))
	if got := values(&d); !slices.Equal(got, []any{1, 6}) {
		t.Errorf("copied %v, want [1 6]", got)
	}
}

// TestKeyvalLife: a freed keyval cannot be set, but its attributes are read, copied
// and deleted; freeing it again while an attribute holds it does nothing (MPICH's
// keyval_double_free tests, whose delete function frees the keyval too); it goes away
// with its last attribute, and then every use is ErrKeyval.
func TestKeyvalLife(t *testing.T) {
	released := 0
	var k *Keyval
	k = New(Comm, Dup, func(obj any, kk *Keyval, v any) error {
		return kk.Free(Comm) // as keyval_double_free_comm.c's delete_fn does
	}, nil)
	k.OnRelease(func() { released++ })
	var self, duped, copyOf Set
	must(t, self.Put(Comm, "self", k, 1))
	must(t, duped.Put(Comm, "duped", k, 2))
	must(t, duped.DeleteAll("duped", false)) // first free, in the delete function
	must(t, k.Free(Comm))                    // second: still held by self's attribute
	must(t, k.Free(Comm))                    // third
	if err := self.Put(Comm, "self", k, 3); !errors.Is(err, ErrFreed) {
		t.Errorf("Put with a freed keyval: %v, want ErrFreed", err)
	}
	if v, ok, err := self.Get(Comm, k); v != 1 || !ok || err != nil {
		t.Errorf("Get with a freed keyval: %v, %v, %v", v, ok, err)
	}
	must(t, self.CopyTo("self", &copyOf))
	must(t, copyOf.DeleteAll("copy", false))
	if released != 0 {
		t.Fatalf("released while an attribute holds it")
	}
	must(t, self.DeleteAll("self", true)) // fourth free, in Finalize's delete function
	if released != 1 {
		t.Fatalf("released %d times after the last attribute went, want 1", released)
	}
	for name, err := range map[string]error{
		"Free":   k.Free(Comm),
		"Put":    self.Put(Comm, "self", k, 1),
		"Delete": self.Delete(Comm, "self", k),
		"Get":    func() error { _, _, err := self.Get(Comm, k); return err }(),
	} {
		if !errors.Is(err, ErrKeyval) || !strings.Contains(err.Error(), "freed") {
			t.Errorf("%s of a keyval gone: %v, want ErrKeyval", name, err)
		}
	}
	plain := New(Type, nil, nil, nil)
	plain.OnRelease(func() { released++ })
	must(t, plain.Free(Type))
	if released != 2 {
		t.Errorf("a keyval freed with no attribute was not released")
	}
}

// TestErrors: every misuse of a keyval, its class and what its message names.
func TestErrors(t *testing.T) {
	tagUB := Predefined(Comm, "MPI_TAG_UB")
	winKey := New(Win, nil, nil, nil)
	var s Set
	get := func(kind Kind, k *Keyval) error { _, _, err := s.Get(kind, k); return err }
	for _, c := range []struct {
		name  string
		err   error
		class error
		says  string
	}{
		{"Put of nil", s.Put(Comm, "c", nil, 1), ErrKeyval, "MPI_KEYVAL_INVALID"},
		{"Get of nil", get(Comm, nil), ErrKeyval, "MPI_KEYVAL_INVALID"},
		{"Delete of nil", s.Delete(Comm, "c", nil), ErrKeyval, "MPI_KEYVAL_INVALID"},
		{"Free of nil", (*Keyval)(nil).Free(Comm), ErrKeyval, "MPI_KEYVAL_INVALID"},
		{"Put of a window keyval on a communicator", s.Put(Comm, "c", winKey, 1), ErrKind, "window keyval, not a communicator"},
		{"Get of a window keyval on a datatype", get(Type, winKey), ErrKind, "not a datatype"},
		{"Delete of a window keyval on a communicator", s.Delete(Comm, "c", winKey), ErrKind, "window keyval"},
		{"Free of a window keyval as a datatype's", winKey.Free(Type), ErrKind, "window keyval"},
		{"Put of a predefined keyval", s.Put(Comm, "c", tagUB, 1), ErrPredefined, "MPI_TAG_UB is predefined"},
		{"Delete of a predefined keyval", s.Delete(Comm, "c", tagUB), ErrPredefined, "MPI_TAG_UB"},
		{"Free of a predefined keyval", tagUB.Free(Comm), ErrPredefined, "MPI_TAG_UB"},
		{"Get of a predefined keyval of another kind", get(Win, tagUB), ErrKind, "communicator keyval"},
	} {
		if !errors.Is(c.err, c.class) || !strings.Contains(c.err.Error(), c.says) {
			t.Errorf("%s: %v, want %v saying %q", c.name, c.err, c.class, c.says)
		}
	}
	if v, ok, err := s.Get(Comm, tagUB); v != nil || ok || err != nil {
		t.Errorf("Get of a predefined keyval here: %v, %v, %v; its value is the runtime's", v, ok, err)
	}
	if !tagUB.IsPredefined() || tagUB.Name() != "MPI_TAG_UB" || winKey.IsPredefined() || winKey.Kind() != Win {
		t.Error("IsPredefined, Name or Kind")
	}
	if k := New(Comm, nil, nil, 42); k.Extra() != 42 {
		t.Errorf("Extra = %v", k.Extra())
	}
	for _, k := range []Kind{Comm, Type, Win, 9} {
		if k.String() == "" {
			t.Errorf("Kind %d has no name", k)
		}
	}
}

// TestConcurrent: goroutines setting, reading, copying and deleting on one object.
func TestConcurrent(t *testing.T) {
	r := &recorder{}
	keys := []*Keyval{New(Comm, Dup, r.del, nil), New(Comm, Dup, r.del, nil), New(Comm, nil, r.del, nil)}
	var s Set
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				k := keys[(g+i)%len(keys)]
				_ = s.Put(Comm, "c", k, i)
				_, _, _ = s.Get(Comm, k)
				var d Set
				_ = s.CopyTo("c", &d)
				_ = d.DeleteAll("d", true)
				if i%7 == 0 {
					_ = s.Delete(Comm, "c", k)
				}
			}
		}()
	}
	wg.Wait()
	must(t, s.DeleteAll("c", true))
	for _, k := range keys {
		k.mu.Lock()
		refs := k.refs
		k.mu.Unlock()
		if refs != 1 {
			t.Errorf("a keyval holds %d references with no attribute left, want 1 (the program's)", refs)
		}
	}
}
