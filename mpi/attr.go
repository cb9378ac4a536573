package mpi

import "sync/atomic"

// Keyval names an attribute that can be attached to communicators
// (MPI_Comm_create_keyval). Copy decides what Dup gives the new communicator; Delete
// is told when a value goes away (DeleteAttr, a replacing SetAttr, Free).
type Keyval struct {
	id     int64
	copy   CopyFunc
	delete DeleteFunc
	fixed  func() any // predefined attributes: the value, computed
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

// CopyDup is a CopyFunc that gives the duplicate the same value (MPI_COMM_DUP_FN).
func CopyDup(_ *Comm, _ *Keyval, val any) (any, bool, error) { return val, true, nil }

// The predefined attributes, present on every communicator.
var (
	// KeyTagUB is the largest tag (an int).
	KeyTagUB = &Keyval{id: -1, fixed: func() any { return TagUB }}
	// KeyUniverseSize is the number of processes the job can hold (an int).
	KeyUniverseSize = &Keyval{id: -2, fixed: func() any { return World.Size() }}
	// KeyAppNum is this program's number in a job of several programs (an int).
	KeyAppNum = &Keyval{id: -3, fixed: func() any { return 0 }}
	// KeyWtimeIsGlobal says whether Wtime is synchronised across ranks (a bool).
	KeyWtimeIsGlobal = &Keyval{id: -4, fixed: func() any { return false }}
)

// SetAttr attaches val to c under k, replacing (and deleting) any earlier value.
func (c *Comm) SetAttr(k *Keyval, val any) error {
	if err := c.check("SetAttr"); err != nil {
		return err
	}
	if k == nil || k.fixed != nil {
		return c.fail("SetAttr", errorf(ClassArg, "SetAttr", "keyval is nil or predefined (predefined attributes are read-only)"))
	}
	c.mu.Lock()
	old, had := c.attrs[k]
	if c.attrs == nil {
		c.attrs = map[*Keyval]any{}
	}
	c.attrs[k] = val
	c.mu.Unlock()
	if had && k.delete != nil {
		return c.fail("SetAttr", k.delete(c, k, old))
	}
	return nil
}

// Attr returns c's attribute k and whether it is set.
func (c *Comm) Attr(k *Keyval) (any, bool) {
	if k == nil || c.check("Attr") != nil {
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
	if k == nil || k.fixed != nil {
		return c.fail("DeleteAttr", errorf(ClassArg, "DeleteAttr", "keyval is nil or predefined"))
	}
	c.mu.Lock()
	v, ok := c.attrs[k]
	delete(c.attrs, k)
	c.mu.Unlock()
	if ok && k.delete != nil {
		return c.fail("DeleteAttr", k.delete(c, k, v))
	}
	return nil
}

// copyAttrs gives dup the attributes of c that their copy functions keep.
func (c *Comm) copyAttrs(dup *Comm) error {
	c.mu.Lock()
	attrs := make(map[*Keyval]any, len(c.attrs))
	for k, v := range c.attrs {
		attrs[k] = v
	}
	c.mu.Unlock()
	for k, v := range attrs {
		if k.copy == nil {
			continue
		}
		nv, keep, err := k.copy(c, k, v)
		if err != nil {
			return err
		}
		if keep {
			if dup.attrs == nil {
				dup.attrs = map[*Keyval]any{}
			}
			dup.attrs[k] = nv
		}
	}
	return nil
}

// deleteAttrs runs the delete functions of every attribute, as Free does.
func (c *Comm) deleteAttrs() error {
	c.mu.Lock()
	attrs := c.attrs
	c.attrs = nil
	c.mu.Unlock()
	var first error
	for k, v := range attrs {
		if k.delete != nil {
			if err := k.delete(c, k, v); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
