package mpi

import (
	"github.com/mpigo/mpigo/internal/mpir"
)

// Keyval names an attribute that can be attached to communicators
// (MPI_Comm_create_keyval). Copy decides what Dup gives the new communicator; Delete
// is told when a value goes away (DeleteAttr, a replacing SetAttr, Free, and Finalize
// for the attributes of Self).
type Keyval struct {
	k *mpir.Keyval
}

// CopyFunc returns the value the duplicate of old gets, and whether it gets one at all.
type CopyFunc func(old *Comm, k *Keyval, val any) (newVal any, keep bool, err error)

// DeleteFunc is called when val stops being c's attribute k.
type DeleteFunc func(c *Comm, k *Keyval, val any) error

// NewKeyval makes a keyval. With a nil copy, duplicates do not get the attribute
// (MPI_COMM_NULL_COPY_FN); with a nil delete nothing is called.
func NewKeyval(copy CopyFunc, delete DeleteFunc) *Keyval {
	kv := &Keyval{}
	kv.k = mpir.NewKeyval(mpir.AttrComm, copyFunc(copy, kv), deleteFunc(delete, kv), nil)
	return kv
}

// copyFunc is the copy function mpir calls for f, the copy function of the keyval k of
// objects of Go type O (a communicator's, a datatype's): nil for nil.
func copyFunc[O, K any](f func(O, K, any) (any, bool, error), k K) mpir.CopyFunc {
	if f == nil {
		return nil
	}
	return func(obj any, _ *mpir.Keyval, val any) (any, bool, error) { return f(obj.(O), k, val) }
}

// deleteFunc is the delete function mpir calls for f, as copyFunc.
func deleteFunc[O, K any](f func(O, K, any) error, k K) mpir.DeleteFunc {
	if f == nil {
		return nil
	}
	return func(obj any, _ *mpir.Keyval, val any) error { return f(obj.(O), k, val) }
}

// obj is the keyval k stands for: nil for nil.
func (k *Keyval) obj() *mpir.Keyval {
	if k == nil {
		return nil
	}
	return k.k
}

// CommFreeKeyval frees k (MPI_Comm_free_keyval): SetAttr no longer takes it, but the
// attributes already set under it stay, readable, copied by Dup and deleted (with its
// delete function) by DeleteAttr, Free or Finalize, as MPI keeps a freed keyval until
// its last attribute goes. Freeing it again meanwhile does nothing; after that, and
// for a predefined or nil keyval, it is an error of class ErrKeyval.
func CommFreeKeyval(k *Keyval) error {
	return Self.fail("CommFreeKeyval", mpir.FreeKeyval("CommFreeKeyval", mpir.AttrComm, k.obj()))
}

// CopyDup is a CopyFunc that gives the duplicate the same value (MPI_COMM_DUP_FN).
func CopyDup(_ *Comm, _ *Keyval, val any) (any, bool, error) { return val, true, nil }

// The predefined attributes (MPI 4.1, section 9.1.2), present on every communicator.
var (
	// KeyTagUB is the largest tag (an int).
	KeyTagUB = &Keyval{k: mpir.KeyTagUB}
	// KeyUniverseSize is how many processes the job may have in all, those it may
	// spawn (CommSpawn) included (MPI_UNIVERSE_SIZE, an int). It is there only where
	// the process manager says.
	KeyUniverseSize = &Keyval{k: mpir.KeyUniverseSize}
	// KeyAppNum is the index of this process's program among the job's: in the
	// launcher's command line or in CommSpawnMultiple's commands (MPI_APPNUM, an
	// int). It is there only where the process manager says.
	KeyAppNum = &Keyval{k: mpir.KeyAppNum}
	// KeyWtimeIsGlobal says whether Wtime is synchronised across ranks (a bool).
	KeyWtimeIsGlobal = &Keyval{k: mpir.KeyWtimeIsGlobal}
	// KeyHost is the rank of the host process in World, if there is one (MPI_HOST, an
	// int): ProcNull, since an mpigo job has none.
	KeyHost = &Keyval{k: mpir.KeyHost}
	// KeyIO is the rank of a process that can do I/O (MPI_IO, an int): AnySource, since
	// every rank has the operating system's files.
	KeyIO = &Keyval{k: mpir.KeyIO}
	// KeyLastUsedCode is the largest error class or code in use (MPI_LASTUSEDCODE, an
	// ErrorCode): LastErrorCode until AddErrorClass or AddErrorCode makes a larger one.
	KeyLastUsedCode = &Keyval{k: mpir.KeyLastUsedCode}
)

// SetAttr attaches val to c under k, replacing (and deleting) any earlier value. If
// the earlier value's delete function fails, its error is SetAttr's and the earlier
// value stays.
func (c *Comm) SetAttr(k *Keyval, val any) error {
	if err := c.check("SetAttr"); err != nil {
		return err
	}
	return c.fail("SetAttr", c.x.SetAttr("SetAttr", k.obj(), val))
}

// Attr returns c's attribute k and whether it is set. A nil or freed communicator
// (ErrComm) or an invalid keyval (nil, or freed with no attribute left: ErrKeyval)
// gives false, after the error goes to the handler (MPI_Comm_get_attr).
func (c *Comm) Attr(k *Keyval) (any, bool) {
	if c.check("Attr") != nil {
		return nil, false
	}
	v, ok, err := c.x.Attr("Attr", k.obj())
	if err != nil {
		c.raise("Attr", err)
		return nil, false
	}
	return v, ok
}

// DeleteAttr removes c's attribute k, calling its delete function; if that fails, its
// error is DeleteAttr's and the attribute stays. An attribute not set is nothing to
// delete.
func (c *Comm) DeleteAttr(k *Keyval) error {
	if err := c.check("DeleteAttr"); err != nil {
		return err
	}
	return c.fail("DeleteAttr", c.x.DeleteAttr("DeleteAttr", k.obj()))
}
