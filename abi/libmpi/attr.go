package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"
#include <stdlib.h>

// The attribute callbacks of communicators, datatypes and windows differ only in the
// type of their first argument, a handle, which is a pointer-sized integer either way.
// Handles and attribute values travel as integers: they are not Go pointers.
static int call_copy_attr(void *fn, uintptr_t obj, int key, void *extra, uintptr_t in, void *out, int *flag) {
	return ((MPI_Comm_copy_attr_function *)fn)((MPI_Comm)obj, key, extra, (void *)in, out, flag);
}
static int call_delete_attr(void *fn, uintptr_t obj, int key, uintptr_t val, void *extra) {
	return ((MPI_Comm_delete_attr_function *)fn)((MPI_Comm)obj, key, (void *)val, extra);
}
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Attributes on communicators, datatypes and windows (MPI 4.1 section 7.7) are
// internal/mpir's: this file turns keyval integers into mpir's keyvals and C function
// pointers into Go functions that call them (the trampolines above), and presents the
// predefined attributes' values as pointers to C memory. Objects are named to the
// callbacks by their handles, attribute values are kept as integers.

// keyvals holds the keyvals the program made; the predefined ones have the header's
// numbers.
var keyvals = table[mpir.Keyval]{kind: kKeyval}

var predefKeys = map[int32]*mpir.Keyval{
	C.MPI_TAG_UB: mpir.KeyTagUB, C.MPI_IO: mpir.KeyIO, C.MPI_HOST: mpir.KeyHost,
	C.MPI_WTIME_IS_GLOBAL: mpir.KeyWtimeIsGlobal, C.MPI_UNIVERSE_SIZE: mpir.KeyUniverseSize,
	C.MPI_APPNUM: mpir.KeyAppNum, C.MPI_LASTUSEDCODE: mpir.KeyLastUsedCode,
	C.MPI_WIN_BASE: mpir.KeyWinBase, C.MPI_WIN_SIZE: mpir.KeyWinSize, C.MPI_WIN_DISP_UNIT: mpir.KeyWinDispUnit,
	C.MPI_WIN_CREATE_FLAVOR: mpir.KeyWinCreateFlavor, C.MPI_WIN_MODEL: mpir.KeyWinModel,
}

// keyvalOf is the keyval of the integer k, nil for MPI_KEYVAL_INVALID or a number
// that names none (which mpir refuses with MPI_ERR_KEYVAL).
func keyvalOf(k int32) *mpir.Keyval {
	if kv, ok := predefKeys[k]; ok {
		return kv
	}
	if k <= 0 {
		return nil
	}
	return keyvals.get(uintptr(k))
}

// keyArg is the keyval of the integer k, argument keyval of the call op. An integer
// that names none is badHandle's error (a freed keyval's, another kind's handle),
// but MPI_KEYVAL_INVALID, which mpir refuses itself.
func keyArg(op string, k int32) (*mpir.Keyval, error) {
	kv := keyvalOf(k)
	if kv == nil && k != C.MPI_KEYVAL_INVALID {
		return nil, badHandle(op, "keyval", uintptr(k), kKeyval)
	}
	return kv, nil
}

// copyCallback is the copy function of C function pointer fn for the keyval numbered
// *key: MPI_x_NULL_COPY_FN is none, MPI_x_DUP_FN mpir's.
func copyCallback(op string, fn unsafe.Pointer, key *int32) mpir.CopyFunc {
	switch uintptr(fn) {
	case nullCopyFnAddr:
		return nil
	case dupFnAddr:
		return mpir.CopyDup
	}
	return func(obj any, k *mpir.Keyval, val any) (any, bool, error) {
		var out uintptr
		var flag C.int
		rc := C.call_copy_attr(fn, C.uintptr_t(obj.(uintptr)), C.int(*key), k.Extra().(unsafe.Pointer),
			C.uintptr_t(val.(uintptr)), unsafe.Pointer(&out), &flag)
		if rc != 0 {
			return nil, false, callbackErr(op, "copy", *key, int32(rc))
		}
		return out, flag != 0, nil
	}
}

// deleteCallback is the delete function of C function pointer fn (MPI_x_NULL_DELETE_FN:
// none).
func deleteCallback(op string, fn unsafe.Pointer, key *int32) mpir.DeleteFunc {
	if fn == nil {
		return nil
	}
	return func(obj any, k *mpir.Keyval, val any) error {
		rc := C.call_delete_attr(fn, C.uintptr_t(obj.(uintptr)), C.int(*key), C.uintptr_t(val.(uintptr)), k.Extra().(unsafe.Pointer))
		if rc != 0 {
			return callbackErr(op, "delete", *key, int32(rc))
		}
		return nil
	}
}

// callbackErr is a callback's failure: its code becomes the call's.
func callbackErr(op, what string, key, rc int32) error {
	return &core.Error{Class: core.ErrorClass(classOfCode(rc)), Code: core.ErrorCode(rc), Op: op,
		Msg: fmt.Sprintf("the %s function of keyval %d returned %d", what, key, rc)}
}

// createKeyval is MPI_x_create_keyval for kind.
func createKeyval(op string, kind mpir.AttrKind, copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	if err := nullOut(op, keyvalName(op), key); err != nil {
		return fail(op, 0, err)
	}
	num := new(int32)
	k := mpir.NewKeyval(kind, copyCallback(op, copyFn, num), deleteCallback(op, deleteFn, num), extra)
	h := keyvals.add(k)
	*num = int32(h)
	k.OnRelease(func() { keyvals.remove(h) })
	setInt(key, int(h))
	return 0
}

// keyvalName is the name the C binding of op gives its keyval: comm_keyval,
// type_keyval, win_keyval, or the deprecated forms' keyval.
func keyvalName(op string) string {
	switch {
	case strings.HasPrefix(op, "Comm_"):
		return "comm_keyval"
	case strings.HasPrefix(op, "Type_"):
		return "type_keyval"
	case strings.HasPrefix(op, "Win_"):
		return "win_keyval"
	}
	return "keyval"
}

// freeKeyval is MPI_x_free_keyval for kind: the keyval goes once no attribute uses it.
func freeKeyval(op string, kind mpir.AttrKind, key unsafe.Pointer) int32 {
	if err := nullOut(op, keyvalName(op), key); err != nil {
		return fail(op, 0, err)
	}
	k, err := keyArg(op, *(*int32)(key))
	if err == nil {
		err = mpir.FreeKeyval(op, kind, k)
	}
	if err != nil {
		return fail(op, 0, err)
	}
	setInt(key, C.MPI_KEYVAL_INVALID)
	return 0
}

// getAttr writes an attribute's value for MPI_x_get_attr: val and flag must not be
// NULL.
func getAttr(op string, val, flag unsafe.Pointer, v any, ok bool) error {
	if err := nullOut(op, "attribute_val, flag", val, flag); err != nil {
		return err
	}
	if ok {
		*(*uintptr)(val) = v.(uintptr)
	}
	setBool(flag, ok)
	return nil
}

// commPredef holds the predefined communicator attributes' values in C memory:
// MPI_Comm_get_attr gives a pointer to an int.
var commPredef = (*[7]C.int)(C.calloc(7, C.size_t(unsafe.Sizeof(C.int(0)))))

// commPredefined is a pointer to the value of the predefined communicator attribute
// k, nil for a keyval that is none.
func commPredefined(k *mpir.Keyval) unsafe.Pointer {
	v, ok := mpir.CommPredefined(k)
	if !ok {
		return nil
	}
	var i int
	var n int
	switch k {
	case mpir.KeyTagUB:
		i, n = 0, v.(int)
	case mpir.KeyHost:
		i, n = 1, int(rankOut(v.(int)))
	case mpir.KeyIO:
		i, n = 2, int(rankOut(v.(int)))
	case mpir.KeyWtimeIsGlobal:
		i = 3
		if v.(bool) {
			n = 1
		}
	case mpir.KeyUniverseSize:
		i, n = 4, v.(int)
	case mpir.KeyAppNum:
		i, n = 5, v.(int)
	case mpir.KeyLastUsedCode:
		i, n = 6, int(v.(core.ErrorCode))
	}
	commPredef[i] = C.int(n)
	return unsafe.Pointer(&commPredef[i])
}

//export PMPI_Comm_create_keyval
func PMPI_Comm_create_keyval(copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	return createKeyval("Comm_create_keyval", mpir.AttrComm, copyFn, deleteFn, key, extra)
}

//export PMPI_Keyval_create
func PMPI_Keyval_create(copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	return createKeyval("Keyval_create", mpir.AttrComm, copyFn, deleteFn, key, extra)
}

//export PMPI_Comm_free_keyval
func PMPI_Comm_free_keyval(key unsafe.Pointer) int32 {
	return freeKeyval("Comm_free_keyval", mpir.AttrComm, key)
}

//export PMPI_Keyval_free
func PMPI_Keyval_free(key unsafe.Pointer) int32 { return freeKeyval("Keyval_free", mpir.AttrComm, key) }

//export PMPI_Comm_set_attr
func PMPI_Comm_set_attr(ch uintptr, key int32, val unsafe.Pointer) int32 {
	const op = "Comm_set_attr"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	k, err := keyArg(op, key)
	if err != nil {
		return fail(op, ch, err)
	}
	return fail(op, ch, c.x.SetAttr(op, k, uintptr(val)))
}

//export PMPI_Attr_put
func PMPI_Attr_put(ch uintptr, key int32, val unsafe.Pointer) int32 {
	return PMPI_Comm_set_attr(ch, key, val)
}

//export PMPI_Comm_get_attr
func PMPI_Comm_get_attr(ch uintptr, key int32, val, flag unsafe.Pointer) int32 {
	const op = "Comm_get_attr"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	k, err := keyArg(op, key)
	if err != nil {
		return fail(op, ch, err)
	}
	if p := commPredefined(k); p != nil && val != nil && flag != nil {
		*(*unsafe.Pointer)(val) = p
		setInt(flag, 1)
		return 0
	}
	v, ok, err := c.x.Attr(op, k)
	if err == nil {
		err = getAttr(op, val, flag, v, ok)
	}
	return fail(op, ch, err)
}

//export PMPI_Attr_get
func PMPI_Attr_get(ch uintptr, key int32, val, flag unsafe.Pointer) int32 {
	return PMPI_Comm_get_attr(ch, key, val, flag)
}

//export PMPI_Comm_delete_attr
func PMPI_Comm_delete_attr(ch uintptr, key int32) int32 {
	const op = "Comm_delete_attr"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	k, err := keyArg(op, key)
	if err != nil {
		return fail(op, ch, err)
	}
	return fail(op, ch, c.x.DeleteAttr(op, k))
}

//export PMPI_Attr_delete
func PMPI_Attr_delete(ch uintptr, key int32) int32 { return PMPI_Comm_delete_attr(ch, key) }

//export PMPI_Type_create_keyval
func PMPI_Type_create_keyval(copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	return createKeyval("Type_create_keyval", mpir.AttrType, copyFn, deleteFn, key, extra)
}

//export PMPI_Type_free_keyval
func PMPI_Type_free_keyval(key unsafe.Pointer) int32 {
	return freeKeyval("Type_free_keyval", mpir.AttrType, key)
}

//export PMPI_Type_set_attr
func PMPI_Type_set_attr(h uintptr, key int32, val unsafe.Pointer) int32 {
	const op = "Type_set_attr"
	d, r := needObj(op, h)
	if d == nil {
		return r
	}
	k, err := keyArg(op, key)
	if err != nil {
		return fail(op, 0, err)
	}
	return fail(op, 0, mpir.SetAttr(op, mpir.AttrType, &d.Attrs, h, k, uintptr(val)))
}

//export PMPI_Type_get_attr
func PMPI_Type_get_attr(h uintptr, key int32, val, flag unsafe.Pointer) int32 {
	const op = "Type_get_attr"
	d, r := needObj(op, h)
	if d == nil {
		return r
	}
	k, err := keyArg(op, key)
	if err != nil {
		return fail(op, 0, err)
	}
	v, ok, err := mpir.TypeAttr(op, &d.Attrs, k)
	if err == nil {
		err = getAttr(op, val, flag, v, ok)
	}
	return fail(op, 0, err)
}

//export PMPI_Type_delete_attr
func PMPI_Type_delete_attr(h uintptr, key int32) int32 {
	const op = "Type_delete_attr"
	d, r := needObj(op, h)
	if d == nil {
		return r
	}
	k, err := keyArg(op, key)
	if err != nil {
		return fail(op, 0, err)
	}
	return fail(op, 0, mpir.DeleteAttr(op, mpir.AttrType, &d.Attrs, h, k))
}
