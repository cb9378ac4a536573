package deps

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the path the rules leave out of every name.
const module = "github.com/mpigo/mpigo"

// rules says which packages of the module each package may import, one rule per
// package or set of packages:
//
//	a, b < c, d;
//
// means c and d may import a and b, and nothing else of the module. An import is
// allowed by its own rule only: that a may import x does not let c import x (one way
// down: a layer reaches what lies below the layer under it through that layer's
// seam). An all-caps name stands for a set: "a, b < SET" makes SET mean a and b (and
// the members of any set among them), and SET on the left of a rule means its members.
// NONE on the left means nothing of the module's. "C" is cgo: a package whose rule does
// not list it may not use cgo.
//
// Every package of the module is on the right of exactly one rule, and every name on
// the left of a rule is defined by a rule above it, so the list reads bottom up and
// the graph it allows has no cycle. Adding a package is adding its rule (or its name
// to a rule). Names of packages that do not exist (yet) are allowed. Test files are
// not checked: tests may import what they need, and Go refuses their cycles.
const rules = `
# The pure packages: one job each, nothing of the module's, or only another pure
# package, below them.
NONE < internal/config, internal/rawmem, internal/ntcopy, internal/yield, internal/pm;
internal/config < internal/topo;
internal/config < internal/coll, internal/group;
internal/config, internal/group < internal/prof;
internal/config, internal/prof, internal/yield < internal/idle;
internal/ntcopy < internal/datatype;
internal/datatype < internal/mpio;
internal/rawmem < internal/vcodec;
internal/datatype < internal/op;
internal/datatype, internal/op < internal/rma;
internal/idle, internal/ntcopy, internal/yield < internal/shmcoll;

# The engine: transports, the wire-up, process managers, point-to-point.
internal/pm < internal/pm/pmi, internal/wireup;
internal/idle < internal/transport;
internal/transport < internal/transport/self;
internal/config, internal/idle, internal/ntcopy, internal/pm, internal/transport < internal/transport/shm;
internal/config, internal/pm, internal/transport < internal/transport/tcp;
internal/config, internal/idle, internal/ntcopy, internal/prof, internal/rawmem, internal/transport < internal/p2p;
internal/config, internal/idle, internal/pm, internal/prof, internal/topo, internal/transport/shm, internal/wireup < internal/launch;

# The device, over everything below it.
internal/coll, internal/config, internal/datatype, internal/group, internal/idle,
internal/ntcopy, internal/p2p, internal/pm, internal/pm/pmi, internal/prof, internal/rma, internal/shmcoll,
internal/topo, internal/transport, internal/transport/self, internal/transport/shm,
internal/transport/tcp, internal/wireup, internal/yield
< DEVICE;
DEVICE < internal/core;
DEVICE, internal/core < internal/collective;
DEVICE, internal/core, internal/collective < internal/window;

# MPI's semantics, once for both faces: the device and the pure packages that hold
# semantics of their own (virtual topologies, Info, attributes, the tool interface),
# which only mpir imports.
NONE < internal/vtopo, internal/info, internal/attr, internal/mpit;
internal/core, internal/collective, internal/window, internal/vtopo, internal/info, internal/attr, internal/mpit,
internal/mpio,
internal/config, internal/datatype, internal/group, internal/idle, internal/op, internal/prof, internal/vcodec
< internal/mpir;

# The faces: the Go package and the C library (the one package with cgo). They reach
# the pure packages' types through mpir and core, except the ones their handles wrap.
internal/mpir, internal/core, internal/collective, internal/window,
internal/datatype, internal/group, internal/vcodec, internal/prof < FACE;
FACE < mpi;
FACE, C < abi/libmpi;

# Commands, tools, benchmarks, examples and test support.
NONE < abi, abi/gen, internal/coverage, internal/deps;
internal/launch < internal/mpitest;
mpi, abi, internal/config, internal/core, internal/collective, internal/window, internal/launch, internal/topo < cmd/mpigo;
mpi < examples/hello, examples/pi, examples/workers, bench/osu, bench/matrixcost, bench/typedcost;
mpi, bench/osu < bench/bibw, bench/bw, bench/coll, bench/collcost, bench/collmove,
	bench/io, bench/iocost, bench/lat, bench/rma, bench/spawn, bench/value, bench/valuetrials;
bench/osu, internal/datatype < bench/dtype;
`

// TestImports checks every package's imports against the rules.
func TestImports(t *testing.T) {
	allowed, err := parseRules(rules)
	if err != nil {
		t.Fatalf("the rules: %v", err)
	}
	graph := moduleImports(t)
	for _, pkg := range sortedKeys(graph) {
		ok, listed := allowed[pkg]
		if !listed {
			t.Errorf("%s is named by no rule: add it to the rules in deps_test.go, with what it may import", pkg)
			continue
		}
		for _, imp := range graph[pkg] {
			if !ok[imp] {
				t.Errorf("%s imports %s, which its rule does not allow", pkg, imp)
			}
		}
	}
	if cycle := findCycle(graph); cycle != nil {
		t.Errorf("the imports go round: %s", strings.Join(cycle, " -> "))
	}
	for _, name := range sortedKeys(allowed) {
		if _, ok := graph[name]; !ok {
			t.Logf("the rules name %s, which is no package (yet)", name)
		}
	}
}

// TestRulesParse checks that bad rules are refused.
func TestRulesParse(t *testing.T) {
	for _, bad := range []string{
		"a < b; c < b;", // b defined twice
		"a < b;",        // a used before it is defined
		"NONE < a; a < a;",
		"NONE < a; a b < c;",
		"NONE < a; < c;",
		"NONE < a < ;",
		"NONE < NONE;",
	} {
		if _, err := parseRules(bad); err == nil {
			t.Errorf("parseRules(%q) accepted bad rules", bad)
		}
	}
	got, err := parseRules("NONE < a, b; a < SET; SET, b < c, d;")
	if err != nil {
		t.Fatal(err)
	}
	if !got["c"]["a"] || !got["d"]["b"] || got["a"]["b"] || len(got["a"]) != 0 {
		t.Errorf("parseRules gave %v", got)
	}
	if _, ok := got["SET"]; ok {
		t.Errorf("a set is no package: %v", got)
	}
}

// TestCycleFound checks that findCycle finds a cycle and only one.
func TestCycleFound(t *testing.T) {
	if c := findCycle(map[string][]string{"a": {"b"}, "b": {"c"}, "c": nil}); c != nil {
		t.Errorf("a chain has a cycle: %v", c)
	}
	c := findCycle(map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}})
	if len(c) != 4 || c[0] != c[3] {
		t.Errorf("findCycle on a ring of 3 = %v", c)
	}
}

// parseRules turns the rules into what each package may import.
func parseRules(text string) (map[string]map[string]bool, error) {
	allowed := map[string]map[string]bool{}
	sets := map[string][]string{}
	defined := map[string]bool{"NONE": true, "C": true}
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		lines = append(lines, line)
	}
	for _, stmt := range strings.Split(strings.Join(lines, " "), ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		parts := strings.Split(stmt, "<")
		if len(parts) < 2 {
			return nil, errors.New("no < in rule: " + strings.TrimSpace(stmt))
		}
		for i := 0; i+1 < len(parts); i++ {
			left, err := names(parts[i])
			if err != nil {
				return nil, err
			}
			right, err := names(parts[i+1])
			if err != nil {
				return nil, err
			}
			var members []string
			for _, l := range left {
				if !defined[l] {
					return nil, errors.New(l + " is used before a rule defines it")
				}
				if m, ok := sets[l]; ok {
					members = append(members, m...)
				} else if l != "NONE" {
					members = append(members, l)
				}
			}
			for _, r := range right {
				if defined[r] {
					return nil, errors.New(r + " is defined twice")
				}
				defined[r] = true
				if isSet(r) {
					sets[r] = members
					continue
				}
				allowed[r] = map[string]bool{}
				for _, m := range members {
					allowed[r][m] = true
				}
			}
		}
	}
	return allowed, nil
}

// names splits one side of a rule.
func names(side string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(side, ",") {
		f = strings.TrimSpace(f)
		if f == "" || strings.ContainsAny(f, " \t") {
			return nil, errors.New("bad list of names: " + strings.TrimSpace(side))
		}
		out = append(out, f)
	}
	return out, nil
}

// isSet reports whether a name is a set's: all capitals (and dashes).
func isSet(name string) bool {
	return name != "C" && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ-") == ""
}

// moduleImports reads every package of the module (testdata and hidden directories
// left out, as the go command leaves them) and returns what its non-test files import
// of the module, and "C" for cgo, by package, both without the module's path.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.HasPrefix(string(b), "module "+module+"\n") {
		t.Fatalf("%s is not the module's root (%v)", root, err)
	}
	ctxt := build.Default
	ctxt.CgoEnabled = true
	graph := map[string][]string{}
	err = filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); dir != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		p, err := ctxt.ImportDir(dir, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, dir)
		var imps []string
		for _, imp := range p.Imports {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				imps = append(imps, rest)
			} else if imp == "C" {
				imps = append(imps, imp)
			}
		}
		graph[filepath.ToSlash(rel)] = imps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(graph) < 10 {
		t.Fatalf("found only %d packages under %s", len(graph), root)
	}
	return graph
}

// findCycle returns a cycle of graph (its first package repeated at its end), or nil.
func findCycle(graph map[string][]string) []string {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) []string
	visit = func(p string) []string {
		state[p] = onPath
		path = append(path, p)
		for _, q := range graph[p] {
			switch state[q] {
			case onPath:
				i := slices.Index(path, q)
				return append(slices.Clone(path[i:]), q)
			case unseen:
				if c := visit(q); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[p] = done
		return nil
	}
	for _, p := range sortedKeys(graph) {
		if state[p] == unseen {
			if c := visit(p); c != nil {
				return c
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
