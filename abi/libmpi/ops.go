package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"
#include <stdlib.h>

static void call_user_op(void *fn, int big, void *in, void *inout, long long n, uintptr_t dth) {
	MPI_Datatype dt = (MPI_Datatype)dth;
	if (big) {
		MPI_Count c = n;
		((MPI_User_function_c *)fn)(in, inout, &c, &dt);
	} else {
		int c = (int)n;
		((MPI_User_function *)fn)(in, inout, &c, &dt);
	}
}
*/
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/window"
)

// Reduction operations: handles of mpir's operations. The predefined ones are made
// here with their MPI names; a user's C function becomes an mpir operation whose
// kernel is a trampoline into it (cKernel). Which operation applies to which datatype
// is mpir's answer; this file turns handles into mpir's arguments.

// userOps are the operations MPI_Op_create made.
var userOps = table[mpir.Operation]{kind: kOp}

// Predefined operations (mpi.h), by handle.
const (
	opSum     = 0x21
	opMin     = 0x22
	opMax     = 0x23
	opProd    = 0x24
	opBand    = 0x28
	opBor     = 0x29
	opBxor    = 0x2a
	opLand    = 0x30
	opLor     = 0x31
	opLxor    = 0x32
	opMinloc  = 0x38
	opMaxloc  = 0x39
	opReplace = 0x3c
	opNoOp    = 0x3d
)

// predefOps are the predefined operations by handle - opSum, made before any init
// function runs (dtype.go's builds predefRed from them).
var predefOps = func() (ops [opNoOp - opSum + 1]*mpir.Operation) {
	for h, o := range map[uintptr]struct {
		code mpir.OpCode
		name string
	}{
		opSum: {mpir.OpSum, "MPI_SUM"}, opMin: {mpir.OpMin, "MPI_MIN"}, opMax: {mpir.OpMax, "MPI_MAX"},
		opProd: {mpir.OpProd, "MPI_PROD"}, opBand: {mpir.OpBand, "MPI_BAND"}, opBor: {mpir.OpBor, "MPI_BOR"},
		opBxor: {mpir.OpBxor, "MPI_BXOR"}, opLand: {mpir.OpLand, "MPI_LAND"}, opLor: {mpir.OpLor, "MPI_LOR"},
		opLxor: {mpir.OpLxor, "MPI_LXOR"}, opMinloc: {mpir.OpMinloc, "MPI_MINLOC"}, opMaxloc: {mpir.OpMaxloc, "MPI_MAXLOC"},
		opReplace: {mpir.OpReplace, "MPI_REPLACE"}, opNoOp: {mpir.OpNoOp, "MPI_NO_OP"},
	} {
		ops[h-opSum] = mpir.PredefinedOp(o.code, o.name)
	}
	return ops
}()

// opOf is the operation of handle h, nil when h is not one.
func opOf(h uintptr) *mpir.Operation {
	if i := h - opSum; i < uintptr(len(predefOps)) && predefOps[i] != nil {
		return predefOps[i]
	}
	return userOps.get(h)
}

// needOp is opOf for the call op, with MPI_ERR_OP when h is not an operation.
func needOp(op string, h uintptr) (*mpir.Operation, error) {
	if o := opOf(h); o != nil {
		return o, nil
	}
	return nil, badHandle(op, "op", h, kOp)
}

//export PMPI_Op_create
func PMPI_Op_create(fn unsafe.Pointer, commute int32, out unsafe.Pointer) int32 {
	return opCreate(fn, commute, out, false)
}

//export PMPI_Op_create_c
func PMPI_Op_create_c(fn unsafe.Pointer, commute int32, out unsafe.Pointer) int32 {
	return opCreate(fn, commute, out, true)
}

// opCreate is MPI_Op_create; big: MPI_Op_create_c, whose function takes an MPI_Count.
func opCreate(fn unsafe.Pointer, commute int32, out unsafe.Pointer, big bool) int32 {
	op := "Op_create"
	if big {
		op = "Op_create_c"
	}
	if err := nullOut(op, "user_fn, op", fn, out); err != nil {
		return fail(op, 0, err)
	}
	setHandle(out, userOps.add(mpir.UserOp("a user function", commute != 0, cKernel(fn, big))))
	return 0
}

//export PMPI_Op_free
func PMPI_Op_free(p unsafe.Pointer) int32 {
	if p == nil {
		return fail("Op_free", 0, errorf(errArg, "Op_free", "op is NULL"))
	}
	h := *(*uintptr)(p)
	if userOps.get(h) == nil {
		if opOf(h) != nil {
			return fail("Op_free", 0, errorf(errOp, "Op_free", "op %#x is predefined: only what MPI_Op_create made is freed", h))
		}
		return fail("Op_free", 0, badHandle("Op_free", "op", h, kOp))
	}
	userOps.remove(h)
	setHandle(p, hOpNull)
	return 0
}

//export PMPI_Op_commutative
func PMPI_Op_commutative(h uintptr, flag unsafe.Pointer) int32 {
	o, err := needOp("Op_commutative", h)
	if err == nil {
		err = nullOut("Op_commutative", "commute", flag)
	}
	if err != nil {
		return fail("Op_commutative", 0, err)
	}
	setBool(flag, o.Commutative())
	return 0
}

// cKernel is the trampoline into the C function fn: for a datatype dt (handle dh),
// the kernel that calls fn on the device's packed items. The function is called with
// the datatype, so it must see the items laid out as the datatype says (MPI 4.1
// 6.9.5): for a type with gaps both operands are unpacked into C memory of the type's
// span, fn runs there, and the result is packed back.
func cKernel(fn unsafe.Pointer, big bool) mpir.UserKernel {
	return func(t *datatype.Type, dh uintptr) mpir.Kernel {
		size := t.Size()
		if t.IsDense() {
			return func(inout, in []byte) {
				if len(in) == 0 {
					return
				}
				C.call_user_op(fn, C.int(boolInt(big)), unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]),
					C.longlong(int64(len(in))/size), C.uintptr_t(dh))
			}
		}
		return func(inout, in []byte) {
			n := int64(len(in)) / size
			if n == 0 {
				return
			}
			lo, hi, _ := t.Span(n)
			a, b := C.malloc(C.size_t(hi-lo)), C.malloc(C.size_t(hi-lo))
			defer C.free(a)
			defer C.free(b)
			ma, mb := unsafe.Slice((*byte)(a), hi-lo), unsafe.Slice((*byte)(b), hi-lo)
			t.UnpackAt(ma, -lo, in, n)
			t.UnpackAt(mb, -lo, inout, n)
			C.call_user_op(fn, C.int(boolInt(big)), unsafe.Add(a, -lo), unsafe.Add(b, -lo), C.longlong(n), C.uintptr_t(dh))
			t.PackAt(inout, mb, -lo, n)
		}
	}
}

// elems is what mpir needs of datatype dh for a reduction.
func elems(op string, dh uintptr, e *mpir.Elems) error {
	t, err := typeOf(op, dh)
	if err != nil {
		return err
	}
	d := dtOf(dh)
	*e = mpir.Elems{Type: t, Kind: t.Kind(), Class: d.m.OpClass(), Size: int(t.Size()), Datatype: d.m, Handle: dh}
	return nil
}

// red is the device's reduction for op on items of datatype dh.
func red(name string, oh uintptr, dh uintptr) (collective.Red, error) {
	var r collective.Red
	err := redInto(name, oh, dh, &r)
	return r, err
}

// redInto is red filling *out: a predefined operation on a predefined datatype from
// predefRed, the others made by mpir here.
func redInto(name string, oh uintptr, dh uintptr, out *collective.Red) (err error) {
	if i, j := oh-opSum, dh-0x200; i < uintptr(len(predefRed)) && j < uintptr(len(predefRed[0])) {
		if r := predefRed[i][j]; r != nil {
			*out = *r
			return nil
		}
	}
	return makeRed(name, oh, dh, out)
}

// makeRed is the general way of red: user functions, derived datatypes, and the
// errors.
func makeRed(name string, oh uintptr, dh uintptr, out *collective.Red) error {
	var e mpir.Elems
	if dh == hDatatypeNull {
		// Taken for no items (the buffers' conversion refuses any other count):
		// mpir's reduction of nothing.
		e = mpir.Elems{Type: datatype.Null, Name: "MPI_DATATYPE_NULL", Handle: dh}
	} else if err := elems(name, dh, &e); err != nil {
		return err
	}
	o, err := needOp(name, oh)
	if err != nil {
		return err
	}
	return o.Red(name, &e, out)
}

// predefRed holds mpir's reductions of the predefined operations on the predefined
// datatypes, made once: a call's red is then two index operations. nil: not defined
// there (the general way says why).
var predefRed [opNoOp - opSum + 1][0x100]*collective.Red

func initPredefRed() {
	for j := range predefT {
		predefRedRow(j, nil)
	}
}

// predefRedRow makes mpir's reductions of the predefined operations on the predefined
// datatype of handle 0x200+j (none if there is none), with the kernels of special
// where it has one (the Fortran LOGICALs' of fortran.go).
func predefRedRow(j int, special func(op uintptr) collective.Kernel) {
	var e mpir.Elems
	ok := predefT[j] != nil && elems("init", uintptr(0x200+j), &e) == nil
	for i, o := range predefOps {
		predefRed[i][j] = nil
		if o == nil || !ok {
			continue // no operation of this handle, or no datatype
		}
		r := new(collective.Red)
		if o.Red("init", &e, r) != nil {
			continue
		}
		if special != nil {
			if k := special(uintptr(opSum + i)); k != nil {
				r.K.Fn = k
			}
		}
		predefRed[i][j] = r
	}
}

// accOp is the device's accumulate operation for op handle oh on count items of
// target datatype dh: a predefined operation that MPI defines on dh's predefined
// type. An accumulate that moves no data ignores its operation.
func accOp(op string, oh, dh uintptr, count int64) (window.RMAOp, error) {
	if dh == hDatatypeNull { // taken for no items (mpir.NullFor), which ignore the operation
		_, err := mpir.NullFor(op, "target datatype", count)
		return mpir.OpReplace, err
	}
	var e mpir.Elems
	if err := elems(op, dh, &e); err != nil {
		return 0, err
	}
	o := opOf(oh)
	if o == nil {
		if count == 0 || e.Size == 0 {
			return mpir.OpReplace, nil
		}
		_, err := needOp(op, oh)
		return 0, err
	}
	return o.AccOp(op, &e, count)
}

// compareSwapType checks that MPI_Compare_and_swap takes datatype dh.
func compareSwapType(op string, dh uintptr) error {
	var e mpir.Elems
	if err := elems(op, dh, &e); err != nil {
		return err
	}
	return mpir.CompareSwapType(op, &e)
}

// shortAccOp is accOp for the short ways of a predefined operation on a predefined
// datatype, from predefRed: ok false where the general way must decide.
func shortAccOp(oh, dh uintptr) (window.RMAOp, bool) {
	if i, j := oh-opSum, dh-0x200; i < uintptr(len(predefRed)) && j < uintptr(len(predefRed[0])) && predefRed[i][j] != nil {
		return predefOps[i].Code(), true
	}
	return 0, false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MPI_Reduce_local's C half (collshort.c) combines the predefined datatypes and
// operations its kernels have; these are the rest.

//export goPMPI_Reduce_local
func goPMPI_Reduce_local(in, inout unsafe.Pointer, count int32, dh uintptr, oh uintptr) int32 {
	return goPMPI_Reduce_local_c(in, inout, int64(count), dh, oh)
}

//export goPMPI_Reduce_local_c
func goPMPI_Reduce_local_c(in, inout unsafe.Pointer, count int64, dh uintptr, oh uintptr) int32 {
	const op = "Reduce_local_c"
	goHalves.Add(1)
	var e mpir.Elems
	if err := elems(op, dh, &e); err != nil {
		return fail(op, 0, err)
	}
	o, err := needOp(op, oh)
	if err != nil {
		return fail(op, 0, err)
	}
	if count <= 0 {
		return fail(op, 0, mpir.ReduceLocal(op, o, &e, nil, nil, 0, count))
	}
	mi, oi, err := span(op, in, count, e.Type)
	if err != nil {
		return fail(op, 0, err)
	}
	mo, oo, err := span(op, inout, count, e.Type)
	if err != nil {
		return fail(op, 0, err)
	}
	_ = oo // the same as oi: one datatype and count
	return fail(op, 0, mpir.ReduceLocal(op, o, &e, mi, mo, oi, count))
}
