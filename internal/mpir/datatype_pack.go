package mpir

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// Counts in a status (MPI 4.1 sections 3.2.5 and 5.1.11) and packing (section 5.2),
// over a datatype's layout. Queries (MPI_Get_count, MPI_Get_elements,
// MPI_Pack_size, MPI_Pack_external_size, MPI_Status_set_elements) take any layout;
// the calls that move data take a committed one (section 5.1.9), as in
// communication.

// GetCount is MPI_Get_count of a message of bytes packed bytes and datatype t: the
// whole items it holds, Undefined when it ends inside one. A type of size zero
// counts zero.
func GetCount(t *datatype.Type, bytes int64) int64 {
	n := t.Size()
	switch {
	case n == 0:
		return 0
	case bytes%n != 0:
		return core.Undefined
	}
	return bytes / n
}

// GetElements is MPI_Get_elements of a message of bytes packed bytes and datatype t:
// the basic elements it holds, through a partly filled last item; Undefined when it
// ends inside a basic element.
func GetElements(t *datatype.Type, bytes int64) int64 {
	n, ok := t.ElementsIn(bytes)
	if !ok {
		return core.Undefined
	}
	return n
}

// StatusElements is MPI_Status_set_elements: the packed bytes a status records so
// that GetElements of it with t is count (and GetCount the whole items).
func StatusElements(op string, t *datatype.Type, count int64) (int64, error) {
	if count < 0 {
		return 0, core.Errorf(core.ClassCount, op, "count %d is negative", count)
	}
	return t.BytesOfElements(count), nil
}

// FitInt is v as an output of the int form of MPI_Type_size, MPI_Get_count or
// MPI_Get_elements, whose int is at most max: Undefined when v does not fit (MPI
// 4.1 sections 3.2.5, 5.1.5, 5.1.11), for only the _c forms hold it.
func FitInt(v, max int64) int64 {
	if v > max || v < -max-1 {
		return core.Undefined
	}
	return v
}

// committed checks that t may move data.
func committed(op string, t *datatype.Type) error {
	if !t.IsCommitted() {
		return NotCommitted(op, "datatype", t.Name())
	}
	return nil
}

// NotCommitted is the error of the datatype argument arg, which the face calls name,
// used to move data uncommitted (MPI 4.1 section 5.1.9: a type is committed before
// it is used in communication).
func NotCommitted(op, arg, name string) error {
	return core.Errorf(core.ClassType, op, "%s %s is not committed (MPI_Type_commit)", arg, name)
}

// PackSize is MPI_Pack_size: the bytes count items of t take packed.
func PackSize(op string, t *datatype.Type, count int64) (int64, error) {
	n, err := t.PackSize(count)
	return n, typeErr(op, err)
}

// PackExternalSize is MPI_Pack_external_size: the bytes count items of t take in
// external32.
func PackExternalSize(op string, t *datatype.Type, count int64) (int64, error) {
	n, err := t.External32Size(count)
	return n, typeErr(op, err)
}

// Datarep checks the data representation of the canonical packing calls
// (MPI_Pack_external and kin, MPI 4.1 section 5.2.3): "external32" is the only one
// they take; another is an unsupported one.
func Datarep(op, rep string) error {
	if rep != "external32" {
		return core.Errorf(core.ClassUnsupportedDatarep, op, "datarep %q is not \"external32\", the only representation of canonical packing", rep)
	}
	return nil
}

// room checks that n bytes from position pos fit in a buffer of size bytes; what
// says which way they go, for the error.
func room(op, what string, n, pos, size int64) error {
	if pos < 0 || pos > size {
		return core.Errorf(core.ClassArg, op, "position %d is outside the buffer of %d bytes", pos, size)
	}
	if n > size-pos {
		return core.Errorf(core.ClassTruncate, op, "%s %d bytes at position %d overruns the buffer of %d bytes", what, n, pos, size)
	}
	return nil
}

// packing is the common part of the four packing calls: the checks and the
// packed size of count items of t, in external32 when ext.
func packing(op string, t *datatype.Type, count int64, ext bool) (int64, error) {
	var n int64
	var err error
	if ext {
		n, err = t.External32Size(count)
	} else {
		n, err = t.PackSize(count)
	}
	if err != nil {
		return 0, typeErr(op, err)
	}
	return n, committed(op, t)
}

// Pack is MPI_Pack: count items of t from the user memory mem, whose buffer
// address is mem[origin], packed into out from position pos. It returns the
// position after them. Not enough room from pos is MPI_ERR_TRUNCATE, as a receive
// too short is.
func Pack(op string, t *datatype.Type, mem []byte, origin, count int64, out []byte, pos int64) (int64, error) {
	return pack(op, t, mem, origin, count, out, pos, false)
}

// PackExternal is MPI_Pack_external of a representation Datarep checked: Pack in
// external32.
func PackExternal(op string, t *datatype.Type, mem []byte, origin, count int64, out []byte, pos int64) (int64, error) {
	return pack(op, t, mem, origin, count, out, pos, true)
}

func pack(op string, t *datatype.Type, mem []byte, origin, count int64, out []byte, pos int64, ext bool) (int64, error) {
	n, err := packing(op, t, count, ext)
	if err != nil {
		return pos, err
	}
	if err := room(op, "packing", n, pos, int64(len(out))); err != nil {
		return pos, err
	}
	if n == 0 {
		return pos, nil
	}
	dst := out[pos : pos+n]
	if ext {
		n, err = t.PackExternalAt(dst, mem, origin, count)
	} else {
		n, err = t.PackAt(dst, mem, origin, count)
	}
	if err != nil {
		return pos, typeErr(op, err)
	}
	return pos + n, nil
}

// Unpack is MPI_Unpack: count items of t unpacked from in at position pos into the
// user memory mem, whose buffer address is mem[origin]. It returns the position
// after them; too few bytes from pos is MPI_ERR_TRUNCATE.
func Unpack(op string, in []byte, pos int64, t *datatype.Type, mem []byte, origin, count int64) (int64, error) {
	return unpack(op, in, pos, t, mem, origin, count, false)
}

// UnpackExternal is MPI_Unpack_external of a representation Datarep checked:
// Unpack from external32.
func UnpackExternal(op string, in []byte, pos int64, t *datatype.Type, mem []byte, origin, count int64) (int64, error) {
	return unpack(op, in, pos, t, mem, origin, count, true)
}

func unpack(op string, in []byte, pos int64, t *datatype.Type, mem []byte, origin, count int64, ext bool) (int64, error) {
	n, err := packing(op, t, count, ext)
	if err != nil {
		return pos, err
	}
	if err := room(op, "unpacking", n, pos, int64(len(in))); err != nil {
		return pos, err
	}
	if n == 0 {
		return pos, nil
	}
	src := in[pos : pos+n]
	if ext {
		n, err = t.UnpackExternalAt(mem, origin, src, count)
	} else {
		n, err = t.UnpackAt(mem, origin, src, count)
	}
	if err != nil {
		return pos, typeErr(op, err)
	}
	return pos + n, nil
}
