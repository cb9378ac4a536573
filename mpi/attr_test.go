package mpi_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestKeyvalDoubleFree: MPICH's test/mpi/attr/keyval_double_free_comm.c in Go. A delete
// function frees its keyval while Self's attribute still holds it, the program frees it
// twice more, and Finalize's delete function a fourth time: freeing a keyval in use is
// not erroneous (MPI 4.1 section 7.7.2), so none of these fails; the attribute is read
// meanwhile, and the keyval goes with it.
func TestKeyvalDoubleFree(t *testing.T) {
	mpitest.Run(t, 2, func(t *testing.T) {
		must(t, mpi.Init())
		var frees []error
		var k *mpi.Keyval
		k = mpi.NewKeyval(nil, func(c *mpi.Comm, kk *mpi.Keyval, v any) error {
			frees = append(frees, mpi.CommFreeKeyval(kk))
			return nil
		})
		duped, err := mpi.Self.Dup()
		must(t, err)
		must(t, mpi.Self.SetAttr(k, "self"))
		must(t, duped.SetAttr(k, "duped"))
		must(t, duped.Free())          // first free
		must(t, mpi.CommFreeKeyval(k)) // second
		must(t, mpi.CommFreeKeyval(k)) // third
		if v, ok := mpi.Self.Attr(k); !ok || v != "self" {
			t.Errorf("Self's attribute after its keyval was freed: %v (set %v)", v, ok)
		}
		if err := mpi.Self.SetAttr(k, "again"); !errors.Is(err, mpi.ErrKeyval) {
			t.Errorf("SetAttr with a freed keyval: %v, want ErrKeyval", err)
		}
		must(t, mpi.Finalize()) // fourth, in the delete function
		if len(frees) != 2 || slices.ContainsFunc(frees, func(err error) bool { return err != nil }) {
			t.Errorf("the delete function's frees: %v, want two without error", frees)
		}
		if err := mpi.CommFreeKeyval(k); !errors.Is(err, mpi.ErrKeyval) {
			t.Errorf("freeing the keyval once its last attribute went: %v, want ErrKeyval", err)
		}
	})
}

// TestDupWithFailingCopy: a copy function that fails makes Dup fail with its error
// and no communicator; the copies made before it are deleted, with the discarded
// communicator (MPI 4.1 section 7.7.2; MPICH's attrerrcomm.c).
func TestDupWithFailingCopy(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		var deleted []any
		kept := mpi.NewKeyval(mpi.CopyDup, func(_ *mpi.Comm, _ *mpi.Keyval, v any) error {
			deleted = append(deleted, v)
			return nil
		})
		bomb := errors.New("no copies")
		failing := mpi.NewKeyval(func(*mpi.Comm, *mpi.Keyval, any) (any, bool, error) { return nil, true, bomb }, nil)
		c, err := mpi.World.Dup()
		must(t, err)
		must(t, c.SetAttr(kept, "k"))
		must(t, c.SetAttr(failing, "f"))
		d, err := c.Dup()
		if d != nil || !errors.Is(err, bomb) || !errors.Is(err, mpi.ErrOther) {
			t.Errorf("Dup with a failing copy function: %v, %v; want nil and its error, of class ErrOther", d, err)
		}
		if !slices.Equal(deleted, []any{"k"}) {
			t.Errorf("deleted %v, want the copy made before the failure", deleted)
		}
		must(t, c.DeleteAttr(failing))
		must(t, c.Free())
	})
}
