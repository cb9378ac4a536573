package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include <stdint.h>
#include "mpi.h"

static int call_datarep_conv(void *fn, void *userbuf, uintptr_t dt, int count, void *filebuf, MPI_Offset position, void *extra) {
	return ((MPI_Datarep_conversion_function *)fn)(userbuf, (MPI_Datatype)dt, count, filebuf, position, extra);
}
static int call_datarep_conv_c(void *fn, void *userbuf, uintptr_t dt, MPI_Count count, void *filebuf, MPI_Offset position, void *extra) {
	return ((MPI_Datarep_conversion_function_c *)fn)(userbuf, (MPI_Datatype)dt, count, filebuf, position, extra);
}
static int call_datarep_extent(void *fn, uintptr_t dt, MPI_Aint *extent, void *extra) {
	return ((MPI_Datarep_extent_function *)fn)((MPI_Datatype)dt, extent, extra);
}
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

// User-defined data representations (MPI 4.1 section 14.5.3): the registry and the
// conversions are mpir's; here the program's C functions are called through the
// trampolines above, with the datatype's handle as the program knows it and
// extra_state as it gave it. A function's nonzero return fails the call that ran it
// (class MPI_ERR_CONVERSION, mpir's). Errors of the registration go to MPI_FILE_NULL's
// handler, the default file error handler, as the standard says.

//export PMPI_Register_datarep
func PMPI_Register_datarep(name, read, write, extent, extra unsafe.Pointer) int32 {
	return registerDatarep("Register_datarep", name, read, write, extent, extra, false)
}

//export PMPI_Register_datarep_c
func PMPI_Register_datarep_c(name, read, write, extent, extra unsafe.Pointer) int32 {
	return registerDatarep("Register_datarep_c", name, read, write, extent, extra, true)
}

func registerDatarep(op string, name, read, write, extent, extra unsafe.Pointer, large bool) int32 {
	if name == nil {
		return failFile(op, errorf(errArg, op, "datarep is NULL"))
	}
	var ext mpir.ExtentFunc
	if extent != nil {
		ext = func(d *mpir.Datatype) (int64, error) {
			var n C.MPI_Aint
			if rc := C.call_datarep_extent(extent, C.uintptr_t(partHandle(d)), &n, extra); rc != 0 {
				return 0, fmt.Errorf("dtype_file_extent_fn returned %d", int(rc))
			}
			return int64(n), nil
		}
	}
	return failFile(op, mpir.RegisterDatarep(op, cstr(name),
		cConversion("read_conversion_fn", read, extra, large), cConversion("write_conversion_fn", write, extra, large), ext))
}

// cConversion is mpir's form of the C conversion function fn (nil for
// MPI_CONVERSION_FN_NULL); large: an MPI_Datarep_conversion_function_c.
func cConversion(arg string, fn, extra unsafe.Pointer, large bool) mpir.Conversion {
	if fn == nil {
		return nil
	}
	return func(mem []byte, origin int64, d *mpir.Datatype, count int64, file []byte, position int64) error {
		user := unsafe.Add(unsafe.Pointer(unsafe.SliceData(mem)), origin)
		fb := unsafe.Pointer(unsafe.SliceData(file))
		h := C.uintptr_t(partHandle(d))
		var rc C.int
		switch {
		case large:
			rc = C.call_datarep_conv_c(fn, user, h, C.MPI_Count(count), fb, C.MPI_Offset(position), extra)
		case count > math.MaxInt32:
			return fmt.Errorf("%s takes an int count, and the chunk has %d items (MPI_Register_datarep_c's functions take larger ones)", arg, count)
		default:
			rc = C.call_datarep_conv(fn, user, h, C.int(count), fb, C.MPI_Offset(position), extra)
		}
		if rc != 0 {
			return fmt.Errorf("%s returned %d", arg, int(rc))
		}
		return nil
	}
}
