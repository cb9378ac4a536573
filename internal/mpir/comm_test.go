package mpir

import (
	"errors"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
)

// testComm is an object over a duplicate of the singleton's world, with handle as
// its face's name, freed (if still live) when the test ends.
func testComm(t *testing.T, handle string) *Comm {
	t.Helper()
	startWorld(t)
	d, err := collective.Dup(core.World, "Dup", nil)
	mustOK(t, err)
	c := NewComm(d, nil, ErrorsAreFatal, nil)
	c.Handle = handle
	t.Cleanup(func() {
		if c.Check("Free") == nil {
			_ = collective.Free(d, "Free")
		}
	})
	return c
}

// hint is the value of key among c's hints in effect.
func hint(t *testing.T, c *Comm, key string) string {
	t.Helper()
	in, err := c.Info("Info")
	mustOK(t, err)
	v, _, err := in.Get(key)
	mustOK(t, err)
	return v
}

// TestCommDerive: a communicator made from another inherits its error handler and
// owner, and no hint of its: every hint is at its default (MPI 4.1 sections 7.4.4
// and 9.3).
func TestCommDerive(t *testing.T) {
	p := testComm(t, "parent")
	h := NewErrhandler(KindComm, func(any, error) {})
	_, err := p.Errh.Set("SetErrhandler", KindComm, h)
	mustOK(t, err)
	mustOK(t, p.SetInfo("SetInfo", InfoOf("mpi_assert_no_any_tag", "true")))
	d, err := collective.Split(p.Dev(), "Split", 0, 0, nil)
	mustOK(t, err)
	n := p.Derive(d, nil, nil)
	if n.Errh.Get() != h {
		t.Errorf("the derived communicator's handler is %s, want its parent's", n.Errh.Get().Name())
	}
	if n.Owner() != nil || n.Topo() != nil {
		t.Errorf("derived from a world model communicator with no topology: owner %v, topology %v", n.Owner(), n.Topo())
	}
	if v := hint(t, n, "mpi_assert_no_any_tag"); v != "false" {
		t.Errorf("derived communicator's mpi_assert_no_any_tag is %q, want the default \"false\"", v)
	}
	mustOK(t, n.Free("Free"))
	if p.Derive(nil, nil, nil) != nil {
		t.Error("Derive of no device communicator (a rank left out) is not nil")
	}
}

// TestCommDup: Dup keeps the handler, the topology, the hints and the attributes
// whose copy functions keep them; the new one's hints are its own.
func TestCommDup(t *testing.T) {
	p := testComm(t, "parent")
	mustOK(t, p.SetInfo("SetInfo", InfoOf("mpi_assert_no_any_tag", "true")))
	kept := NewKeyval(AttrComm, CopyDup, nil, nil)
	dropped := NewKeyval(AttrComm, nil, nil, nil)
	mustOK(t, p.SetAttr("SetAttr", kept, 7))
	mustOK(t, p.SetAttr("SetAttr", dropped, 8))
	var got any
	n, err := p.Dup("Dup", nil, nil, func(c *Comm) any { got = c; return "dup" })
	mustOK(t, err)
	if got != n || n.Handle != "dup" {
		t.Errorf("handle given %v, Handle %v: want the new object and its face's name", got, n.Handle)
	}
	if n.Errh.Get() != ErrorsAreFatal {
		t.Errorf("the duplicate's handler is %s, want its parent's", n.Errh.Get().Name())
	}
	if v, ok, err := n.Attr("Attr", kept); err != nil || !ok || v != 7 {
		t.Errorf("kept attribute: %v %v %v, want 7 true nil", v, ok, err)
	}
	if _, ok, err := n.Attr("Attr", dropped); err != nil || ok {
		t.Errorf("attribute with no copy function: set %v (%v), want not set", ok, err)
	}
	if v := hint(t, n, "mpi_assert_no_any_tag"); v != "true" {
		t.Errorf("duplicate's mpi_assert_no_any_tag is %q, want its parent's \"true\"", v)
	}
	mustOK(t, n.SetInfo("SetInfo", InfoOf("mpi_assert_no_any_tag", "false")))
	if v := hint(t, p, "mpi_assert_no_any_tag"); v != "true" {
		t.Errorf("setting the duplicate's hint changed its parent's to %q", v)
	}
	mustOK(t, n.Free("Free"))

	with, err := p.Dup("Dup", DefaultCommHints(), nil, func(*Comm) any { return "with" })
	mustOK(t, err)
	if v := hint(t, with, "mpi_assert_no_any_tag"); v != "false" {
		t.Errorf("Dup with hints: mpi_assert_no_any_tag %q, want the given \"false\"", v)
	}
	mustOK(t, with.Free("Free"))
}

// TestCommDupCopyFails: a failed copy function fails Dup with its error; the copies
// made are deleted with the new communicator's name, and the new device
// communicator is freed.
func TestCommDupCopyFails(t *testing.T) {
	p := testComm(t, "parent")
	var deleted []any
	del := func(obj any, _ *Keyval, _ any) error { deleted = append(deleted, obj); return nil }
	mustOK(t, p.SetAttr("SetAttr", NewKeyval(AttrComm, CopyDup, del, nil), 1))
	boom := errors.New("boom")
	fails := func(any, *Keyval, any) (any, bool, error) { return nil, false, boom }
	mustOK(t, p.SetAttr("SetAttr", NewKeyval(AttrComm, fails, nil, nil), 2))
	var n *Comm
	_, err := p.Dup("Dup", nil, nil, func(c *Comm) any { n = c; return "dup" })
	if !errors.Is(err, boom) {
		t.Fatalf("Dup with a failing copy function: %v, want its error", err)
	}
	if len(deleted) != 1 || deleted[0] != "dup" {
		t.Errorf("delete functions given %v, want the copy deleted once on \"dup\"", deleted)
	}
	wantClassOf(t, "the failed duplicate", n.Check("Comm_rank"), core.ClassComm)
}

// TestCommNameFree: a name is cut at MaxObjectName bytes; Free runs the delete
// functions with the face's name before freeing, a failing one keeps the
// communicator; the predefined ones cannot be freed.
func TestCommNameFree(t *testing.T) {
	c := testComm(t, "c")
	mustOK(t, c.SetName("SetName", strings.Repeat("n", MaxObjectName+10)))
	if got := c.Name(); got != strings.Repeat("n", MaxObjectName) {
		t.Errorf("name of %d bytes, want cut at %d", len(got), MaxObjectName)
	}
	if (*Comm)(nil).Name() != "MPI_COMM_NULL" {
		t.Errorf("a nil communicator's name is %q", (*Comm)(nil).Name())
	}
	fail := true
	var on []any
	del := func(obj any, _ *Keyval, _ any) error {
		on = append(on, obj)
		if fail {
			return errors.New("not yet")
		}
		return nil
	}
	mustOK(t, c.SetAttr("SetAttr", NewKeyval(AttrComm, nil, del, nil), 1))
	if err := c.Free("Free"); err == nil {
		t.Fatal("Free with a failing delete function succeeded")
	}
	mustOK(t, c.Check("Comm_rank"))
	fail = false
	mustOK(t, c.Free("Free"))
	if len(on) != 2 || on[0] != "c" || on[1] != "c" {
		t.Errorf("delete functions given %v, want \"c\" twice", on)
	}
	wantClassOf(t, "a freed communicator", c.Check("Comm_rank"), core.ClassComm)
	w := NewComm(core.World, nil, ErrorsReturn, nil)
	wantClassOf(t, "freeing MPI_COMM_WORLD", w.Free("Comm_free"), core.ClassComm)
}
