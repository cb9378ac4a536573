package abi_test

import (
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/mpitest"
)

// TestToolInterface runs testdata/tools.c (the tool information interface through the
// C ABI: every procedure of MPI 4.1 chapter 15, their bad inputs, counters and an
// event callback as messages flow) and checks that its control variables are `mpigo
// info`'s settings, of the same values.
func TestToolInterface(t *testing.T) {
	mpigo := setup(t)
	out := job(t, "tools", 2, mpitest.Shm.Flags()...)
	info, err := exec.Command(mpigo, "info").Output()
	if err != nil {
		t.Fatalf("mpigo info: %v", err)
	}
	settings := infoSettings(t, string(info))
	listed := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		kv, ok := strings.CutPrefix(l, "cvar ")
		if !ok {
			continue
		}
		name, rest, _ := strings.Cut(kv, "=")
		value, typ, _ := strings.Cut(rest, "|")
		listed[name] = true
		want, ok := settings[name]
		switch {
		case !ok:
			t.Errorf("control variable %s: mpigo info lists no such setting", name)
		case name == "coll_shm" || name == "coll_allreduce":
			// the program wrote them before MPI_Init
		case !sameSetting(typ, value, want):
			t.Errorf("%s = %q (%s), mpigo info says %q", name, value, typ, want)
		}
	}
	for name := range settings {
		if !listed[name] {
			t.Errorf("setting %s is no control variable", name)
		}
	}
}

// infoSettings reads the settings table of mpigo info's output: name to value.
func infoSettings(t *testing.T, out string) map[string]string {
	t.Helper()
	lines := strings.Split(out, "\n")
	got := map[string]string{}
	for i, l := range lines {
		if !strings.HasPrefix(l, "  NAME") {
			continue
		}
		value, source := strings.Index(l, "VALUE"), strings.Index(l, "SOURCE")
		for _, row := range lines[i+1:] {
			if len(row) < source || strings.TrimSpace(row[:value]) == "" {
				continue
			}
			got[strings.TrimSpace(row[:value])] = strings.TrimSpace(row[value:source])
		}
	}
	if len(got) == 0 {
		t.Fatalf("no settings in mpigo info's output:\n%s", out)
	}
	return got
}

// sameSetting says whether a control variable's value as tools.c prints it is the
// setting's text as mpigo info prints it.
func sameSetting(typ, cvar, info string) bool {
	switch typ {
	case "double":
		d, err := time.ParseDuration(info)
		f, err2 := strconv.ParseFloat(cvar, 64)
		return err == nil && err2 == nil && math.Abs(f-d.Seconds()) <= 1e-12
	case "ull":
		n, err := config.ParseSize(info)
		return err == nil && strconv.FormatInt(n, 10) == cvar
	}
	return cvar == info
}

// TestPcontrol: MPI_Pcontrol(2) writes the rank's profile at once under mpigo run
// --profile; levels 0, 1 and others succeed and write nothing.
func TestPcontrol(t *testing.T) {
	dir := t.TempDir()
	jobArgs(t, "pcontrol", 2, []string{"--profile", dir}, []string{dir})
}
