package mpio

import (
	"math"
	"sort"

	"github.com/mpigo/mpigo/internal/datatype"
)

// Run is a contiguous run of a file's bytes: Len bytes from Off.
type Run struct{ Off, Len int64 }

// End is the offset just past r.
func (r Run) End() int64 { return r.Off + r.Len }

// View is a process's view of a file (MPI 4.1 section 14.3): the filetype tiled from
// the displacement, each tile the filetype's extent after the one before, the data of
// the tiles seen as one stream of bytes in typemap order. A view position is a byte
// of that stream (an offset in etypes times the etype's size); the calls here map
// positions to file bytes.
//
// Invariants (NewView refuses a view that breaks them): the etype holds data; the
// filetype holds a whole number of etypes and some data, has a positive extent, and
// its typemap's displacements are nonnegative and nondecreasing; where the etype is
// contiguous, every hole between the filetype's runs is a whole number of etypes.
// The rule on displacements is the standard's, on the filetype's typemap: the tiles
// may go back (a filetype's data may reach past its extent, so that the next tile
// starts before the last one's data ends), as parallel HDF5's filetypes of chunks
// do; ROMIO and OMPIO take such views, and nothing here needs a tiling in file
// order. A View is immutable and may be used by many goroutines at once.
type View struct {
	disp         int64
	etype, ftype *datatype.Type
	esize        int64
	size, extent int64
	runs         []Run   // one tile's data, in typemap order, offsets from the tile's origin
	pre          []int64 // pre[i] is the data of runs before runs[i]; pre[len(runs)] == size
	maxEnd       int64   // the largest end of a run of a tile (it may pass the extent)
	contig       bool    // one run as long as the extent: the data is contiguous
}

// iovBatch is how many pieces NewView takes from the datatype engine per call.
const iovBatch = 256

// NewView makes the view of disp, etype and filetype, both committed (the caller's
// check, which gives the error its class). Errors: ErrArg for a negative disp,
// ErrType for a filetype that breaks the view's invariants.
func NewView(disp int64, etype, ftype *datatype.Type) (*View, error) {
	if disp < 0 {
		return nil, errorf(ErrArg, "disp %d is negative", disp)
	}
	v := &View{disp: disp, etype: etype, ftype: ftype, esize: etype.Size(), size: ftype.Size(), extent: ftype.Extent()}
	switch {
	case v.esize <= 0:
		return nil, errorf(ErrType, "the etype %s holds no data", etype.Name())
	case v.size == 0:
		return nil, errorf(ErrType, "the filetype %s holds no data", ftype.Name())
	case v.size%v.esize != 0:
		return nil, errorf(ErrType, "the filetype %s (%d bytes of data) is not made of etypes %s (%d bytes each)",
			ftype.Name(), v.size, etype.Name(), v.esize)
	case !sameKind(etype, ftype):
		return nil, errorf(ErrType, "the filetype %s holds elements of kind %s, the etype %s of kind %s: a filetype is made of etypes",
			ftype.Name(), ftype.Kind(), etype.Name(), etype.Kind())
	case v.extent <= 0:
		return nil, errorf(ErrType, "the filetype %s has extent %d: it must be positive to tile the file", ftype.Name(), v.extent)
	}
	if err := v.flatten(); err != nil {
		return nil, err
	}
	if err := v.checkRuns(); err != nil {
		return nil, err
	}
	v.contig = len(v.runs) == 1 && v.runs[0].Len == v.extent
	return v, nil
}

// sameKind says whether a filetype of kind fk can be made of etypes of kind ek: a
// byte or mixed etype makes any filetype; else the kinds must be equal.
func sameKind(etype, ftype *datatype.Type) bool {
	ek := etype.Kind()
	return ek == datatype.KindNone || ek == datatype.KindByte || ek == ftype.Kind()
}

// flatten takes one tile's runs from the datatype engine.
func (v *View) flatten() error {
	var buf [iovBatch]datatype.Piece
	for from := int64(0); from < v.size; {
		n, next, err := v.ftype.Iov(buf[:], 1, from)
		if err != nil {
			return errorf(ErrType, "the filetype %s: %v", v.ftype.Name(), err)
		}
		for _, p := range buf[:n] {
			if k := len(v.runs); k > 0 && v.runs[k-1].End() == p.Off {
				v.runs[k-1].Len += p.Len // the engine merges within a call only
				continue
			}
			v.runs = append(v.runs, Run{p.Off, p.Len})
		}
		from = next
	}
	v.pre = make([]int64, len(v.runs)+1)
	for i, r := range v.runs {
		v.pre[i+1] = v.pre[i] + r.Len
		v.maxEnd = max(v.maxEnd, r.End())
	}
	return nil
}

// checkRuns applies the standard's rules to the typemap's displacements.
func (v *View) checkRuns() error {
	name := v.ftype.Name()
	etypeContig := v.esize == v.etype.Extent()
	end := int64(0) // the highest byte reached so far, +1
	for i, r := range v.runs {
		switch {
		case r.Off < 0:
			return errorf(ErrType, "the filetype %s has data at displacement %d: a filetype's displacements must be nonnegative", name, r.Off)
		case i > 0 && r.Off < v.runs[i-1].Off:
			return errorf(ErrType, "the filetype %s has data at displacement %d after data at %d: a filetype's displacements must be nondecreasing",
				name, r.Off, v.runs[i-1].Off)
		case i > 0 && etypeContig && r.Off > end && (r.Off-end)%v.esize != 0:
			return errorf(ErrType, "the filetype %s has a hole of %d bytes at %d, not a whole number of etypes %s (%d bytes)",
				name, r.Off-end, end, v.etype.Name(), v.esize)
		}
		end = max(end, r.End())
	}
	if next := v.runs[0].Off + v.extent; etypeContig && next > end && (next-end)%v.esize != 0 {
		return errorf(ErrType, "the filetype %s leaves a hole of %d bytes between tiles, not a whole number of etypes %s (%d bytes)",
			name, next-end, v.etype.Name(), v.esize)
	}
	return nil
}

// Writable checks the view against the rule for a file opened for writing (MPI 4.1
// section 14.3): neither the etype nor the filetype may contain overlapping regions,
// as a receive's datatype may not, since two bytes of memory would go to one byte of
// the file. Tiles of the filetype may still overlap each other (the rule is the
// typemap's), and a read-only file takes any of these views. Errors: ErrType.
func (v *View) Writable() error {
	end := int64(0)
	for i, r := range v.runs { // nondecreasing (checkRuns): an overlap starts before end
		if i > 0 && r.Off < end {
			return errorf(ErrType, "the filetype %s has data at displacement %d, inside its data up to %d: the filetype of a file opened for writing may not overlap itself",
				v.ftype.Name(), r.Off, end)
		}
		end = max(end, r.End())
	}
	return etypeOverlap(v.etype)
}

// etypeOverlap finds the first byte an etype's typemap holds twice, if any.
func etypeOverlap(t *datatype.Type) error {
	var runs []Run
	var buf [iovBatch]datatype.Piece
	for from := int64(0); from < t.Size(); {
		n, next, err := t.Iov(buf[:], 1, from)
		if err != nil {
			return errorf(ErrType, "the etype %s: %v", t.Name(), err)
		}
		for _, p := range buf[:n] {
			runs = append(runs, Run{p.Off, p.Len})
		}
		from = next
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Off < runs[j].Off })
	for i := 1; i < len(runs); i++ {
		if prev := runs[i-1]; runs[i].Off < prev.End() {
			return errorf(ErrType, "the etype %s holds the bytes at displacement %d twice: the etype of a file opened for writing may not overlap itself",
				t.Name(), runs[i].Off)
		}
	}
	return nil
}

// Disp is the view's displacement.
func (v *View) Disp() int64 { return v.disp }

// Etype and Filetype are the view's types.
func (v *View) Etype() *datatype.Type    { return v.etype }
func (v *View) Filetype() *datatype.Type { return v.ftype }

// EtypeSize is the size of an etype, the unit of view offsets.
func (v *View) EtypeSize() int64 { return v.esize }

// Contiguous reports whether the view's data is one run of the file, from
// FileOff(0) on.
func (v *View) Contiguous() bool { return v.contig }

// Runs is one tile's runs, offsets from the tile's origin (disp + k*extent). The
// caller must not change them.
func (v *View) Runs() []Run { return v.runs }

// FileOff is the file byte that holds view byte pos (pos >= 0).
func (v *View) FileOff(pos int64) int64 {
	if v.contig {
		return v.disp + v.runs[0].Off + pos
	}
	tile, in := pos/v.size, pos%v.size
	i := sort.Search(len(v.runs), func(i int) bool { return v.pre[i+1] > in })
	return v.disp + tile*v.extent + v.runs[i].Off + in - v.pre[i]
}

// Fits reports whether view bytes [pos, pos+n) lie at file offsets an int64 holds.
func (v *View) Fits(pos, n int64) bool {
	if pos < 0 || n < 0 || pos > math.MaxInt64-n {
		return false
	}
	// The tiles up to end's, end/size+1 of them, within the bound: compared as
	// end/size < bound, which no end overflows (end/size+1 did at MaxInt64 for a
	// filetype of one byte, and let an access reach it).
	return (pos+n)/v.size < (math.MaxInt64-v.disp-v.maxEnd)/v.extent
}

// FitEnd is the largest end (pos+n) of view bytes that Fits accepts, -1 if it
// accepts none: Fits(pos, n) is pos >= 0, n >= 0 and pos+n <= FitEnd(), for code
// outside Go that checks an access as Fits does (the C library's short way of
// explicit-offset accesses, abi/libmpi/fileshort.c).
func (v *View) FitEnd() int64 {
	l := (math.MaxInt64 - v.disp - v.maxEnd) / v.extent // Fits: end/size < l
	switch {
	case l <= 0:
		return -1
	case l > math.MaxInt64/v.size:
		return math.MaxInt64
	}
	return l*v.size - 1
}

// EOF is the view position of the end of a file of size bytes (MPI 4.1 section
// 14.4.1's end of file): the first view byte at or after the file's end, in view
// order, rounded up to a whole etype: where MPI_SEEK_END counts from.
func (v *View) EOF(size int64) int64 {
	if size <= v.disp {
		return 0
	}
	rel := size - v.disp
	t0 := max(0, (rel-v.maxEnd)/v.extent) // every run of the tiles before t0 ends before size
	for t := t0; ; t++ {
		base := t * v.extent
		for i, r := range v.runs {
			switch start := base + r.Off; {
			case start >= rel:
				return v.roundUp(t*v.size + v.pre[i])
			case start+r.Len > rel:
				return v.roundUp(t*v.size + v.pre[i] + rel - start)
			}
		}
	}
}

func (v *View) roundUp(pos int64) int64 { return (pos + v.esize - 1) / v.esize * v.esize }

// Cursor walks the file runs of view bytes [pos, pos+n) in view order.
func (v *View) Cursor(pos, n int64) Cursor {
	c := Cursor{v: v, left: n}
	if v.contig {
		c.base = v.disp + v.runs[0].Off + pos
		return c
	}
	tile, in := pos/v.size, pos%v.size
	c.i = sort.Search(len(v.runs), func(i int) bool { return v.pre[i+1] > in })
	c.base = v.disp + tile*v.extent
	c.skip = in - v.pre[c.i]
	return c
}

// Cursor is a walk over the file runs of part of a view (View.Cursor).
type Cursor struct {
	v    *View
	base int64 // the current tile's origin in the file (a contiguous view: the next byte)
	i    int   // the current run
	skip int64 // bytes of run i already walked
	left int64 // view bytes still to walk
}

// Left is the number of view bytes not yet walked.
func (c *Cursor) Left() int64 { return c.left }

// Next returns the next run of the file in view order, merged with the runs that
// follow it in the file; ok is false once the walk is over.
func (c *Cursor) Next() (r Run, ok bool) {
	if c.v.contig {
		if c.left == 0 {
			return Run{}, false
		}
		r = Run{c.base, c.left}
		c.base += c.left
		c.left = 0
		return r, true
	}
	for c.left > 0 {
		run := c.v.runs[c.i]
		off, k := c.base+run.Off+c.skip, min(run.Len-c.skip, c.left)
		if r.Len > 0 && r.End() != off {
			break
		}
		if r.Len == 0 {
			r.Off = off
		}
		r.Len += k
		c.left -= k
		if c.skip += k; c.skip == run.Len {
			c.skip = 0
			if c.i++; c.i == len(c.v.runs) {
				c.i = 0
				c.base += c.v.extent
			}
		}
	}
	return r, r.Len > 0
}

// Span is the file bytes [lo, hi) that view bytes [pos, pos+n) touch (lo == hi when
// n is 0): what an atomic access locks.
func (v *View) Span(pos, n int64) (lo, hi int64) {
	c := v.Cursor(pos, n)
	first := true
	for r, ok := c.Next(); ok; r, ok = c.Next() {
		if first {
			lo, hi, first = r.Off, r.End(), false
		}
		lo, hi = min(lo, r.Off), max(hi, r.End())
	}
	return lo, hi
}
