package mpi

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The facade and the C library import the semantics layer (mpir), the device and the
// pure packages their handles wrap, never a package below the device (the engine,
// transports, collectives, windows): see docs/ARCHITECTURE.md, "The device and the
// facade".
func TestFacadeImports(t *testing.T) {
	allowed := map[string]bool{"mpir": true, "core": true, "datatype": true, "group": true, "vcodec": true, "prof": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	cfiles, err := filepath.Glob("../abi/libmpi/*.go")
	if err != nil || len(cfiles) == 0 {
		t.Fatalf("the C library's files: %v (%v)", cfiles, err)
	}
	files = append(files, cfiles...)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(path, "github.com/mpigo/mpigo/internal/"); ok && !allowed[rest] {
				t.Errorf("%s imports %s, below the device", name, path)
			}
		}
	}
}
