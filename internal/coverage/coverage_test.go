package coverage

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite "+DocFile+" from the list, the map and package mpi")

// TestDocUpToDate regenerates docs/COVERAGE.md and compares it with the file.
func TestDocUpToDate(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := RepoRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Generate(root)
	if err != nil {
		t.Fatalf("%v\n(fix %s, then run: go test ./internal/coverage -update)", err, MapFile)
	}
	path := filepath.Join(root, DocFile)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run: go test ./internal/coverage -update)", err)
	}
	if string(want) != got {
		t.Fatalf("%s is out of date with %s, %s or package mpi's exported API; run:\n\tgo test ./internal/coverage -update\nfirst difference at %s",
			DocFile, ProceduresFile, MapFile, firstDiff(string(want), got))
	}
}

// firstDiff describes the first line where a and b differ.
func firstDiff(a, b string) string {
	as, bs := bufio.NewScanner(strings.NewReader(a)), bufio.NewScanner(strings.NewReader(b))
	for n := 1; ; n++ {
		ma, mb := as.Scan(), bs.Scan()
		if !ma && !mb {
			return "no line (the files differ in their last newline)"
		}
		if !ma || !mb || as.Text() != bs.Text() {
			return fmt.Sprintf("line %d:\n  in the file: %q\n  generated:   %q", n, as.Text(), bs.Text())
		}
	}
}

func TestParseProcedures(t *testing.T) {
	chs, err := ParseProcedures("# c\n## A\nMPI_X\n\nMPI_Y\n## B (counted separately)\nMPI_Z\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(chs) != 2 || chs[0].Title != "A" || len(chs[0].Procs) != 2 || chs[0].Separate ||
		chs[1].Title != "B" || !chs[1].Separate || chs[1].Procs[0] != "MPI_Z" {
		t.Fatalf("got %+v", chs)
	}
	for _, bad := range []string{"MPI_X\n", "## A\nMPI_X\nMPI_X\n", "## A\nSend\n"} {
		if _, err := ParseProcedures(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseMap(t *testing.T) {
	m, err := ParseMap("# c\nMPI_A | implemented | Send, Comm.Split |\nMPI_B | partial | Bsend | why\nMPI_C | n/a | | why\n")
	if err != nil {
		t.Fatal(err)
	}
	if e := m["MPI_A"]; e.Status != Implemented || len(e.Go) != 2 || e.Go[1] != "Comm.Split" {
		t.Fatalf("got %+v", e)
	}
	for _, bad := range []string{
		"MPI_A | implemented | |",                  // implemented without a call
		"MPI_A | partial | Send |",                 // partial without a note
		"MPI_A | n/a | Send | why",                 // n/a with a call
		"MPI_A | done | Send |",                    // unknown status
		"MPI_A | implemented | Send",               // three fields
		"MPI_A | missing | |\nMPI_A | missing | |", // twice
	} {
		if _, err := ParseMap(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestRenderChecks(t *testing.T) {
	chs := []Chapter{{Title: "A", Procs: []string{"MPI_A", "MPI_B"}}}
	api := API{"Send": "Send[T]", "Comm.Split": "(*Comm).Split", "Extra": "Extra"}
	m, err := ParseMap("MPI_A | implemented | Send, Comm.Split |\nMPI_B | partial | Comm.Split | refused on intercommunicators\n")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Render(chs, m, api)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| [A](#a) | 2 | 1 | 1 | 0 | 0 | 50% | 100% |",
		"| MPI_A | `Send[T]`, `(*Comm).Split` | implemented |  |",
		"- `Extra`",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %q", want)
		}
	}
	for _, bad := range []string{"MPI_A | implemented | Recv |", "MPI_Q | missing | |"} {
		m, err := ParseMap(bad)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Render(chs, m, api); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestReadAPI(t *testing.T) {
	dir := t.TempDir()
	src := "package mpi\n\ntype Comm struct{}\ntype inner struct{}\n" +
		"func Send[T any](c *Comm, b []T) error { return nil }\n" +
		"func (c *Comm) Split() {}\nfunc (s Comm) Size() int { return 0 }\n" +
		"func (inner) Hidden() {}\nfunc helper() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a_test.go"), []byte("package mpi\nfunc TestX() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	api, err := ReadAPI(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := API{"Send": "Send[T]", "Comm.Split": "(*Comm).Split", "Comm.Size": "Comm.Size"}
	if len(api) != len(want) {
		t.Fatalf("got %v, want %v", api, want)
	}
	for k, v := range want {
		if api[k] != v {
			t.Errorf("%s: got %q, want %q", k, api[k], v)
		}
	}
}
