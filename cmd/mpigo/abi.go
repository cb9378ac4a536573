package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mpigo/mpigo/abi"
)

// abiCmd is `mpigo abi install --prefix DIR`.
func abiCmd(args []string) int {
	if len(args) == 0 || args[0] != "install" {
		fmt.Fprintln(os.Stderr, "usage: mpigo abi install --prefix DIR")
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
	fmt.Printf("installed mpigo's MPI ABI under %s (bin/mpicc, bin/mpicxx, bin/mpiexec, include/mpi.h, lib/%s)\n", *prefix, abi.LibName)
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
