package op

import (
	"errors"
	"fmt"

	"github.com/mpigo/mpigo/internal/datatype"
)

// Op is a predefined operation. Its number is also its code on the wire (one byte
// in a shipped accumulate) and the value collectives compare across ranks.
type Op uint8

// The predefined operations (MPI 4.1 §6.9.2, §6.9.4, and §12.3.4 for Replace and
// NoOp).
const (
	None Op = iota
	Sum
	Prod
	Min
	Max
	Land
	Lor
	Lxor
	Band
	Bor
	Bxor
	Maxloc
	Minloc
	Replace // f(a, b) = b: the later operand (the origin's, the higher rank's)
	NoOp    // f(a, b) = a: the earlier operand (the target's, the lower rank's)
	NumOps
)

var names = [NumOps]string{"MPI_OP_NULL", "MPI_SUM", "MPI_PROD", "MPI_MIN", "MPI_MAX",
	"MPI_LAND", "MPI_LOR", "MPI_LXOR", "MPI_BAND", "MPI_BOR", "MPI_BXOR", "MPI_MAXLOC",
	"MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"}

// String is the operation's MPI name.
func (o Op) String() string {
	if o < NumOps {
		return names[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Valid reports whether o is a predefined operation.
func (o Op) Valid() bool { return o > None && o < NumOps }

// Commutative reports whether a ⊕ b = b ⊕ a. Every predefined operation commutes
// but Replace and NoOp; Maxloc and Minloc do, since of equal values they keep the
// smaller index whichever comes first.
func (o Op) Commutative() bool { return o != Replace && o != NoOp }

// Loc reports whether o is Maxloc or Minloc, which combine (value, index) pairs.
func (o Op) Loc() bool { return o == Maxloc || o == Minloc }

// Kind is an element kind of the datatype engine: what a kernel's bytes hold.
type Kind = datatype.Kind

// Class is a group of predefined datatypes of MPI 4.1 §6.9.2 (and the pair types of
// §6.9.4): which operations a type takes depends on its class alone.
type Class uint8

// The classes. Other is a predefined type in none of the standard's groups
// (MPI_WCHAR, MPI_CHARACTER, MPI_PACKED, ...): one-sided Replace and NoOp take it.
// Mixed is no predefined type: a derived type whose elements are not all of one.
const (
	Mixed Class = iota
	CInteger
	FortranInteger
	Floating
	Logical
	Complex
	Byte
	MultiLanguage
	Pair
	Other
	numClasses
)

var classNames = [numClasses]string{"elements of several predefined types", "C integer", "Fortran integer",
	"floating point", "logical", "complex", "byte", "multi-language", "value-index pair", "no reduction group"}

func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// defined[o] is the set of classes o takes, a bit per class.
var defined = [NumOps]uint16{
	Max:     bit(CInteger, FortranInteger, Floating, MultiLanguage),
	Min:     bit(CInteger, FortranInteger, Floating, MultiLanguage),
	Sum:     bit(CInteger, FortranInteger, Floating, Complex, MultiLanguage),
	Prod:    bit(CInteger, FortranInteger, Floating, Complex, MultiLanguage),
	Land:    bit(CInteger, Logical),
	Lor:     bit(CInteger, Logical),
	Lxor:    bit(CInteger, Logical),
	Band:    bit(CInteger, FortranInteger, Byte, MultiLanguage),
	Bor:     bit(CInteger, FortranInteger, Byte, MultiLanguage),
	Bxor:    bit(CInteger, FortranInteger, Byte, MultiLanguage),
	Maxloc:  bit(Pair),
	Minloc:  bit(Pair),
	Replace: bit(CInteger, FortranInteger, Floating, Logical, Complex, Byte, MultiLanguage, Pair, Other),
	NoOp:    bit(CInteger, FortranInteger, Floating, Logical, Complex, Byte, MultiLanguage, Pair, Other),
}

// takes says, in words, what each operation takes, for error messages.
var takes = [NumOps]string{
	Max:     "C integer, Fortran integer, floating point and multi-language types",
	Min:     "C integer, Fortran integer, floating point and multi-language types",
	Sum:     "C integer, Fortran integer, floating point, complex and multi-language types",
	Prod:    "C integer, Fortran integer, floating point, complex and multi-language types",
	Land:    "C integer and logical types",
	Lor:     "C integer and logical types",
	Lxor:    "C integer and logical types",
	Band:    "C integer, Fortran integer, byte and multi-language types",
	Bor:     "C integer, Fortran integer, byte and multi-language types",
	Bxor:    "C integer, Fortran integer, byte and multi-language types",
	Maxloc:  "the value-index pair types (MPI_2INT, MPI_DOUBLE_INT, ...)",
	Minloc:  "the value-index pair types (MPI_2INT, MPI_DOUBLE_INT, ...)",
	Replace: "any one predefined type",
	NoOp:    "any one predefined type",
}

func bit(cs ...Class) uint16 {
	var m uint16
	for _, c := range cs {
		m |= 1 << c
	}
	return m
}

// Defined reports whether MPI defines o on the predefined types of class c.
func Defined(o Op, c Class) bool {
	return o < NumOps && c < numClasses && defined[o]&(1<<c) != 0
}

// CompareSwapDefined reports whether MPI_Compare_and_swap takes the predefined types
// of class c: C integer, Fortran integer, logical, multi-language and byte types
// (MPI 4.1 §12.3.4).
func CompareSwapDefined(c Class) bool {
	switch c {
	case CInteger, FortranInteger, Logical, MultiLanguage, Byte:
		return true
	}
	return false
}

// Errors, wrapped by the ones Check returns; mpir gives them the class MPI_ERR_OP.
var (
	// ErrUndefined: MPI does not define the operation on the type's class.
	ErrUndefined = errors.New("operation not defined on the datatype")
	// ErrNoKernel: MPI defines it, but mpigo has no arithmetic for the type's
	// elements (the optional Fortran types MPI_REAL2, MPI_REAL16, MPI_INTEGER16, ...).
	ErrNoKernel = errors.New("no arithmetic for the datatype's elements")
	// ErrNotOp: not a predefined operation.
	ErrNotOp = errors.New("not a predefined operation")
)

// Error is why an operation does not apply to a datatype.
type Error struct {
	Op    string // the operation, as the caller names it
	Type  string // the datatype, as the caller names it
	Class Class
	Kind  Kind
	Rule  string // what the operation takes
	err   error
}

func (e *Error) Error() string {
	switch e.err {
	case ErrNoKernel:
		return fmt.Sprintf("%s on %s: mpigo has no arithmetic for its elements (%v)", e.Op, e.Type, e.Kind)
	case ErrNotOp:
		return fmt.Sprintf("%s is not a predefined operation", e.Op)
	}
	if e.Class == Mixed {
		return fmt.Sprintf("%s is not defined on %s: it mixes element types, and a predefined operation needs every element of one predefined type", e.Op, e.Type)
	}
	s := fmt.Sprintf("%s is not defined on %s (%s): it takes %s", e.Op, e.Type, e.Class, e.Rule)
	if e.Class == Pair {
		s += "; the pair types take MPI_MAXLOC and MPI_MINLOC"
	}
	return s
}

func (e *Error) Unwrap() error { return e.err }

// Check says whether o applies to elements of kind k of class c: nil, or an *Error
// naming the operation and the type by opName and typeName.
func Check(o Op, c Class, k Kind, opName, typeName string) error {
	var why error
	switch {
	case !o.Valid():
		why = ErrNotOp
	case !Defined(o, c):
		why = ErrUndefined
	case Reduce(o, k) == nil:
		why = ErrNoKernel
	default:
		return nil
	}
	e := &Error{Op: opName, Type: typeName, Class: c, Kind: k, err: why}
	if why == ErrUndefined {
		e.Rule = takes[o]
	}
	return e
}
