package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mpigo/mpigo/abi"
)

const abiUsage = `usage: mpigo abi install --prefix DIR
       mpigo abi mpicc|mpicxx DIR [compiler arguments...]

install lays out DIR/include/mpi.h, DIR/lib/libmpi_abi.so.1 (and libmpi.so),
DIR/bin/mpicc, mpicxx, mpiexec, mpirun and a copy of mpigo, as MPI installations are
laid out, for build systems (CMake's FindMPI, autotools, Meson, make CC=mpicc).
mpicc and mpicxx are what DIR/bin/mpicc and mpicxx run: 'mpigo cc' against DIR.
`

// abiCmd is `mpigo abi install --prefix DIR`, and `mpigo abi mpicc DIR ...` (mpicxx),
// which the installed wrappers run.
func abiCmd(args []string) int {
	if len(args) >= 2 && (args[0] == "mpicc" || args[0] == "mpicxx") {
		return abi.Installed(args[0], args[1], args[2:])
	}
	if len(args) == 0 || args[0] != "install" {
		fmt.Fprint(os.Stderr, abiUsage)
		return 2
	}
	fs := flag.NewFlagSet("abi install", flag.ContinueOnError)
	prefix := fs.String("prefix", "", "the directory to lay out include/, lib/ and bin/ under")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if *prefix == "" {
		fmt.Fprintln(os.Stderr, "mpigo abi install: --prefix DIR is required")
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		self = "mpigo"
	}
	if err := abi.Install(*prefix, self); err != nil {
		fmt.Fprintln(os.Stderr, "mpigo abi install:", err)
		return 1
	}
	fmt.Printf("installed mpigo's MPI ABI under %s (bin/mpicc, bin/mpicxx, bin/mpiexec, bin/mpirun, bin/mpigo, include/mpi.h, lib/%s)\n", *prefix, abi.LibName)
	return 0
}

// abiInfo is `mpigo info`'s line on the C ABI library.
func abiInfo() string {
	dir, ok, err := abi.Built()
	switch {
	case err != nil:
		return "not available: " + err.Error()
	case ok:
		return "built: " + dir + "/lib/" + abi.LibName
	}
	return "not built yet (mpigo cc builds it on first use into " + dir + ")"
}
