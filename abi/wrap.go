package abi

import (
	"bytes"
	"debug/buildinfo"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// The compiler wrappers: `mpigo cc` and `mpigo cxx`, and the bin/mpicc and bin/mpicxx
// that `mpigo abi install` writes, which run `mpigo abi mpicc PREFIX` (mpicxx). A
// wrapper runs the real compiler with mpi.h's directory and, unless it only compiles,
// the library.
//
// The real compiler is $MPIGO_CC ($MPIGO_CXX for C++), else cc (c++); -cc=NAME
// (-cxx=NAME) overrides both for one call, as with MPICH's wrappers. $CC and $CXX are
// never read: a build names the wrapper itself by them (make CC=mpicc exports CC to
// every command it runs), which is why MPICH reads MPICH_CC and Open MPI OMPI_CC.
//
// A wrapper never calls itself: a compiler that is an mpigo wrapper (this program,
// another mpigo, a script `mpigo abi install` wrote, or a link to any of them) is
// refused before anything runs, and a wrapper started, however indirectly, by the
// compiler a wrapper ran (MPIGO_CC="ccache mpicc") finds wrapperVar in its
// environment and stops.

// wrapperVar is set in the real compiler's environment to the wrapper that ran it.
const wrapperVar = "MPIGO_WRAPPER"

// wrapperMark is in the first lines of every script `mpigo abi install` writes.
const wrapperMark = "(written by mpigo abi install)"

// wrapper is one compiler wrapper.
type wrapper struct {
	name string // as the user calls it, for messages: "mpigo cc", "mpicc"
	cxx  bool   // C++: MPIGO_CXX, c++, -cxx=
	dir  string // holds include/mpi.h and lib/libmpi_abi.so.1
}

// What a wrapper is asked to print instead of compiling (show).
const (
	showNothing = ""
	showLine    = "line"    // the whole command line (MPICH -show, -compile_info, -link_info)
	showCompile = "compile" // the flags that compile (-show-compile-info, -showme:compile)
	showLink    = "link"    // the flags that link (-show-link-info, -showme:link)
	showCommand = "command" // the compiler (-showme:command)
	showIncdirs = "incdirs" // Open MPI's -showme:incdirs, libdirs and libs
	showLibdirs = "libdirs"
	showLibs    = "libs"
	showHelp    = "help"
)

// call is a wrapper's command line: what to show, the compiler named with -cc=, and
// the arguments the compiler gets.
type call struct {
	show string
	cc   string
	args []string
}

// parse takes the wrapper's own options out of args, as MPICH's and Open MPI's
// wrappers spell them; everything else is the compiler's.
func (w *wrapper) parse(args []string) call {
	var c call
	own := "-cc="
	if w.cxx {
		own = "-cxx="
	}
	for _, a := range args {
		switch a {
		case "-show", "--show", "-showme", "--showme", "-compile_info", "-compile-info", "-link_info", "-link-info":
			c.show = showLine
		case "-show-compile-info", "-showme:compile", "--showme:compile":
			c.show = showCompile
		case "-show-link-info", "-showme:link", "--showme:link":
			c.show = showLink
		case "-showme:command", "--showme:command":
			c.show = showCommand
		case "-showme:incdirs", "--showme:incdirs":
			c.show = showIncdirs
		case "-showme:libdirs", "--showme:libdirs":
			c.show = showLibdirs
		case "-showme:libs", "--showme:libs":
			c.show = showLibs
		case "-h", "-help", "--help":
			c.show = showHelp
		default:
			if v, ok := strings.CutPrefix(a, own); ok {
				c.cc = v
				continue
			}
			c.args = append(c.args, a)
		}
	}
	return c
}

// links reports whether the compiler, given args, links: not when it only compiles,
// preprocesses or makes dependencies, nor when it is only asked about itself.
func links(args []string) bool {
	for _, a := range args {
		switch a {
		case "-c", "-E", "-S", "-M", "-MM":
			return false
		}
	}
	if len(args) == 1 {
		a := args[0]
		if a == "-v" || a == "--version" || strings.HasPrefix(a, "-dump") || strings.HasPrefix(a, "-print-") {
			return false
		}
	}
	return true
}

func (w *wrapper) compileFlags() []string { return []string{"-I" + filepath.Join(w.dir, "include")} }

func (w *wrapper) linkFlags() []string {
	lib := filepath.Join(w.dir, "lib")
	return []string{"-L" + lib, "-Wl,-rpath," + lib, "-lmpi_abi"}
}

// compiler returns the real compiler's words: -cc= (-cxx=), $MPIGO_CC ($MPIGO_CXX),
// else cc (c++); and where they came from, for messages.
func (w *wrapper) compiler(override string) (words []string, from string) {
	v, from := override, "-cc="+override
	if w.cxx {
		from = "-cxx=" + override
	}
	if v == "" {
		v, from = os.Getenv(w.envVar()), w.envVar()+"="+os.Getenv(w.envVar())
	}
	if strings.TrimSpace(v) == "" {
		v = "cc"
		if w.cxx {
			v = "c++"
		}
		from = v + " in PATH"
	}
	return strings.Fields(v), from
}

// envVar names the variable that names the real compiler.
func (w *wrapper) envVar() string {
	if w.cxx {
		return "MPIGO_CXX"
	}
	return "MPIGO_CC"
}

// command is the compiler's command line for c: the compiler with the include
// directory first, then the user's arguments, then the library (when linking).
func (w *wrapper) command(cc []string, args []string) []string {
	cmd := append(append(append([]string{}, cc...), w.compileFlags()...), args...)
	if links(args) {
		cmd = append(cmd, w.linkFlags()...)
	}
	return cmd
}

// run carries out the wrapper's command line and returns the exit code; when it
// compiles it does not return, but becomes the compiler. stdout gets what is shown.
func (w *wrapper) run(args []string, stdout io.Writer) int {
	c := w.parse(args)
	if c.show == showHelp {
		fmt.Fprintf(stdout, ccUsage, CacheDir(), SourceVar, Module)
		return 0
	}
	cc, from := w.compiler(c.cc)
	switch c.show {
	case showLine:
		fmt.Fprintln(stdout, shellJoin(w.command(cc, c.args)))
		return 0
	case showCompile:
		fmt.Fprintln(stdout, shellJoin(w.compileFlags()))
		return 0
	case showLink:
		fmt.Fprintln(stdout, shellJoin(w.linkFlags()))
		return 0
	case showCommand:
		fmt.Fprintln(stdout, shellJoin(cc))
		return 0
	case showIncdirs:
		fmt.Fprintln(stdout, shellJoin([]string{filepath.Join(w.dir, "include")}))
		return 0
	case showLibdirs:
		fmt.Fprintln(stdout, shellJoin([]string{filepath.Join(w.dir, "lib")}))
		return 0
	case showLibs:
		fmt.Fprintln(stdout, "mpi_abi")
		return 0
	}
	if len(c.args) == 0 {
		fmt.Fprintf(os.Stderr, "%s: no arguments for the compiler (%s -help says how)\n", w.name, w.name)
		return 1
	}
	if outer := os.Getenv(wrapperVar); outer != "" {
		fmt.Fprintf(os.Stderr, "%s: started by the compiler that %s ran: an mpigo compiler wrapper "+
			"must not be the real compiler (it would call itself); set %s to the real one (gcc, clang)\n",
			w.name, outer, w.envVar())
		return 1
	}
	path, err := exec.LookPath(cc[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: the compiler (%s): %v\n", w.name, from, err)
		return 1
	}
	if what, ok := mpigoWrapper(path); ok {
		fmt.Fprintf(os.Stderr, "%s: the compiler (%s) is %s, an mpigo compiler wrapper, which would call itself: "+
			"set %s to the real compiler (gcc, clang)\n", w.name, from, what, w.envVar())
		return 1
	}
	env := append(os.Environ(), wrapperVar+"="+w.name+" ("+from+")")
	err = syscall.Exec(path, w.command(cc, c.args), env)
	fmt.Fprintf(os.Stderr, "%s: running %s: %v\n", w.name, path, err)
	return 1
}

// mpigoWrapper reports whether the program at path is an mpigo compiler wrapper, and
// says what it is: a script `mpigo abi install` wrote, or an mpigo command (this one
// or another), through any symbolic links.
func mpigoWrapper(path string) (string, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	what := path
	if real != path {
		what = path + " (" + real + ")"
	}
	f, err := os.Open(real)
	if err != nil {
		return "", false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if bytes.HasPrefix(head, []byte("#!")) && bytes.Contains(head, []byte(wrapperMark)) {
		return what, true
	}
	if self, err := os.Executable(); err == nil {
		a, err1 := os.Stat(self)
		b, err2 := f.Stat()
		if err1 == nil && err2 == nil && os.SameFile(a, b) {
			return what, true
		}
	}
	if bytes.HasPrefix(head, []byte("\x7fELF")) {
		if bi, err := buildinfo.ReadFile(real); err == nil && bi.Path == Module+"/cmd/mpigo" {
			return what, true
		}
	}
	return "", false
}

// shellJoin joins words into a line a shell splits back into them.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+,./:@%^") == "" {
			q[i] = w
			continue
		}
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

const ccUsage = `usage: mpigo cc [options] [compiler arguments...]
       mpigo cxx [options] [compiler arguments...]
       (mpicc and mpicxx of 'mpigo abi install' are the same)

Compile and link a C (cc) or C++ (cxx) MPI program against mpigo's implementation of
the MPI 5.0 standard ABI: mpi.h and libmpi_abi.so.1, which 'mpigo cc' builds once (with
go and a C compiler) into %s. The arguments are the compiler's, as for mpicc:

  mpigo cc -O2 -o ring ring.c
  mpigo run -n 4 ./ring

The compiler is $MPIGO_CC ($MPIGO_CXX for cxx), else cc (c++). $CC and $CXX are not
read, so that make CC=mpicc CXX=mpicxx works.

  -cc=NAME, -cxx=NAME   use the compiler NAME for this call
  -show                 print the command line instead of running it
                        (-compile_info and -link_info print it too, as MPICH's do)
  -show-compile-info    print the flags that compile (-showme:compile)
  -show-link-info       print the flags that link (-showme:link)
  -showme:command, -showme:incdirs, -showme:libdirs, -showme:libs
                        as Open MPI's wrappers

The source of the library is found next to mpigo or in the module cache; set %s
to a checkout of %s to use another.
`

// CC runs `mpigo cc` (cxx: `mpigo cxx`) against the library built from the sources
// into the cache, building it first if need be, and returns the exit code (when it
// compiles, it becomes the compiler and does not return).
func CC(args []string, cxx bool) int {
	w := &wrapper{name: "mpigo cc", cxx: cxx}
	if cxx {
		w.name = "mpigo cxx"
	}
	c := w.parse(args)
	var err error
	switch {
	case c.show == showHelp:
	case c.show != showNothing:
		var ok bool
		w.dir, ok, err = Built() // showing does not build
		if err == nil && !ok && c.show != showCommand {
			fmt.Fprintf(os.Stderr, "%s: the library is not built yet: %s holds it once %s has compiled a program\n",
				w.name, filepath.Join(w.dir, "lib"), w.name)
		}
	default:
		w.dir, err = Ensure(func(s string) { fmt.Fprintln(os.Stderr, s) })
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", w.name, err)
		return 1
	}
	return w.run(args, os.Stdout)
}

// Installed runs the installed wrapper name (mpicc or mpicxx) of the ABI laid out
// under prefix by Install, and returns the exit code (when it compiles, it becomes
// the compiler and does not return).
func Installed(name, prefix string, args []string) int {
	if name != "mpicc" && name != "mpicxx" {
		fmt.Fprintf(os.Stderr, "mpigo abi: %q is not a compiler wrapper (mpicc, mpicxx)\n", name)
		return 2
	}
	if _, err := os.Stat(filepath.Join(prefix, "include", "mpi.h")); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s holds no include/mpi.h: not a prefix 'mpigo abi install' laid out\n", name, prefix)
		return 1
	}
	w := &wrapper{name: name, cxx: name == "mpicxx", dir: prefix}
	return w.run(args, os.Stdout)
}
