package mpi

import (
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
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
	code := op.code()
	predef := op.user == nil && code != codeNone && int(kind) < numKinds
	if predef {
		if f := predefForms[code][kind].Load(); f != nil {
			return f, nil
		}
	}
	var err error
	if *fs, err = makeForm(name, op, kind); err == nil && predef {
		f := new(redForm)
		*f = *fs
		predefForms[code][kind].Store(f)
	}
	return fs, err
}

// numKinds is the number of datatype kinds.
const numKinds = int(datatype.NumKinds)

// predefForms holds the form of each predefined op over each kind it takes, made on
// first use, so that later calls find it with one load rather than building it.
var predefForms [numOps][numKinds]atomic.Pointer[redForm]

// makeForm builds the form in which op combines elements of kind: a predefined op's
// kernel over the packed elements of kind (mpir's choice, which refuses what MPI does
// not define), or a user op's over T.
func makeForm(name string, op Op, kind datatype.Kind) (redForm, error) {
	switch {
	case op.p == nil:
		return redForm{}, errorf(ClassOp, name, "op is the zero Op (use Sum, Max, ... or OpCreate)")
	case op.user != nil:
		return userForm(name, op)
	}
	t := datatype.ForKind(kind)
	if t == nil {
		return redForm{}, errorf(ClassType, name, "datatype built from %s: no predefined op takes it", kind)
	}
	e := mpir.Elems{Type: t, Kind: kind, Class: mpir.KindClass(kind), Size: int(t.Size()), Name: kind.String()}
	f := redForm{esz: int(t.Size()), data: t.Size(), align: uintptr(mpir.KernelAlign(kind))}
	return f, op.p.Red(name, &e, &f.rd)
}

// userForm runs a user op over T (OpCreate[T]) on the data laid out as []T; T's
// elements are the unit no schedule cuts.
func userForm(name string, op Op) (redForm, error) {
	u := op.user
	if err := u.check(name); err != nil {
		return redForm{}, err
	}
	esz := int(u.typ.Size())
	f := redForm{
		esz:    esz,
		data:   u.dt.Size(),
		align:  uintptr(u.typ.Align()),
		origin: u.dt.Origin(),
	}
	if err := op.p.Red(name, &mpir.Elems{Size: esz, Name: u.typ.String()}, &f.rd); err != nil {
		return redForm{}, err
	}
	if f.data != int64(esz) {
		f.goT = u.dt
	}
	return f, nil
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

// lay returns the memory a's data takes in form f (nil for an absent buffer), and
// whether it is a's own memory (else pooled scratch of w, which Pack fills).
func (f *redForm) lay(a *reduceArg, w *scratchSet) ([]byte, bool) {
	if !a.present() {
		return nil, false
	}
	if d, ok := f.direct(a); ok {
		return d, true
	}
	return w.get(f.laidLen(a)), false
}

// fill writes a's data into g in form f.
func (f *redForm) fill(name string, a *reduceArg, g []byte) error {
	if f.goT == nil {
		if err := a.bd.Pack(g); err != nil {
			return typeErr(name, err)
		}
		return nil
	}
	p := collective.Scratch(int(a.bytes))
	defer collective.ReleaseScratch(p)
	if err := a.bd.Pack(*p); err != nil {
		return typeErr(name, err)
	}
	_, err := f.goT.Unpack(g, *p, a.bytes/f.data)
	return typeErr(name, err)
}

// back stores the first items items of the result, laid out in form f in out, into
// r's buffer (nothing to do when out is r's own memory).
func (f *redForm) back(name string, r *reduceArg, out []byte, items int64) error {
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
	p := collective.Scratch(int(nd))
	defer collective.ReleaseScratch(p)
	if _, err := f.goT.Pack(*p, out[:k*int64(f.esz)], k); err != nil {
		return typeErr(name, err)
	}
	_, err := dt.Unpack(r.bd.Mem(), *p, items)
	return typeErr(name, err)
}
