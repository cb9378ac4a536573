package mpir

import (
	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/op"
)

// Reduction operations (MPI 4.1 §6.9). An Operation (MPI_Op; Op is a request set's
// member, wait.go) is a predefined operation (internal/op's table and kernels) or a
// user's function; both faces make theirs here and ask Red for the device's reduction
// of an operation over a datatype, so a Go program and a C program get the same
// kernel, the same refusals and the same error class (ErrOp).
//
//   - A face names its operations (mpi.Sum is "Sum", MPI_SUM "MPI_SUM") and its
//     datatypes (Elems.Name); errors use those names.
//   - A predefined operation applies to a datatype of one predefined type whose class
//     the standard's table allows (op.Check): the face says the class (from the
//     element type in Go, from the handle in C); a derived type's is its predefined
//     type's. The kernel is chosen by the element kind, so derived types of one
//     predefined type reduce with their base elements' kernel.
//   - A user's function reaches mpir as a UserKernel the face builds around it (a Go
//     function, or the trampoline into a C function pointer); mpir calls it to get the
//     kernel for a datatype and never looks inside.

// The operation codes and classes, as the faces name them.
type (
	OpCode  = op.Op
	OpClass = op.Class
	Kernel  = op.Kernel
)

const (
	OpNone    = op.None
	OpSum     = op.Sum
	OpProd    = op.Prod
	OpMin     = op.Min
	OpMax     = op.Max
	OpLand    = op.Land
	OpLor     = op.Lor
	OpLxor    = op.Lxor
	OpBand    = op.Band
	OpBor     = op.Bor
	OpBxor    = op.Bxor
	OpMaxloc  = op.Maxloc
	OpMinloc  = op.Minloc
	OpReplace = op.Replace
	OpNoOp    = op.NoOp
	NumOps    = op.NumOps
)

// NamedClass is the class of the predefined datatype of MPI name name (op.NamedClass).
func NamedClass(name string) OpClass { return op.NamedClass(name) }

// KindClass is the class of a predefined type known by its element kind
// (op.KindClass): the Go face's types.
func KindClass(k datatype.Kind) OpClass { return op.KindClass(k) }

// ClassMixed is the class of a datatype that is no one predefined type.
const ClassMixed = op.Mixed

// UserKernel returns the kernel of a user's function for items of datatype t, which
// the face names handle: inout = in ⊕ inout over whole items, packed as the device
// hands them (the face lays them out as its function expects). t is nil for the Go
// face's slices of elements.
type UserKernel func(t *datatype.Type, handle uintptr) Kernel

// Operation is a reduction operation (MPI_Op).
type Operation struct {
	code    op.Op // the predefined operation; op.None for a user's
	name    string
	commute bool
	user    UserKernel
}

// userCode stands for every user function in the value collectives compare across
// ranks (collective.Red.Code): a predefined operation's is its op.Op.
const userCode = 1 << 32

// PredefinedOp makes the face's object of the predefined operation code, named name.
func PredefinedOp(code OpCode, name string) *Operation {
	return &Operation{code: code, name: name, commute: code.Commutative()}
}

// UserOp makes an operation of a user's function (MPI_Op_create): k builds its kernel
// for a datatype, commute says whether it commutes.
func UserOp(name string, commute bool, k UserKernel) *Operation {
	return &Operation{name: name, commute: commute, user: k}
}

// Code is o's predefined operation, OpNone for a user's function.
func (o *Operation) Code() OpCode { return o.code }

// IsUser reports whether o is a user's function.
func (o *Operation) IsUser() bool { return o.user != nil }

// Name is o's name in its face.
func (o *Operation) Name() string { return o.name }

// Commutative reports whether o commutes (MPI_Op_commutative): a user's function as
// its creator said; every predefined operation but Replace and NoOp.
func (o *Operation) Commutative() bool { return o.commute }

// Elems is what a reduction needs of its datatype, as the face resolved it.
type Elems struct {
	Type   *datatype.Type // the datatype; nil for a slice of Go elements of Kind
	Kind   datatype.Kind  // the element kind of its predefined type (KindNone: mixed)
	Class  OpClass        // the class of its predefined type
	Size   int            // bytes of one item packed
	Name   string         // the face's name for the datatype ("": Datatype's)
	Handle uintptr        // the face's own handle, given back to a UserKernel
	// Datatype is the datatype's object, when the face has one: its name is read
	// for a message only (a derived type's, which a program may set, takes a lock).
	Datatype *Datatype
}

// Red sets *r to the device's reduction of o over items of e, or returns an error of
// class ErrOp naming the operation and the datatype when o does not apply. *r is
// filled in place (the Go face's blocking reductions read it straight back).
//
// A slice of Go integers or floats (e.Type nil) under Maxloc or Minloc holds flat
// (value, index) pairs, as MPI_2INT and MPI_2DOUBLE_PRECISION do: its unit is two
// elements and r.Pair asks the device for an even count.
//
// The null datatype of no items (datatype.Null, NullFor) reduces nothing, so o takes
// it whatever o is: the reduction keeps o's name and code, which the ranks' argument
// checks compare, and its kernel is never given an element.
func (o *Operation) Red(call string, e *Elems, r *collective.Red) error {
	if e.Type == datatype.Null {
		code := uint64(o.code)
		if o.user != nil {
			code = userCode
		}
		*r = collective.Red{K: collective.ReduceOp{Fn: reduceNothing, Commute: o.commute}, Name: o.name, Code: code, User: o.user != nil}
		return nil
	}
	if o.user != nil {
		*r = collective.Red{K: collective.ReduceOp{Fn: o.user(e.Type, e.Handle), Commute: o.commute}, Unit: e.Size,
			User: true, Name: o.name, Code: userCode}
		return nil
	}
	c := e.Class
	flat := e.Type == nil && o.code.Loc() && (c == op.CInteger || c == op.Floating)
	if flat {
		c = op.Pair
	}
	fn := op.Reduce(o.code, e.Kind)
	if fn == nil || !op.Defined(o.code, c) {
		return opErr(call, o, c, e)
	}
	*r = collective.Red{K: collective.ReduceOp{Fn: fn, Commute: o.commute}, Unit: e.Size, Name: o.name, Code: uint64(o.code)}
	if flat {
		r.Pair, r.Unit = true, 2*e.Size
	}
	return nil
}

// reduceNothing is the kernel of a reduction of no elements.
func reduceNothing(inout, in []byte) {}

func opErr(call string, o *Operation, c OpClass, e *Elems) error {
	return core.Wrap(core.ClassOp, call, "", op.Check(o.code, c, e.Kind, o.name, e.name()))
}

// name is e's datatype's name for messages, made only for them.
func (e *Elems) name() string {
	if e.Name != "" {
		return e.Name
	}
	if n := e.Datatype.nameOrEmpty(); n != "" {
		return n
	}
	return "a derived datatype of " + e.Kind.String()
}

// nameOrEmpty is d's name, "" for no object or an unnamed one.
func (d *Datatype) nameOrEmpty() string {
	if d == nil {
		return ""
	}
	return d.Name()
}

// OpClass is the class of d's predefined type, which decides the operations it takes
// (MPI 4.1 §6.9.2): a named predefined type's by its MPI name, a type of
// MPI_Type_create_f90_* by its combiner (Fortran integer, floating point, complex), a
// derived type's that of the datatypes it was made from when they agree (ClassMixed
// when not: MPI_INT and MPI_LOGICAL have one layout but not one class), and a layout
// the engine made alone (a Go type's) by its element kind.
func (d *Datatype) OpClass() OpClass {
	switch {
	case d.mpi != "":
		return op.NamedClass(d.mpi)
	case d.f90 != nil:
		switch d.f90.comb {
		case datatype.CombinerF90Integer:
			return op.FortranInteger
		case datatype.CombinerF90Real:
			return op.Floating
		case datatype.CombinerF90Complex:
			return op.Complex
		}
		return op.Mixed
	case len(d.parts) > 0:
		c := op.Mixed
		for i, p := range d.parts {
			if p == nil {
				return op.Mixed
			}
			if pc := p.OpClass(); i == 0 {
				c = pc
			} else if pc != c {
				return op.Mixed
			}
		}
		return c
	}
	return op.KindClass(d.t.Kind())
}

// AccOp is o as a one-sided accumulate of count items of e applies it (MPI 4.1
// §12.3.4: a predefined operation, on a datatype of one predefined type), or an
// error of class ErrOp. An accumulate that moves no data does not look at its
// operation. The window checks the element kinds of origin and target itself.
func (o *Operation) AccOp(call string, e *Elems, count int64) (OpCode, error) {
	switch {
	case count == 0 || e.Size == 0:
		if o.user != nil {
			return op.Replace, nil // never applied: no element to combine
		}
		return o.code, nil
	case o.user != nil:
		return 0, core.Errorf(core.ClassOp, call, "%s: one-sided accumulates take predefined operations only", o.name)
	case op.Reduce(o.code, e.Kind) == nil || !op.Defined(o.code, e.Class):
		return 0, opErr(call, o, e.Class, e)
	}
	return o.code, nil
}

// ReduceLocal is MPI_Reduce_local: inout = in ⊕ inout over count items of e. in and
// inout hold the items as e.Type lays them out, the first item's base origin bytes
// in (as datatype's *At functions take it); for a slice of Go elements (e.Type nil),
// count elements from byte 0.
func ReduceLocal(call string, o *Operation, e *Elems, in, inout []byte, origin, count int64) error {
	var r collective.Red
	if err := o.Red(call, e, &r); err != nil {
		return err
	}
	if count < 0 {
		return core.Errorf(core.ClassCount, call, "count %d is negative", count)
	}
	if r.Pair && count%2 != 0 {
		return core.Errorf(core.ClassCount, call, "%s takes (value, index) pairs: the count %d is odd", o.name, count)
	}
	t := e.Type
	if t == nil || t.IsDense() {
		n := count * int64(e.Size)
		r.K.Fn(inout[origin:origin+n], in[origin:origin+n])
		return nil
	}
	// A datatype with gaps: the kernel runs on the packed items.
	n := count * t.Size()
	a, b := make([]byte, n), make([]byte, n)
	if _, err := t.PackAt(a, in, origin, count); err != nil {
		return core.TypeErr(call, err)
	}
	if _, err := t.PackAt(b, inout, origin, count); err != nil {
		return core.TypeErr(call, err)
	}
	r.K.Fn(b, a)
	_, err := t.UnpackAt(inout, origin, b, count)
	return core.TypeErr(call, err)
}

// KernelAlign is the alignment the kernels of kind k need of their memory (op.Align).
func KernelAlign(k datatype.Kind) int { return op.Align(k) }

// CompareSwapType checks the datatype of MPI_Compare_and_swap: one element of a
// predefined C integer, Fortran integer, logical, multi-language or byte type (MPI
// 4.1 §12.3.4), or an error of class ErrType.
func CompareSwapType(call string, e *Elems) error {
	if e.Type != nil && !e.Type.IsPredefined() || !op.CompareSwapDefined(e.Class) {
		return core.Errorf(core.ClassType, call, "datatype %s (%s): MPI_Compare_and_swap takes one element of a predefined integer, logical or byte type", e.name(), e.Class)
	}
	return nil
}

// LiteralLogical is Land, Lor or Lxor on logicals whose true and false are the byte
// strings yes and no (op.LiteralLogical); nil for another operation.
func LiteralLogical(o OpCode, yes, no []byte) Kernel { return op.LiteralLogical(o, yes, no) }
