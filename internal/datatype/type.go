package datatype

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// Kind is the Go element kind of a predefined type. Reductions use it to pick a
// typed operator; derived types report the kind shared by all their elements, or
// KindNone when they mix kinds.
type Kind uint8

// The element kinds. The pair kinds are the MPI types for MAXLOC and MINLOC.
const (
	KindNone Kind = iota
	KindInt8
	KindInt16
	KindInt32
	KindInt64
	KindInt
	KindUint8
	KindUint16
	KindUint32
	KindUint64
	KindUint
	KindFloat32
	KindFloat64
	KindComplex64
	KindComplex128
	KindBool
	KindByte
	KindFloat32Int32 // MPI_FLOAT_INT: {float32; int32}
	KindFloat64Int32 // MPI_DOUBLE_INT: {float64; int32; pad}
	KindInt64Int32   // MPI_LONG_INT: {int64; int32; pad}
	KindInt32Int32   // MPI_2INT: {int32; int32}
	KindInt16Int32   // MPI_SHORT_INT: {int16; pad; int32}
	// C's long double as x86-64 has it: x87 extended precision (a 64-bit
	// significand with an explicit integer bit, a 15-bit exponent) in 10 bytes
	// of 16. Go has no such type; internal/op has its arithmetic.
	KindLongDouble        // MPI_LONG_DOUBLE
	KindLongDoubleComplex // MPI_C_LONG_DOUBLE_COMPLEX: {long double; long double}
	KindLongDoubleInt     // MPI_LONG_DOUBLE_INT: {long double; int32; pad}

	// NumKinds is the number of kinds, for tables indexed by kind.
	NumKinds
)

var kindNames = [...]string{"none", "int8", "int16", "int32", "int64", "int", "uint8", "uint16",
	"uint32", "uint64", "uint", "float32", "float64", "complex64", "complex128", "bool", "byte",
	"float32int32", "float64int32", "int64int32", "int32int32", "int16int32",
	"longdouble", "longdoublecomplex", "longdoubleint"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Combiner says which constructor made a type (MPI_COMBINER_*).
type Combiner uint8

// The combiners.
const (
	CombinerNamed Combiner = iota
	CombinerDup
	CombinerContiguous
	CombinerVector
	CombinerHvector
	CombinerIndexed
	CombinerHindexed
	CombinerIndexedBlock
	CombinerHindexedBlock
	CombinerStruct
	CombinerSubarray
	CombinerDarray
	CombinerResized
	// The combiners of the types MPI_Type_create_f90_real, _complex and
	// _integer return: predefined types of a Fortran kind, which the engine
	// never builds (internal/mpir gives them their combiner and arguments).
	CombinerF90Real
	CombinerF90Complex
	CombinerF90Integer
)

var combinerNames = [...]string{"named", "dup", "contiguous", "vector", "hvector", "indexed",
	"hindexed", "indexed_block", "hindexed_block", "struct", "subarray", "darray", "resized",
	"f90_real", "f90_complex", "f90_integer"}

func (c Combiner) String() string {
	if int(c) < len(combinerNames) {
		return combinerNames[c]
	}
	return fmt.Sprintf("Combiner(%d)", uint8(c))
}

// Type is an MPI datatype: a typemap of basic elements at byte displacements,
// with a lower bound and an extent. A Type is immutable after construction
// except for Commit and Free; it may be used by many goroutines at once once
// committed.
type Type struct {
	name string
	kind Kind // element kind shared by all basic elements, or KindNone
	comb Combiner

	// Envelope and contents, as the constructor was called.
	ints  []int64
	addrs []int64
	types []*Type
	// Storage for the few arguments of the simple constructors, so that
	// they allocate the type alone (it stays in its size class).
	argBuf  [3]int64
	typeBuf [1]*Type

	size  int64 // bytes of data in one instance
	lb    int64
	ub    int64
	tlb   int64 // true lower bound: lowest byte of data
	tub   int64 // true upper bound: one past the highest byte of data
	align int64 // strictest alignment of a basic element, for struct padding
	// xsize is the external32 size of one instance; xconv says that some
	// element converts other than by a byte swap in place (xr, on a basic
	// element, says how), so xsize may differ from size.
	xsize int64
	xconv bool
	xr    *xrep
	// marked: lb and ub are bound markers (set by Resized, kept by every
	// type built from a marked one), which override the data's own bounds.
	marked bool

	// def is how the typemap is made of old types, in the form the compiler
	// consumes.
	def def

	origin *Type // Clone's source, so clones compare alike

	predefined bool
	freed      bool
	// committed: Commit was called. The program is compiled on first use
	// (prepare), as MPICH defers its work past commit: a type committed and
	// freed unused costs nothing, and Commit itself is a store.
	committed atomic.Bool

	// prepOnce runs commit (compile, then the fields below) on first use;
	// prepared says it has (prepare's fast path).
	prepOnce    sync.Once
	prepared    atomic.Bool
	prepErr     error
	compileOnce sync.Once
	prog        *node // compiled program for one instance
	rep         *node // prepared, not contiguous: a vector of prog at the extent, for count > 1
	compileErr  error
	contig      bool // prepared: one instance is size bytes at tlb, and extent == size
	// safe is set when prepared: no count in 0..safe overflows the packed size or
	// the span, so Bind checks such counts with one comparison.
	safe int64
}

// def describes a derived typemap. Vector-like constructors become one
// strided op (vector -> hvector at construction), indexed-like ones a block
// list (indexed -> hindexed), so the compiler sees three shapes only.
type def struct {
	op     defOp
	count  int64 // defVec: count blocks
	blen   int64 // defVec: copies of old per block
	stride int64 // defVec: bytes between blocks
	old    *Type // defVec, defResized
	blocks []block
	// defBlocks with one old type (indexed kinds) stores the caller's
	// arrays instead of blocks: block i is lens[i] (or blen if lens is nil)
	// copies of old at disps[i]*unit. Pointer-free, shared with contents.
	lens  []int64
	disps []int64
	unit  int64
	// cx, when set, holds the blocks of one old type instead of lens and
	// disps, as their compiled form (compactIdx).
	cx *compactIdx
}

// nblocks returns the number of blocks of a defBlocks.
func (d *def) nblocks() int {
	if d.blocks != nil {
		return len(d.blocks)
	}
	if d.cx != nil {
		return len(d.cx.d32)
	}
	return len(d.disps)
}

// block returns block i of a defBlocks.
func (d *def) block(i int) block {
	if d.blocks != nil {
		return d.blocks[i]
	}
	if x := d.cx; x != nil {
		return block{int64(x.d32[i]) - x.off, int64(x.p32[i+1]-x.p32[i]) / x.esz, d.old}
	}
	n := d.blen
	if d.lens != nil {
		n = d.lens[i]
	}
	return block{d.disps[i] * d.unit, n, d.old}
}

type defOp uint8

const (
	defBasic   defOp = iota // a predefined element
	defVec                  // count blocks of blen olds, stride bytes apart
	defBlocks               // arbitrary blocks
	defResized              // old with new bounds
)

// block is n copies of t at disp, the i-th at disp + i*t.Extent().
type block struct {
	disp int64
	n    int64
	t    *Type
}

// Errors returned by the engine; wrapped with details.
var (
	ErrNotCommitted = errors.New("type not committed")
	ErrFreed        = errors.New("type has been freed")
	ErrArg          = errors.New("invalid argument")
	// ErrCount is the ErrArg of a count or block length below zero, which MPI
	// gives a class of its own (MPI_ERR_COUNT).
	ErrCount    = fmt.Errorf("%w: negative count", ErrArg)
	ErrOverflow = errors.New("size or displacement overflows int64")
	ErrBuffer   = errors.New("buffer too small")
)

func argErr(arg, rule string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrArg, arg, fmt.Sprintf(rule, a...))
}

// countErr is the error of the count or block length arg, n, below zero: ErrCount,
// said as the faces' own checks say it ("count -1 is negative").
func countErr(arg string, n int64) error { return &countError{arg, n} }

type countError struct {
	arg string
	n   int64
}

func (e *countError) Error() string { return fmt.Sprintf("%s %d is negative", e.arg, e.n) }
func (e *countError) Unwrap() error { return ErrCount }

// Name returns the type's name: the Go name for predefined types, the
// combiner for derived ones.
func (t *Type) Name() string {
	if t.name != "" {
		return t.name
	}
	return t.comb.String()
}

func (t *Type) String() string { return t.Name() }

// Kind returns the element kind shared by all basic elements of t, or KindNone.
func (t *Type) Kind() Kind { return t.kind }

// Size returns the number of data bytes in one instance (MPI_Type_size).
func (t *Type) Size() int64 { return t.size }

// Extent returns ub - lb (MPI_Type_get_extent).
func (t *Type) Extent() int64 { return t.ub - t.lb }

// LB returns the lower bound.
func (t *Type) LB() int64 { return t.lb }

// UB returns the upper bound.
func (t *Type) UB() int64 { return t.ub }

// TrueLB returns the displacement of the lowest data byte.
func (t *Type) TrueLB() int64 { return t.tlb }

// TrueExtent returns the span from the lowest to one past the highest data byte.
func (t *Type) TrueExtent() int64 { return t.tub - t.tlb }

// IsDense reports whether count items of t lie back to back from the buffer's first
// byte, count*Size() bytes with no gaps, so that the buffer is its packed form:
// contiguous, with its data from byte 0 (TrueLB, not LB: a type resized to lb 0 may
// hold its data further on) and an extent of its size.
func (t *Type) IsDense() bool {
	return t.IsContiguous() && t.TrueLB() == 0 && t.Extent() == t.Size()
}

// IsPredefined reports whether t is one of the package's predefined types.
func (t *Type) IsPredefined() bool { return t.predefined }

// IsFreed reports whether Free has been called on t.
func (t *Type) IsFreed() bool { return t.freed }

// IsCommitted reports whether Commit has succeeded on t.
func (t *Type) IsCommitted() bool { return t.committed.Load() }

// IsContiguous reports whether count instances of a committed t are one
// contiguous run of count*Size() bytes starting at buffer offset TrueLB(), so
// a transport can send the user's memory without packing. It is false for
// uncommitted types.
func (t *Type) IsContiguous() bool {
	if t.prepared.Load() { // prepared implies committed
		return t.prepErr == nil && t.contig
	}
	return t.firstContiguous()
}

// firstContiguous is IsContiguous before t is prepared (out of line, so that
// IsContiguous is inlined).
func (t *Type) firstContiguous() bool {
	return t.committed.Load() && t.prepare() == nil && t.contig
}

// ContiguousSpan returns, for a contiguous committed type, the byte offset
// from the buffer base and the length of count instances.
func (t *Type) ContiguousSpan(count int64) (off, n int64, ok bool) {
	if !t.IsContiguous() || count < 0 {
		return 0, 0, false
	}
	n, of := mul(count, t.size)
	if of {
		return 0, 0, false
	}
	return t.tlb, n, true
}

// Envelope returns the combiner and the number of integers, addresses and
// types that Contents returns (MPI_Type_get_envelope).
func (t *Type) Envelope() (c Combiner, nints, naddrs, ntypes int) {
	if x := t.def.cx; x != nil && t.ints == nil {
		n := len(x.d32)
		switch t.comb {
		case CombinerIndexed:
			return t.comb, 1 + 2*n, 0, 1
		case CombinerHindexed:
			return t.comb, 1 + n, n, 1
		case CombinerIndexedBlock:
			return t.comb, 2 + n, 0, 1
		case CombinerHindexedBlock:
			return t.comb, 2, n, 1
		}
	}
	return t.comb, len(t.ints), len(t.addrs), len(t.types)
}

// Contents returns copies of the arguments the constructor was called with
// (MPI_Type_get_contents). Counts, block lengths, sizes, starts, orders and
// distributions are in ints, byte displacements and strides in addrs, in the
// MPI standard's order.
func (t *Type) Contents() (ints, addrs []int64, types []*Type, err error) {
	if t.comb == CombinerNamed {
		return nil, nil, nil, argErr("t", "predefined type %s has no contents", t.name)
	}
	ints, addrs = t.contents()
	return append([]int64(nil), ints...), append([]int64(nil), addrs...),
		append([]*Type(nil), t.types...), nil
}

// contents returns t's integer and address arguments, shared with t, read
// back from a compact block list's arrays where t keeps no copy.
func (t *Type) contents() (ints, addrs []int64) {
	x := t.def.cx
	if x == nil || t.ints != nil {
		return t.ints, t.addrs
	}
	n := int64(len(x.d32))
	switch t.comb {
	case CombinerIndexed:
		bl, d := x.contents(true, t.def.unit)
		return append(append([]int64{n}, bl...), d...), nil
	case CombinerHindexed:
		bl, d := x.contents(true, 1)
		return append([]int64{n}, bl...), d
	case CombinerIndexedBlock:
		_, d := x.contents(false, t.def.unit)
		return append([]int64{n, t.def.blen}, d...), nil
	case CombinerHindexedBlock:
		_, d := x.contents(false, 1)
		return []int64{n, t.def.blen}, d
	}
	return t.ints, t.addrs
}

// Free marks t freed (MPI_Type_free). Types built from t stay valid. Freeing
// a predefined type or freeing twice is an error.
func (t *Type) Free() error {
	if t == nil {
		return argErr("t", "nil type")
	}
	if t.predefined {
		return argErr("t", "predefined type %s cannot be freed", t.name)
	}
	if t.freed {
		return fmt.Errorf("%w: Free called twice", ErrFreed)
	}
	t.freed = true
	return nil
}

// usable checks that t can be used to build a new type.
func usable(arg string, t *Type) error {
	if t == nil {
		return argErr(arg, "nil type")
	}
	if t.freed {
		return fmt.Errorf("%w: %s", ErrFreed, arg)
	}
	return nil
}

// mul returns a*b and whether it overflowed.
func mul(a, b int64) (int64, bool) {
	if a == int64(int32(a)) && b == int64(int32(b)) {
		return a * b, false // the common case, without the division below
	}
	if a == 0 || b == 0 {
		return 0, false
	}
	c := a * b
	if c/b != a || (a == -1 && b == -1<<63) || (b == -1 && a == -1<<63) {
		return c, true
	}
	return c, false
}

// add returns a+b and whether it overflowed.
func add(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) != (b > 0)
}

// checked accumulates overflow while computing bounds.
type checked struct{ of bool }

func (c *checked) mul(a, b int64) int64 {
	r, of := mul(a, b)
	c.of = c.of || of
	return r
}

func (c *checked) add(a, b int64) int64 {
	r, of := add(a, b)
	c.of = c.of || of
	return r
}
