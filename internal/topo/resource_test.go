package topo

import "testing"

// TestInstanceOf places CPU sets of the two-socket fixture (cores 0,4 1,5 2,6 3,7;
// packages and NUMA nodes 0-1,4-5 and 2-3,6-7) in each resource type.
func TestInstanceOf(t *testing.T) {
	topo := loadFixture(t, "twosocket")
	for _, tc := range []struct {
		typ, set string
		want     int
	}{
		{"Machine", "0-7", 0},
		{"Package", "6", 2},
		{"Package", "1,4", 0},
		{"Package", "1-2", -1},
		{"NUMANode", "3,7", 2},
		{"L3Cache", "2,7", 2},
		{"L2Cache", "1,5", 1},
		{"L1Cache", "1-2", -1},
		{"Core", "7", 3},
		{"Core", "0,4", 0},
		{"PU", "5", 5},
		{"PU", "4-5", -1},
		{"L4Cache", "0", -1},
		{"Socket", "0", -1},
		{"Core", "", -1},
	} {
		set, err := ParseCPUList(tc.set)
		if err != nil {
			t.Fatal(err)
		}
		if got := topo.InstanceOf(tc.typ, set); got != tc.want {
			t.Errorf("InstanceOf(%s, %s) = %d, want %d", tc.typ, tc.set, got, tc.want)
		}
	}
	if n := len(topo.Instances("PU")); n != 8 {
		t.Errorf("%d PUs, want 8", n)
	}
	for _, typ := range ResourceTypes {
		if typ != "L4Cache" && len(topo.Instances(typ)) == 0 {
			t.Errorf("no instance of %s", typ)
		}
	}
}
