// Package mpir is MPI's semantics, written once for both of mpigo's faces: the Go
// package mpi and the C library abi/libmpi. A face converts its arguments (Go values,
// or C handles and pointers) and calls mpir; mpir decides what MPI says should
// happen and asks the device (internal/core) to do it. The name is MPICH's, whose
// MPIR layer has the same place between its bindings and its device.
//
// Contracts:
//   - One way down. mpir imports the device and the pure packages below it, never a
//     face; what it must call back into (a user's error handler, attribute copy and
//     delete functions) it receives as Go function values that the face builds around
//     the user's Go function or C function pointer.
//   - Language-neutral. Nothing here knows how a face names an object (a *mpi.Comm or
//     a C handle): an object carries the face's own name for it where a callback
//     needs it, set by the face when it made the object.
//   - One seam per policy. Error-handler dispatch, argument checks that the standard
//     defines, and idle waiting over sets of requests live here, so both faces get
//     the same behaviour, error class and message.
//
// Pure pieces with no device in them (virtual topologies, Info, attributes, file I/O)
// are packages of their own (internal/vtopo, internal/info, internal/attr,
// internal/mpio), tested in one process; mpir composes them with the device and gives
// their errors MPI classes.
// Datatypes are the same over the datatype engine (internal/datatype), which builds
// and moves layouts: mpir keeps what MPI says beside a layout (datatype.go).
package mpir
