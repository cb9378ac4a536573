package pmi

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseMapping(t *testing.T) {
	for _, tc := range []struct {
		in     string
		size   int
		want   string // node of each rank
		nnodes int
	}{
		{"(vector,(0,1,4))", 4, "0000", 1},
		{"(vector,(0,2,2))", 4, "0011", 2},
		{"(vector,(0,2,2))", 3, "001", 2}, // the mapping may cover more ranks than there are
		{"(vector,(0,2,1),(0,2,1))", 4, "0101", 2},
		{"(vector,(0,2,1))", 5, "01010", 2}, // shorter than size: repeated (MPICH)
		{"(vector,(0,1,3),(1,1,1))", 4, "0001", 2},
		{"(vector,(0,3,1),(0,1,2))", 5, "01200", 3},
		{" ( vector , ( 0 , 2 , 2 ) ) ", 4, "0011", 2},
		{"(vector,[(0,2,1)]x2,(2,1,2))", 6, "010122", 3}, // MPICH 4.1 repeats
		{"(vector,0,1,[0,1]x2)", 6, "010101", 2},         // bare node ids
		{"(vector,[0,1]x3)", 6, "010101", 2},
	} {
		t.Run(tc.in, func(t *testing.T) {
			nodeOf, nnodes, err := ParseMapping(tc.in, tc.size)
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			for _, n := range nodeOf {
				fmt.Fprint(&got, n)
			}
			if got.String() != tc.want || nnodes != tc.nnodes {
				t.Fatalf("nodes %s (%d); want %s (%d)", got.String(), nnodes, tc.want, tc.nnodes)
			}
		})
	}
}

func TestParseMappingErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		size int
		want string
	}{
		{"", 4, "no process mapping"},
		{"  ", 4, "no process mapping"},
		{"vector,(0,1,4)", 4, `'v' at offset 0 where '(' was expected`},
		{"(list,(0,1,4))", 4, `does not start with "(vector"`},
		{"(vector)", 4, "no blocks"},
		{"(vector,(0,1))", 4, "where ',' was expected"},
		{"(vector,(0,1,4)", 4, "ends where ',' was expected"},
		{"(vector,(0,1,4))x", 4, "trailing text"},
		{"(vector,(0,0,4))", 4, "places no rank"},
		{"(vector,(0,1,-4))", 4, "no number"},
		{"(vector,(1,1,4))", 4, "node 0 has no rank"},
		{"(vector,(9,1,4))", 4, "node id 9 but only 4 ranks"},
		{"(vector,[[0]x2]x2)", 4, "nested '['"},
		{"(vector,(0,1,99999999999))", 4, "out of range"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, _, err := ParseMapping(tc.in, tc.size)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
}

func TestLocalRanks(t *testing.T) {
	nodeOf := []int32{0, 1, 0, 1, 0}
	for r, want := range [][2]int{{0, 3}, {0, 2}, {1, 3}, {1, 2}, {2, 3}} {
		if l, n := localRanks(nodeOf, r); l != want[0] || n != want[1] {
			t.Errorf("localRanks(rank %d) = %d of %d; want %d of %d", r, l, n, want[0], want[1])
		}
	}
}
