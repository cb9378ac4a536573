// Package coverage generates docs/COVERAGE.md, the table of the MPI 4.1 standard's
// procedures by chapter and the mpigo calls that cover each, from three inputs in the
// repository:
//
//   - docs/mpi41-procedures.txt, the standard's procedures by chapter;
//   - docs/coverage-map.txt, mpigo's side: a status, the Go calls and a note per
//     procedure;
//   - the exported functions and methods of package mpi, read from mpi/*.go with
//     go/parser (the package is never imported or built).
//
// Its test fails when docs/COVERAGE.md differs from what the inputs give, and
// `go test ./internal/coverage -update` rewrites it.
package coverage

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The files, relative to the repository root.
const (
	ProceduresFile = "docs/mpi41-procedures.txt"
	MapFile        = "docs/coverage-map.txt"
	DocFile        = "docs/COVERAGE.md"
	APIDir         = "mpi"
)

// separateSuffix ends the title of a chapter that is counted apart from the total.
const separateSuffix = "(counted separately)"

// Chapter is a chapter of the standard and its procedures, in the list's order.
type Chapter struct {
	Title    string
	Separate bool // not part of the total
	Procs    []string
}

// The statuses of a procedure.
const (
	Implemented = "implemented"
	Partial     = "partial"
	NotNeeded   = "n/a"
	Missing     = "missing"
)

// Entry is one line of the map.
type Entry struct {
	MPI    string
	Status string
	Go     []string // keys of API: "Send", "Comm.Split"
	Note   string
	Line   int
}

// API is the exported functions and methods of package mpi: key ("Send",
// "Comm.Split") to how the table shows it ("Send[T]", "(*Comm).Split").
type API map[string]string

// ParseProcedures reads the list of the standard's procedures.
func ParseProcedures(text string) ([]Chapter, error) {
	var chs []Chapter
	seen := map[string]int{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		n := i + 1
		switch {
		case line == "":
		case strings.HasPrefix(line, "## "):
			title := strings.TrimSpace(line[3:])
			sep := strings.HasSuffix(title, separateSuffix)
			if sep {
				title = strings.TrimSpace(strings.TrimSuffix(title, separateSuffix))
			}
			chs = append(chs, Chapter{Title: title, Separate: sep})
		case strings.HasPrefix(line, "#"):
		default:
			if len(chs) == 0 {
				return nil, fmt.Errorf("line %d: %q before the first chapter", n, line)
			}
			if !strings.HasPrefix(line, "MPI_") || strings.ContainsAny(line, " \t|") {
				return nil, fmt.Errorf("line %d: %q is not a procedure name", n, line)
			}
			if prev, ok := seen[line]; ok {
				return nil, fmt.Errorf("line %d: %s is already listed at line %d", n, line, prev)
			}
			seen[line] = n
			chs[len(chs)-1].Procs = append(chs[len(chs)-1].Procs, line)
		}
	}
	return chs, nil
}

// ParseMap reads the map of mpigo's calls.
func ParseMap(text string) (map[string]Entry, error) {
	m := map[string]Entry{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		n := i + 1
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 fields separated by |, got %d", MapFile, n, len(f))
		}
		for j := range f {
			f[j] = strings.TrimSpace(f[j])
		}
		e := Entry{MPI: f[0], Status: f[1], Note: f[3], Line: n}
		for _, g := range strings.Split(f[2], ",") {
			if g = strings.TrimSpace(g); g != "" {
				e.Go = append(e.Go, g)
			}
		}
		switch e.Status {
		case Implemented, Partial:
			if len(e.Go) == 0 {
				return nil, fmt.Errorf("%s:%d: %s is %s but names no Go call", MapFile, n, e.MPI, e.Status)
			}
		case NotNeeded, Missing:
			if len(e.Go) != 0 {
				return nil, fmt.Errorf("%s:%d: %s is %s but names Go calls", MapFile, n, e.MPI, e.Status)
			}
		default:
			return nil, fmt.Errorf("%s:%d: status %q: want %s, %s, %s or %s", MapFile, n, e.Status, Implemented, Partial, NotNeeded, Missing)
		}
		if (e.Status == Partial || e.Status == NotNeeded) && e.Note == "" {
			return nil, fmt.Errorf("%s:%d: %s is %s: the note must say why", MapFile, n, e.MPI, e.Status)
		}
		if prev, ok := m[e.MPI]; ok {
			return nil, fmt.Errorf("%s:%d: %s is already mapped at line %d", MapFile, n, e.MPI, prev.Line)
		}
		m[e.MPI] = e
	}
	return m, nil
}

// ReadAPI parses the non-test Go files of dir and returns their exported functions, and
// the exported methods of their exported types.
func ReadAPI(dir string) (API, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	api := API{}
	aliases := map[string][2]string{} // exported alias -> (package name, type) it stands for
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, sp := range gd.Specs {
					ts := sp.(*ast.TypeSpec)
					if se, ok := ts.Type.(*ast.SelectorExpr); ok && ts.Assign.IsValid() && ts.Name.IsExported() {
						if pk, ok := se.X.(*ast.Ident); ok {
							aliases[ts.Name.Name] = [2]string{pk.Name, se.Sel.Name}
						}
					}
				}
				continue
			}
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv == nil {
				show := fd.Name.Name
				if tp := fd.Type.TypeParams; tp != nil {
					var ps []string
					for _, p := range tp.List {
						for _, id := range p.Names {
							ps = append(ps, id.Name)
						}
					}
					show += "[" + strings.Join(ps, ", ") + "]"
				}
				api[fd.Name.Name] = show
				continue
			}
			typ, ptr := recvType(fd.Recv.List[0].Type)
			if typ == "" || !ast.IsExported(typ) {
				continue
			}
			show := typ + "." + fd.Name.Name
			if ptr {
				show = "(*" + typ + ")." + fd.Name.Name
			}
			api[typ+"."+fd.Name.Name] = show
		}
	}
	if len(api) == 0 {
		return nil, fmt.Errorf("no exported functions in %s", dir)
	}
	// An alias of another package's type (mpi's Error is internal/core's) has that
	// type's methods.
	for name, to := range aliases {
		other, err := ReadAPI(filepath.Join(dir, "..", "internal", to[0]))
		if err != nil {
			continue // not one of the module's internal packages
		}
		for key := range other {
			if t, m, ok := strings.Cut(key, "."); ok && t == to[1] {
				api[name+"."+m] = strings.Replace(other[key], to[1], name, 1)
			}
		}
	}
	return api, nil
}

// recvType is the name of a method's receiver type and whether it is a pointer.
func recvType(e ast.Expr) (string, bool) {
	ptr := false
	if s, ok := e.(*ast.StarExpr); ok {
		e, ptr = s.X, true
	}
	switch t := e.(type) {
	case *ast.IndexExpr: // a generic type's receiver: T[P]
		e = t.X
	case *ast.IndexListExpr:
		e = t.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name, ptr
	}
	return "", ptr
}

// Generate reads the inputs under root and returns the text of docs/COVERAGE.md.
func Generate(root string) (string, error) {
	procs, err := os.ReadFile(filepath.Join(root, ProceduresFile))
	if err != nil {
		return "", err
	}
	chs, err := ParseProcedures(string(procs))
	if err != nil {
		return "", fmt.Errorf("%s: %w", ProceduresFile, err)
	}
	mtext, err := os.ReadFile(filepath.Join(root, MapFile))
	if err != nil {
		return "", err
	}
	m, err := ParseMap(string(mtext))
	if err != nil {
		return "", err
	}
	api, err := ReadAPI(filepath.Join(root, APIDir))
	if err != nil {
		return "", err
	}
	return Render(chs, m, api)
}

// count is the tally of one chapter.
type count struct{ total, impl, part, na, miss int }

func (c *count) add(status string) {
	c.total++
	switch status {
	case Implemented:
		c.impl++
	case Partial:
		c.part++
	case NotNeeded:
		c.na++
	default:
		c.miss++
	}
}

func (c *count) plus(o count) {
	c.total += o.total
	c.impl += o.impl
	c.part += o.part
	c.na += o.na
	c.miss += o.miss
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d%%", int(math.Round(100*float64(n)/float64(of))))
}

func (c count) row(name string) string {
	return fmt.Sprintf("| %s | %d | %d | %d | %d | %d | %s | %s |\n", name, c.total, c.impl, c.part, c.na, c.miss,
		pct(c.impl, c.total), pct(c.impl+c.part, c.total))
}

// Render checks the map against the list and the API and writes the document.
func Render(chs []Chapter, m map[string]Entry, api API) (string, error) {
	listed := map[string]bool{}
	for _, ch := range chs {
		for _, p := range ch.Procs {
			listed[p] = true
		}
	}
	var errs []string
	used := map[string]bool{}
	for _, e := range sortedEntries(m) {
		if !listed[e.MPI] {
			errs = append(errs, fmt.Sprintf("%s:%d: %s is not in %s", MapFile, e.Line, e.MPI, ProceduresFile))
		}
		for _, g := range e.Go {
			if _, ok := api[g]; !ok {
				errs = append(errs, fmt.Sprintf("%s:%d: %s: package mpi has no exported %s", MapFile, e.Line, e.MPI, g))
			}
			used[g] = true
		}
	}
	if len(errs) > 0 {
		return "", fmt.Errorf("%s", strings.Join(errs, "\n"))
	}

	var b strings.Builder
	b.WriteString(strings.ReplaceAll(header, "§", "`"))

	var total count
	counts := make([]count, len(chs))
	for i, ch := range chs {
		for _, p := range ch.Procs {
			counts[i].add(statusOf(m, p))
		}
		if !ch.Separate {
			total.plus(counts[i])
		}
	}
	b.WriteString("## Summary\n\n")
	b.WriteString("| Chapter | In MPI 4.1 | Implemented | Partial | n/a in Go | Missing | % implemented | % implemented or partial |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for i, ch := range chs {
		if !ch.Separate {
			b.WriteString(counts[i].row(link(ch.Title)))
		}
	}
	b.WriteString(total.row("**Total**"))
	b.WriteString("\nCounted separately, and not in the total:\n\n")
	b.WriteString("| Chapter | In MPI 4.1 | Implemented | Partial | n/a in Go | Missing | % implemented | % implemented or partial |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for i, ch := range chs {
		if ch.Separate {
			b.WriteString(counts[i].row(link(ch.Title)))
		}
	}

	for _, ch := range chs {
		fmt.Fprintf(&b, "\n## %s\n\n", ch.Title)
		if ch.Separate {
			b.WriteString("Counted separately, and not in the total.\n\n")
		}
		b.WriteString("| MPI procedure | mpigo | Status | Notes |\n| --- | --- | --- | --- |\n")
		for _, p := range ch.Procs {
			e := m[p]
			var gos []string
			for _, g := range e.Go {
				gos = append(gos, "`"+api[g]+"`")
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", p, strings.Join(gos, ", "), statusOf(m, p), cell(e.Note))
		}
	}

	var extra []string
	for k := range api {
		if !used[k] {
			extra = append(extra, "`"+api[k]+"`")
		}
	}
	sort.Strings(extra)
	b.WriteString("\n## mpigo calls that stand for no MPI procedure\n\n")
	b.WriteString("Exported functions and methods of package mpi that no row above names: Go conveniences\n")
	b.WriteString("(typed buffers, in-place markers, String methods), mpigo's own reports, and calls\n")
	b.WriteString("that a new row should name.\n\n")
	for _, x := range extra {
		fmt.Fprintf(&b, "- %s\n", x)
	}
	return b.String(), nil
}

func statusOf(m map[string]Entry, p string) string {
	if e, ok := m[p]; ok {
		return e.Status
	}
	return Missing
}

func sortedEntries(m map[string]Entry) []Entry {
	es := make([]Entry, 0, len(m))
	for _, e := range m {
		es = append(es, e)
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Line < es[j].Line })
	return es
}

// link is a chapter title as a link to its section of the document.
func link(title string) string {
	var a strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			a.WriteRune(r)
		case r == ' ':
			a.WriteRune('-')
		}
	}
	return "[" + title + "](#" + a.String() + ")"
}

// cell makes text safe in a table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// RepoRoot finds the module root above dir (the directory holding go.mod).
func RepoRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}

// header opens the document; § stands for a backquote.
const header = `# MPI 4.1 coverage

Every procedure of the MPI 4.1 standard, by chapter, and the mpigo calls (package §mpi§)
that cover it. This file is generated: edit §docs/mpi41-procedures.txt§ (the standard's
procedures) or §docs/coverage-map.txt§ (mpigo's calls, statuses and notes), then run

    go test ./internal/coverage -update

The test of §internal/coverage§ fails while this file is out of date with either of them
or with package mpi's exported API, and when the map names a Go call that does not exist.

## What is counted

- **Source of the list.** The C prototypes of the MPI Forum's ABI header
  (mpi-forum/mpi-abi-stubs, §mpi.h§, which marks deprecations), less what MPI 5.0 added,
  checked against the MPI 4.1 report; chapters as in the report. A few placements are a
  reading of the report rather than a copy of its index (§MPI_Init_thread§ and
  §MPI_Info_create_env§ under process initialization, §MPI_Query_thread§ and
  §MPI_Is_thread_main§ under external interfaces, §MPI_Type_get_value_index§ under
  collectives, §MPI_Get_hw_resource_info§ under environmental management); moving one
  changes a chapter's counts, not the total.
- **One row per procedure with a C binding in MPI 4.1**, under its plain name. The
  large-count twins (§MPI_Send_c§, ...) are not rows of their own: mpigo's counts are Go
  ints (64 bits on 64-bit platforms), so one Go call covers both. Not listed at all: the §PMPI_§ profiling
  names, Fortran-only procedures (§MPI_Sizeof§, §MPI_F_sync_reg§), the predefined callback
  functions (§MPI_COMM_DUP_FN§, ...), procedures removed before MPI 4.1, and MPI 5.0's
  additions (§MPI_Abi_*§, §MPI_Status_set_source§ and its kin, §MPI_Comm_toint§ and its kin).
- **Counted separately**, outside the total: the deprecated procedures, and the
  language-binding procedures that exist for Fortran (handle conversions, Fortran KIND
  datatypes).
- **Status.** *implemented*: the Go calls do everything the standard defines for the
  procedure (an §info§ argument, which carries hints an implementation may ignore, is
  not required). *partial*: they exist but refuse or lack a case the standard defines; the
  note says which. "Typed slices only" means the call takes a Go slice of a predefined
  element type and has no form taking a derived datatype (a §Buf§, see §mpi.Typed§),
  which the standard allows for every buffer. *n/a in Go*: mpigo has no call because Go
  does the work (the collector frees memory, slices replace addresses); the note says how.
  *missing*: no call.
- **Percentages** are of all the chapter's procedures: n/a counts against them.

`
