package deps

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestErrorTextNamesNoPackage fails on an error of an internal package whose text
// begins with the name of an internal package ("p2p: message truncated"), as Go's
// errors customarily do. A user reads these errors through the mpi package, the C
// library or the launcher, which say which call or which rank met them: the package
// where mpigo raised one is nothing the user can act on, and core.Error frames every
// error once ("mpi: Recv: ..."). Checked: the text of errors.New and fmt.Errorf, and
// what an Error method returns; a panic (a bug of mpigo) may name its package. The
// names are every directory under internal/ that holds Go files.
func TestErrorTextNamesNoPackage(t *testing.T) {
	names := map[string]bool{}
	var files []string
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if m, _ := filepath.Glob(filepath.Join(p, "*.go")); len(m) > 0 && p != ".." {
				names[d.Name()] = true
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 20 || !names["p2p"] || !names["shm"] {
		t.Fatalf("found %d packages under internal/; the walk is wrong", len(names))
	}
	fset := token.NewFileSet()
	checked := 0
	for _, p := range files {
		if strings.Contains(p, "/mpitest/") {
			continue // the test helper's words go to a test's log
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		check := func(lit ast.Expr) {
			b, ok := lit.(*ast.BasicLit)
			if !ok || b.Kind != token.STRING {
				return
			}
			s, err := strconv.Unquote(b.Value)
			if err != nil {
				return
			}
			checked++
			if name, _, ok := strings.Cut(s, ": "); ok && names[name] {
				t.Errorf("%s: error text %q begins with the package name %q", fset.Position(b.Pos()), s, name)
			}
		}
		// first is the leftmost operand of a string sum ("x: " + y + z).
		first := func(e ast.Expr) ast.Expr {
			for {
				b, ok := e.(*ast.BinaryExpr)
				if !ok || b.Op != token.ADD {
					return e
				}
				e = b.X
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && len(n.Args) > 0 {
					if x, ok := sel.X.(*ast.Ident); ok &&
						(x.Name == "errors" && sel.Sel.Name == "New" || x.Name == "fmt" && sel.Sel.Name == "Errorf") {
						check(first(n.Args[0]))
					}
				}
			case *ast.FuncDecl:
				if n.Recv == nil || n.Name.Name != "Error" || n.Body == nil {
					return true
				}
				ast.Inspect(n.Body, func(m ast.Node) bool {
					r, ok := m.(*ast.ReturnStmt)
					if !ok || len(r.Results) != 1 {
						return true
					}
					e := first(r.Results[0])
					if c, ok := e.(*ast.CallExpr); ok && len(c.Args) > 0 {
						if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sprintf" {
							e = first(c.Args[0])
						}
					}
					check(e)
					return true
				})
			}
			return true
		})
	}
	if checked < 100 {
		t.Errorf("checked only %d error texts; the parse is wrong", checked)
	}
	if t.Failed() {
		var list []string
		for n := range names {
			list = append(list, n)
		}
		sort.Strings(list)
		t.Logf("the internal packages: %s", strings.Join(list, " "))
	}
}
