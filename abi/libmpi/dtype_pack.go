package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"math"
	"unsafe"

	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Counts in a status and packing (MPI 4.1 sections 3.2.5, 5.1.11 and 5.2): mpir's,
// with the caller's memory and positions read here. The int forms narrow what the
// _c forms give: a count to MPI_UNDEFINED, a size to MPI_ERR_VALUE_TOO_LARGE.

// status fields mpigo keeps in MPI_Status's five private ints.
type cstatus struct {
	source, tag, err int32
	countLo, countHi int32
	cancelled        int32
	_                [2]int32
}

// statusOf is the packed bytes a status records and the layout of the datatype
// argument dh.
func statusOf(op string, st unsafe.Pointer, dh uintptr) (int64, *datatype.Type, int32) {
	if st == nil {
		return 0, nil, fail(op, 0, errorf(errArg, op, "status is NULL"))
	}
	t, r := needType(op, dh)
	if t == nil {
		return 0, nil, r
	}
	s := (*cstatus)(st)
	return int64(uint32(s.countLo)) | int64(s.countHi)<<32, t, 0
}

// statusCount writes what f says of the status's bytes and the datatype into *count:
// an int, MPI_UNDEFINED where the value does not fit, or (large) an MPI_Count.
func statusCount(op string, st unsafe.Pointer, dh uintptr, count unsafe.Pointer, large bool, f func(*datatype.Type, int64) int64) int32 {
	n, t, r := statusOf(op, st, dh)
	switch {
	case t == nil:
		return r
	case count == nil:
		return fail(op, 0, errorf(errArg, op, "count is NULL"))
	case large:
		*(*int64)(count) = f(t, n)
	default:
		setIntOrUndefined(count, f(t, n))
	}
	return 0
}

//export goPMPI_Get_count
func goPMPI_Get_count(st unsafe.Pointer, dh uintptr, count unsafe.Pointer) int32 {
	goHalves.Add(1)
	return statusCount("Get_count", st, dh, count, false, mpir.GetCount)
}

//export goPMPI_Get_count_c
func goPMPI_Get_count_c(st unsafe.Pointer, dh uintptr, count unsafe.Pointer) int32 {
	goHalves.Add(1)
	return statusCount("Get_count_c", st, dh, count, true, mpir.GetCount)
}

//export PMPI_Get_elements
func PMPI_Get_elements(st unsafe.Pointer, dh uintptr, count unsafe.Pointer) int32 {
	return statusCount("Get_elements", st, dh, count, false, mpir.GetElements)
}

//export PMPI_Get_elements_c
func PMPI_Get_elements_c(st unsafe.Pointer, dh uintptr, count unsafe.Pointer) int32 {
	return statusCount("Get_elements_c", st, dh, count, true, mpir.GetElements)
}

//export PMPI_Get_elements_x
func PMPI_Get_elements_x(st unsafe.Pointer, dh uintptr, count unsafe.Pointer) int32 {
	return statusCount("Get_elements_x", st, dh, count, true, mpir.GetElements)
}

//export PMPI_Pack_size
func PMPI_Pack_size(count int32, dh uintptr, ch uintptr, size unsafe.Pointer) int32 {
	if size == nil {
		return PMPI_Pack_size_c(int64(count), dh, ch, nil) // which says what is wrong
	}
	var n int64
	r := PMPI_Pack_size_c(int64(count), dh, ch, unsafe.Pointer(&n))
	if r == 0 && n > math.MaxInt32 {
		// Only the _c form can hold it (MPI 4.1 §19.3.4 and its errata: the class
		// for an output an int cannot hold).
		return fail("Pack_size", ch, errorf(errValueTooLarge, "Pack_size", "the packed size %d does not fit in an int: use MPI_Pack_size_c", n))
	}
	if r == 0 {
		setInt(size, int(n))
	}
	return r
}

//export PMPI_Pack_size_c
func PMPI_Pack_size_c(count int64, dh uintptr, ch uintptr, size unsafe.Pointer) int32 {
	const op = "Pack_size_c"
	t, err := packType(op, dh, count)
	if err != nil {
		return fail(op, ch, err)
	}
	if size == nil {
		return fail(op, ch, errorf(errArg, op, "size is NULL"))
	}
	n, err := mpir.PackSize(op, t, count)
	if err != nil {
		return fail(op, ch, err)
	}
	*(*int64)(size) = n
	return 0
}

// packType is the datatype dh of count items of a packing call: MPI_DATATYPE_NULL is
// taken for none (mpir.NullFor).
func packType(op string, dh uintptr, count int64) (*datatype.Type, error) {
	if dh == hDatatypeNull {
		return mpir.NullFor(op, "datatype", count)
	}
	d := dtOf(dh)
	if d == nil {
		return nil, noType(op, dh)
	}
	return d.t, nil
}

// packBuf is the caller's packed buffer p of size bytes.
func packBuf(op, arg string, p unsafe.Pointer, size int64) ([]byte, error) {
	switch {
	case size < 0:
		return nil, errorf(errArg, op, "%s size %d is negative", arg, size)
	case size == 0:
		return nil, nil
	case p == nil:
		return nil, errorf(errBuffer, op, "%s is NULL but has %d bytes", arg, size)
	}
	return unsafe.Slice((*byte)(p), size), nil
}

// packC is MPI_Pack (pack: mpir.Pack) or MPI_Pack_external (mpir.PackExternal) with
// the caller's memory read: count items of dh at in into out at *pos.
func packC(op string, in unsafe.Pointer, count int64, dh uintptr, out unsafe.Pointer, outsize int64, pos unsafe.Pointer, ch uintptr,
	pack func(string, *datatype.Type, []byte, int64, int64, []byte, int64) (int64, error)) int32 {
	t, err := packType(op, dh, count)
	if err != nil {
		return fail(op, ch, err)
	}
	if pos == nil {
		return fail(op, ch, errorf(errArg, op, "position is NULL"))
	}
	mem, origin, err := span(op, in, count, t)
	if err != nil {
		return fail(op, ch, err)
	}
	dst, err := packBuf(op, "outbuf", out, outsize)
	if err != nil {
		return fail(op, ch, err)
	}
	p, err := pack(op, t, mem, origin, count, dst, *(*int64)(pos))
	*(*int64)(pos) = p
	return fail(op, ch, err)
}

// unpackC is MPI_Unpack (unpack: mpir.Unpack) or MPI_Unpack_external with the
// caller's memory read: count items of dh into out from in at *pos.
func unpackC(op string, in unsafe.Pointer, insize int64, pos, out unsafe.Pointer, count int64, dh uintptr, ch uintptr,
	unpack func(string, []byte, int64, *datatype.Type, []byte, int64, int64) (int64, error)) int32 {
	t, err := packType(op, dh, count)
	if err != nil {
		return fail(op, ch, err)
	}
	if pos == nil {
		return fail(op, ch, errorf(errArg, op, "position is NULL"))
	}
	src, err := packBuf(op, "inbuf", in, insize)
	if err != nil {
		return fail(op, ch, err)
	}
	mem, origin, err := span(op, out, count, t)
	if err != nil {
		return fail(op, ch, err)
	}
	p, err := unpack(op, src, *(*int64)(pos), t, mem, origin, count)
	*(*int64)(pos) = p
	return fail(op, ch, err)
}

//export PMPI_Pack
func PMPI_Pack(in unsafe.Pointer, count int32, dh uintptr, out unsafe.Pointer, outsize int32, pos unsafe.Pointer, ch uintptr) int32 {
	if pos == nil {
		return fail("Pack", ch, errorf(errArg, "Pack", "position is NULL"))
	}
	p := int64(*(*int32)(pos))
	r := packC("Pack", in, int64(count), dh, out, int64(outsize), unsafe.Pointer(&p), ch, mpir.Pack)
	*(*int32)(pos) = int32(p)
	return r
}

//export PMPI_Pack_c
func PMPI_Pack_c(in unsafe.Pointer, count int64, dh uintptr, out unsafe.Pointer, outsize int64, pos unsafe.Pointer, ch uintptr) int32 {
	return packC("Pack_c", in, count, dh, out, outsize, pos, ch, mpir.Pack)
}

//export PMPI_Unpack
func PMPI_Unpack(in unsafe.Pointer, insize int32, pos unsafe.Pointer, out unsafe.Pointer, count int32, dh uintptr, ch uintptr) int32 {
	if pos == nil {
		return fail("Unpack", ch, errorf(errArg, "Unpack", "position is NULL"))
	}
	p := int64(*(*int32)(pos))
	r := unpackC("Unpack", in, int64(insize), unsafe.Pointer(&p), out, int64(count), dh, ch, mpir.Unpack)
	*(*int32)(pos) = int32(p)
	return r
}

//export PMPI_Unpack_c
func PMPI_Unpack_c(in unsafe.Pointer, insize int64, pos unsafe.Pointer, out unsafe.Pointer, count int64, dh uintptr, ch uintptr) int32 {
	return unpackC("Unpack_c", in, insize, pos, out, count, dh, ch, mpir.Unpack)
}
