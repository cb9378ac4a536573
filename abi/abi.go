// Package abi holds mpigo's C ABI: the header of the MPI 5.0 standard ABI (include/mpi.h,
// embedded here so that `go install` carries it), the library libmpi_abi.so.1 (built
// from the package libmpi with -buildmode=c-shared, the only cgo in mpigo), and the
// tools `mpigo cc`, `mpigo cxx` and `mpigo abi install` use to build and lay them out.
//
// The library is built on first use into mpigo's cache directory, from the module's
// source (found next to the running mpigo, in the module cache, or where
// MPIGO_SOURCE says), so that installing mpigo needs no C compiler: only compiling C
// programs does.
//
// The compiler wrappers (`mpigo cc`, `mpigo cxx`, and the installed bin/mpicc and
// bin/mpicxx, which run mpigo) take the real compiler from MPIGO_CC and MPIGO_CXX,
// never from CC and CXX, and never call themselves: a compiler that is a wrapper is
// refused before anything runs (wrap.go). They print their command lines as MPICH's
// and Open MPI's wrappers do (-show, -compile_info, -link_info, -showme:compile, ...),
// for build systems that ask.
package abi

//go:generate go run ./gen

import _ "embed"

// Header is mpi.h.
//
//go:embed include/mpi.h
var Header []byte
