// Package op is MPI's predefined reduction operations: which operation is defined on
// which datatype (the standard's table), and their kernels over bytes, one per
// operation and element kind. The collectives of both faces (mpi, abi/libmpi, through
// internal/mpir) and the one-sided accumulates (internal/rma) take their kernels
// here, so that an operation means the same wherever it runs.
//
// Contracts:
//   - Validity is the standard's: an operation is defined on a class of predefined
//     types (C integer, Fortran integer, floating point, logical, complex, byte,
//     multi-language: MPI 4.1 §6.9.2; the value-index pairs of §6.9.4; Replace and
//     NoOp on any one predefined type, §12.3.4). The caller says which class its
//     datatype is of (KindClass for a type known by its element kind, NamedClass for
//     a predefined MPI name); Check answers, with an *Error that names the operation
//     and the type as the caller names them.
//   - A kernel works on whole elements of one kind, laid out as the datatype engine
//     packs them, in place: inout = in ⊕ inout (Reduce), or target = target ⊕ origin
//     (Accumulate, the same kernels with Replace and NoOp swapped). It touches only
//     the len(inout) bytes of inout and as many of in, allocates nothing and keeps
//     no state, so any number of goroutines may run kernels at once.
//   - Results are exact where the types are: integers wrap, floats are IEEE
//     operations of Go (Sum's vector loops give the Go loop's bits), Min and Max on
//     floats spread a NaN (so the result does not depend on the order the operands
//     come in), Maxloc and Minloc keep the smaller index of equal values. C's long
//     double (x87 extended precision) has its arithmetic here, correctly rounded
//     (x87.go).
//   - Pure: nothing here knows communicators, windows or faces; the package imports
//     only the datatype engine, for the element kinds.
package op
