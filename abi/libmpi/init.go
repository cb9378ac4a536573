package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"os"
	"unsafe"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"golang.org/x/sys/unix"
)

// The world model's start and end (MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort)
// and the environment's queries: thread level, versions, processor name, clock.

// Thread levels: the ABI's values and the device's.
func coreLevel(l int32) int {
	switch {
	case l >= C.MPI_THREAD_MULTIPLE:
		return core.ThreadMultiple
	case l >= C.MPI_THREAD_SERIALIZED:
		return core.ThreadSerialized
	case l >= C.MPI_THREAD_FUNNELED:
		return core.ThreadFunneled
	}
	return core.ThreadSingle
}

func abiLevel(l int) int32 {
	return [...]int32{C.MPI_THREAD_SINGLE, C.MPI_THREAD_FUNNELED, C.MPI_THREAD_SERIALIZED, C.MPI_THREAD_MULTIPLE}[l]
}

var mainThread int64

func initialize(op string, level int32) int32 {
	if err := collective.Init(coreLevel(level)); err != nil {
		return fail(op, 0, err)
	}
	mainThread = int64(gettid())
	setShortLive(true)
	showP2P()
	if core.ThreadLevel() == core.ThreadMultiple {
		reqsMT()
	}
	return 0
}

//export PMPI_Init
func PMPI_Init(argc, argv unsafe.Pointer) int32 {
	return initialize("Init", 0)
}

//export PMPI_Init_thread
func PMPI_Init_thread(argc, argv unsafe.Pointer, required int32, provided unsafe.Pointer) int32 {
	if err := nullOut("Init_thread", "provided", provided); err != nil {
		return fail("Init_thread", 0, err)
	}
	if r := initialize("Init_thread", required); r != 0 {
		return r
	}
	setInt(provided, int(abiLevel(core.ThreadLevel())))
	return 0
}

//export PMPI_Query_thread
func PMPI_Query_thread(provided unsafe.Pointer) int32 {
	if provided == nil {
		return fail("Query_thread", 0, errorf(errArg, "Query_thread", "provided is NULL"))
	}
	setInt(provided, int(abiLevel(core.ThreadLevel())))
	return 0
}

//export PMPI_Is_thread_main
func PMPI_Is_thread_main(flag unsafe.Pointer) int32 {
	if err := nullOut("Is_thread_main", "flag", flag); err != nil {
		return fail("Is_thread_main", 0, err)
	}
	setBool(flag, int64(gettid()) == mainThread)
	return 0
}

//export goPMPI_Initialized
func goPMPI_Initialized(flag unsafe.Pointer) int32 {
	goHalves.Add(1)
	if err := nullOut("Initialized", "flag", flag); err != nil {
		return fail("Initialized", 0, err)
	}
	setBool(flag, core.Initialized())
	return 0
}

//export goPMPI_Finalized
func goPMPI_Finalized(flag unsafe.Pointer) int32 {
	goHalves.Add(1)
	if err := nullOut("Finalized", "flag", flag); err != nil {
		return fail("Finalized", 0, err)
	}
	setBool(flag, core.Finalized())
	return 0
}

//export PMPI_Finalize
func PMPI_Finalize() int32 {
	hideP2P()
	hideColls()
	// MPI_COMM_SELF's attributes are deleted first, while MPI still works, so that a
	// library can hook the end of MPI with a delete callback (MPI 4.1 section 11.2.4).
	err := collective.Finalize(func() error {
		err := self.x.Finalize("Finalize", "MPI_COMM_SELF")
		setShortLive(false) // after the callbacks, which may still use windows
		return err
	})
	setShortLive(core.Live())
	return fail("Finalize", 0, err)
}

//export PMPI_Abort
func PMPI_Abort(ch uintptr, code int32) int32 {
	core.Abort(int(code), "")
	return 0
}

// PMPI_Wtick is the resolution of PMPI_Wtime, which is in C (wtime.c): a call to it
// need not cross into Go.
//
//export PMPI_Wtick
func PMPI_Wtick() float64 { return 1e-9 }

//export PMPI_Get_processor_name
func PMPI_Get_processor_name(name, n unsafe.Pointer) int32 {
	if err := nullOut("Get_processor_name", "name, resultlen", name, n); err != nil {
		return fail("Get_processor_name", 0, err)
	}
	h, _ := os.Hostname()
	putCString(name, C.MPI_MAX_PROCESSOR_NAME, h, n)
	return 0
}

//export PMPI_Get_version
func PMPI_Get_version(v, sv unsafe.Pointer) int32 {
	if err := nullOut("Get_version", "version, subversion", v, sv); err != nil {
		return fail("Get_version", 0, err)
	}
	setInt(v, 5)
	setInt(sv, 0)
	return 0
}

// PMPI_Abi_get_version gives the version of the standard ABI this library
// implements: mpi.h's, which a test holds to the standard's.
//
//export PMPI_Abi_get_version
func PMPI_Abi_get_version(v, sv unsafe.Pointer) int32 {
	if err := nullOut("Abi_get_version", "abi_major, abi_minor", v, sv); err != nil {
		return fail("Abi_get_version", 0, err)
	}
	setInt(v, C.MPI_ABI_VERSION)
	setInt(sv, C.MPI_ABI_SUBVERSION)
	return 0
}

//export PMPI_Get_library_version
func PMPI_Get_library_version(s, n unsafe.Pointer) int32 {
	if err := nullOut("Get_library_version", "version, resultlen", s, n); err != nil {
		return fail("Get_library_version", 0, err)
	}
	putCString(s, C.MPI_MAX_LIBRARY_VERSION_STRING, "mpigo (MPI in Go), MPI 5.0 standard ABI 1.0", n)
	return 0
}

func gettid() int { return unix.Gettid() }
