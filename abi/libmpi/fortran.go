package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// The Fortran ABI (MPI 5.0 §21.4.1): MPI_Abi_get/set_fortran_info and
// MPI_Abi_get/set_fortran_booleans. mpigo has no Fortran binding, so it does not know a
// Fortran compiler's properties until a Fortran layer built on its C ABI says them:
//
//   - Until then MPI_Abi_get_fortran_info gives MPI_INFO_NULL and
//     MPI_Abi_get_fortran_booleans gives is_set false, what the standard has an
//     implementation that does not know them answer. The Fortran datatypes keep the
//     definitions of dtype.go, gfortran's defaults (LOGICAL, INTEGER and REAL of 4
//     bytes, DOUBLE PRECISION of 8, every optional type), and the logical reductions
//     C's 1 and 0, which are gfortran's .TRUE. and .FALSE.
//   - The first successful call of each set procedure takes effect; every later one
//     fails with MPI_ERR_ABI, as the standard says. The sizes redefine MPI_LOGICAL,
//     MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION and the types made of them
//     (MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_2REAL, MPI_2DOUBLE_PRECISION,
//     MPI_2INTEGER); an optional type said unsupported has the size MPI_UNDEFINED
//     (§21.4) and is not a datatype to any other call. The booleans are what
//     MPI_LAND, MPI_LOR and MPI_LXOR read and write on the predefined LOGICAL types:
//     an item is true unless it is .FALSE. (Types a program derives from them, and
//     the one-sided accumulates, whose operations are the device's, keep C's.)
//   - Both change predefined datatypes, so a program calls them before it uses those
//     types (where a Fortran layer calls them: at its start), not while another
//     thread does.

// The predefined Fortran datatypes (mpi.h) whose definitions the properties change.
const (
	dtLogical         = 0x218
	dtInteger         = 0x219
	dtReal            = 0x21a
	dtComplex         = 0x21b
	dtDoublePrecision = 0x21c
	dtDoubleComplex   = 0x21d
	dt2Real           = 0x230
	dt2DoublePrec     = 0x231
	dt2Integer        = 0x232
)

// fortranSized are the optional types of each kind by size in bytes (a COMPLEX by the
// size of the pair): what a default kind of that size is made of.
var fortranSized = map[string]map[int]uintptr{
	"logical": {1: 0x2c0, 2: 0x2c8, 4: 0x2d0, 8: 0x2d8, 16: 0x2e0},
	"integer": {1: 0x2c1, 2: 0x2c9, 4: 0x2d1, 8: 0x2d9, 16: 0x2e1},
	"real":    {2: 0x2ca, 4: 0x2d2, 8: 0x2da, 16: 0x2e2},
	"complex": {4: 0x2d3, 8: 0x2db, 16: 0x2e3, 32: 0x2eb},
}

// fortranSizes are the info keys of the default kinds' sizes (§21.4.1), with the kind
// whose sizes they take and mpigo's default.
var fortranSizes = []struct {
	key, kind string
	def       int
}{
	{"mpi_logical_size", "logical", 4},
	{"mpi_integer_size", "integer", 4},
	{"mpi_real_size", "real", 4},
	{"mpi_double_precision_size", "real", 8},
}

// fortranOptional are the info keys of the optional types' support (§21.4.1).
var fortranOptional = []struct {
	key string
	h   uintptr
}{
	{"mpi_logical1_supported", 0x2c0}, {"mpi_logical2_supported", 0x2c8},
	{"mpi_logical4_supported", 0x2d0}, {"mpi_logical8_supported", 0x2d8},
	{"mpi_logical16_supported", 0x2e0},
	{"mpi_integer1_supported", 0x2c1}, {"mpi_integer2_supported", 0x2c9},
	{"mpi_integer4_supported", 0x2d1}, {"mpi_integer8_supported", 0x2d9},
	{"mpi_integer16_supported", 0x2e1},
	{"mpi_real2_supported", 0x2ca}, {"mpi_real4_supported", 0x2d2},
	{"mpi_real8_supported", 0x2da}, {"mpi_real16_supported", 0x2e2},
	{"mpi_complex4_supported", 0x2d3}, {"mpi_complex8_supported", 0x2db},
	{"mpi_complex16_supported", 0x2e3}, {"mpi_complex32_supported", 0x2eb},
	{"mpi_double_complex_supported", dtDoubleComplex},
}

// fortranLogicals are the predefined LOGICAL types, whose logical reductions read and
// write the Fortran booleans.
var fortranLogicals = []uintptr{dtLogical, 0x2c0, 0x2c8, 0x2d0, 0x2d8, 0x2e0}

var fortran struct {
	mu sync.Mutex
	// sizes are the default kinds' sizes by info key and supported the optional
	// types', once MPI_Abi_set_fortran_info set them (infoSet).
	infoSet   bool
	sizes     map[string]int
	supported map[uintptr]bool
	// The literals of .TRUE. and .FALSE., logical_size bytes each, once
	// MPI_Abi_set_fortran_booleans set them.
	yes, no []byte
	// sizedT are the engine's types of the sized types, as dtype.go made them: what
	// the default kinds become.
	sizedT map[uintptr]*datatype.Type
}

func init() {
	fortran.sizedT = map[uintptr]*datatype.Type{}
	for _, bySize := range fortranSized {
		for _, h := range bySize {
			fortran.sizedT[h] = predefT[h-0x200].t
		}
	}
}

//export PMPI_Abi_get_fortran_info
func PMPI_Abi_get_fortran_info(out unsafe.Pointer) int32 {
	const op = "Abi_get_fortran_info"
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "info is NULL"))
	}
	fortran.mu.Lock()
	defer fortran.mu.Unlock()
	if !fortran.infoSet {
		setHandle(out, hInfoNull)
		return 0
	}
	var kv []string
	for _, s := range fortranSizes {
		kv = append(kv, s.key, strconv.Itoa(fortran.sizes[s.key]))
	}
	for _, o := range fortranOptional {
		kv = append(kv, o.key, strconv.FormatBool(fortran.supported[o.h]))
	}
	setHandle(out, newInfoHandle(mpir.InfoOf(kv...)))
	return 0
}

//export PMPI_Abi_set_fortran_info
func PMPI_Abi_set_fortran_info(h uintptr) int32 {
	const op = "Abi_set_fortran_info"
	in, err := infoArg(op, h)
	if err == nil && in == nil {
		err = errorf(errInfo, op, "info is MPI_INFO_NULL")
	}
	if err != nil {
		return fail(op, 0, err)
	}
	fortran.mu.Lock()
	defer fortran.mu.Unlock()
	if fortran.infoSet {
		return fail(op, 0, errorf(errABI, op, "the Fortran properties are set already, by an earlier call (MPI_Abi_get_fortran_info gives them)"))
	}
	sizes, supported, err := fortranProperties(op, in)
	if err != nil {
		return fail(op, 0, err)
	}
	if n := sizes["mpi_logical_size"]; fortran.yes != nil && n != len(fortran.yes) {
		return fail(op, 0, errorf(errABI, op, "mpi_logical_size is %d, but MPI_Abi_set_fortran_booleans said a LOGICAL has %d bytes", n, len(fortran.yes)))
	}
	fortran.infoSet, fortran.sizes, fortran.supported = true, sizes, supported
	applyFortran()
	return 0
}

// fortranProperties reads the keys of §21.4.1 from in: a key left out keeps mpigo's
// default, other keys are ignored.
func fortranProperties(op string, in *mpir.Info) (map[string]int, map[uintptr]bool, error) {
	sizes := map[string]int{}
	for _, s := range fortranSizes {
		sizes[s.key] = s.def
		v, ok, _ := in.Get(s.key)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return nil, nil, errorf(errInfoValue, op, "%s is %q: want a size in bytes", s.key, v)
		}
		_, ok = fortranSized[s.kind][n]
		if s.key == "mpi_double_precision_size" && n == 2 {
			ok = false // its COMPLEX would be COMPLEX*4 of REAL*2, but DOUBLE PRECISION is no REAL*2
		}
		if !ok {
			return nil, nil, errorf(errABI, op, "%s is %d: mpigo has no Fortran %s of that size", s.key, n, s.kind)
		}
		sizes[s.key] = n
	}
	supported := map[uintptr]bool{}
	for _, o := range fortranOptional {
		supported[o.h] = true
		v, ok, _ := in.Get(o.key)
		if !ok {
			continue
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, nil, errorf(errInfoValue, op, "%s is %q: want true or false", o.key, v)
		}
		supported[o.h] = b
	}
	return sizes, supported, nil
}

//export PMPI_Abi_get_fortran_booleans
func PMPI_Abi_get_fortran_booleans(size int32, yes, no, isSet unsafe.Pointer) int32 {
	const op = "Abi_get_fortran_booleans"
	if isSet == nil {
		return fail(op, 0, errorf(errArg, op, "is_set is NULL"))
	}
	fortran.mu.Lock()
	defer fortran.mu.Unlock()
	if fortran.yes == nil {
		setBool(isSet, false)
		return 0
	}
	if err := nullOut(op, "logical_true, logical_false", yes, no); err != nil {
		return fail(op, 0, err)
	}
	if int(size) != len(fortran.yes) {
		return fail(op, 0, errorf(errABI, op, "logical_size is %d, but the booleans were set for a LOGICAL of %d bytes", size, len(fortran.yes)))
	}
	copy(unsafe.Slice((*byte)(yes), size), fortran.yes)
	copy(unsafe.Slice((*byte)(no), size), fortran.no)
	setBool(isSet, true)
	return 0
}

//export PMPI_Abi_set_fortran_booleans
func PMPI_Abi_set_fortran_booleans(size int32, yes, no unsafe.Pointer) int32 {
	const op = "Abi_set_fortran_booleans"
	if err := nullOut(op, "logical_true, logical_false", yes, no); err != nil {
		return fail(op, 0, err)
	}
	if _, ok := fortranSized["logical"][int(size)]; !ok {
		return fail(op, 0, errorf(errArg, op, "logical_size is %d: a Fortran LOGICAL has 1, 2, 4, 8 or 16 bytes", size))
	}
	fortran.mu.Lock()
	defer fortran.mu.Unlock()
	if fortran.yes != nil {
		return fail(op, 0, errorf(errABI, op, "the Fortran booleans are set already, by an earlier call (MPI_Abi_get_fortran_booleans gives them)"))
	}
	if n := fortran.sizes["mpi_logical_size"]; fortran.infoSet && n != int(size) {
		return fail(op, 0, errorf(errABI, op, "logical_size is %d, but MPI_Abi_set_fortran_info said a LOGICAL has %d bytes", size, n))
	}
	t := bytes.Clone(unsafe.Slice((*byte)(yes), size))
	f := bytes.Clone(unsafe.Slice((*byte)(no), size))
	if bytes.Equal(t, f) {
		return fail(op, 0, errorf(errArg, op, "logical_true and logical_false are the same %d bytes", size))
	}
	fortran.yes, fortran.no = t, f
	applyFortran()
	return 0
}

// applyFortran makes the predefined Fortran datatypes, short.c's copy of them and
// their reductions what the properties set say. Under fortran.mu.
func applyFortran() {
	touched := []uintptr{}
	if fortran.infoSet {
		sized := func(kind string, n int) *datatype.Type { return fortran.sizedT[fortranSized[kind][n]] }
		s := fortran.sizes
		l, i := sized("logical", s["mpi_logical_size"]), sized("integer", s["mpi_integer_size"])
		r, dp := sized("real", s["mpi_real_size"]), sized("real", s["mpi_double_precision_size"])
		for h, t := range map[uintptr]*datatype.Type{
			dtLogical: l, dtInteger: i, dtReal: r, dtDoublePrecision: dp,
			dtComplex:       sized("complex", 2*s["mpi_real_size"]),
			dtDoubleComplex: sized("complex", 2*s["mpi_double_precision_size"]),
			dt2Real:         pairOf(r), dt2DoublePrec: pairOf(dp), dt2Integer: pairOf(i),
		} {
			if d := predefT[h-0x200]; d != nil { // nil: an optional type said unsupported
				predefT[h-0x200] = predefDtype(h, d.m.MPIName(), t)
			}
			touched = append(touched, h)
		}
		for _, o := range fortranOptional {
			if !fortran.supported[o.h] {
				predefT[o.h-0x200] = nil
				touched = append(touched, o.h)
			}
		}
	}
	touched = append(touched, fortranLogicals...)
	for _, h := range touched {
		j := int(h - 0x200)
		predefRedRow(j, logicalKernels(h))
		shortDatatype(j) // from the reductions: after them
	}
	collOps()
}

// fortranOff reports whether h is an optional Fortran datatype that
// MPI_Abi_set_fortran_info said is not supported.
func fortranOff(h uintptr) bool {
	if h < 0x200 || h >= 0x300 || predefT[h-0x200] != nil {
		return false
	}
	fortran.mu.Lock()
	defer fortran.mu.Unlock()
	on, ok := fortran.supported[h]
	return ok && !on
}

// logicalKernels gives the kernels of the logical operations on the predefined
// LOGICAL type h with the Fortran booleans, once they are set (nil otherwise: C's).
func logicalKernels(h uintptr) func(op uintptr) collective.Kernel {
	d := predefT[h-0x200]
	if fortran.yes == nil || d == nil || !isLogical(h) {
		return nil
	}
	n := int(d.t.Size())
	yes, no := literalAs(fortran.yes, n), literalAs(fortran.no, n)
	return func(op uintptr) collective.Kernel {
		if o := opOf(op); o != nil {
			if k := mpir.LiteralLogical(o.Code(), yes, no); k != nil {
				return k
			}
		}
		return nil
	}
}

func isLogical(h uintptr) bool {
	for _, l := range fortranLogicals {
		if h == l {
			return true
		}
	}
	return false
}

// literalAs is lit, a Fortran LOGICAL literal of one kind, for a kind of n bytes: the
// same signed integer (compilers spell .TRUE. 1 or -1 in every kind), in the host's
// byte order.
func literalAs(lit []byte, n int) []byte {
	little := binary.NativeEndian.Uint16([]byte{1, 0}) == 1
	top := lit[0]
	if little {
		top = lit[len(lit)-1]
	}
	out := make([]byte, n)
	if top&0x80 != 0 {
		for k := range out {
			out[k] = 0xff
		}
	}
	m := min(n, len(lit))
	if little {
		copy(out[:m], lit[:m])
	} else {
		copy(out[n-m:], lit[len(lit)-m:])
	}
	return out
}
