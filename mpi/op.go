package mpi

import (
	"errors"
	"reflect"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/datatype"
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
	code opCode
	user *userOp
}

type opCode uint8

const (
	opNone opCode = iota
	opSum
	opProd
	opMin
	opMax
	opLand
	opLor
	opLxor
	opBand
	opBor
	opBxor
	opMaxloc
	opMinloc
	opReplace
	opNoOp
	numOps
)

var opNames = [numOps]string{"invalid op", "Sum", "Prod", "Min", "Max", "Land", "Lor", "Lxor",
	"Band", "Bor", "Bxor", "Maxloc", "Minloc", "Replace", "NoOp"}

// The predefined operations. Replace keeps the last rank's value (a⊕b = b) and NoOp the
// first's (a⊕b = a); MPI defines them for one-sided accumulates.
var (
	Sum     = Op{code: opSum}
	Prod    = Op{code: opProd}
	Min     = Op{code: opMin}
	Max     = Op{code: opMax}
	Land    = Op{code: opLand}
	Lor     = Op{code: opLor}
	Lxor    = Op{code: opLxor}
	Band    = Op{code: opBand}
	Bor     = Op{code: opBor}
	Bxor    = Op{code: opBxor}
	Maxloc  = Op{code: opMaxloc}
	Minloc  = Op{code: opMinloc}
	Replace = Op{code: opReplace}
	NoOp    = Op{code: opNoOp}
)

type userOp struct {
	typ     reflect.Type
	fn      collective.Kernel
	commute bool
	dt      *datatype.Type // typ's layout, for reductions over typed buffers
	err     error          // why typ cannot be reduced (it holds pointers), reported at use
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
		typ:     reflect.TypeFor[T](),
		commute: commute,
		fn: func(inout, in []byte) {
			f(view[T](inout), view[T](in))
		},
	}
	u.dt, u.err = datatype.Of(u.typ)
	if u.err == nil && u.typ.Size() == 0 {
		u.err = errors.New("it holds no data")
	}
	return Op{code: opNone, user: u}
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
	if o.user != nil {
		return o.user.commute
	}
	return o.code != opReplace && o.code != opNoOp
}

func (o Op) String() string {
	if o.user != nil {
		return "user op on " + o.user.typ.String()
	}
	return opNames[o.code]
}

// Free releases a user op (MPI_Op_free); the collector owns its memory.
func (o *Op) Free() { *o = Op{} }

// kernel returns op's reduction over T as bytes, or an MPI_ERR_OP error naming the op
// and the type it is not defined on.
func kernel[T Elem](opName string, o Op) (collective.ReduceOp, error) {
	t := reflect.TypeFor[T]()
	if o.user != nil {
		if o.user.typ != t {
			return collective.ReduceOp{}, errorf(ClassOp, opName, "op made by OpCreate for %v used on %v", o.user.typ, t)
		}
		if err := o.user.check(opName); err != nil {
			return collective.ReduceOp{}, err
		}
		return collective.ReduceOp{Fn: o.user.fn, Commute: o.user.commute}, nil
	}
	if o.code == opNone || o.code >= numOps {
		return collective.ReduceOp{}, errorf(ClassOp, opName, "op is the zero Op (use Sum, Max, ... or OpCreate)")
	}
	k := t.Kind()
	var fn collective.Kernel
	if int(k) < len(kernels[o.code]) {
		fn = kernels[o.code][k]
	}
	if fn == nil {
		return collective.ReduceOp{}, errorf(ClassOp, opName, "op %v is not defined on %v (%s)", o, t, opRule[o.code])
	}
	return collective.ReduceOp{Fn: fn, Commute: o.Commutative()}, nil
}

var opRule = [numOps]string{
	opSum: "it takes integers, floats and complex numbers", opProd: "it takes integers, floats and complex numbers",
	opMin: "it takes integers and floats", opMax: "it takes integers and floats",
	opLand: "it takes integers and bools", opLor: "it takes integers and bools", opLxor: "it takes integers and bools",
	opBand: "it takes integers", opBor: "it takes integers", opBxor: "it takes integers",
	opMaxloc: "it takes (value, index) pairs of integers or floats", opMinloc: "it takes (value, index) pairs of integers or floats",
}

// ReduceLocal sets inout[i] = in[i] ⊕ inout[i] (MPI_Reduce_local).
func ReduceLocal[T Elem](in, inout []T, op Op) error {
	k, err := kernel[T]("ReduceLocal", op)
	if err != nil {
		return err
	}
	if len(in) != len(inout) {
		return errorf(ClassCount, "ReduceLocal", "len(in) %d != len(inout) %d", len(in), len(inout))
	}
	if (op.code == opMaxloc || op.code == opMinloc) && len(in)%2 != 0 {
		return errorf(ClassCount, "ReduceLocal", "%v takes (value, index) pairs: len %d is odd", op, len(in))
	}
	k.Fn(asBytes(inout), asBytes(in))
	return nil
}

// kernels[op][kind] is op's byte kernel for element kind, nil where op is not defined.
var kernels [numOps][reflect.UnsafePointer + 1]collective.Kernel

func reg[T Elem](o opCode, fn collective.Kernel) {
	kernels[o][reflect.TypeFor[T]().Kind()] = fn
}

func regInt[T integer]() {
	regOrdered[T]()
	reg[T](opMin, minB[T])
	reg[T](opMax, maxB[T])
	reg[T](opLand, landB[T])
	reg[T](opLor, lorB[T])
	reg[T](opLxor, lxorB[T])
	reg[T](opBand, bandB[T])
	reg[T](opBor, borB[T])
	reg[T](opBxor, bxorB[T])
}

func regOrdered[T integer | float]() {
	regNumber[T]()
	reg[T](opMaxloc, maxlocB[T])
	reg[T](opMinloc, minlocB[T])
}

func regFloat[T float]() {
	regOrdered[T]()
	reg[T](opMin, minF[T])
	reg[T](opMax, maxF[T])
}

func regNumber[T number]() {
	reg[T](opSum, sumB[T])
	reg[T](opProd, prodB[T])
	reg[T](opReplace, replaceB)
	reg[T](opNoOp, noopB)
}

func init() {
	regInt[int8]()
	regInt[int16]()
	regInt[int32]()
	regInt[int64]()
	regInt[int]()
	regInt[uint8]()
	regInt[uint16]()
	regInt[uint32]()
	regInt[uint64]()
	regInt[uint]()
	regInt[uintptr]()
	regFloat[float32]()
	regFloat[float64]()
	regNumber[complex64]()
	regNumber[complex128]()
	reg[bool](opLand, landBool)
	reg[bool](opLor, lorBool)
	reg[bool](opLxor, lxorBool)
	reg[bool](opReplace, replaceB)
	reg[bool](opNoOp, noopB)
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
// have drained (the blocking reductions are the path of every short one).
func setRed[T Elem](r *collective.Red, name string, o Op) error {
	k, err := kernel[T](name, o)
	if err != nil {
		return err
	}
	r.K = k
	r.Unit = esize[T]()
	if o.user != nil {
		r.User, r.Code, r.Name = true, 1<<32, "a user op"
		return nil
	}
	if o.code == opMaxloc || o.code == opMinloc {
		r.Pair = true
		r.Unit *= 2
	}
	r.Code, r.Name = uint64(o.code), opNames[o.code]
	return nil
}
