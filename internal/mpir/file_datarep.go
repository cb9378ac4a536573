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
// view's positions count the file's bytes. A user's representation
// (MPI_Register_datarep, file_userrep.go) converts through the program's functions.
//
// The view's etype and filetype lay data out in the file as the representation
// sizes its elements (14.5.1, "portable" datatypes): fileLayout rebuilds each with
// every predefined type at its size in the file (C's long is 4 bytes in
// external32, 8 in memory), so that displacements a constructor counts in elements
// (contiguous, vector, indexed, subarray, darray) scale, while those it takes in
// bytes (hvector, hindexed, struct, resized) stay as the program gave them, which the
// standard says are then the file's. MPI_File_get_type_extent is the rebuilt type's
// extent.

// The data representations a file's view takes.
const (
	RepNative     = "native"
	RepInternal   = "internal"
	RepExternal32 = "external32"
)

// FileDatarep is the data representation a file's view takes by a name, "" for one
// mpigo does not know: "native", "internal" and "external32", whatever case they are
// given in, and the names MPI_Register_datarep registered, as they were given.
func FileDatarep(name string) string {
	switch n := strings.ToLower(name); n {
	case RepNative, RepInternal, RepExternal32:
		return n
	}
	if userRepOf(name) != nil {
		return name
	}
	return ""
}

// leafSize is the size in the file of one predefined datatype of a representation:
// d is the object the program named it by (nil where the engine made the layout
// alone), t its layout.
type leafSize func(d *Datatype, t *datatype.Type) (int64, error)

// repLeaf is the sizes of rep's elements in the file, nil where they are memory's.
func repLeaf(op, rep string) leafSize {
	switch rep {
	case RepNative, RepInternal:
		return nil
	case RepExternal32:
		return func(_ *Datatype, t *datatype.Type) (int64, error) { return t.External32Size(1) }
	}
	if u := userRepOf(rep); u != nil {
		return u.leafSize(op)
	}
	return nil
}

// fileLayout is d's layout (t, d's if d is not nil) in the file of a representation
// whose elements leaf sizes: t itself where every element keeps its size.
func fileLayout(op string, d *Datatype, t *datatype.Type, leaf leafSize) (*datatype.Type, error) {
	if leaf == nil {
		return t, nil
	}
	ft, changed, err := relayout(d, t, leaf)
	if err != nil {
		return nil, err
	}
	if !changed {
		return t, nil
	}
	if err := ft.Commit(); err != nil {
		return nil, core.TypeErr(op, err)
	}
	return ft, nil
}

// relayout rebuilds t (made by the program as d, if not nil) with each predefined
// type at leaf's size, as raw bytes, through the constructors that made it; changed
// says whether any element's size changed (else ft is t).
func relayout(d *Datatype, t *datatype.Type, leaf leafSize) (ft *datatype.Type, changed bool, err error) {
	if d != nil && d.Predefined() || t.IsPredefined() {
		if d == nil {
			d = Wrap(t)
		}
		n, err := leaf(d, t)
		switch {
		case err != nil:
			return nil, false, err
		case n < 0:
			return nil, false, core.Errorf(core.ClassConversion, "", "the extent of %s in the file is %d, negative", d.label(), n)
		case n == t.Size() && n == t.Extent():
			return t, false, nil
		}
		ft, err := datatype.Contiguous(n, datatype.Byte)
		return ft, true, err
	}
	c, _, _, _ := t.Envelope()
	is, as, ts, err := t.Contents()
	if err != nil {
		return nil, false, err
	}
	fs := make([]*datatype.Type, len(ts))
	for i, s := range ts {
		var p *Datatype
		if d != nil && len(d.parts) == len(ts) {
			p = d.parts[i]
		}
		var ch bool
		if fs[i], ch, err = relayout(p, s, leaf); err != nil {
			return nil, false, err
		}
		changed = changed || ch
	}
	if !changed {
		return t, false, nil
	}
	f := fs[0]
	switch c {
	case datatype.CombinerDup:
		ft, err = datatype.Dup(f)
	case datatype.CombinerContiguous:
		ft, err = datatype.Contiguous(is[0], f)
	case datatype.CombinerVector:
		ft, err = datatype.Vector(is[0], is[1], is[2], f)
	case datatype.CombinerHvector:
		ft, err = datatype.Hvector(is[0], is[1], as[0], f)
	case datatype.CombinerIndexed:
		n := is[0]
		ft, err = datatype.Indexed(is[1:1+n], is[1+n:1+2*n], f)
	case datatype.CombinerHindexed:
		ft, err = datatype.Hindexed(is[1:1+is[0]], as, f)
	case datatype.CombinerIndexedBlock:
		ft, err = datatype.IndexedBlock(is[1], is[2:], f)
	case datatype.CombinerHindexedBlock:
		ft, err = datatype.HindexedBlock(is[1], as, f)
	case datatype.CombinerStruct:
		ft, err = datatype.Struct(is[1:1+is[0]], as, fs)
	case datatype.CombinerSubarray:
		n := is[0]
		ft, err = datatype.Subarray(is[1:1+n], is[1+n:1+2*n], is[1+2*n:1+3*n], datatype.Order(is[1+3*n]), f)
	case datatype.CombinerDarray:
		n := is[2]
		ds := make([]datatype.Distribution, n)
		for i := range ds {
			ds[i] = datatype.Distribution(is[3+n+int64(i)])
		}
		ft, err = datatype.Darray(is[0], is[1], is[3:3+n], ds, is[3+2*n:3+3*n], is[3+3*n:3+4*n], datatype.Order(is[3+4*n]), f)
	case datatype.CombinerResized:
		ft, err = datatype.Resized(f, as[0], as[1])
	default:
		return nil, false, core.Errorf(core.ClassType, "", "%s (combiner %s) has no layout in the file", t.Name(), c)
	}
	return ft, true, err
}

// repExtent is the extent of d (layout t) in the file's data representation rep
// (MPI_File_get_type_extent).
func repExtent(op, rep string, d *Datatype, t *datatype.Type) (int64, error) {
	ft, err := fileLayout(op, d, t, repLeaf(op, rep))
	if err != nil {
		return 0, repErr(op, err)
	}
	return ft.Extent(), nil
}

// repErr classes an error of laying a type out in a representation: the engine's
// as datatype errors, the program's functions' (already classed) as they are.
func repErr(op string, err error) error {
	if e, ok := err.(*core.Error); ok {
		if e.Op == "" {
			e.Op = op
		}
		return e
	}
	return core.TypeErr(op, err)
}

// converted is an access's memory in another representation: the file's bytes of
// it, and what to do with them once moved.
type converted struct {
	b     IOBuf
	file  []byte // the file's bytes of the whole access
	write bool
	user  *userConv // a user representation's conversion; nil for external32
}

// extMem is the memory of an access in external32: for a write the file's bytes,
// converted now; for a read a buffer the access fills and finish converts. mem is
// ioMem's, already checked.
func extMem(op string, b IOBuf, write bool) (mpio.Mem, int64, *converted, error) {
	b = itemsOf(b)
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

// itemsOf is b as items of its elements' type, where it is the bytes of a slice of
// them (ioMem checked that they are a whole number).
func itemsOf(b IOBuf) IOBuf {
	if b.Type == datatype.Byte && b.Elem != nil && b.Elem.Size() > 0 {
		b.Count, b.Type, b.Obj = b.Count/b.Elem.Size(), b.Elem, nil
	}
	return b
}

// finish ends an access in another representation that moved n of the file's
// bytes: a read converts the whole items it got into memory (the part of an item
// past the end of the file is left alone). It returns the bytes of memory the
// access moved, which its status reports.
func (c *converted) finish(op string, n int64) (int64, error) {
	if c == nil {
		return n, nil
	}
	if c.user != nil {
		return c.user.finish(op, c, n)
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
