// Command mpigo launches MPI jobs written with github.com/mpigo/mpigo/mpi (and any other
// program) and reports what mpigo finds on this machine.
//
//	mpigo run -n 4 ./examples/pi          build the package once, run it as 4 ranks
//	mpigo run -n 2 --tag-output hostname  any program
//	mpigo info                            version, machine, every setting and its source
//	mpigo cc -O2 -o ring ring.c           compile a C program against the MPI standard ABI
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mpigo/mpigo/abi"
	"github.com/mpigo/mpigo/internal/launch"
	"github.com/mpigo/mpigo/mpi"
)

// usage prints the commands: to stdout when asked for (mpigo help | less), to stderr
// after a mistake.
func usage(w io.Writer) {
	fmt.Fprint(w, `usage: mpigo <command> [arguments]

commands:
  run          run a program as an MPI job: mpigo run -n N PROGRAM [ARGS...]
  info         show the version, the machine and every runtime setting
  cc           compile and link a C program against mpigo (MPI standard ABI): mpigo cc -o x x.c
  cxx          the same for C++
  abi          abi install --prefix DIR: lay out include/, lib/ and bin/mpicc for build systems
  cache        show mpigo's cache of built Go programs; 'mpigo cache clean' empties it
  version      print the version

Run 'mpigo run --help' for the flags of run.
`)
}

// noArgs refuses arguments to a command that takes none.
func noArgs(cmd string, args []string) bool {
	if len(args) == 0 {
		return true
	}
	fmt.Fprintf(os.Stderr, "mpigo %s: unknown argument %q (it takes none)\n", cmd, args[0])
	return false
}

func main() {
	if len(os.Args) < 2 {
		usage(os.Stderr)
		os.Exit(2)
	}
	switch os.Args[1] {
	case "run", "exec":
		os.Exit(runCmd(os.Args[2:]))
	case "info":
		os.Exit(infoCmd(os.Args[2:]))
	case "cc", "mpicc":
		os.Exit(abi.CC(os.Args[2:], false))
	case "cxx", "c++", "mpicxx":
		os.Exit(abi.CC(os.Args[2:], true))
	case "abi":
		os.Exit(abiCmd(os.Args[2:]))
	case "agent": // started by another mpigo over ssh or --launch-agent; speaks on stdin/stdout
		os.Exit(launch.RunAgent(os.Stdin, os.Stdout))
	case "cache":
		os.Exit(cacheCmd(os.Args[2:]))
	case "version", "--version", "-version":
		if !noArgs("version", os.Args[2:]) {
			os.Exit(2)
		}
		fmt.Println(mpi.LibraryVersion())
	case "help", "-h", "--help":
		if len(os.Args) > 2 && os.Args[2] == "run" {
			os.Exit(runCmd([]string{"--help"}))
		}
		usage(os.Stdout)
	default:
		fmt.Fprintf(os.Stderr, "mpigo: unknown command %q\n", os.Args[1])
		usage(os.Stderr)
		os.Exit(2)
	}
}
