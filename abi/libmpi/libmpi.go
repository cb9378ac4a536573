// Command libmpi is mpigo's implementation of the MPI standard ABI: built with
// "go build -buildmode=c-shared" it is libmpi_abi.so.1, the library a C (or C++, or
// any language's) MPI program compiled against the standard ABI's mpi.h links to.
// `mpigo cc` builds it on first use; see abi (package doc) for the tools. Its Go
// runtime must not preempt by signals, whose handlers need the stack a host program
// may take from its threads: abi builds it with the linker flag
// -X=runtime.godebugDefault=asyncpreemptoff=1, and a build by hand needs it too.
//
// It is a second face of mpigo's device (internal/core), beside the Go facade mpi,
// and the only package of mpigo that uses cgo. Contracts:
//
//   - Handles are integers, never addresses: the predefined ones have the values
//     mpi.h gives them, the standard's (which reserves 1 to 4095 for them); one a
//     program creates is [kind | generation | slot] (handle.h), which names one live
//     object of its kind or nothing: a freed object's handle, another kind's or
//     garbage gives the kind's error class (badHandle), never another object. C
//     never holds a Go pointer, and Go never keeps a C pointer past the call that
//     gave it, except the buffers of nonblocking operations, which the standard
//     lends MPI until they complete.
//   - C memory is used in place: a buffer is unsafe.Slice over the C pointer,
//     spanning exactly the bytes the count and datatype reach (Span), handed to the
//     device's untyped entry points (core.Buf, collective.Vec with the datatype engine's
//     types). MPI_BOTTOM and absolute addresses work because the slice starts at the
//     lowest byte the datatype touches, wherever that is.
//   - Every error passes one seam, fail: it maps the device's class to the ABI's
//     number, records the message for MPI_Error_string, and runs the error handler
//     of the call's communicator (of MPI_COMM_SELF where the call has none).
//   - Each MPI_x is a C function that calls PMPI_x (zforward.c), so that a profiling
//     library interposing MPI_x works; the PMPI_x are the Go exports of this package,
//     the hand-written C of handles.c, and for what mpigo does not implement the stubs
//     of zstubs.c, which return MPI_ERR_UNSUPPORTED_OPERATION through the handler with
//     the procedure's name in the error string. abi/gen writes zforward.c and zstubs.c
//     from abi/gen/procs.txt, and zexports.go: the exports of the collectives, of
//     the sends and receives and of the file data accesses, whose every form
//     (blocking, nonblocking, persistent or split; int and _c) is one call of the
//     family's function (coll.go, neighbor.go, p2p.go, file.go). It checks the Go
//     exports' parameter types against the prototypes.
//   - The one-sided calls' short ways are C (short.c): MPI_Put, MPI_Get,
//     MPI_Accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap and the flushes do the
//     device's short way in C, without crossing into Go, when the target's memory is
//     mapped here and the rules of internal/window/fast.go hold, reading a copy of
//     the device's state in C memory that Go keeps true (short.go); anything else,
//     every error included, goes to the call's Go half, the export goPMPI_x (zgo.h),
//     so the outcome is the Go way's.
//   - The datatype calls' short ways are C too (typeshort.c): MPI_Type_commit marks a
//     type in C memory, which the handle's next lookup in Go (dtOf) takes over;
//     MPI_Type_contiguous, MPI_Type_vector and MPI_Type_create_hvector of a plain
//     predefined type below MPI_THREAD_MULTIPLE are records in C memory with handles
//     of their own, built into the engine's types at their first use in Go
//     (typeshort.go). Both short ways decode handles as Go does (handle.h) and act
//     only on the handle their copy or record holds, so a stale one goes to Go.
//   - MPI_File_write_at and MPI_File_read_at of a contiguous predefined datatype in a
//     plain view are one pwrite (pread) in C (fileshort.c), on a record of the file
//     that Go makes from mpir's File.Plain whenever the view, atomicity or hints
//     change (fileshort.go); anything else, every failed system call included, goes
//     to the Go half.
//   - Each communicating call reports its entry and exit to the record
//     (internal/prof) once, as the Go facade's do (prof.go): the facade's prof.Call,
//     a constant at the call site or a collective's by its mode, and the same peer,
//     tag and bytes. What short.c completes in C it counts in C memory, which the
//     record reads where it is at each snapshot (prof.WatchTallies, prof.Watch:
//     short.go hands it down); the Go halves count the rest.
//
// Implemented (655 of the 657 procedures of the ABI's mpi.h, with their _c forms and
// PMPI_ twins, and the 7 that other ABI headers declare beyond the standard's, which
// abi/gen/procs.txt marks; docs/ARCHITECTURE.md, the C ABI, lists the rest): MPI_Init,
// MPI_Init_thread (every level), MPI_Finalize, MPI_Abort, the environment queries,
// MPI_Wtime, info objects (MPI_INFO_ENV, communicator and window hints), the ABI's own
// procedures (MPI_Abi_*: version, info, and the Fortran properties of fortran.go);
// point-to-point in every mode, blocking, nonblocking, persistent and partitioned, probe and
// matched probe (MPI_Imrecv), MPI_(I)sendrecv(_replace), the Wait/Test families and
// MPI_Request_get_status_*, cancellation, generalized requests with C callbacks,
// statuses, the buffered sends' buffers (process and communicator); every collective
// in every form (blocking, nonblocking, persistent; v and w forms; MPI_IN_PLACE), the
// neighbourhood collectives; process topologies (Cartesian, graph, distributed graph,
// every query, MPI_Dims_create); derived datatypes (every constructor, darray and the
// Fortran ones included), their sizes, extents, names, attributes and decoding
// (envelope, contents), MPI_Type_match_size and _get_value_index, pack and unpack (external32 too); predefined and C user
// reductions (a user function sees its datatype's layout), MPI_Reduce_local;
// communicators (dup, idup, split, split_type of every kind, create, create_group,
// intercommunicators, compare, names, MPI_Get_hw_resource_info) and groups; C error
// handlers for communicators, windows, files and sessions (each set call takes only a
// handler made for its kind, or a predefined one), per-error codes, classes and strings;
// attributes with C copy and delete callbacks on communicators, datatypes and windows;
// one-sided communication (every window flavour, every operation and synchronisation
// call, shared memory queries); MPI_Alloc_mem; MPI_Pcontrol; the handle-integer
// conversions and status accessors of MPI 5.0; sessions (process sets, communicators
// from groups, session error handlers and buffers); files (file.go: open, close,
// delete, sizes, hints, atomicity, views, explicit offsets, individual and shared file
// pointers (file_shared.go) in every blocking, nonblocking, collective, ordered and
// split collective form, file error handlers, user data representations with C
// conversion functions: file_datarep.go); the tool information interface (MPI_T_*,
// tools.go, over internal/mpir's); dynamic processes (dynamic.go: spawn, the parent,
// ports, the name service, join, disconnect, over internal/mpir's). zstubs.c is
// empty: a procedure mpigo did not implement would be a stub there returning
// MPI_ERR_UNSUPPORTED_OPERATION.
//
// Go exports take only int32 (C int), int64 (MPI_Count, MPI_Aint, MPI_Offset),
// uintptr (a handle) and unsafe.Pointer (any pointer): a handle held in a Go pointer
// type would be a small integer where the garbage collector expects an address.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include -O2
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"

// The predefined handles this package names, as integers: C's are pointers, which Go
// cannot take as constants. GCC and Clang fold these casts of integer constants.
enum {
	mpigo_COMM_NULL = (intptr_t)MPI_COMM_NULL,
	mpigo_COMM_WORLD = (intptr_t)MPI_COMM_WORLD,
	mpigo_COMM_SELF = (intptr_t)MPI_COMM_SELF,
	mpigo_GROUP_NULL = (intptr_t)MPI_GROUP_NULL,
	mpigo_GROUP_EMPTY = (intptr_t)MPI_GROUP_EMPTY,
	mpigo_MESSAGE_NULL = (intptr_t)MPI_MESSAGE_NULL,
	mpigo_MESSAGE_NO_PROC = (intptr_t)MPI_MESSAGE_NO_PROC,
	mpigo_INFO_NULL = (intptr_t)MPI_INFO_NULL,
	mpigo_INFO_ENV = (intptr_t)MPI_INFO_ENV,
	mpigo_ERRHANDLER_NULL = (intptr_t)MPI_ERRHANDLER_NULL,
	mpigo_ERRORS_ARE_FATAL = (intptr_t)MPI_ERRORS_ARE_FATAL,
	mpigo_ERRORS_RETURN = (intptr_t)MPI_ERRORS_RETURN,
	mpigo_ERRORS_ABORT = (intptr_t)MPI_ERRORS_ABORT,
	mpigo_REQUEST_NULL = (intptr_t)MPI_REQUEST_NULL,
	mpigo_DATATYPE_NULL = (intptr_t)MPI_DATATYPE_NULL,
	mpigo_OP_NULL = (intptr_t)MPI_OP_NULL,
};
*/
import "C"

import (
	"math"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

func main() {}

// Predefined handle values, from mpi.h (whose values a test checks against the
// standard's), so that this package cannot disagree with the header.
const (
	hCommNull  = C.mpigo_COMM_NULL
	hCommWorld = C.mpigo_COMM_WORLD
	hCommSelf  = C.mpigo_COMM_SELF

	hGroupNull  = C.mpigo_GROUP_NULL
	hGroupEmpty = C.mpigo_GROUP_EMPTY

	hMessageNull   = C.mpigo_MESSAGE_NULL
	hMessageNoProc = C.mpigo_MESSAGE_NO_PROC

	hInfoNull = C.mpigo_INFO_NULL
	hInfoEnv  = C.mpigo_INFO_ENV

	hErrhNull   = C.mpigo_ERRHANDLER_NULL
	hErrhFatal  = C.mpigo_ERRORS_ARE_FATAL
	hErrhReturn = C.mpigo_ERRORS_RETURN
	hErrhAbort  = C.mpigo_ERRORS_ABORT

	hRequestNull = C.mpigo_REQUEST_NULL

	hDatatypeNull = C.mpigo_DATATYPE_NULL
	hOpNull       = C.mpigo_OP_NULL
)

// cstr copies a C string.
func cstr(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	return C.GoString((*C.char)(p))
}

// putCString writes s into the C buffer p of capacity max (with its terminating
// zero), truncated to fit, and its length into *lenp if lenp is not nil.
func putCString(p unsafe.Pointer, max int, s string, lenp unsafe.Pointer) {
	if len(s) > max-1 {
		s = s[:max-1]
	}
	if p != nil {
		b := unsafe.Slice((*byte)(p), len(s)+1)
		copy(b, s)
		b[len(s)] = 0
	}
	if lenp != nil {
		*(*int32)(lenp) = int32(len(s))
	}
}

func setInt(p unsafe.Pointer, v int) {
	if p != nil {
		*(*int32)(p) = int32(v)
	}
}

// setIntOrUndefined stores a count or size in a C int, MPI_UNDEFINED when it does not
// fit (mpir.FitInt): the int forms of MPI_Type_size, MPI_Get_count and
// MPI_Get_elements.
func setIntOrUndefined(p unsafe.Pointer, v int64) {
	setInt(p, int(mpir.FitInt(v, math.MaxInt32)))
}

func setBool(p unsafe.Pointer, v bool) {
	if v {
		setInt(p, 1)
	} else {
		setInt(p, 0)
	}
}

func setHandle(p unsafe.Pointer, h uintptr) {
	if p != nil {
		*(*uintptr)(p) = h
	}
}

// ints views n C ints at p.
func ints(p unsafe.Pointer, n int) []int32 {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*int32)(p), n)
}

// int64s views n C MPI_Count or MPI_Aint at p.
func int64s(p unsafe.Pointer, n int) []int64 {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*int64)(p), n)
}

func toInts(s []int32) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

func toInts64(s []int32) []int64 {
	out := make([]int64, len(s))
	for i, v := range s {
		out[i] = int64(v)
	}
	return out
}

func i64ToInts(s []int64) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}
