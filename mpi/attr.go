package mpi

import (
	"slices"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/core"
)

// Keyval names an attribute that can be attached to communicators
// (MPI_Comm_create_keyval). Copy decides what Dup gives the new communicator; Delete
// is told when a value goes away (DeleteAttr, a replacing SetAttr, Free, and Finalize
// for the attributes of Self).
type Keyval struct {
	id     int64
	copy   CopyFunc
	delete DeleteFunc
	fixed  func() any // predefined attributes: the value, computed
	freed  atomic.Bool
}

// CopyFunc returns the value the duplicate of old gets, and whether it gets one at all.
type CopyFunc func(old *Comm, k *Keyval, val any) (newVal any, keep bool, err error)

// DeleteFunc is called when val stops being c's attribute k.
type DeleteFunc func(c *Comm, k *Keyval, val any) error

var keyvalIDs atomic.Int64

// NewKeyval makes a keyval. With a nil copy, duplicates do not get the attribute
// (MPI_COMM_NULL_COPY_FN); with a nil delete nothing is called.
func NewKeyval(copy CopyFunc, delete DeleteFunc) *Keyval {
	return &Keyval{id: keyvalIDs.Add(1), copy: copy, delete: delete}
}

// CommFreeKeyval frees k (MPI_Comm_free_keyval): SetAttr no longer takes it, but the
// attributes already set under it stay, readable, copied by Dup and deleted (with its
// delete function) by DeleteAttr, Free or Finalize, as MPI keeps a freed keyval until
// its last attribute goes. Predefined keyvals cannot be freed, nor k twice.
func CommFreeKeyval(k *Keyval) error {
	if err := keyvalCheck("CommFreeKeyval", k); err != nil {
		return Self.fail("CommFreeKeyval", err)
	}
	if k.freed.Swap(true) {
		return Self.fail("CommFreeKeyval", errorf(ClassKeyval, "CommFreeKeyval", "the keyval was already freed"))
	}
	return nil
}

// keyvalCheck refuses a nil or predefined keyval, which no call may change.
func keyvalCheck(op string, k *Keyval) error {
	if k == nil {
		return errorf(ClassKeyval, op, "the keyval is nil")
	}
	if k.fixed != nil {
		return errorf(ClassKeyval, op, "the keyval is predefined: predefined attributes are read-only")
	}
	return nil
}

// CopyDup is a CopyFunc that gives the duplicate the same value (MPI_COMM_DUP_FN).
func CopyDup(_ *Comm, _ *Keyval, val any) (any, bool, error) { return val, true, nil }

// The predefined attributes (MPI 4.1, section 9.1.2), present on every communicator.
var (
	// KeyTagUB is the largest tag (an int).
	KeyTagUB = &Keyval{id: -1, fixed: func() any { return TagUB }}
	// KeyUniverseSize is the number of processes the job can hold (an int).
	KeyUniverseSize = &Keyval{id: -2, fixed: func() any { return World.Size() }}
	// KeyAppNum is this program's number in a job of several programs (an int).
	KeyAppNum = &Keyval{id: -3, fixed: func() any { return 0 }}
	// KeyWtimeIsGlobal says whether Wtime is synchronised across ranks (a bool).
	KeyWtimeIsGlobal = &Keyval{id: -4, fixed: func() any { return false }}
	// KeyHost is the rank of the host process in World, if there is one (MPI_HOST, an
	// int): ProcNull, since an mpigo job has none.
	KeyHost = &Keyval{id: -5, fixed: func() any { return ProcNull }}
	// KeyIO is the rank of a process that can do I/O (MPI_IO, an int): AnySource, since
	// every rank has the operating system's files.
	KeyIO = &Keyval{id: -6, fixed: func() any { return AnySource }}
	// KeyLastUsedCode is the largest error class or code in use (MPI_LASTUSEDCODE, an
	// ErrorCode): LastErrorCode until AddErrorClass or AddErrorCode makes a larger one.
	KeyLastUsedCode = &Keyval{id: -7, fixed: func() any { return core.LastUsedCode() }}
)

// SetAttr attaches val to c under k, replacing (and deleting) any earlier value.
func (c *Comm) SetAttr(k *Keyval, val any) error {
	if err := c.check("SetAttr"); err != nil {
		return err
	}
	if err := keyvalCheck("SetAttr", k); err != nil {
		return c.fail("SetAttr", err)
	}
	if k.freed.Load() {
		return c.fail("SetAttr", errorf(ClassKeyval, "SetAttr", "the keyval was freed (CommFreeKeyval)"))
	}
	c.mu.Lock()
	old, had := c.attrs[k]
	c.putAttr(k, val)
	c.mu.Unlock()
	if had && k.delete != nil {
		return c.fail("SetAttr", k.delete(c, k, old))
	}
	return nil
}

// putAttr sets c's attribute k last in the order of setting, which Finalize runs the
// delete functions of Self's attributes in reverse of. The caller holds c.mu.
func (c *Comm) putAttr(k *Keyval, val any) {
	if c.attrs == nil {
		c.attrs = map[*Keyval]any{}
	}
	if _, had := c.attrs[k]; had {
		c.dropOrder(k)
	}
	c.attrs[k] = val
	c.order = append(c.order, k)
}

// dropOrder takes k out of c's order of setting. The caller holds c.mu.
func (c *Comm) dropOrder(k *Keyval) {
	if i := slices.Index(c.order, k); i >= 0 {
		c.order = slices.Delete(c.order, i, i+1)
	}
}

// Attr returns c's attribute k and whether it is set. A nil or freed communicator
// (ErrComm) or a nil keyval (ErrKeyval) gives false, after the error goes to the
// handler (MPI_Comm_get_attr).
func (c *Comm) Attr(k *Keyval) (any, bool) {
	if c.check("Attr") != nil {
		return nil, false
	}
	if k == nil {
		c.raise("Attr", errorf(ClassKeyval, "Attr", "the keyval is nil"))
		return nil, false
	}
	if k.fixed != nil {
		return k.fixed(), true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.attrs[k]
	return v, ok
}

// DeleteAttr removes c's attribute k, calling its delete function.
func (c *Comm) DeleteAttr(k *Keyval) error {
	if err := c.check("DeleteAttr"); err != nil {
		return err
	}
	if err := keyvalCheck("DeleteAttr", k); err != nil {
		return c.fail("DeleteAttr", err)
	}
	c.mu.Lock()
	v, ok := c.attrs[k]
	delete(c.attrs, k)
	c.dropOrder(k)
	c.mu.Unlock()
	if ok && k.delete != nil {
		return c.fail("DeleteAttr", k.delete(c, k, v))
	}
	return nil
}

// copyAttrs gives dup the attributes of c that their copy functions keep, in c's order.
func (c *Comm) copyAttrs(dup *Comm) error {
	c.mu.Lock()
	order := slices.Clone(c.order)
	vals := make([]any, len(order))
	for i, k := range order {
		vals[i] = c.attrs[k]
	}
	c.mu.Unlock()
	for i, k := range order {
		if k.copy == nil {
			continue
		}
		nv, keep, err := k.copy(c, k, vals[i])
		if err != nil {
			return err
		}
		if keep {
			dup.putAttr(k, nv)
		}
	}
	return nil
}

// deleteAttrs runs the delete functions of every attribute, the last set first, as
// Free does and Finalize does for Self (MPI 4.1, section 11.2.4); the first error is
// returned, after every function has run.
func (c *Comm) deleteAttrs() error {
	c.mu.Lock()
	attrs, order := c.attrs, c.order
	c.attrs, c.order = nil, nil
	c.mu.Unlock()
	var first error
	for i := len(order) - 1; i >= 0; i-- {
		k := order[i]
		if k.delete == nil {
			continue
		}
		if err := k.delete(c, k, attrs[k]); err != nil && first == nil {
			first = err
		}
	}
	return first
}
