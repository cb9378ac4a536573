package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"strconv"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

// Info objects (MPI 4.1 chapter 10) are internal/mpir's: this file turns handles into
// them and C strings into keys and values, and writes results into C buffers.
// Communicators and windows keep their hints as mpir.Hints (Comm_set_info,
// Win_set_info and the info arguments of creation), and report them as a new info.

var infos = table[mpir.Info]{kind: kInfo}

// infoArg is the info of handle h for the call op: nil for MPI_INFO_NULL, which the
// info calls refuse (MPI_ERR_INFO) and calls taking hints read as none; a handle that
// is no info is an error of class MPI_ERR_INFO.
func infoArg(op string, h uintptr) (*mpir.Info, error) {
	switch h {
	case hInfoNull:
		return nil, nil
	case hInfoEnv:
		return mpir.InfoEnv(), nil
	}
	if in := infos.get(h); in != nil {
		return in, nil
	}
	return nil, badHandle(op, "info", h, kInfo)
}

// newInfoHandle registers an info the library gives the program.
func newInfoHandle(in *mpir.Info) uintptr { return infos.add(in) }

// infoKey reads the C string key, which must not be NULL.
func infoKey(op string, p unsafe.Pointer) (string, error) {
	if p == nil {
		return "", errorf(errInfoKey, op, "key is NULL")
	}
	return cstr(p), nil
}

// infoCall is the start of every call on an info: the info of h and the key at p.
func infoCall(op string, h uintptr, key unsafe.Pointer) (*mpir.Info, string, error) {
	in, err := infoArg(op, h)
	if err != nil {
		return nil, "", err
	}
	k, err := infoKey(op, key)
	return in, k, err
}

//export PMPI_Info_create
func PMPI_Info_create(out unsafe.Pointer) int32 {
	if out == nil {
		return fail("Info_create", 0, errorf(errArg, "Info_create", "info is NULL"))
	}
	setHandle(out, newInfoHandle(mpir.NewInfo()))
	return 0
}

// PMPI_Info_create_env ignores argc and argv: the library reads the program's
// arguments itself.
//
//export PMPI_Info_create_env
func PMPI_Info_create_env(argc int32, argv, out unsafe.Pointer) int32 {
	if out == nil {
		return fail("Info_create_env", 0, errorf(errArg, "Info_create_env", "info is NULL"))
	}
	setHandle(out, newInfoHandle(mpir.InfoCreateEnv()))
	return 0
}

//export PMPI_Info_set
func PMPI_Info_set(h uintptr, key, val unsafe.Pointer) int32 {
	const op = "Info_set"
	in, k, err := infoCall(op, h, key)
	if err != nil {
		return fail(op, 0, err)
	}
	if val == nil {
		return fail(op, 0, errorf(errInfoValue, op, "value is NULL"))
	}
	return fail(op, 0, mpir.InfoErr(op, in.Set(k, cstr(val))))
}

//export PMPI_Info_delete
func PMPI_Info_delete(h uintptr, key unsafe.Pointer) int32 {
	const op = "Info_delete"
	in, k, err := infoCall(op, h, key)
	if err != nil {
		return fail(op, 0, err)
	}
	return fail(op, 0, mpir.InfoErr(op, in.Delete(k)))
}

//export PMPI_Info_get
func PMPI_Info_get(h uintptr, key unsafe.Pointer, valuelen int32, val, flag unsafe.Pointer) int32 {
	const op = "Info_get"
	in, k, err := infoCall(op, h, key)
	if err == nil {
		err = nullOut(op, "value, flag", val, flag)
	}
	if err != nil {
		return fail(op, 0, err)
	}
	v, ok, err := in.GetN(k, int(valuelen))
	if err != nil {
		return fail(op, 0, mpir.InfoErr(op, err))
	}
	setBool(flag, ok)
	if ok {
		putCString(val, len(v)+1, v, nil)
	}
	return 0
}

//export PMPI_Info_get_string
func PMPI_Info_get_string(h uintptr, key unsafe.Pointer, buflen, val, flag unsafe.Pointer) int32 {
	const op = "Info_get_string"
	in, k, err := infoCall(op, h, key)
	if err != nil {
		return fail(op, 0, err)
	}
	if err := nullOut(op, "buflen, flag", buflen, flag); err != nil {
		return fail(op, 0, err)
	}
	n := (*int32)(buflen)
	if *n > 0 && val == nil { // with buflen 0, value is not written
		return fail(op, 0, errorf(errArg, op, "value is NULL, but buflen is %d", *n))
	}
	v, need, ok, err := in.GetString(k, int(*n))
	if err != nil {
		return fail(op, 0, mpir.InfoErr(op, err))
	}
	setBool(flag, ok)
	if ok {
		if *n > 0 {
			putCString(val, len(v)+1, v, nil)
		}
		*n = int32(need)
	}
	return 0
}

//export PMPI_Info_get_valuelen
func PMPI_Info_get_valuelen(h uintptr, key unsafe.Pointer, n, flag unsafe.Pointer) int32 {
	const op = "Info_get_valuelen"
	in, k, err := infoCall(op, h, key)
	if err == nil {
		err = nullOut(op, "valuelen, flag", n, flag)
	}
	if err != nil {
		return fail(op, 0, err)
	}
	v, ok, err := in.Get(k)
	if err != nil {
		return fail(op, 0, mpir.InfoErr(op, err))
	}
	setBool(flag, ok)
	if ok {
		setInt(n, len(v))
	}
	return 0
}

//export PMPI_Info_get_nkeys
func PMPI_Info_get_nkeys(h uintptr, n unsafe.Pointer) int32 {
	const op = "Info_get_nkeys"
	in, err := infoArg(op, h)
	if err == nil {
		err = nullOut(op, "nkeys", n)
	}
	if err != nil {
		return fail(op, 0, err)
	}
	nk, err := in.Nkeys()
	if err != nil {
		return fail(op, 0, mpir.InfoErr(op, err))
	}
	setInt(n, nk)
	return 0
}

//export PMPI_Info_get_nthkey
func PMPI_Info_get_nthkey(h uintptr, n int32, key unsafe.Pointer) int32 {
	const op = "Info_get_nthkey"
	in, err := infoArg(op, h)
	if err == nil {
		err = nullOut(op, "key", key)
	}
	if err != nil {
		return fail(op, 0, err)
	}
	k, err := in.Nthkey(int(n))
	if err != nil {
		return fail(op, 0, mpir.InfoErr(op, err))
	}
	putCString(key, C.MPI_MAX_INFO_KEY, k, nil) // MPI_Info_set keeps keys shorter
	return 0
}

//export PMPI_Info_dup
func PMPI_Info_dup(h uintptr, out unsafe.Pointer) int32 {
	const op = "Info_dup"
	in, err := infoArg(op, h)
	if err != nil {
		return fail(op, 0, err)
	}
	d, err := in.Dup()
	if err != nil {
		return fail(op, 0, mpir.InfoErr(op, err))
	}
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "newinfo is NULL"))
	}
	setHandle(out, newInfoHandle(d))
	return 0
}

//export PMPI_Info_free
func PMPI_Info_free(p unsafe.Pointer) int32 {
	const op = "Info_free"
	if p == nil {
		return fail(op, 0, errorf(errArg, op, "info is NULL"))
	}
	h := *(*uintptr)(p)
	in, err := infoArg(op, h)
	if err != nil {
		return fail(op, 0, err)
	}
	if err := in.Free(); err != nil {
		return fail(op, 0, mpir.InfoErr(op, err))
	}
	infos.remove(h)
	setHandle(p, hInfoNull)
	return 0
}

//export PMPI_Abi_get_info
func PMPI_Abi_get_info(out unsafe.Pointer) int32 {
	if out == nil {
		return fail("Abi_get_info", 0, errorf(errArg, "Abi_get_info", "info is NULL"))
	}
	size := func(n uintptr) string { return strconv.Itoa(int(n)) }
	sizes := mpir.InfoOf("mpi_aint_size", size(unsafe.Sizeof(C.MPI_Aint(0))),
		"mpi_count_size", size(unsafe.Sizeof(C.MPI_Count(0))),
		"mpi_offset_size", size(unsafe.Sizeof(C.MPI_Offset(0))))
	setHandle(out, newInfoHandle(sizes))
	return 0
}

// newCommHints is the hints of a communicator op makes with info handle h.
func newCommHints(op string, h uintptr) (*mpir.Hints, error) {
	in, err := infoArg(op, h)
	if err != nil {
		return nil, err
	}
	return mpir.NewCommHints(op, in)
}

//export PMPI_Comm_set_info
func PMPI_Comm_set_info(ch uintptr, h uintptr) int32 {
	const op = "Comm_set_info"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	in, err := infoArg(op, h)
	if err != nil {
		return fail(op, ch, err)
	}
	return fail(op, ch, c.x.SetInfo(op, in))
}

//export PMPI_Comm_get_info
func PMPI_Comm_get_info(ch uintptr, out unsafe.Pointer) int32 {
	const op = "Comm_get_info"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	if out == nil {
		return fail(op, ch, errorf(errArg, op, "info_used is NULL"))
	}
	in, err := c.x.Info(op)
	if err != nil {
		return fail(op, ch, err)
	}
	setHandle(out, newInfoHandle(in))
	return 0
}
