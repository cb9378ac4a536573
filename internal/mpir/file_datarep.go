package mpir

import (
	"strings"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpio"
)

// Data representations of files (MPI 4.1 section 14.5). "native" and "internal"
// (mpigo's internal representation is the native one, as the standard allows) move
// memory's bytes as they are. "external32" (14.5.2) holds in the file each element
// big-endian at the size of the standard's table: an access converts its memory
// through the datatype engine's canonical packing (the one MPI_Pack_external uses),
// whole, into a buffer of the file's bytes (a write) or out of one (a read), and the
// view's positions count the file's bytes.
//
// A view in external32 takes etypes and filetypes whose elements have the same size
// in the file as in memory (every Go type, C's int, float, double, long long, ...):
// their layout, holes included, is then the file's as it stands. A type with an
// element the standard narrows (C's long and unsigned long, 8 bytes in memory and
// 4 in external32) would need its filetype's displacements rescaled to the file's
// extents; such a view is MPI_ERR_UNSUPPORTED_DATAREP. The memory of an access may
// hold any type.

// The data representations a file's view takes.
const (
	RepNative     = "native"
	RepInternal   = "internal"
	RepExternal32 = "external32"
)

// FileDatarep is the data representation a file's view takes by a name, "" for one
// mpigo does not know: "native", "internal" and "external32", whatever case they are
// given in.
func FileDatarep(name string) string {
	switch n := strings.ToLower(name); n {
	case RepNative, RepInternal, RepExternal32:
		return n
	}
	return ""
}

// repView checks that the view's types et and ft have the file layout of rep.
func repView(op, rep string, et, ft *datatype.Type) error {
	if rep != RepExternal32 {
		return nil
	}
	for _, x := range []struct {
		arg string
		t   *datatype.Type
	}{{"etype", et}, {"filetype", ft}} {
		if n, err := x.t.External32Size(1); err != nil || n != x.t.Size() {
			return core.Errorf(core.ClassUnsupportedDatarep, op,
				"%s %s is %d bytes in memory but not in external32: mpigo's external32 views take types whose elements keep their size (not C's long or unsigned long)",
				x.arg, x.t.Name(), x.t.Size())
		}
	}
	return nil
}

// repExtent is the extent of t in the file's data representation rep
// (MPI_File_get_type_extent).
func repExtent(op, rep string, t *datatype.Type) (int64, error) {
	if rep != RepExternal32 {
		return t.Extent(), nil
	}
	x, err := t.External32Size(1)
	if err != nil {
		return 0, core.TypeErr(op, err)
	}
	switch {
	case x == t.Size():
		return t.Extent(), nil
	case t.Extent() == t.Size():
		// No holes: the elements lie back to back in the file as in memory.
		return x, nil
	}
	return 0, core.Errorf(core.ClassUnsupportedDatarep, op,
		"%s has holes and elements of another size in external32 (C's long or unsigned long): mpigo does not give its external32 extent", t.Name())
}

// converted is an access's memory in external32: the file's bytes of it, and what to
// do with them once moved.
type converted struct {
	b     IOBuf
	file  []byte // the external32 bytes of the whole access
	write bool
}

// extMem is the memory of an access in external32: for a write the file's bytes,
// converted now; for a read a buffer the access fills and finish converts. mem is
// ioMem's, already checked.
func extMem(op string, b IOBuf, write bool) (mpio.Mem, int64, *converted, error) {
	if b.Type == datatype.Byte && b.Elem != nil && b.Elem.Size() > 0 {
		if b.Count%b.Elem.Size() != 0 {
			return mpio.Mem{}, 0, nil, core.Errorf(core.ClassType, op, "%d bytes are no whole number of %s", b.Count, b.Elem.Name())
		}
		b.Count, b.Type = b.Count/b.Elem.Size(), b.Elem
	}
	if b.Count == 0 {
		return mpio.Bytes(nil), 0, nil, nil
	}
	n, err := b.Type.External32Size(b.Count)
	if err != nil {
		return mpio.Mem{}, 0, nil, core.TypeErr(op, err)
	}
	c := &converted{b: b, file: make([]byte, n), write: write}
	if write {
		if _, err := b.Type.PackExternalAt(c.file, b.Mem, b.Origin, b.Count); err != nil {
			return mpio.Mem{}, 0, nil, core.TypeErr(op, err)
		}
	}
	return mpio.Bytes(c.file), n, c, nil
}

// finish ends an access in external32 that moved n of the file's bytes: a read
// converts the whole items it got into memory (the part of an item past the end of
// the file is left alone). It returns the bytes of memory the access moved, which
// its status reports.
func (c *converted) finish(op string, n int64) (int64, error) {
	if c == nil {
		return n, nil
	}
	x := int64(len(c.file)) / c.b.Count // an item's external32 size
	if n == int64(len(c.file)) {
		if !c.write {
			if _, err := c.b.Type.UnpackExternalAt(c.b.Mem, c.b.Origin, c.file, c.b.Count); err != nil {
				return 0, core.TypeErr(op, err)
			}
		}
		return c.b.Count * c.b.Type.Size(), nil
	}
	k := n / x
	if !c.write && k > 0 {
		if _, err := c.b.Type.UnpackExternalAt(c.b.Mem, c.b.Origin, c.file[:k*x], k); err != nil {
			return 0, core.TypeErr(op, err)
		}
	}
	return k * c.b.Type.Size(), nil
}
