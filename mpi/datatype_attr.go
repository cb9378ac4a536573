package mpi

import "sync/atomic"

// Attributes on datatypes, as on communicators (attr.go): a keyval names the
// attribute, its copy function decides what Dup gives the new type, its delete
// function is told when a value goes away.

// TypeKeyval names an attribute that can be attached to datatypes
// (MPI_Type_create_keyval).
type TypeKeyval struct {
	id     int64
	copy   TypeCopyFunc
	delete TypeDeleteFunc
	freed  atomic.Bool
}

// TypeCopyFunc returns the value the duplicate of old gets, and whether it gets one.
type TypeCopyFunc func(old *Datatype, k *TypeKeyval, val any) (newVal any, keep bool, err error)

// TypeDeleteFunc is called when val stops being d's attribute k.
type TypeDeleteFunc func(d *Datatype, k *TypeKeyval, val any) error

var typeKeyvalIDs atomic.Int64

// TypeCreateKeyval makes a keyval for datatype attributes (MPI_Type_create_keyval).
// With a nil copy, duplicates do not get the attribute (MPI_TYPE_NULL_COPY_FN); with a
// nil delete nothing is called (MPI_TYPE_NULL_DELETE_FN).
func TypeCreateKeyval(copy TypeCopyFunc, delete TypeDeleteFunc) *TypeKeyval {
	return &TypeKeyval{id: typeKeyvalIDs.Add(1), copy: copy, delete: delete}
}

// TypeCopyDup is a TypeCopyFunc that gives the duplicate the same value
// (MPI_TYPE_DUP_FN).
func TypeCopyDup(_ *Datatype, _ *TypeKeyval, val any) (any, bool, error) { return val, true, nil }

// Free releases k (MPI_Type_free_keyval): it can no longer be set on a datatype, while
// the values already set keep working, are copied and deleted as before.
func (k *TypeKeyval) Free() error {
	if k == nil {
		return errorf(ClassArg, "TypeFreeKeyval", "keyval is nil")
	}
	if k.freed.Swap(true) {
		return errorf(ClassArg, "TypeFreeKeyval", "keyval already freed")
	}
	return nil
}

// SetAttr attaches val to d under k (MPI_Type_set_attr), replacing, and deleting, any
// earlier value.
func (d *Datatype) SetAttr(k *TypeKeyval, val any) error {
	if _, err := d.inner("TypeSetAttr", "d"); err != nil {
		return err
	}
	if k == nil || k.freed.Load() {
		return errorf(ClassArg, "TypeSetAttr", "keyval is nil or freed")
	}
	d.mu.Lock()
	old, had := d.attrs[k]
	if d.attrs == nil {
		d.attrs = map[*TypeKeyval]any{}
	}
	d.attrs[k] = val
	d.mu.Unlock()
	if had && k.delete != nil {
		return attrErr("TypeSetAttr", k.delete(d, k, old))
	}
	return nil
}

// Attr returns d's attribute k and whether it is set (MPI_Type_get_attr).
func (d *Datatype) Attr(k *TypeKeyval) (val any, ok bool, err error) {
	if _, err := d.inner("TypeGetAttr", "d"); err != nil {
		return nil, false, err
	}
	if k == nil {
		return nil, false, errorf(ClassArg, "TypeGetAttr", "keyval is nil")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	val, ok = d.attrs[k]
	return val, ok, nil
}

// DeleteAttr removes d's attribute k, calling its delete function
// (MPI_Type_delete_attr); with no attribute set it does nothing, as Comm.DeleteAttr.
func (d *Datatype) DeleteAttr(k *TypeKeyval) error {
	if _, err := d.inner("TypeDeleteAttr", "d"); err != nil {
		return err
	}
	if k == nil {
		return errorf(ClassArg, "TypeDeleteAttr", "keyval is nil")
	}
	d.mu.Lock()
	v, ok := d.attrs[k]
	delete(d.attrs, k)
	d.mu.Unlock()
	if ok && k.delete != nil {
		return attrErr("TypeDeleteAttr", k.delete(d, k, v))
	}
	return nil
}

// attrErr gives an error of a user's copy or delete function a class, keeping its own.
func attrErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if ClassOf(err) != ClassOther {
		return err
	}
	return errorf(ClassOther, op, "an attribute function failed: %v", err)
}

// copyAttrs gives dup the attributes of d that their copy functions keep.
func (d *Datatype) copyAttrs(dup *Datatype) error {
	d.mu.Lock()
	attrs := make(map[*TypeKeyval]any, len(d.attrs))
	for k, v := range d.attrs {
		attrs[k] = v
	}
	d.mu.Unlock()
	for k, v := range attrs {
		if k.copy == nil {
			continue
		}
		nv, keep, err := k.copy(d, k, v)
		if err != nil {
			return err
		}
		if keep {
			if dup.attrs == nil {
				dup.attrs = map[*TypeKeyval]any{}
			}
			dup.attrs[k] = nv
		}
	}
	return nil
}

// deleteAttrs runs the delete function of every attribute, as Free does.
func (d *Datatype) deleteAttrs() error {
	d.mu.Lock()
	attrs := d.attrs
	d.attrs = nil
	d.mu.Unlock()
	var first error
	for k, v := range attrs {
		if k.delete != nil {
			if err := k.delete(d, k, v); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
