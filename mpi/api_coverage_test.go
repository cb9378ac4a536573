package mpi_test

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestEveryExportedFunctionIsUsedByATest holds the project's rule that every exported
// function and method of package mpi is called by a test: it type-checks the package
// with its test files and lists the exported functions and methods of the non-test
// files that no test file uses. Identifiers are resolved with go/types, so a method
// counts only when it is used on its own type (a call through an interface, such as
// fmt calling String, does not count). That a test uses a function says nothing of
// what it checks; the tests beside it run every one of them in a real job.
func TestEveryExportedFunctionIsUsedByATest(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package with its tests")
	}
	t.Parallel() // seconds spent mostly waiting for the go command
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the importer needs the go command:", err)
	}
	unused, total, err := unusedExports(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(unused) > 0 {
		t.Errorf("%d of %d exported functions and methods are used by no test:\n\t%s",
			len(unused), total, strings.Join(unused, "\n\t"))
	}
}

const mpiPath = "github.com/mpigo/mpigo/mpi"

// selfImporter imports the package being checked as checked, and the rest from source.
type selfImporter struct {
	src  types.Importer
	self *types.Package
}

func (i selfImporter) Import(p string) (*types.Package, error) {
	if p == mpiPath && i.self != nil {
		return i.self, nil
	}
	return i.src.Import(p)
}

// exportImporter imports the packages the package in dir and its tests depend on from
// the export data the go command built for them (go list -export), as the compiler
// does: the standard library is not type-checked again from source, and no cgo runs
// (the source importer's leaves its object files in the temporary directory).
func exportImporter(fset *token.FileSet, dir string) (types.Importer, error) {
	cmd := exec.Command("go", "list", "-deps", "-test", "-export", "-f", "{{.ImportPath}}\t{{.Export}}", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v", err)
	}
	files := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		path, file, ok := strings.Cut(line, "\t")
		if ok && file != "" && !strings.Contains(path, " ") { // not a test's variant
			files[path] = file
		}
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := files[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	}), nil
}

// unusedExports returns the exported functions and methods declared in the non-test
// files of the package in dir that its test files do not use, and how many there are.
func unusedExports(dir string) ([]string, int, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, 0, err
	}
	var lib, inTest, exTest []*ast.File
	isTest := map[string]bool{}
	for _, name := range names {
		if ok, _ := build.Default.MatchFile(dir, filepath.Base(name)); !ok {
			continue // excluded by a build constraint
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return nil, 0, err
		}
		switch {
		case !strings.HasSuffix(name, "_test.go"):
			lib = append(lib, f)
		case f.Name.Name == "mpi":
			inTest, isTest[fset.Position(f.Pos()).Filename] = append(inTest, f), true
		default:
			exTest = append(exTest, f)
		}
	}
	inTestFile := func(p token.Pos) bool { return isTest[fset.Position(p).Filename] }
	src, err := exportImporter(fset, dir)
	if err != nil {
		return nil, 0, err
	}
	used := map[string]bool{}
	record := func(info *types.Info, count func(token.Pos) bool) {
		for id, o := range info.Uses {
			if f, ok := o.(*types.Func); ok && count(id.Pos()) {
				used[f.Origin().FullName()] = true
			}
		}
	}
	// The package as its tests see it, with its internal test files (package mpi,
	// which may export helpers to the external tests); only their own uses count.
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := (&types.Config{Importer: selfImporter{src: src}}).Check(mpiPath, fset, append(append([]*ast.File{}, lib...), inTest...), info)
	if err != nil {
		return nil, 0, err
	}
	record(info, inTestFile)
	info = &types.Info{Uses: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: selfImporter{src: src, self: pkg}}).Check(mpiPath+"_test", fset, exTest, info); err != nil {
		return nil, 0, err
	}
	record(info, func(token.Pos) bool { return true })

	var all []string
	scope := pkg.Scope()
	for _, n := range scope.Names() {
		switch o := scope.Lookup(n).(type) {
		case *types.Func:
			if o.Exported() && !inTestFile(o.Pos()) {
				all = append(all, o.FullName())
			}
		case *types.TypeName:
			named, ok := o.Type().(*types.Named)
			if !ok || !o.Exported() || inTestFile(o.Pos()) {
				continue
			}
			for i := 0; i < named.NumMethods(); i++ {
				if m := named.Method(i); m.Exported() && !inTestFile(m.Pos()) {
					all = append(all, m.FullName())
				}
			}
		}
	}
	var unused []string
	for _, name := range all {
		if !used[name] {
			unused = append(unused, strings.ReplaceAll(name, mpiPath+".", "mpi."))
		}
	}
	sort.Strings(unused)
	return unused, len(all), nil
}
