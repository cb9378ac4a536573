package mpi

import "github.com/mpigo/mpigo/internal/mpir"

// Attributes on datatypes, as on communicators (attr.go): a keyval names the
// attribute, its copy function decides what Dup gives the new type, its delete
// function is told when a value goes away.

// TypeKeyval names an attribute that can be attached to datatypes
// (MPI_Type_create_keyval).
type TypeKeyval struct {
	k *mpir.Keyval
}

// TypeCopyFunc returns the value the duplicate of old gets, and whether it gets one.
type TypeCopyFunc func(old *Datatype, k *TypeKeyval, val any) (newVal any, keep bool, err error)

// TypeDeleteFunc is called when val stops being d's attribute k.
type TypeDeleteFunc func(d *Datatype, k *TypeKeyval, val any) error

// TypeCreateKeyval makes a keyval for datatype attributes (MPI_Type_create_keyval).
// With a nil copy, duplicates do not get the attribute (MPI_TYPE_NULL_COPY_FN); with a
// nil delete nothing is called (MPI_TYPE_NULL_DELETE_FN).
func TypeCreateKeyval(copy TypeCopyFunc, delete TypeDeleteFunc) *TypeKeyval {
	kv := &TypeKeyval{}
	kv.k = mpir.NewKeyval(mpir.AttrType, copyFunc(copy, kv), deleteFunc(delete, kv), nil)
	return kv
}

// obj is the keyval k stands for: nil for nil.
func (k *TypeKeyval) obj() *mpir.Keyval {
	if k == nil {
		return nil
	}
	return k.k
}

// TypeCopyDup is a TypeCopyFunc that gives the duplicate the same value
// (MPI_TYPE_DUP_FN).
func TypeCopyDup(_ *Datatype, _ *TypeKeyval, val any) (any, bool, error) { return val, true, nil }

// Free releases k (MPI_Type_free_keyval): it can no longer be set on a datatype, while
// the values already set keep working, are copied and deleted as before; it goes with
// the last of them. Freeing it again meanwhile does nothing; after that, and for a nil
// keyval, it is an error of class ErrKeyval.
func (k *TypeKeyval) Free() error {
	return mpir.FreeKeyval("TypeFreeKeyval", mpir.AttrType, k.obj())
}

// SetAttr attaches val to d under k (MPI_Type_set_attr), replacing, and deleting, any
// earlier value; if that value's delete function fails, its error is SetAttr's and the
// value stays. A nil or freed keyval is an error of class ErrKeyval.
func (d *Datatype) SetAttr(k *TypeKeyval, val any) error {
	if _, err := d.inner("TypeSetAttr", "d"); err != nil {
		return err
	}
	return mpir.SetAttr("TypeSetAttr", mpir.AttrType, &d.m.Attrs, d, k.obj(), val)
}

// Attr returns d's attribute k and whether it is set (MPI_Type_get_attr).
func (d *Datatype) Attr(k *TypeKeyval) (val any, ok bool, err error) {
	if _, err := d.inner("TypeGetAttr", "d"); err != nil {
		return nil, false, err
	}
	return mpir.TypeAttr("TypeGetAttr", &d.m.Attrs, k.obj())
}

// DeleteAttr removes d's attribute k, calling its delete function
// (MPI_Type_delete_attr); if that fails, its error is DeleteAttr's and the attribute
// stays. With no attribute set it does nothing, as Comm.DeleteAttr.
func (d *Datatype) DeleteAttr(k *TypeKeyval) error {
	if _, err := d.inner("TypeDeleteAttr", "d"); err != nil {
		return err
	}
	return mpir.DeleteAttr("TypeDeleteAttr", mpir.AttrType, &d.m.Attrs, d, k.obj())
}
