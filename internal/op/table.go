package op

import (
	"github.com/mpigo/mpigo/internal/datatype"
)

// kernels[o][k] is o's kernel on elements of kind k, nil where there is none; the
// vector loops (simd_amd64.go) replace some at init where the CPU has them.
var kernels [NumOps][datatype.NumKinds]Kernel

// Reduce returns o's kernel on elements of kind k, in MPI_User_function's order
// (inout = in ⊕ inout), or nil where o has none. It does not check the standard's
// table: Check does.
func Reduce(o Op, k Kind) Kernel {
	if o < NumOps && k < datatype.NumKinds {
		return kernels[o][k]
	}
	return nil
}

// Accumulate returns o's kernel on elements of kind k in MPI_Accumulate's order:
// called as fn(target, origin), it sets target = target ⊕ origin, where the target's
// value is the earlier operand; nil where o has none. It is Reduce's kernel with
// Replace and NoOp swapped: every other predefined operation commutes.
func Accumulate(o Op, k Kind) Kernel {
	switch o {
	case Replace:
		o = NoOp
	case NoOp:
		o = Replace
	}
	return Reduce(o, k)
}

func regInt[T integer](k Kind) {
	regNum[T](k)
	regOrdered[T](k)
	kernels[Land][k], kernels[Lor][k], kernels[Lxor][k] = landK[T], lorK[T], lxorK[T]
	regBits[T](k)
}

func regBits[T integer](k Kind) {
	kernels[Band][k], kernels[Bor][k], kernels[Bxor][k] = bandK[T], borK[T], bxorK[T]
}

// regOrdered registers Min and Max, and Maxloc and Minloc on flat pairs of T.
func regOrdered[T ordered](k Kind) {
	kernels[Min][k], kernels[Max][k] = minK[T], maxK[T]
	kernels[Maxloc][k], kernels[Minloc][k] = flatLoc[T](true), flatLoc[T](false)
}

func regNum[T number](k Kind) {
	kernels[Sum][k], kernels[Prod][k] = sumK[T], prodK[T]
}

func regPacked(k Kind, vs int, order func(x, y []byte) int) {
	kernels[Maxloc][k], kernels[Minloc][k] = packedLoc(vs, order, true), packedLoc(vs, order, false)
}

func init() {
	regInt[int8](datatype.KindInt8)
	regInt[int16](datatype.KindInt16)
	regInt[int32](datatype.KindInt32)
	regInt[int64](datatype.KindInt64)
	regInt[int64](datatype.KindInt)
	regInt[uint8](datatype.KindUint8)
	regInt[uint16](datatype.KindUint16)
	regInt[uint32](datatype.KindUint32)
	regInt[uint64](datatype.KindUint64)
	regInt[uint64](datatype.KindUint)
	regNum[float32](datatype.KindFloat32)
	regOrdered[float32](datatype.KindFloat32)
	regNum[float64](datatype.KindFloat64)
	regOrdered[float64](datatype.KindFloat64)
	regNum[complex64](datatype.KindComplex64)
	regNum[complex128](datatype.KindComplex128)
	regBits[uint8](datatype.KindByte)
	kernels[Land][datatype.KindBool], kernels[Lor][datatype.KindBool], kernels[Lxor][datatype.KindBool] = landBool, lorBool, lxorBool

	// MPI_2INT is flat pairs of int32; the other pairs are packed records.
	kernels[Maxloc][datatype.KindInt32Int32], kernels[Minloc][datatype.KindInt32Int32] = flatLoc[int32](true), flatLoc[int32](false)
	for _, p := range []struct {
		k  Kind
		fn func(maxloc bool) Kernel
	}{{datatype.KindFloat32Int32, locF32}, {datatype.KindFloat64Int32, locF64}, {datatype.KindInt64Int32, locI64}, {datatype.KindInt16Int32, locI16}} {
		kernels[Maxloc][p.k], kernels[Minloc][p.k] = p.fn(true), p.fn(false)
	}
	regPacked(datatype.KindLongDoubleInt, ldSize, orderX87)

	kernels[Sum][datatype.KindLongDouble], kernels[Prod][datatype.KindLongDouble] = ldSum, ldProd
	kernels[Max][datatype.KindLongDouble], kernels[Min][datatype.KindLongDouble] = ldMax, ldMin
	kernels[Sum][datatype.KindLongDoubleComplex], kernels[Prod][datatype.KindLongDoubleComplex] = ldcSum, ldcProd

	// Replace and NoOp move bytes: every kind of one predefined type takes them.
	for k := datatype.KindNone + 1; k < datatype.NumKinds; k++ {
		kernels[Replace][k], kernels[NoOp][k] = replaceK, noopK
	}
	simdKernels()
}

// Align is the alignment in bytes the kernels of kind k need of their memory: a
// scalar's own (a complex number's part's), 4 for MPI_2INT's flat int32 pairs, 1
// for the other pairs and long doubles, which are read as bytes.
func Align(k Kind) int {
	switch k {
	case datatype.KindInt8, datatype.KindUint8, datatype.KindBool, datatype.KindByte:
		return 1
	case datatype.KindInt16, datatype.KindUint16:
		return 2
	case datatype.KindInt32, datatype.KindUint32, datatype.KindFloat32, datatype.KindComplex64, datatype.KindInt32Int32:
		return 4
	case datatype.KindInt64, datatype.KindUint64, datatype.KindInt, datatype.KindUint, datatype.KindFloat64, datatype.KindComplex128:
		return 8
	}
	return 1
}
