package mpi

import (
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/datatype"
)

// redForm is the form of the elements a reduction's kernel combines, and how a typed
// buffer is laid out in it: a predefined op's base elements and the pair records are
// the buffer packed; a user op's []T is the buffer packed and then spread to T's
// layout when T has padding.
type redForm struct {
	rd     collective.Red
	esz    int            // bytes of one element as the kernel sees it
	data   int64          // bytes of one element packed
	align  uintptr        // the alignment the kernel needs of its memory
	goT    *datatype.Type // T's layout, when it is not T's packed form (padding)
	origin *datatype.Type // user op: TypeOf[T]'s type, whose items are T's in memory
}

// formOf is the form in which op combines elements of kind: a predefined op's from
// the table of forms made so far, another's built in *fs.
func formOf(name string, op Op, kind datatype.Kind, fs *redForm) (*redForm, error) {
	predef := op.user == nil && op.code < numOps && int(kind) < numKinds
	if predef {
		if f := predefForms[op.code][kind].Load(); f != nil {
			return f, nil
		}
	}
	var err error
	if *fs, err = makeForm(name, op, kind); err == nil && predef {
		f := new(redForm)
		*f = *fs
		predefForms[op.code][kind].Store(f)
	}
	return fs, err
}

// numKinds is the number of datatype kinds.
const numKinds = int(datatype.KindInt16Int32) + 1

// predefForms holds the form of each predefined op over each kind it takes, made on
// first use, so that later calls find it with one load rather than building it with
// reflect and generics. (Making all of them at start-up cost every program ~0.6M
// instructions, most in the messages of the pairs that do not go together.)
var predefForms [numOps][numKinds]atomic.Pointer[redForm]

// makeForm builds the form in which op combines elements of kind.
func makeForm(name string, op Op, kind datatype.Kind) (redForm, error) {
	if op.user != nil {
		return userForm(name, op.user)
	}
	switch kind {
	case datatype.KindInt8:
		return predefForm[int8](name, op)
	case datatype.KindInt16:
		return predefForm[int16](name, op)
	case datatype.KindInt32:
		return predefForm[int32](name, op)
	case datatype.KindInt64:
		return predefForm[int64](name, op)
	case datatype.KindInt:
		return predefForm[int](name, op)
	case datatype.KindUint8:
		return predefForm[uint8](name, op)
	case datatype.KindUint16:
		return predefForm[uint16](name, op)
	case datatype.KindUint32:
		return predefForm[uint32](name, op)
	case datatype.KindUint64:
		return predefForm[uint64](name, op)
	case datatype.KindUint:
		return predefForm[uint](name, op)
	case datatype.KindFloat32:
		return predefForm[float32](name, op)
	case datatype.KindFloat64:
		return predefForm[float64](name, op)
	case datatype.KindComplex64:
		return predefForm[complex64](name, op)
	case datatype.KindComplex128:
		return predefForm[complex128](name, op)
	case datatype.KindBool:
		return predefForm[bool](name, op)
	case datatype.KindByte:
		// MPI defines only the bitwise ops on MPI_BYTE.
		switch op.code {
		case opBand, opBor, opBxor, opReplace, opNoOp:
			return predefForm[uint8](name, op)
		}
		return redForm{}, errorf(ClassOp, name, "op %v is not defined on byte (MPI_BYTE takes Band, Bor and Bxor)", op)
	case datatype.KindInt32Int32:
		// MPI_2INT packs to flat (value, index) pairs of int32, which Maxloc and
		// Minloc take as they are.
		if err := pairOp(name, op, kind); err != nil {
			return redForm{}, err
		}
		return predefForm[int32](name, op)
	case datatype.KindFloat32Int32, datatype.KindFloat64Int32, datatype.KindInt64Int32, datatype.KindInt16Int32:
		if err := pairOp(name, op, kind); err != nil {
			return redForm{}, err
		}
		return pairForm(op, kind), nil
	}
	return redForm{}, errorf(ClassType, name, "datatype built from %s: no predefined op takes it", kind)
}

// predefForm is a predefined op over packed elements of T.
func predefForm[T Elem](name string, op Op) (redForm, error) {
	rd, err := red[T](name, op)
	var z T
	sz := int(unsafe.Sizeof(z))
	return redForm{rd: rd, esz: sz, data: int64(sz), align: unsafe.Alignof(z)}, err
}

// pairForm reduces the value-index pair types (MPI_FLOAT_INT, MPI_DOUBLE_INT,
// MPI_LONG_INT, MPI_SHORT_INT) as packed records: the value, then its int32 index, with
// no padding between records, which the kernels read wherever they fall.
func pairForm(op Op, kind datatype.Kind) redForm {
	rec, k := pairKernel(kind, op.code == opMaxloc)
	rd := collective.Red{K: collective.ReduceOp{Fn: k, Commute: true}, Unit: rec, Code: uint64(op.code), Name: opNames[op.code]}
	return redForm{rd: rd, esz: rec, data: int64(rec), align: 1}
}

// userForm runs a user op over T (OpCreate[T]) on the data laid out as []T; T's
// elements are the unit no schedule cuts.
func userForm(name string, u *userOp) (redForm, error) {
	if err := u.check(name); err != nil {
		return redForm{}, err
	}
	esz := int(u.typ.Size())
	f := redForm{
		rd:     collective.Red{K: collective.ReduceOp{Fn: u.fn, Commute: u.commute}, Unit: esz, User: true, Code: 1 << 32, Name: "a user op"},
		esz:    esz,
		data:   u.dt.Size(),
		align:  uintptr(u.typ.Align()),
		origin: u.dt.Origin(),
	}
	if f.data != int64(esz) {
		f.goT = u.dt
	}
	return f, nil
}

// pairOp refuses every op but Maxloc and Minloc on the pair types (MPI 4.1 §6.9.4).
func pairOp(name string, op Op, kind datatype.Kind) error {
	if op.code != opMaxloc && op.code != opMinloc {
		return errorf(ClassOp, name, "op %v on %s: the pair types take Maxloc and Minloc only", op, kind)
	}
	return nil
}

// whole checks that the present buffers hold whole elements of f (only a user op's
// T can fail this: the base elements of a predefined type always divide).
func (f *redForm) whole(name string, args ...*reduceArg) error {
	for i, a := range args {
		if a.present() && a.bytes%f.data != 0 {
			arg := [2]string{"send", "recv"}[i]
			return errorf(ClassType, name, "%s holds %d bytes of data, not a whole number of the op's elements (%d bytes of data each)", arg, a.bytes, f.data)
		}
	}
	return nil
}

// laidLen is the length of a's data laid out in form f.
func (f *redForm) laidLen(a *reduceArg) int {
	if f.goT == nil {
		return int(a.bytes) // packed elements are the form
	}
	return int(a.bytes / f.data * int64(f.esz))
}

// direct returns a's memory when it already is laid out in form f, aligned for the
// kernel: a contiguous buffer of packed elements, or items of TypeOf[T] for a user
// op over T.
func (f *redForm) direct(a *reduceArg) ([]byte, bool) {
	var w []byte
	switch {
	case f.origin != nil && a.bd.Type().Origin() == f.origin && len(a.bd.Mem()) >= f.laidLen(a):
		w = a.bd.Mem()[:f.laidLen(a)]
	case f.goT == nil:
		c, ok := a.bd.Contiguous()
		if !ok {
			return nil, false
		}
		w = c
	default:
		return nil, false
	}
	if len(w) > 0 && uintptr(unsafe.Pointer(&w[0]))%f.align != 0 {
		return nil, false
	}
	return w, true
}

// lay returns a's data in form f (nil for an absent buffer), filled from a when fill
// is set, and whether it is a's own memory.
func (f *redForm) lay(name string, a *reduceArg, w *scratchSet, fill bool) ([]byte, bool, error) {
	if !a.present() {
		return nil, false, nil
	}
	if d, ok := f.direct(a); ok {
		return d, true, nil
	}
	g := w.get(f.laidLen(a))
	if fill {
		if err := f.fill(name, a, g, w); err != nil {
			return nil, false, err
		}
	}
	return g, false, nil
}

// fill writes a's data into g in form f.
func (f *redForm) fill(name string, a *reduceArg, g []byte, w *scratchSet) error {
	if f.goT == nil {
		if err := a.bd.Pack(g); err != nil {
			return typeErr(name, err)
		}
		return nil
	}
	p := w.get(int(a.bytes))
	if err := a.bd.Pack(p); err != nil {
		return typeErr(name, err)
	}
	_, err := f.goT.Unpack(g, p, a.bytes/f.data)
	return typeErr(name, err)
}

// back stores the first items items of the result, laid out in form f in out, into
// r's buffer (nothing to do when out is r's own memory).
func (f *redForm) back(name string, r *reduceArg, out []byte, items int64, w *scratchSet) error {
	if items == 0 || !r.present() || overlap(out, r.bd.Mem()) {
		return nil
	}
	dt := r.bd.Type()
	if f.goT == nil {
		if items == r.bd.Count() {
			if err := r.bd.Unpack(out); err != nil {
				return typeErr(name, err)
			}
			return nil
		}
		_, err := dt.Unpack(r.bd.Mem(), out, items)
		return typeErr(name, err)
	}
	nd := items * dt.Size()
	k := nd / f.data
	p := w.get(int(nd))
	if _, err := f.goT.Pack(p, out[:k*int64(f.esz)], k); err != nil {
		return typeErr(name, err)
	}
	_, err := dt.Unpack(r.bd.Mem(), p, items)
	return typeErr(name, err)
}
