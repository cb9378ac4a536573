package mpi

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// Reductions over derived datatypes. MPI defines a reduction on a derived datatype
// element by element of its typemap, so a derived type whose basic elements are all of
// one predefined type reduces like a flat array of that type: each Buf is packed to a
// contiguous array of the base elements, the base type's kernel runs on it (the same
// collectives as Reduce and Allreduce), and the result is unpacked through the
// receive Buf's layout. Only the signature matters: the send and receive layouts may
// differ (a strided column in, a contiguous row out) as long as they hold the same
// number of base elements. The pair types of Maxloc and Minloc reduce as packed
// (value, index) records, and a user op over a Go type T sees the data laid out as []T.

// ReduceBuf is Reduce over typed buffers (see Typed): every rank's send, combined with
// op element by element of the base type, lands in root's recv, which must hold as many
// base elements as send (recv is ignored elsewhere). With a predefined op the datatypes
// must be built from one predefined type (a vector of Float64, a struct of Int32
// fields...), or be a pair type with Maxloc or Minloc; a type mixing element types is
// refused with ErrType. With an op made by OpCreate over a Go type T, the buffers may
// hold any whole number of T's elements (Typed(s, n, TypeOf[T]()), or another layout of
// the same elements). On an intercommunicator root follows the
// Root / ProcNull convention of Reduce, and send is ignored in the root's group.
func ReduceBuf(c *Comm, send, recv Buf, op Op, root int) error {
	const name = "ReduceBuf"
	if err := c.check(name); err != nil {
		return err
	}
	hasSend, hasRecv := true, c.Rank() == root
	if c.IsInter() {
		hasSend, hasRecv = root != Root && root != ProcNull, root == Root
	}
	return c.fail(name, reduceBuf(name, c, send, recv, op, root, hasSend, hasRecv, false))
}

// AllreduceBuf is Allreduce over typed buffers: every rank's recv gets the combination
// of every rank's send (on an intercommunicator, of the other group's), element by
// element of the base type. send and recv must hold the same number of base elements
// and be built from the same single predefined type, as for ReduceBuf.
func AllreduceBuf(c *Comm, send, recv Buf, op Op) error {
	const name = "AllreduceBuf"
	if err := c.check(name); err != nil {
		return err
	}
	return c.fail(name, reduceBuf(name, c, send, recv, op, core.NoRoot, true, true, true))
}

// reduceArg is one Buf of a reduction, checked: its layout, its base kind and the
// number of bytes of base elements it holds.
type reduceArg struct {
	b     Buf
	kind  datatype.Kind
	bytes int64
}

func checkReduceBuf(name, arg string, b Buf, user bool) (reduceArg, error) {
	if b.err != nil {
		return reduceArg{}, b.err
	}
	if b.dt == nil {
		return reduceArg{}, errorf(ClassType, name, "%s has no datatype (make it with Typed)", arg)
	}
	if !b.dt.IsCommitted() {
		return reduceArg{}, errorf(ClassType, name, "%s: datatype %s is not committed (call Commit)", arg, b.dt.Name())
	}
	lo, hi, err := b.dt.Span(b.count)
	if err != nil {
		return reduceArg{}, typeErr(name, err)
	}
	if lo < 0 || hi > int64(len(b.mem)) {
		return reduceArg{}, errorf(ClassBuffer, name, "%s: %d items of %s span bytes [%d,%d) but the buffer has %d bytes",
			arg, b.count, b.dt.Name(), lo, hi, len(b.mem))
	}
	k := b.dt.Kind()
	if k == datatype.KindNone && b.dt.Size() == 0 {
		k = datatype.KindUint8 // no data: nothing to combine
	}
	if k == datatype.KindNone && !user {
		return reduceArg{}, errorf(ClassType, name, "%s: datatype %s mixes element types; a reduction over a derived datatype needs every element of one predefined type (MPI: predefined ops act on the base elements)", arg, b.dt.Name())
	}
	n, err := b.dt.PackSize(b.count)
	if err != nil {
		return reduceArg{}, typeErr(name, err)
	}
	return reduceArg{b: b, kind: k, bytes: n}, nil
}

func reduceBuf(name string, c *Comm, send, recv Buf, op Op, root int, hasSend, hasRecv, all bool) error {
	var s, r reduceArg
	var err error
	if hasSend {
		if s, err = checkReduceBuf(name, "send", send, op.user != nil); err != nil {
			return err
		}
	}
	if hasRecv {
		if r, err = checkReduceBuf(name, "recv", recv, op.user != nil); err != nil {
			return err
		}
	}
	if hasSend && hasRecv {
		if s.kind != r.kind && s.bytes > 0 && r.bytes > 0 && op.user == nil {
			return errorf(ClassType, name, "send holds %s elements and recv %s; both must be built from the same predefined type", s.kind, r.kind)
		}
		if s.bytes != r.bytes {
			return errorf(ClassCount, name, "send holds %d bytes of base elements and recv %d; they must hold as many", s.bytes, r.bytes)
		}
	}
	kind := s.kind
	if !hasSend {
		kind = r.kind
	}
	if !hasSend && !hasRecv {
		// A process of the root's group on an intercommunicator other than the root:
		// it moves nothing, but takes its part in the call's sequence.
		r, _ := red[uint8](name, NoOp)
		none := vec[uint8](nil)
		return c.dev().Reduce(name, &none, &none, &r, root)
	}
	if op.user != nil {
		return reduceUser(name, c, s, r, op.user, root, all)
	}
	switch kind {
	case datatype.KindInt8:
		return reducePacked[int8](name, c, s, r, op, root, all)
	case datatype.KindInt16:
		return reducePacked[int16](name, c, s, r, op, root, all)
	case datatype.KindInt32:
		return reducePacked[int32](name, c, s, r, op, root, all)
	case datatype.KindInt64:
		return reducePacked[int64](name, c, s, r, op, root, all)
	case datatype.KindInt:
		return reducePacked[int](name, c, s, r, op, root, all)
	case datatype.KindUint8:
		return reducePacked[uint8](name, c, s, r, op, root, all)
	case datatype.KindUint16:
		return reducePacked[uint16](name, c, s, r, op, root, all)
	case datatype.KindUint32:
		return reducePacked[uint32](name, c, s, r, op, root, all)
	case datatype.KindUint64:
		return reducePacked[uint64](name, c, s, r, op, root, all)
	case datatype.KindUint:
		return reducePacked[uint](name, c, s, r, op, root, all)
	case datatype.KindFloat32:
		return reducePacked[float32](name, c, s, r, op, root, all)
	case datatype.KindFloat64:
		return reducePacked[float64](name, c, s, r, op, root, all)
	case datatype.KindComplex64:
		return reducePacked[complex64](name, c, s, r, op, root, all)
	case datatype.KindComplex128:
		return reducePacked[complex128](name, c, s, r, op, root, all)
	case datatype.KindBool:
		return reducePacked[bool](name, c, s, r, op, root, all)
	case datatype.KindByte:
		// MPI defines only the bitwise ops on MPI_BYTE.
		switch {
		case op.user != nil:
		case op.code == opBand, op.code == opBor, op.code == opBxor, op.code == opReplace, op.code == opNoOp:
		default:
			return errorf(ClassOp, name, "op %v is not defined on byte (MPI_BYTE takes Band, Bor and Bxor)", op)
		}
		return reducePacked[uint8](name, c, s, r, op, root, all)
	case datatype.KindInt32Int32:
		// MPI_2INT packs to flat (value, index) pairs of int32, which Maxloc and
		// Minloc take as they are.
		if err := pairOp(name, op, kind); err != nil {
			return err
		}
		return reducePacked[int32](name, c, s, r, op, root, all)
	case datatype.KindFloat32Int32, datatype.KindFloat64Int32, datatype.KindInt64Int32, datatype.KindInt16Int32:
		if err := pairOp(name, op, kind); err != nil {
			return err
		}
		return reducePairs(name, c, s, r, op, kind, root, all)
	}
	return errorf(ClassType, name, "datatype built from %s: no predefined op takes it", kind)
}

// pairOp refuses every op but Maxloc and Minloc on the pair types (MPI 4.1 §6.9.4).
func pairOp(name string, op Op, kind datatype.Kind) error {
	if op.code != opMaxloc && op.code != opMinloc {
		return errorf(ClassOp, name, "op %v on %s: the pair types take Maxloc and Minloc only", op, kind)
	}
	return nil
}

// reducePacked packs send to base elements of T, reduces, and unpacks into recv.
func reducePacked[T Elem](name string, c *Comm, s, r reduceArg, op Op, root int, all bool) error {
	es := int64(esize[T]())
	var in, out []T
	if s.b.dt != nil {
		in = make([]T, s.bytes/es)
		if _, err := s.b.dt.Pack(asBytes(in), s.b.mem, s.b.count); err != nil {
			return typeErr(name, err)
		}
	}
	if r.b.dt != nil {
		out = make([]T, r.bytes/es)
	}
	rd, err := red[T](name, op)
	if err != nil {
		return err
	}
	iv, ov := vec(in), vec(out)
	if all {
		err = c.dev().Allreduce(name, &iv, &ov, &rd)
	} else {
		err = c.dev().Reduce(name, &iv, &ov, &rd, root)
	}
	if err != nil {
		return err
	}
	if r.b.dt != nil {
		if _, err := r.b.dt.Unpack(r.b.mem, asBytes(out), r.b.count); err != nil {
			return typeErr(name, err)
		}
	}
	return nil
}

// reduceBytes runs rd over elements of esz bytes: the device's entry point for
// reductions whose elements are records rather than one Go element type.
func reduceBytes(name string, c *Comm, in, out []byte, esz int, rd core.Red, root int, all bool) error {
	iv, ov := core.Vec{B: in, Esz: esz}, core.Vec{B: out, Esz: esz}
	if all {
		return c.dev().Allreduce(name, &iv, &ov, &rd)
	}
	return c.dev().Reduce(name, &iv, &ov, &rd, root)
}

// packed returns a's data packed, or nil for an absent buffer.
func (a reduceArg) packed(name string) ([]byte, error) {
	if a.b.dt == nil {
		return nil, nil
	}
	p := make([]byte, a.bytes)
	if _, err := a.b.dt.Pack(p, a.b.mem, a.b.count); err != nil {
		return nil, typeErr(name, err)
	}
	return p, nil
}

// unpack stores packed data p into a's buffer, if a is present.
func (a reduceArg) unpack(name string, p []byte) error {
	if a.b.dt == nil {
		return nil
	}
	_, err := a.b.dt.Unpack(a.b.mem, p, a.b.count)
	return typeErr(name, err)
}

// reducePairs reduces the value-index pair types (MPI_FLOAT_INT, MPI_DOUBLE_INT,
// MPI_LONG_INT, MPI_SHORT_INT) as packed records: the value, then its int32 index, with
// no padding between records, which the kernels read wherever they fall.
func reducePairs(name string, c *Comm, s, r reduceArg, op Op, kind datatype.Kind, root int, all bool) error {
	rec, k := pairKernel(kind, op.code == opMaxloc)
	in, err := s.packed(name)
	if err != nil {
		return err
	}
	var out []byte
	if r.b.dt != nil {
		out = make([]byte, r.bytes)
	}
	rd := core.Red{K: core.ReduceOp{Fn: k, Commute: true}, Unit: rec, Code: uint64(op.code), Name: opNames[op.code]}
	if err := reduceBytes(name, c, in, out, rec, rd, root, all); err != nil {
		return err
	}
	return r.unpack(name, out)
}

// reduceUser runs a user op over T (OpCreate[T]) on typed buffers: each buffer's data,
// which must be a whole number of T's elements, is laid out as []T for the op, and
// the result is put back through the receive buffer's datatype. A buffer whose
// datatype is TypeOf[T]() already is a []T and is used in place.
func reduceUser(name string, c *Comm, s, r reduceArg, u *userOp, root int, all bool) error {
	if err := u.check(name); err != nil {
		return err
	}
	esz := int(u.typ.Size())
	in, _, err := u.goLayout(name, "send", s, true)
	if err != nil {
		return err
	}
	out, direct, err := u.goLayout(name, "recv", r, false)
	if err != nil {
		return err
	}
	if overlap(in, out) {
		// One buffer passed as both: the reduction must read the input as it was.
		in = append([]byte(nil), in...)
	}
	rd := core.Red{K: core.ReduceOp{Fn: u.fn, Commute: u.commute}, Unit: esz, User: true, Code: 1 << 32, Name: "a user op"}
	if err := reduceBytes(name, c, in, out, esz, rd, root, all); err != nil {
		return err
	}
	if direct || r.b.dt == nil {
		return nil
	}
	p := make([]byte, r.bytes)
	if _, err := u.dt.Pack(p, out, r.bytes/u.dt.Size()); err != nil {
		return typeErr(name, err)
	}
	return r.unpack(name, p)
}

// goLayout returns a's data as the bytes of a []T for u, filled from a when fill is
// set, and whether they are a's own memory.
func (u *userOp) goLayout(name, arg string, a reduceArg, fill bool) ([]byte, bool, error) {
	if a.b.dt == nil {
		return nil, false, nil
	}
	esz, data := u.typ.Size(), u.dt.Size()
	if a.bytes%data != 0 {
		return nil, false, errorf(ClassType, name, "%s holds %d bytes of data, not a whole number of the op's %v (%d bytes of data each)",
			arg, a.bytes, u.typ, data)
	}
	n := a.bytes / data
	if a.b.dt.Origin() == u.dt.Origin() && int64(len(a.b.mem)) >= n*int64(esz) {
		// Items of TypeOf[T] are T's at T's stride: the memory is a []T already
		// (unless it stops inside the last one's trailing padding).
		return a.b.mem[:n*int64(esz)], true, nil
	}
	g := asBytes(make([]uint64, (n*int64(esz)+7)/8))[:n*int64(esz)]
	if !fill {
		return g, false, nil
	}
	p, err := a.packed(name)
	if err != nil {
		return nil, false, err
	}
	if _, err := u.dt.Unpack(g, p, n); err != nil {
		return nil, false, typeErr(name, err)
	}
	return g, false, nil
}

// overlap reports whether a and b share memory.
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}
