package abi_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The MPI 5.0 standard's tables of its ABI (testdata/mpi50-abi.txt: values, types and
// layouts; testdata/mpi50-procs.txt: the procedures), as their headers describe, and
// what a C compiler makes of include/mpi.h against them.

// abiRow is a row of mpi50-abi.txt: KIND | NAME | C TYPE | VALUE.
type abiRow struct {
	kind, name, ctype, value string
	line                     int
}

// abiProc is a line of mpi50-procs.txt: a prototype, and whether the ABI leaves it out.
type abiProc struct {
	name, proto string
	left        bool
	line        int
}

func readABIRows(t *testing.T) []abiRow {
	t.Helper()
	var rows []abiRow
	eachLine(t, "testdata/mpi50-abi.txt", func(n int, s string) {
		if strings.HasPrefix(s, "§") {
			return
		}
		f := strings.Split(s, "|")
		if len(f) != 4 {
			t.Fatalf("mpi50-abi.txt:%d: want KIND | NAME | C TYPE | VALUE: %q", n, s)
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		rows = append(rows, abiRow{kind: f[0], name: f[1], ctype: f[2], value: f[3], line: n})
	})
	return rows
}

var protoName = regexp.MustCompile(`^[\w ]*?\b(MPI_\w+)\(`)

func readABIProcs(t *testing.T) []abiProc {
	t.Helper()
	var procs []abiProc
	eachLine(t, "testdata/mpi50-procs.txt", func(n int, s string) {
		if strings.HasPrefix(s, "§") {
			return
		}
		p := abiProc{line: n}
		if rest, ok := strings.CutPrefix(s, "!"); ok {
			p.left = true
			s, _, _ = strings.Cut(rest, "#")
		}
		p.proto = strings.TrimSpace(s)
		m := protoName.FindStringSubmatch(p.proto)
		if m == nil {
			t.Fatalf("mpi50-procs.txt:%d: not a prototype: %q", n, s)
		}
		p.name = m[1]
		procs = append(procs, p)
	})
	return procs
}

// eachLine calls f on each line of path that is neither empty nor a comment.
func eachLine(t *testing.T, path string, f func(n int, s string)) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		if s := strings.TrimSpace(sc.Text()); s != "" && !strings.HasPrefix(s, "#") {
			f(n, s)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

var (
	cComment = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	mpiIdent = regexp.MustCompile(`\bP?MPIX?_\w+`)
)

// headerNames are the MPI_ (PMPI_, MPIX_) identifiers include/mpi.h spells outside its
// comments (every name it declares, and every one it uses), and the procedures it
// declares.
func headerNames(t *testing.T) (names, procs map[string]bool) {
	t.Helper()
	b, err := os.ReadFile("include/mpi.h")
	if err != nil {
		t.Fatal(err)
	}
	h := cComment.ReplaceAllString(string(b), "")
	names, procs = map[string]bool{}, map[string]bool{}
	for _, s := range mpiIdent.FindAllString(h, -1) {
		names[s] = true
	}
	for _, m := range cProto.FindAllStringSubmatch(h, -1) {
		procs[m[1]] = true
	}
	return names, procs
}

// cProto matches the start of a prototype at the start of a line, as abi/gen writes them.
var cProto = regexp.MustCompile(`(?m)^[A-Za-z_][\w \*]*\b(P?MPI_\w+)\(`)

// TestStandardABI: include/mpi.h has every value, type, layout and procedure of the
// MPI 5.0 standard ABI as the standard's tables give them, and nothing the tables do
// not have.
func TestStandardABI(t *testing.T) {
	cc := cCompiler(t)
	rows, procs := readABIRows(t), readABIProcs(t)
	inHeader, procsInHeader := headerNames(t)

	// Both ways by name first, so that a missing name is reported as that, not as
	// the C compiler's error.
	inTables := map[string]bool{
		"MPI_H_ABI": true, // the header's include guard, the reference header's too
	}
	var rowsHere []abiRow
	for _, r := range rows {
		name := r.name
		if st, field, ok := strings.Cut(name, "."); ok {
			inTables[st], inTables[field] = true, true
			name = st
		}
		inTables[name] = true
		for _, s := range mpiIdent.FindAllString(r.ctype, -1) {
			inTables[s] = true
		}
		if !inHeader[name] {
			t.Errorf("mpi50-abi.txt:%d: %s is not in include/mpi.h", r.line, r.name)
			continue
		}
		rowsHere = append(rowsHere, r)
	}
	var procsHere []abiProc
	for _, p := range procs {
		switch {
		case p.left && (procsInHeader[p.name] || procsInHeader["P"+p.name]):
			t.Errorf("mpi50-procs.txt:%d: include/mpi.h declares the procedure %s, which the ABI leaves out", p.line, p.name)
		case p.left:
		case !procsInHeader[p.name] || !procsInHeader["P"+p.name]:
			t.Errorf("mpi50-procs.txt:%d: include/mpi.h lacks %s or P%s", p.line, p.name, p.name)
		default:
			inTables[p.name], inTables["P"+p.name] = true, true
			for _, s := range mpiIdent.FindAllString(p.proto, -1) {
				inTables[s] = true
			}
			procsHere = append(procsHere, p)
		}
	}
	for name := range inHeader {
		if !inTables[name] {
			t.Errorf("include/mpi.h has %s, which the standard's tables (testdata/mpi50-*.txt) do not", name)
		}
	}

	// Then what the compiler sees: a program that prints each row's facts.
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "abi.c"), filepath.Join(dir, "abi")
	if err := os.WriteFile(src, []byte(abiProgram(rowsHere, procsHere)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, err := run(t, time.Minute, cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-Iinclude", "-o", bin, src)
	if err != nil {
		t.Fatalf("%s: compiling the checks of testdata/mpi50-*.txt against include/mpi.h: %v\n%s%s", cc, err, out, errs)
	}
	out, errs, err = run(t, time.Minute, bin)
	if err != nil {
		t.Fatalf("the checks: %v\n%s", err, errs)
	}
	seen := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		seen[f[0]+" "+f[1]] = f[2:]
	}
	for _, r := range rowsHere {
		checkRow(t, r, seen[r.kind+" "+r.name])
	}
	for _, p := range procsHere {
		got := seen["proc "+p.name]
		if len(got) != 2 || got[0] != "1" || got[1] != "1" {
			t.Errorf("mpi50-procs.txt:%d: include/mpi.h declares %s or P%s otherwise than the standard: %s (MPI_, PMPI_: %v)",
				p.line, p.name, p.name, p.proto, got)
		}
	}
}

// checkRow compares what the program printed for r with r.
func checkRow(t *testing.T, r abiRow, got []string) {
	t.Helper()
	where := fmt.Sprintf("mpi50-abi.txt:%d: %s", r.line, r.name)
	if len(got) == 0 {
		t.Errorf("%s: the checks printed nothing for it (a %s in include/mpi.h?)", where, r.kind)
		return
	}
	value := func(what, v string) {
		if got[0] != v {
			t.Errorf("%s: %s %s in include/mpi.h; the standard says %s", where, what, got[0], v)
		}
	}
	typed := func(i int) {
		if len(got) <= i || got[i] != "1" {
			t.Errorf("%s is not of type %s in include/mpi.h", where, r.ctype)
		}
	}
	switch r.kind {
	case "const", "enumerator", "macro":
		v, err := strconv.ParseInt(r.value, 0, 64)
		if err != nil {
			t.Errorf("%s: value %q: %v", where, r.value, err)
			return
		}
		value("the value is", strconv.FormatInt(v, 10))
		typed(1)
	case "typedef":
		typed(0)
	case "size":
		value("the size is", r.value)
	case "field":
		value("the offset is", r.value)
		typed(1)
	default:
		t.Errorf("%s: unknown kind %q", where, r.kind)
	}
}

// abiProgram is a C program that includes mpi.h and prints, a line each, what each
// row and procedure is there: "KIND NAME facts...", 1 for a type that matches.
func abiProgram(rows []abiRow, procs []abiProc) string {
	var b strings.Builder
	b.WriteString("#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <mpi.h>\n\n" +
		"#define SAME(a, b) __builtin_types_compatible_p(a, b)\n\nint main(void) {\n")
	p := func(format string, a ...any) { fmt.Fprintf(&b, "    "+format+"\n", a...) }
	for _, r := range rows {
		n, ty := r.name, r.ctype
		switch r.kind {
		case "const":
			p(`printf("const %s %%lld %%d\n", (long long)(intptr_t)(%s), _Generic((%s), %s: 1, default: 0));`, n, n, n, ty)
		case "enumerator":
			// An enumerator has type int in C; it must convert to its enumeration.
			p(`printf("enumerator %s %%lld %%d\n", (long long)(%s)(%s), _Generic((%s), int: 1, default: 0));`, n, ty, n, n)
		case "macro":
			fmt.Fprintf(&b, "#if defined(%s) && (%s) == (%s)\n", n, n, n)
			p(`printf("macro %s %%lld %%d\n", (long long)(%s), _Generic((%s), %s: 1, default: 0));`, n, n, n, ty)
			b.WriteString("#endif\n")
		case "typedef":
			p(`printf("typedef %s %%d\n", SAME(%s, %s));`, n, n, ty)
		case "size":
			p(`printf("size %s %%zu\n", sizeof(%s));`, n, n)
		case "field":
			st, f, _ := strings.Cut(n, ".")
			p(`printf("field %s %%zu %%d\n", offsetof(%s, %s), SAME(__typeof__(((%s *)0)->%s), %s));`, n, st, f, st, f, ty)
		}
	}
	for _, x := range procs {
		fn := strings.Replace(x.proto, x.name+"(", "(", 1) // the procedure's type
		p(`printf("proc %s %%d %%d\n", SAME(__typeof__(%s), %s), SAME(__typeof__(P%s), %s));`, x.name, x.name, fn, x.name, fn)
	}
	b.WriteString("    return 0;\n}\n")
	return b.String()
}

// cCompiler is the C compiler the checks use (the C ABI tests' compiler: cc, else gcc).
func cCompiler(t *testing.T) string {
	t.Helper()
	for _, cc := range []string{os.Getenv("MPIGO_CC"), "cc", "gcc"} {
		if cc == "" {
			continue
		}
		if p, err := exec.LookPath(cc); err == nil {
			return p
		}
	}
	t.Skip("no C compiler (cc or gcc) in PATH: the C ABI tests need one (apt-get install gcc)")
	return ""
}

// TestPublishedValues: a program built against the standard ABI's published values
// (testdata/published.c declares what it uses itself, without mpigo's mpi.h) gets
// error codes back under MPI_ERRORS_RETURN, and MPI_ERRORS_ARE_FATAL and
// MPI_ERRORS_ABORT end the job at the same error. It also calls the attribute
// procedures other ABI headers declare beyond the standard's, which the library has.
func TestPublishedValues(t *testing.T) {
	mpigo := setup(t)
	bin := cc(t, mpigo, filepath.Join("testdata", "published.c"))
	out, errs, err := run(t, 2*time.Minute, mpigo, "run", "-n", "2", bin)
	if err != nil || !strings.Contains(out, "OK published") {
		t.Fatalf("under MPI_ERRORS_RETURN: %v\n--- stdout\n%s--- stderr\n%s", err, out, errs)
	}
	for _, mode := range []string{"fatal", "abort"} {
		out, errs, err := run(t, 2*time.Minute, mpigo, "run", "-n", "2", bin, mode)
		if err == nil || strings.Contains(out, "RETURNED") {
			t.Errorf("under %s the erroneous call returned (job error %v)\n--- stdout\n%s--- stderr\n%s", mode, err, out, errs)
			continue
		}
		for _, want := range []string{"MPI_Send", "MPI_ERR_RANK"} {
			if !strings.Contains(errs, want) {
				t.Errorf("under %s, stderr lacks %q:\n%s", mode, want, errs)
			}
		}
	}
}

// TestFortranABI: MPI_Abi_get/set_fortran_info and _booleans as a Fortran layer on the
// C ABI uses them (testdata/fortranabi.c): unknown until set, the first set takes
// effect on the Fortran datatypes' sizes, support and logical reductions, a later one
// fails with MPI_ERR_ABI.
func TestFortranABI(t *testing.T) { job(t, "fortranabi", 2) }
