package ntcopy

import (
	"os"
	"strings"
	"testing"
)

// SplitCaches follows the CPU's vendor, as the kernel reports it in /proc/cpuinfo.
func TestSplitCaches(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo:", err)
	}
	var v string
	for _, l := range strings.Split(string(b), "\n") {
		if k, val, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "vendor_id" {
			v = strings.TrimSpace(val)
			break
		}
	}
	if v == "" {
		t.Skip("no vendor_id in /proc/cpuinfo")
	}
	if want := v == "AuthenticAMD" || v == "HygonGenuine"; SplitCaches != want {
		t.Errorf("SplitCaches %v on a CPU of vendor %q, want %v", SplitCaches, v, want)
	}
	for _, c := range []struct {
		name string
		want bool
	}{{"GenuineIntel", false}, {"AuthenticAMD", true}, {"HygonGenuine", true}, {"CentaurHauls", false}} {
		w := func(s string) uint32 { return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24 }
		if got := splitVendor(w(c.name[0:4]), w(c.name[4:8]), w(c.name[8:12])); got != c.want {
			t.Errorf("splitVendor(%q) = %v, want %v", c.name, got, c.want)
		}
		if got := intelVendor(w(c.name[0:4]), w(c.name[4:8]), w(c.name[8:12])); got != (c.name == "GenuineIntel") {
			t.Errorf("intelVendor(%q) = %v", c.name, got)
		}
	}
}

// Move takes REP MOVSB on the CPUs whose vendor and flags say so, as /proc/cpuinfo
// reports them.
func TestRepMove(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo:", err)
	}
	var vendor, flags string
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		switch k = strings.TrimSpace(k); {
		case !ok:
		case k == "vendor_id" && vendor == "":
			vendor = strings.TrimSpace(v)
		case k == "flags" && flags == "":
			flags = " " + strings.TrimSpace(v) + " "
		}
	}
	if vendor == "" || flags == "" {
		t.Skip("no vendor_id or flags in /proc/cpuinfo")
	}
	want := (vendor == "AuthenticAMD" || vendor == "HygonGenuine") &&
		strings.Contains(flags, " erms ") && strings.Contains(flags, " fsrm ")
	vec := vendor == "GenuineIntel" && strings.Contains(flags, " erms ") &&
		strings.Contains(flags, " fsrm ") && strings.Contains(flags, " avx ")
	if vecLoop != vec {
		t.Errorf("vecLoop %v on a %s CPU with flags %q, want %v", vecLoop, vendor, flags, vec)
	}
	if lo, hi := MoveVec(); (lo == vecMin && hi == vecMax) != vecLoop || (lo == 0 && hi == 0) == vecLoop {
		t.Errorf("MoveVec %d, %d with vecLoop %v", lo, hi, vecLoop)
	}
	if repMove != want {
		t.Errorf("repMove %v on a %s CPU with flags %q, want %v", repMove, vendor, flags, want)
	}
	if want := map[bool]int{true: moveMin, false: 0}[repMove]; MoveREP() != want {
		t.Errorf("MoveREP %d with repMove %v, want %d", MoveREP(), repMove, want)
	}
	if !fastStrings(1<<9, 1<<4) || fastStrings(1<<9, 0) || fastStrings(0, 1<<4) {
		t.Error("fastStrings does not read ERMS (leaf 7 EBX bit 9) and FSRM (EDX bit 4)")
	}
}
