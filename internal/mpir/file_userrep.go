package mpir

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpio"
)

// User-defined data representations (MPI 4.1 section 14.5.3): MPI_Register_datarep
// names three functions of the program, which every later view with that datarep
// uses (on this process: registering is local).
//
//   - The extent function gives a predefined datatype's size in the file: the view's
//     types are laid out with it (fileLayout), as MPI_File_get_type_extent's answer.
//     It is called with the predefined types the program's etype, filetype and
//     memory types are made of, as the program named them.
//   - The write conversion function turns the memory of a write into the file's
//     bytes, the read one the file's bytes of a read into memory. Either may be
//     MPI_CONVERSION_FN_NULL (nil): the data then moves in the native
//     representation, unconverted, which only fits a file whose elements the
//     extent function sizes as memory does (else MPI_ERR_CONVERSION).
//
// A conversion converts "data items", the predefined entries of the datatype's
// type signature, tiled over the buffer from its base address: it is called with
// count items from item position on, and the file's bytes of exactly those, back
// to back. mpigo converts an access in chunks of whole memory items of about
// convChunk file bytes, each call with the next position, over one buffer of the
// file's bytes of the whole access. Any error a function returns is the access's,
// of class MPI_ERR_CONVERSION.

// A Conversion converts count data items of the datatype d tiled over memory whose
// base address is mem[origin], beginning at item position, from or to file, their
// bytes in the file's representation.
type Conversion func(mem []byte, origin int64, d *Datatype, count int64, file []byte, position int64) error

// An ExtentFunc is the size in the file of the predefined datatype d.
type ExtentFunc func(d *Datatype) (int64, error)

// MaxDatarep is the longest name of a data representation, in bytes:
// MPI_MAX_DATAREP_STRING less C's terminating zero.
const MaxDatarep = 127

// convChunk is about how many of the file's bytes one call of a conversion
// converts: a bound on what a call touches, while the calls stay few.
const convChunk = 1 << 20

type userRep struct {
	name        string
	read, write Conversion // nil: MPI_CONVERSION_FN_NULL
	extent      ExtentFunc
}

var userReps struct {
	sync.Mutex
	m map[string]*userRep
}

// RegisterDatarep registers the data representation name (MPI_Register_datarep):
// read and write convert (nil for MPI_CONVERSION_FN_NULL), extent sizes. A name
// already defined, the predefined ones included, is MPI_ERR_DUP_DATAREP.
func RegisterDatarep(op, name string, read, write Conversion, extent ExtentFunc) error {
	switch {
	case name == "":
		return core.Errorf(core.ClassArg, op, "datarep is empty: a data representation needs a name")
	case len(name) > MaxDatarep:
		return core.Errorf(core.ClassArg, op, "datarep is %d bytes long, more than MPI_MAX_DATAREP_STRING allows (%d and a terminating zero)", len(name), MaxDatarep)
	case extent == nil:
		return core.Errorf(core.ClassArg, op, "dtype_file_extent_fn is NULL: a data representation needs its extent function")
	}
	switch strings.ToLower(name) {
	case RepNative, RepInternal, RepExternal32:
		return core.Errorf(core.ClassDupDatarep, op, "datarep %q is predefined", name)
	}
	userReps.Lock()
	defer userReps.Unlock()
	if userReps.m[name] != nil {
		return core.Errorf(core.ClassDupDatarep, op, "datarep %q is registered already", name)
	}
	if userReps.m == nil {
		userReps.m = map[string]*userRep{}
	}
	userReps.m[name] = &userRep{name: name, read: read, write: write, extent: extent}
	return nil
}

// userRepOf is the user representation registered as name, nil if none.
func userRepOf(name string) *userRep {
	userReps.Lock()
	defer userReps.Unlock()
	return userReps.m[name]
}

// leafSize is u's sizes of predefined types in the file: its extent function's,
// asked once per type a layout holds.
func (u *userRep) leafSize(op string) leafSize {
	// A type the program named is asked as itself (MPI_INT and MPI_INT32_T may
	// differ in the file though one layout); one the engine made, by its layout.
	seen := map[any]int64{}
	return func(d *Datatype, t *datatype.Type) (int64, error) {
		var key any = t
		if d.Handle != nil {
			key = d
		}
		if n, ok := seen[key]; ok {
			return n, nil
		}
		n, err := u.extent(d)
		if err != nil {
			return 0, convErr(op, fmt.Sprintf("dtype_file_extent_fn of datarep %q failed for %s", u.name, d.label()), err)
		}
		if n < 0 {
			return 0, core.Errorf(core.ClassConversion, op, "dtype_file_extent_fn of datarep %q gave %s the extent %d, negative", u.name, d.label(), n)
		}
		seen[key] = n
		return n, nil
	}
}

// convErr is the error of a failed function of the program's.
func convErr(op, what string, err error) error {
	return core.Wrap(core.ClassConversion, op, what, err)
}

// userConv is an access's conversion in a user representation.
type userConv struct {
	u     *userRep
	d     *Datatype // the memory's datatype, as the program passed it
	per   int64     // the file's bytes of one memory item (one instance of d)
	items int64     // data items in one instance of d
}

// userMem is the memory of an access in the user representation u, as extMem's for
// external32; with no conversion function for the direction, mem and n (ioMem's)
// stand, and conv is nil.
func userMem(op string, u *userRep, b IOBuf, mem mpio.Mem, n int64, write bool) (mpio.Mem, int64, *converted, error) {
	b = itemsOf(b)
	fn, arg := u.read, "read_conversion_fn"
	if write {
		fn, arg = u.write, "write_conversion_fn"
	}
	if b.Count == 0 {
		return mem, n, nil, nil
	}
	d := b.Obj
	if d == nil {
		d = Wrap(b.Type)
	}
	ft, err := fileLayout(op, d, b.Type, u.leafSize(op))
	if err != nil {
		return mpio.Mem{}, 0, nil, repErr(op, err)
	}
	per := ft.Size()
	if fn == nil {
		if per != b.Type.Size() {
			return mpio.Mem{}, 0, nil, core.Errorf(core.ClassConversion, op,
				"datarep %q has no %s (MPI_CONVERSION_FN_NULL), so the data moves as memory holds it, but its extent function gives %s %d bytes in the file where memory holds %d",
				u.name, arg, d.label(), per, b.Type.Size())
		}
		return mem, n, nil, nil
	}
	unit, err := fileLayout(op, d, b.Type, func(*Datatype, *datatype.Type) (int64, error) { return 1, nil })
	if err != nil {
		return mpio.Mem{}, 0, nil, repErr(op, err)
	}
	if per > 0 && b.Count > math.MaxInt64/per {
		return mpio.Mem{}, 0, nil, core.Errorf(core.ClassCount, op, "%d items of %s are more bytes in the file than an offset holds", b.Count, d.label())
	}
	uc := &userConv{u: u, d: d, per: per, items: unit.Size()}
	c := &converted{b: b, file: make([]byte, b.Count*per), write: write, user: uc}
	if write {
		if err := uc.convert(op, c, b.Count); err != nil {
			return mpio.Mem{}, 0, nil, err
		}
	}
	return mpio.Bytes(c.file), int64(len(c.file)), c, nil
}

// convert calls the conversion of c's direction over its first k memory items, in
// chunks.
func (uc *userConv) convert(op string, c *converted, k int64) error {
	fn, arg := uc.u.read, "read_conversion_fn"
	if c.write {
		fn, arg = uc.u.write, "write_conversion_fn"
	}
	step := max(1, convChunk/max(uc.per, 1))
	for i := int64(0); i < k; i += step {
		m := min(step, k-i)
		err := fn(c.b.Mem, c.b.Origin, uc.d, m*uc.items, c.file[i*uc.per:(i+m)*uc.per], i*uc.items)
		if err != nil {
			return convErr(op, fmt.Sprintf("%s of datarep %q failed converting %d items of %s from item %d", arg, uc.u.name, m*uc.items, uc.d.label(), i*uc.items), err)
		}
	}
	return nil
}

// finish is converted.finish for a user representation.
func (uc *userConv) finish(op string, c *converted, n int64) (int64, error) {
	k := c.b.Count
	if n < int64(len(c.file)) {
		k = n / uc.per
	}
	if !c.write && k > 0 {
		if err := uc.convert(op, c, k); err != nil {
			return 0, err
		}
	}
	return k * c.b.Type.Size(), nil
}
