package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"
#include <stdlib.h>

// The attribute callbacks of communicators and datatypes differ only in the type of
// their first argument, a handle, which is a pointer either way.
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
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
)

// Attribute keys and attributes on communicators and datatypes (MPI 4.1 section 7.7),
// with the C copy and delete callbacks, and the predefined attributes.

// keyval is a key made by MPI_Comm_create_keyval or MPI_Type_create_keyval: its C
// callbacks (0 and 1 are the predefined NULL_COPY/NULL_DELETE and DUP functions)
// and the extra state passed to them.
//
// A key is counted like an error handler: its handle, and each attribute set with it,
// so that MPI_x_free_keyval releases the entry once no attribute uses the key.
type keyval struct {
	copyFn, deleteFn unsafe.Pointer
	extra            unsafe.Pointer
	refs             atomic.Int32
	freed            atomic.Bool
}

// liveKey is the key of number k if a program may still set attributes with it.
func liveKey(k int32) *keyval {
	x := keyvals.get(uintptr(k))
	if x == nil || x.freed.Load() {
		return nil
	}
	return x
}

func refKey(k int32) {
	if x := keyvals.get(uintptr(k)); x != nil {
		x.refs.Add(1)
	}
}

func unrefKey(k int32) {
	if x := keyvals.get(uintptr(k)); x != nil && x.refs.Add(-1) == 0 {
		keyvals.remove(uintptr(k))
	}
}

// deleteAttr removes the attribute key of the object obj, whose attributes are *attrs
// guarded by mu (MPI_x_delete_attr): it runs the delete callback first and keeps the
// attribute when the callback fails, so that the failed call changes nothing.
func deleteAttr(op string, obj uintptr, mu *sync.Mutex, attrs *map[int32]uintptr, key int32) (found bool, err error) {
	mu.Lock()
	v, ok := (*attrs)[key]
	mu.Unlock()
	if !ok {
		return false, nil
	}
	if err := callDelete(op, obj, key, v); err != nil {
		return true, err
	}
	mu.Lock()
	if cur, ok := (*attrs)[key]; ok && cur == v {
		delete(*attrs, key)
	}
	mu.Unlock()
	unrefKey(key)
	return true, nil
}

// dropAttr runs the delete callback of an attribute being removed and releases its
// key.
func dropAttr(op string, obj uintptr, key int32, val uintptr) error {
	err := callDelete(op, obj, key, val)
	unrefKey(key)
	return err
}

var keyvals table[keyval]

// Predefined attribute keys (mpi.h) and the C memory holding their values:
// MPI_Comm_get_attr gives a pointer to an int.
const (
	keyTagUB         = C.MPI_TAG_UB
	keyIO            = C.MPI_IO
	keyHost          = C.MPI_HOST
	keyWtimeIsGlobal = C.MPI_WTIME_IS_GLOBAL
	keyUniverseSize  = C.MPI_UNIVERSE_SIZE
	keyAppnum        = C.MPI_APPNUM
	keyLastUsedCode  = C.MPI_LASTUSEDCODE
)

var predefVals *[8]C.int

func predefinedAttrs() error {
	if predefVals == nil {
		predefVals = (*[8]C.int)(C.calloc(8, C.size_t(unsafe.Sizeof(C.int(0)))))
	}
	predefVals[0] = C.int(core.MaxTag)
	predefVals[1] = C.int(-3) // MPI_IO: MPI_PROC_NULL, this process cannot do I/O through MPI
	predefVals[2] = C.int(-3) // MPI_HOST: MPI_PROC_NULL
	predefVals[3] = 0
	predefVals[4] = C.int(world.c.Size())
	predefVals[5] = 0
	return nil
}

func predefAttr(key int32) (unsafe.Pointer, bool) {
	if predefVals == nil {
		return nil, false
	}
	switch key {
	case keyTagUB:
		return unsafe.Pointer(&predefVals[0]), true
	case keyIO:
		return unsafe.Pointer(&predefVals[1]), true
	case keyHost:
		return unsafe.Pointer(&predefVals[2]), true
	case keyWtimeIsGlobal:
		return unsafe.Pointer(&predefVals[3]), true
	case keyUniverseSize:
		return unsafe.Pointer(&predefVals[4]), true
	case keyAppnum:
		return unsafe.Pointer(&predefVals[5]), true
	case keyLastUsedCode:
		predefVals[6] = C.int(core.LastUsedCode())
		return unsafe.Pointer(&predefVals[6]), true
	}
	return nil, false
}

func createKeyval(op string, copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	if key == nil {
		return fail(op, 0, errorf(errArg, op, "keyval is NULL"))
	}
	k := &keyval{copyFn: copyFn, deleteFn: deleteFn, extra: extra}
	k.refs.Store(1)
	setInt(key, int(keyvals.add(k)))
	return 0
}

func freeKeyval(op string, key unsafe.Pointer) int32 {
	if key == nil {
		return fail(op, 0, errorf(errArg, op, "keyval is NULL"))
	}
	k := *(*int32)(key)
	x := liveKey(k)
	if x == nil {
		return fail(op, 0, errorf(errKeyval, op, "keyval %d is not a key this program made", k))
	}
	// Attributes set with the key keep their callbacks until they are deleted.
	if !x.freed.Swap(true) {
		unrefKey(k)
	}
	setInt(key, 0) // MPI_KEYVAL_INVALID
	return 0
}

// callDelete runs k's delete callback on an attribute of obj.
func callDelete(op string, obj uintptr, key int32, val uintptr) error {
	k := keyvals.get(uintptr(key))
	if k == nil || uintptr(k.deleteFn) <= 1 {
		return nil
	}
	rc := C.call_delete_attr(k.deleteFn, C.uintptr_t(obj), C.int(key), C.uintptr_t(val), k.extra)
	if rc != 0 {
		return errorf(int32(rc), op, "the delete callback of keyval %d returned %d", key, int(rc))
	}
	return nil
}

// copyAttrs runs the copy callbacks of old's attributes for its duplicate nw.
func copyAttrs(old *comm, oh uintptr, nw *comm, nh uintptr) error {
	err := copyAttrTable("Comm_dup", oh, &old.mu, &old.attrs, &nw.mu, &nw.attrs)
	// The duplicate's attributes keep the order they were set in on old.
	type set struct {
		key int32
		seq uint64
	}
	old.mu.Lock()
	sets := make([]set, 0, len(old.attrSeq))
	for k, q := range old.attrSeq {
		sets = append(sets, set{k, q})
	}
	old.mu.Unlock()
	sort.Slice(sets, func(i, j int) bool { return sets[i].seq < sets[j].seq })
	nw.mu.Lock()
	for _, a := range sets {
		if _, ok := nw.attrs[a.key]; ok {
			nw.stampAttr(a.key)
		}
	}
	nw.mu.Unlock()
	return err
}

// copyAttrTable runs the copy callbacks (op: the duplication's name) of the
// attributes in from, guarded by fmu, of the object oh, and keeps in *to, guarded by
// tmu, those the callbacks keep: a communicator's or a datatype's duplication.
func copyAttrTable(op string, oh uintptr, fmu *sync.Mutex, from *map[int32]uintptr, tmu *sync.Mutex, to *map[int32]uintptr) error {
	fmu.Lock()
	attrs := make(map[int32]uintptr, len(*from))
	for k, v := range *from {
		attrs[k] = v
	}
	fmu.Unlock()
	for key, val := range attrs {
		out, keep, err := copyAttr(op, oh, key, val)
		if err != nil {
			return err
		}
		if keep {
			refKey(key)
			tmu.Lock()
			if *to == nil {
				*to = map[int32]uintptr{}
			}
			(*to)[key] = out
			tmu.Unlock()
		}
	}
	return nil
}

func copyAttr(op string, oh uintptr, key int32, val uintptr) (uintptr, bool, error) {
	k := keyvals.get(uintptr(key))
	if k == nil {
		return 0, false, nil
	}
	switch uintptr(k.copyFn) {
	case 0: // MPI_x_NULL_COPY_FN
		return 0, false, nil
	case 1: // MPI_x_DUP_FN
		return val, true, nil
	}
	var out uintptr
	var flag C.int
	rc := C.call_copy_attr(k.copyFn, C.uintptr_t(oh), C.int(key), k.extra, C.uintptr_t(val), unsafe.Pointer(&out), &flag)
	if rc != 0 {
		return 0, false, errorf(int32(rc), op, "the copy callback of keyval %d returned %d", key, int(rc))
	}
	return out, flag != 0, nil
}

// deleteAll runs the delete callbacks of every attribute of c (Comm_free, and
// MPI_COMM_SELF's at Finalize).
func deleteAll(c *comm, h uintptr) error {
	c.mu.Lock()
	attrs, seq := c.attrs, c.attrSeq
	c.attrs, c.attrSeq = nil, nil
	c.mu.Unlock()
	keys := make([]int32, 0, len(attrs))
	for key := range attrs {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { return seq[keys[i]] > seq[keys[j]] })
	for _, key := range keys {
		if err := dropAttr("Comm_free", h, key, attrs[key]); err != nil {
			return err
		}
	}
	return nil
}

// attrClock numbers the settings of communicator attributes (comm.attrSeq).
var attrClock atomic.Uint64

// stampAttr records that key was set on c now; c.mu is held.
func (c *comm) stampAttr(key int32) {
	if c.attrSeq == nil {
		c.attrSeq = map[int32]uint64{}
	}
	c.attrSeq[key] = attrClock.Add(1)
}

//export PMPI_Comm_create_keyval
func PMPI_Comm_create_keyval(copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	return createKeyval("Comm_create_keyval", copyFn, deleteFn, key, extra)
}

//export PMPI_Keyval_create
func PMPI_Keyval_create(copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	return createKeyval("Keyval_create", copyFn, deleteFn, key, extra)
}

//export PMPI_Comm_free_keyval
func PMPI_Comm_free_keyval(key unsafe.Pointer) int32 { return freeKeyval("Comm_free_keyval", key) }

//export PMPI_Keyval_free
func PMPI_Keyval_free(key unsafe.Pointer) int32 { return freeKeyval("Keyval_free", key) }

//export PMPI_Comm_set_attr
func PMPI_Comm_set_attr(ch uintptr, key int32, val unsafe.Pointer) int32 {
	const op = "Comm_set_attr"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	if liveKey(key) == nil {
		return fail(op, ch, errorf(errKeyval, op, "keyval %d is not a key this program made (or was freed)", key))
	}
	c.mu.Lock()
	old, had := c.attrs[key]
	c.mu.Unlock()
	if had {
		if err := callDelete(op, ch, key, old); err != nil {
			return fail(op, ch, err)
		}
	} else {
		refKey(key)
	}
	c.mu.Lock()
	if c.attrs == nil {
		c.attrs = map[int32]uintptr{}
	}
	c.attrs[key] = uintptr(val)
	c.stampAttr(key)
	c.mu.Unlock()
	return 0
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
	if val == nil || flag == nil {
		return fail(op, ch, errorf(errArg, op, "attribute_val or flag is NULL"))
	}
	if p, ok := predefAttr(key); ok { // on every communicator, as MPICH and Open MPI do
		*(*unsafe.Pointer)(val) = p
		setInt(flag, 1)
		return 0
	}
	if keyvals.get(uintptr(key)) == nil {
		return fail(op, ch, errorf(errKeyval, op, "keyval %d is not a key", key))
	}
	c.mu.Lock()
	v, ok := c.attrs[key]
	c.mu.Unlock()
	if ok {
		*(*uintptr)(val) = v
	}
	setBool(flag, ok)
	return 0
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
	ok, err := deleteAttr(op, ch, &c.mu, &c.attrs, key)
	if !ok {
		return fail(op, ch, errorf(errKeyval, op, "comm has no attribute with keyval %d", key))
	}
	return fail(op, ch, err)
}

//export PMPI_Attr_delete
func PMPI_Attr_delete(ch uintptr, key int32) int32 { return PMPI_Comm_delete_attr(ch, key) }

//export PMPI_Type_create_keyval
func PMPI_Type_create_keyval(copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	return createKeyval("Type_create_keyval", copyFn, deleteFn, key, extra)
}

//export PMPI_Type_free_keyval
func PMPI_Type_free_keyval(key unsafe.Pointer) int32 { return freeKeyval("Type_free_keyval", key) }

//export PMPI_Type_set_attr
func PMPI_Type_set_attr(h uintptr, key int32, val unsafe.Pointer) int32 {
	const op = "Type_set_attr"
	d, r := needDtype(op, h)
	if d == nil {
		return r
	}
	if liveKey(key) == nil {
		return fail(op, 0, errorf(errKeyval, op, "keyval %d is not a key this program made (or was freed)", key))
	}
	d.mu.Lock()
	old, had := d.attrs[key]
	d.mu.Unlock()
	if had {
		if err := callDelete(op, h, key, old); err != nil {
			return fail(op, 0, err)
		}
	} else {
		refKey(key)
	}
	d.mu.Lock()
	if d.attrs == nil {
		d.attrs = map[int32]uintptr{}
	}
	d.attrs[key] = uintptr(val)
	d.mu.Unlock()
	return 0
}

//export PMPI_Type_get_attr
func PMPI_Type_get_attr(h uintptr, key int32, val, flag unsafe.Pointer) int32 {
	const op = "Type_get_attr"
	d, r := needDtype(op, h)
	if d == nil {
		return r
	}
	if val == nil || flag == nil {
		return fail(op, 0, errorf(errArg, op, "attribute_val or flag is NULL"))
	}
	if keyvals.get(uintptr(key)) == nil {
		return fail(op, 0, errorf(errKeyval, op, "keyval %d is not a key", key))
	}
	d.mu.Lock()
	v, ok := d.attrs[key]
	d.mu.Unlock()
	if ok {
		*(*uintptr)(val) = v
	}
	setBool(flag, ok)
	return 0
}

//export PMPI_Type_delete_attr
func PMPI_Type_delete_attr(h uintptr, key int32) int32 {
	const op = "Type_delete_attr"
	d, r := needDtype(op, h)
	if d == nil {
		return r
	}
	ok, err := deleteAttr(op, h, &d.mu, &d.attrs, key)
	if !ok {
		return fail(op, 0, errorf(errKeyval, op, "the datatype has no attribute with keyval %d", key))
	}
	return fail(op, 0, err)
}

// copyTypeAttrs runs the copy callbacks of old's attributes for its duplicate nw.
func copyTypeAttrs(old *dtype, oh uintptr, nw *dtype, nh uintptr) error {
	return copyAttrTable("Type_dup", oh, &old.mu, &old.attrs, &nw.mu, &nw.attrs)
}

func deleteTypeAttrs(d *dtype, h uintptr) error {
	d.mu.Lock()
	attrs := d.attrs
	d.attrs = nil
	d.mu.Unlock()
	for key, val := range attrs {
		if err := dropAttr("Type_free", h, key, val); err != nil {
			return err
		}
	}
	return nil
}
