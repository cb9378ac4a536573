package mpi

import (
	"errors"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Op is a reduction operation for Reduce, Allreduce, Scan and their kin. The
// predefined ones (Sum, Max, Band, ...) work on every element type they make sense
// for, with no instantiation: the call picks the kernel for its element type once, not
// per element. A user op is made by OpCreate from a Go function over one Go type: an
// element type, or a pointer-free struct or array for the typed-buffer reductions.
//
// Maxloc and Minloc take a slice of (value, index) pairs of the same type laid out
// flat, as MPI_2INT and MPI_2DOUBLE_PRECISION do: element 2i is a value, 2i+1 its
// index; or, through the typed-buffer reductions (ReduceBuf, ScanBuf, ...), the
// pair types Float32Int32, Float64Int32, Int64Int32, Int32Int32 and Int16Int32 (see
// TypeGetValueIndex). The result keeps the largest (smallest) value and, on ties, the
// smallest index.
type Op struct {
	p    *mpir.Operation // nil: the zero Op
	user *userOp
}

// The predefined operations. Replace keeps the last rank's value (a⊕b = b) and NoOp the
// first's (a⊕b = a); MPI defines them for one-sided accumulates.
var (
	Sum     = Op{p: opSum}
	Prod    = Op{p: opProd}
	Min     = Op{p: opMin}
	Max     = Op{p: opMax}
	Land    = Op{p: opLand}
	Lor     = Op{p: opLor}
	Lxor    = Op{p: opLxor}
	Band    = Op{p: opBand}
	Bor     = Op{p: opBor}
	Bxor    = Op{p: opBxor}
	Maxloc  = Op{p: opMaxloc}
	Minloc  = Op{p: opMinloc}
	Replace = Op{p: opReplace}
	NoOp    = Op{p: opNoOp}
)

// The predefined operations' objects, named as this package names them.
var (
	opSum     = mpir.PredefinedOp(mpir.OpSum, "Sum")
	opProd    = mpir.PredefinedOp(mpir.OpProd, "Prod")
	opMin     = mpir.PredefinedOp(mpir.OpMin, "Min")
	opMax     = mpir.PredefinedOp(mpir.OpMax, "Max")
	opLand    = mpir.PredefinedOp(mpir.OpLand, "Land")
	opLor     = mpir.PredefinedOp(mpir.OpLor, "Lor")
	opLxor    = mpir.PredefinedOp(mpir.OpLxor, "Lxor")
	opBand    = mpir.PredefinedOp(mpir.OpBand, "Band")
	opBor     = mpir.PredefinedOp(mpir.OpBor, "Bor")
	opBxor    = mpir.PredefinedOp(mpir.OpBxor, "Bxor")
	opMaxloc  = mpir.PredefinedOp(mpir.OpMaxloc, "Maxloc")
	opMinloc  = mpir.PredefinedOp(mpir.OpMinloc, "Minloc")
	opReplace = mpir.PredefinedOp(mpir.OpReplace, "Replace")
	opNoOp    = mpir.PredefinedOp(mpir.OpNoOp, "NoOp")
)

// The operation codes the calls test.
const (
	codeNone = mpir.OpNone
	codeNoOp = mpir.OpNoOp
	numOps   = mpir.NumOps
)

// code is o's predefined operation: codeNone for a user op or the zero Op.
func (o Op) code() mpir.OpCode {
	if o.p == nil {
		return codeNone
	}
	return o.p.Code()
}

// userOp is what the Go face knows of a user op beyond mpir's: the Go type its
// function takes.
type userOp struct {
	typ reflect.Type
	fn  mpir.Kernel
	dt  *datatype.Type // typ's layout, for reductions over typed buffers
	err error          // why typ cannot be reduced (it holds pointers), reported at use
}

// OpCreate makes an op from f, which must set inout[i] = in[i] ⊕ inout[i] for every i
// (MPI_Op_create's order: in holds the lower ranks' contribution). commute says whether
// ⊕ is commutative; if not, reductions apply it in rank order. The op works on []T only.
//
// T may be an element type, for Reduce, Allreduce, Scan and the other typed-slice
// calls, or any Go type without pointers (a struct of numbers, an array), for the
// typed-buffer reductions (ReduceBuf, AllreduceBuf, ReduceScatterBuf, ScanBuf,
// ReduceLocalBuf, ...) over Typed(buf, n, dt): the buffers' data is laid out as []T (by
// TypeOf[T]'s typemap) before f sees it, so dt may be TypeOf[T]() or any datatype
// holding the same sequence of elements. A T holding pointers, strings, slices, maps,
// interfaces, channels or functions cannot travel between processes: reductions with
// such an op fail with an error of class ErrOp naming the field.
func OpCreate[T any](f func(inout, in []T), commute bool) Op {
	u := &userOp{
		typ: reflect.TypeFor[T](),
		fn: func(inout, in []byte) {
			f(view[T](inout), view[T](in))
		},
	}
	u.dt, u.err = datatype.Of(u.typ)
	if u.err == nil && u.typ.Size() == 0 {
		u.err = errors.New("it holds no data")
	}
	// The function sees memory laid out as []T whatever the datatype: the kernel is
	// the same for all (the typed-buffer reductions lay the data out first).
	k := func(*datatype.Type, uintptr) mpir.Kernel { return u.fn }
	return Op{p: mpir.UserOp("a user op", commute, k), user: u}
}

// view sees a byte slice as whole elements of T, without copying.
func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// check refuses an op over a type that cannot be reduced.
func (u *userOp) check(name string) error {
	if u.err != nil {
		return errorf(ClassOp, name, "op made by OpCreate for %v: %v", u.typ, u.err)
	}
	return nil
}

// Commutative reports whether the op commutes (MPI_Op_commutative).
func (o Op) Commutative() bool {
	return o.p == nil || o.p.Commutative()
}

func (o Op) String() string {
	switch {
	case o.user != nil:
		return "user op on " + o.user.typ.String()
	case o.p == nil:
		return "invalid op"
	}
	return o.p.Name()
}

// Free releases a user op (MPI_Op_free); the collector owns its memory.
func (o *Op) Free() { *o = Op{} }

// usable refuses the zero Op and a user op over another type than T.
func usable[T Elem](name string, o Op) error {
	switch {
	case o.p == nil:
		return errorf(ClassOp, name, "op is the zero Op (use Sum, Max, ... or OpCreate)")
	case o.user != nil:
		if t := reflect.TypeFor[T](); o.user.typ != t {
			return errorf(ClassOp, name, "op made by OpCreate for %v used on %v", o.user.typ, t)
		}
		return o.user.check(name)
	}
	return nil
}

// ReduceLocal sets inout[i] = in[i] ⊕ inout[i] (MPI_Reduce_local).
func ReduceLocal[T Elem](in, inout []T, op Op) error {
	if err := usable[T]("ReduceLocal", op); err != nil {
		return err
	}
	if len(in) != len(inout) {
		return errorf(ClassCount, "ReduceLocal", "len(in) %d != len(inout) %d", len(in), len(inout))
	}
	return mpir.ReduceLocal("ReduceLocal", op.p, elemsOf[T](), asBytes(in), asBytes(inout), 0, int64(len(in)))
}

// elemsOf is what a reduction needs of T: its kind, class, size and name.
func elemsOf[T Elem]() *mpir.Elems {
	return &goElems[reflect.TypeFor[T]().Kind()]
}

// goElems describes each Go element kind to mpir: its datatype kind and class (Go's
// integers are C integers, its floats floating point, ...).
var goElems [reflect.UnsafePointer + 1]mpir.Elems

func init() {
	for k, t := range map[reflect.Kind]*datatype.Type{reflect.Int8: datatype.Int8, reflect.Int16: datatype.Int16,
		reflect.Int32: datatype.Int32, reflect.Int64: datatype.Int64, reflect.Int: datatype.Int,
		reflect.Uint8: datatype.Uint8, reflect.Uint16: datatype.Uint16, reflect.Uint32: datatype.Uint32,
		reflect.Uint64: datatype.Uint64, reflect.Uint: datatype.Uint, reflect.Uintptr: datatype.Uint,
		reflect.Float32: datatype.Float32, reflect.Float64: datatype.Float64, reflect.Complex64: datatype.Complex64,
		reflect.Complex128: datatype.Complex128, reflect.Bool: datatype.Bool} {
		goElems[k] = mpir.Elems{Kind: t.Kind(), Class: mpir.KindClass(t.Kind()), Size: int(t.Size()), Name: k.String()}
	}
}

// red is op over T as the device runs it, or an MPI_ERR_OP error naming the op and the
// type it is not defined on.
func red[T Elem](name string, o Op) (collective.Red, error) {
	var r collective.Red
	err := setRed[T](&r, name, o)
	return r, err
}

// setRed fills *r, the device's reduction of o over T's elements: in place, since
// a struct returned by value and then copied is read back before its fields' stores
// have drained (the blocking reductions are the path of every short one). A
// predefined op's comes from reds once made.
func setRed[T Elem](r *collective.Red, name string, o Op) error {
	if o.user == nil && o.p != nil {
		if c := reds[o.p.Code()][reflect.TypeFor[T]().Kind()].Load(); c != nil {
			*r = *c
			return nil
		}
	}
	return makeRed[T](r, name, o)
}

// reds holds mpir's reduction of each predefined op over each Go element kind, made
// on first use: a short reduction then finds it with one load.
var reds [numOps][reflect.UnsafePointer + 1]atomic.Pointer[collective.Red]

// makeRed is setRed's way when reds has no answer: a user op, an error, a first use.
func makeRed[T Elem](r *collective.Red, name string, o Op) error {
	if err := usable[T](name, o); err != nil {
		return err
	}
	if err := o.p.Red(name, elemsOf[T](), r); err != nil || o.user != nil {
		return err
	}
	c := new(collective.Red)
	*c = *r
	reds[o.p.Code()][reflect.TypeFor[T]().Kind()].Store(c)
	return nil
}
