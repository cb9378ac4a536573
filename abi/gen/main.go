// Command gen writes mpigo's C ABI files from the list of the standard's procedures
// (procs.txt) and the hand-written part of the header (head.h):
//
//   - abi/include/mpi.h: head.h, then every prototype and its PMPI_ twin, less the
//     procedures procs.txt marks as the library's only (a "-" line: left out of the
//     ABI by the standard, declared by other implementations' ABI headers);
//   - abi/libmpi/zforward.c: each MPI_x calls PMPI_x, so that a profiling tool that
//     defines MPI_x and calls PMPI_x intercepts it;
//   - abi/libmpi/zstubs.c: PMPI_x for every procedure the library does not implement
//     (no "//export PMPI_x" in abi/libmpi/*.go and no definition in its hand-written
//     C files): it returns MPI_ERR_UNSUPPORTED_OPERATION through the error handler;
//   - internal/core/zclasses.go and mpi/zclasses.go: the error classes of head.h, as
//     the device's constants and the Go package's names for them (classes.go);
//   - abi/libmpi/zexports.go: the Go exports of the procedures that are one call of
//     the library's function for their family (exports.go): every form of a
//     collective, of a send mode, of a receive and of a file data access;
//   - abi/libmpi/zgo.h: the prototypes of the Go halves "goPMPI_x" of the procedures
//     whose PMPI_x is hand-written C that takes a short way first and calls its Go
//     half for everything else (short.c).
//
// It also checks each Go export's parameters (PMPI_x's and goPMPI_x's) against the C
// prototype (count, and the Go type each C type must have: int32 for int, int64 for
// MPI_Count, MPI_Aint and MPI_Offset, uintptr for a handle, unsafe.Pointer for a
// pointer), since the C side calls the Go exports through the header's prototypes and
// nothing else would catch a mismatch; and that every Go export is a procedure of
// procs.txt.
//
// Run from the abi directory: go generate ./abi
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

type param struct{ typ, name string }

type proc struct {
	ret, name string
	params    []param
	variadic  bool
	// libraryOnly: the library exports it, mpi.h does not declare it (a "-" line).
	libraryOnly bool
}

var protoRE = regexp.MustCompile(`^(.+?)\s+(MPI_\w+)\((.*)\)$`)

func parseProcs(path string) ([]proc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []proc
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		libraryOnly := strings.HasPrefix(line, "-")
		m := protoRE.FindStringSubmatch(strings.TrimPrefix(line, "-"))
		if m == nil {
			return nil, fmt.Errorf("procs.txt: cannot parse %q", line)
		}
		p := proc{ret: m[1], name: m[2], libraryOnly: libraryOnly}
		if args := strings.TrimSpace(m[3]); args != "void" {
			for i, a := range strings.Split(args, ",") {
				a = strings.TrimSpace(a)
				if a == "..." {
					p.variadic = true
					continue
				}
				p.params = append(p.params, splitParam(a, i))
			}
		}
		out = append(out, p)
	}
	return out, sc.Err()
}

var nameRE = regexp.MustCompile(`^(.*?)\s*\b(\w+)((?:\[\w*\])*)$`)

// splitParam splits "const int ranges[][3]" into its type ("const int [][3]", kept
// for the Go check) and its name.
func splitParam(a string, i int) param {
	m := nameRE.FindStringSubmatch(a)
	if m == nil || m[1] == "" {
		return param{typ: a, name: fmt.Sprintf("a%d", i)}
	}
	t := strings.TrimSpace(m[1])
	if m[3] != "" {
		t += " " + m[3]
	}
	return param{typ: t, name: m[2]}
}

func (p proc) cparams() string {
	if len(p.params) == 0 && !p.variadic {
		return "void"
	}
	var s []string
	for _, q := range p.params {
		s = append(s, cdecl(q))
	}
	if p.variadic {
		s = append(s, "...")
	}
	return strings.Join(s, ", ")
}

// sentinelArrays name the array parameters that may be passed MPI_UNWEIGHTED or
// MPI_WEIGHTS_EMPTY, which are small integers cast to int * (the values the ABI
// fixes). Declared as arrays, they let gcc (12 and later) take those constants for
// zero-length arrays and warn -Wstringop-overread at every call that passes them; as
// pointers (the same ABI in C) they do not.
var sentinelArrays = map[string]bool{"weights": true, "sourceweights": true, "destweights": true}

func cdecl(q param) string {
	if sentinelArrays[q.name] && strings.HasSuffix(q.typ, "int []") {
		return strings.TrimSuffix(q.typ, "[]") + "*" + q.name
	}
	if i := strings.Index(q.typ, " ["); i >= 0 {
		return q.typ[:i] + " " + q.name + q.typ[i+1:]
	}
	if strings.HasSuffix(q.typ, "*") {
		return q.typ + q.name
	}
	return q.typ + " " + q.name
}

func (p proc) args() string {
	var s []string
	for _, q := range p.params {
		s = append(s, q.name)
	}
	return strings.Join(s, ", ")
}

// goType is the Go type a Go export must give a parameter of C type t.
func goType(t string) string {
	switch {
	case strings.Contains(t, "*") || strings.Contains(t, "["):
		return "unsafe.Pointer"
	case t == "int" || t == "const int" || t == "MPI_T_cb_safety":
		return "int32"
	case t == "MPI_Count" || t == "MPI_Aint" || t == "MPI_Offset":
		return "int64"
	case t == "double":
		return "float64"
	case strings.HasPrefix(t, "MPI_"):
		return "uintptr" // a handle
	}
	return "?" + t
}

// exports returns the Go exports of dir (name -> parameter types) and the names
// defined by its hand-written C files.
func exports(dir string) (map[string][]string, map[string]string, map[string]bool, error) {
	fset := token.NewFileSet()
	goFns := map[string][]string{}
	goRet := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, fn := range files {
		f, err := parser.ParseFile(fset, fn, nil, parser.ParseComments)
		if err != nil {
			return nil, nil, nil, err
		}
		importsC := false
		for _, im := range f.Imports {
			importsC = importsC || im.Path.Value == `"C"`
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Doc == nil || !hasExport(fd) {
				continue
			}
			if !importsC {
				// cgo ignores //export in a file that does not import "C": the
				// symbol would be missing and the link of every program fail.
				return nil, nil, nil, fmt.Errorf("%s: %s is exported in a file that does not import \"C\"", fn, fd.Name.Name)
			}
			var ts []string
			for _, fl := range fd.Type.Params.List {
				t := exprString(fl.Type)
				n := len(fl.Names)
				if n == 0 {
					n = 1
				}
				for range n {
					ts = append(ts, t)
				}
			}
			goFns[fd.Name.Name] = ts
			if fd.Type.Results != nil && len(fd.Type.Results.List) == 1 {
				goRet[fd.Name.Name] = exprString(fd.Type.Results.List[0].Type)
			}
		}
	}
	cDefs := map[string]bool{}
	cfiles, _ := filepath.Glob(filepath.Join(dir, "*.c"))
	defRE := regexp.MustCompile(`(?m)^[A-Za-z_][\w \*]*\b(PMPI_\w+)\(`)
	convRE := regexp.MustCompile(`(?m)^CONV\(\w+, (\w+)\)`)
	for _, fn := range cfiles {
		if strings.HasPrefix(filepath.Base(fn), "z") {
			continue
		}
		b, err := os.ReadFile(fn)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, m := range defRE.FindAllSubmatch(b, -1) {
			cDefs[string(m[1])] = true
		}
		for _, m := range convRE.FindAllSubmatch(b, -1) { // CONV(T, Name): both conversions
			cDefs["PMPI_"+string(m[1])+"_fromint"] = true
			cDefs["PMPI_"+string(m[1])+"_toint"] = true
		}
	}
	return goFns, goRet, cDefs, nil
}

func hasExport(fd *ast.FuncDecl) bool {
	for _, c := range fd.Doc.List {
		if strings.HasPrefix(c.Text, "//export ") {
			return true
		}
	}
	return false
}

func exprString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprString(x.X) + "." + x.Sel.Name
	case *ast.StarExpr:
		return "*" + exprString(x.X)
	}
	return fmt.Sprintf("%T", e)
}

// errObject is the handle argument whose error handler an unsupported call uses: its
// communicator, or its file (passed as a handle of its own kind, which the library
// tells apart), else none. A procedure of the I/O chapter without a file uses the
// default file error handler, MPI_FILE_NULL's (MPI 4.1 section 14.7).
func errObject(p proc) string {
	if strings.HasPrefix(p.name, "MPI_File_") || strings.HasPrefix(p.name, "MPI_Register_datarep") {
		for _, q := range p.params {
			if q.typ == "MPI_File" {
				return "(MPI_Comm)" + q.name
			}
		}
		return "(MPI_Comm)MPI_FILE_NULL"
	}
	for _, q := range p.params {
		switch q.typ {
		case "MPI_Comm":
			return q.name
		case "MPI_File":
			return "(MPI_Comm)" + q.name
		}
	}
	return "MPI_COMM_NULL"
}

func main() {
	procs, err := parseProcs("gen/procs.txt")
	check(err)
	head, err := os.ReadFile("gen/head.h")
	check(err)
	zexp, nexp := generatedExports(procs)
	check(os.WriteFile("libmpi/zexports.go", zexp, 0o644))
	goFns, goRet, cDefs, err := exports("libmpi")
	check(err)

	var h bytes.Buffer
	h.Write(head)
	h.WriteString("\n/* The procedures. The library defines MPIGO_ABI_NO_PROTOTYPES where it declares\n * them itself. */\n#if !defined(MPIGO_ABI_NO_PROTOTYPES)\n")
	for _, pre := range []string{"MPI_", "PMPI_"} {
		fmt.Fprintf(&h, "\n/* %sx */\n", pre)
		for _, p := range procs {
			if !p.libraryOnly {
				fmt.Fprintf(&h, "%s %s%s(%s);\n", p.ret, pre, p.name[4:], p.cparams())
			}
		}
	}
	h.WriteString("\n#endif /* MPIGO_ABI_NO_PROTOTYPES */\n\n#if defined(__cplusplus)\n}\n#endif\n\n#endif /* MPI_H_ABI */\n")
	check(os.WriteFile("include/mpi.h", h.Bytes(), 0o644))
	files, err := classFiles(head)
	check(err)
	tools, err := toolFile(head)
	check(err)
	files["../internal/mpit/ztools.go"] = tools
	for path, b := range files {
		check(os.WriteFile(path, b, 0o644))
	}

	const gen = "/* Code generated by abi/gen from abi/gen/procs.txt. DO NOT EDIT. */\n\n#include \"mpi.h\"\n\n"
	var fw bytes.Buffer
	fw.WriteString(gen)
	var st bytes.Buffer
	st.WriteString(gen + "extern int mpigo_unsupported(const char *name, MPI_Comm comm);\n\n")
	var bad []string
	implemented := 0
	var halves bytes.Buffer
	// The go command keys its build cache on the package's own files, not on headers
	// it includes from elsewhere: the header's digest here makes a change to mpi.h,
	// whose values the package compiles in, rebuild it.
	fmt.Fprintf(&halves, "/* Code generated by abi/gen from abi/gen/procs.txt. DO NOT EDIT. */\n\n"+
		"/* mpi.h: sha256 %x */\n\n"+
		"/* The Go halves of the procedures whose PMPI_x is hand-written C (short.c, p2pshort.c, collshort.c, fileshort.c, handles.c). */\n", sha256.Sum256(h.Bytes()))
	known := map[string]bool{}
	for _, p := range procs {
		known["P"+p.name] = true
	}
	for name := range goFns {
		// An export the header does not declare would be a symbol no program can
		// name through the standard's mpi.h, and a procedure outside the standard.
		if n := strings.TrimPrefix(name, "go"); strings.HasPrefix(n, "PMPI_") && !known[n] {
			bad = append(bad, name+": no such procedure in procs.txt")
		}
	}
	for _, p := range procs {
		pname := "P" + p.name
		if gp, ok := goFns["go"+pname]; ok {
			if !cDefs[pname] {
				bad = append(bad, "go"+pname+": "+pname+" is not defined in C")
			}
			bad = append(bad, checkGo("go"+pname, p, gp, goRet["go"+pname])...)
			fmt.Fprintf(&halves, "%s go%s(%s);\n", p.ret, pname, p.cparams())
		}
		if p.libraryOnly { // mpi.h does not declare it
			fmt.Fprintf(&fw, "%s %s(%s);\n", p.ret, pname, p.cparams())
		}
		if !p.variadic {
			ret := "return "
			fmt.Fprintf(&fw, "%s %s(%s) { %s%s(%s); }\n", p.ret, p.name, p.cparams(), ret, pname, p.args())
		}
		gp, isGo := goFns[pname]
		switch {
		case isGo && cDefs[pname]:
			bad = append(bad, pname+": defined both in Go and in C")
		case isGo:
			implemented++
			bad = append(bad, checkGo(pname, p, gp, goRet[pname])...)
		case cDefs[pname]:
			implemented++
		case p.ret != "int":
			bad = append(bad, pname+": returns "+p.ret+": implement it (a stub cannot)")
		case strings.HasPrefix(p.name, "MPI_T_"):
			// The tools interface has no error handlers: its calls return its own codes.
			fmt.Fprintf(&st, "int %s(%s) { return MPI_T_ERR_NOT_SUPPORTED; }\n", pname, p.cparams())
		default:
			fmt.Fprintf(&st, "int %s(%s) { return mpigo_unsupported(\"%s\", %s); }\n", pname, p.cparams(), p.name, errObject(p))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		fmt.Fprintln(os.Stderr, strings.Join(bad, "\n"))
		os.Exit(1)
	}
	check(os.WriteFile("libmpi/zforward.c", fw.Bytes(), 0o644))
	check(os.WriteFile("libmpi/zstubs.c", st.Bytes(), 0o644))
	check(os.WriteFile("libmpi/zgo.h", halves.Bytes(), 0o644))
	libraryOnly := 0
	for _, p := range procs {
		if p.libraryOnly {
			libraryOnly++
		}
	}
	fmt.Printf("gen: %d procedures (%d exported only, not in mpi.h), %d implemented, %d of them by generated exports\n", len(procs), libraryOnly, implemented, nexp)
}

// checkGo checks the parameters and result of the Go export name against p's prototype.
func checkGo(name string, p proc, gp []string, ret string) []string {
	if len(gp) != len(p.params) {
		return []string{fmt.Sprintf("%s: Go export has %d parameters, C %d", name, len(gp), len(p.params))}
	}
	var bad []string
	for i, q := range p.params {
		if want := goType(q.typ); gp[i] != want {
			bad = append(bad, fmt.Sprintf("%s: parameter %d (%s %s) is %s in Go, want %s", name, i+1, q.typ, q.name, gp[i], want))
		}
	}
	if want := goType(p.ret); ret != want {
		bad = append(bad, fmt.Sprintf("%s: Go result %s, want %s", name, ret, want))
	}
	return bad
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
