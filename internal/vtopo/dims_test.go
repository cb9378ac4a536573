package vtopo

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestDimsCreate(t *testing.T) {
	tests := []struct {
		nnodes int
		dims   []int
		want   []int // nil: an error
		class  error // of the error
		msg    string
	}{
		// The examples of MPI 4.1 section 8.5.2.
		{6, []int{0, 0}, []int{3, 2}, nil, ""},
		{7, []int{0, 0}, []int{7, 1}, nil, ""},
		{6, []int{0, 3, 0}, []int{2, 3, 1}, nil, ""},
		{7, []int{0, 3, 0}, nil, ErrDims, "nnodes = 7 is not a multiple of 3, the product of the fixed dims [0 3 0]"},
		// Balanced, largest first.
		{8, []int{0, 0, 0}, []int{2, 2, 2}, nil, ""},
		{12, []int{0, 0}, []int{4, 3}, nil, ""},
		{16, []int{0, 0, 0}, []int{4, 2, 2}, nil, ""}, // spread 2, not 4x4x1 (spread 3)
		{24, []int{0, 0, 0}, []int{4, 3, 2}, nil, ""},
		{36, []int{0, 0, 0}, []int{4, 3, 3}, nil, ""},
		{64, []int{0, 0, 0, 0}, []int{4, 4, 2, 2}, nil, ""},
		{720720, make([]int, 6), []int{13, 11, 10, 9, 8, 7}, nil, ""}, // 2^4 3^2 5 7 11 13
		// Ties of the smallest spread go to the largest smallest dimension, then the
		// next: MPICH's expected answers (test/mpi/topo/baddims.h).
		{5040, []int{0, 0, 0}, []int{21, 16, 15}, nil, ""},   // not 20x18x14
		{6240, []int{0, 0, 0}, []int{26, 16, 15}, nil, ""},   // not 24x20x13
		{10800, []int{0, 0, 0}, []int{27, 20, 20}, nil, ""},  // not 25x24x18
		{55440, []int{0, 0, 0}, []int{44, 36, 35}, nil, ""},  // not 42x40x33
		{118800, []int{0, 0, 0}, []int{55, 48, 45}, nil, ""}, // not 54x50x44
		{393660, make([]int, 11), []int{5, 4, 3, 3, 3, 3, 3, 3, 3, 3, 3}, nil, ""},
		{884736, make([]int, 17), []int{4, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, nil, ""},
		// nnodes 1, and no dimensions.
		{1, []int{0, 0, 0}, []int{1, 1, 1}, nil, ""},
		{1, []int{}, []int{}, nil, ""},
		{1, nil, nil, nil, ""},
		{5, []int{}, nil, ErrDims, "multiply to 1, not nnodes = 5"},
		// Primes.
		{5, []int{0}, []int{5}, nil, ""},
		{1000003, []int{0, 0, 0}, []int{1000003, 1, 1}, nil, ""},
		{math.MaxInt32, []int{0, 0}, []int{math.MaxInt32, 1}, nil, ""},
		{2 * 3 * 5 * 7 * 11, []int{0, 0, 0, 0, 0, 0, 0}, []int{11, 7, 5, 3, 2, 1, 1}, nil, ""},
		// Large products.
		{1000 * 1000 * 1000, []int{0, 0, 0}, []int{1000, 1000, 1000}, nil, ""},
		{1 << 30, make([]int, 8), []int{16, 16, 16, 16, 16, 16, 8, 8}, nil, ""},
		// 2**30 in 14: 4**14 is 2**28, so two factors must be 8.
		{1 << 30, make([]int, 14), append([]int{8, 8}, slices.Repeat([]int{4}, 12)...), nil, ""},
		{1 << 30, make([]int, 40), append(slices.Repeat([]int{2}, 30), slices.Repeat([]int{1}, 10)...), nil, ""},
		// Fixed entries stay; the free ones share what is left.
		{12, []int{2, 0, 0}, []int{2, 3, 2}, nil, ""},
		{24, []int{0, 4, 0}, []int{3, 4, 2}, nil, ""},
		{32, []int{0, 16, 0, 2}, []int{1, 16, 1, 2}, nil, ""},
		// All fixed.
		{8, []int{2, 2, 2}, []int{2, 2, 2}, nil, ""},
		{8, []int{2, 2, 1}, nil, ErrDims, "all fixed and multiply to 4, not nnodes = 8"},
		{8, []int{2, 2, 3}, nil, ErrDims, "multiply to more than nnodes = 8"},
		{math.MaxInt32, []int{math.MaxInt32 / 2, 3}, nil, ErrDims, "more than nnodes"},
		// Negative entries, and nnodes out of range.
		{6, []int{-1, 0}, nil, ErrDims, "dims[0] = -1 must not be negative"},
		{6, []int{0, 2, -3}, nil, ErrDims, "dims[2] = -3"},
		{0, []int{0}, nil, ErrArg, "nnodes = 0 must be in [1,2147483647]"},
		{-4, []int{}, nil, ErrArg, "nnodes = -4"},
		{math.MaxInt32 + 1, []int{0}, nil, ErrArg, "nnodes = 2147483648 must be in"},
	}
	for _, tc := range tests {
		dims := slices.Clone(tc.dims)
		err := DimsCreate(tc.nnodes, dims)
		name := fmt.Sprintf("DimsCreate(%d, %v)", tc.nnodes, tc.dims)
		if tc.class != nil {
			if !errors.Is(err, tc.class) || !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Errorf("%s = %v, want a %v error saying %q", name, err, tc.class, tc.msg)
			}
			continue
		}
		if err != nil || !slices.Equal(dims, tc.want) {
			t.Errorf("%s: dims %v, err %v; want %v", name, dims, err, tc.want)
		}
	}
}

// best is the rule DimsCreate follows, by exhaustive search: of the factorisations
// of n into k non-increasing factors, the smallest spread, then the largest smallest
// factor, the largest second smallest, and so on.
func best(n, k int) []int {
	var win []int
	better := func(a, b []int) bool {
		if sa, sb := a[0]-a[k-1], b[0]-b[k-1]; sa != sb {
			return sa < sb
		}
		for i := k - 1; i >= 0; i-- {
			if a[i] != b[i] {
				return a[i] > b[i]
			}
		}
		return false
	}
	cur := make([]int, 0, k)
	var walk func(rest, hi int)
	walk = func(rest, hi int) {
		if len(cur) == k-1 {
			if rest <= hi {
				c := append(slices.Clone(cur), rest)
				if win == nil || better(c, win) {
					win = c
				}
			}
			return
		}
		for d := min(rest, hi); d >= 1; d-- {
			if rest%d == 0 {
				cur = append(cur, d)
				walk(rest/d, d)
				cur = cur[:len(cur)-1]
			}
		}
	}
	walk(n, n)
	return win
}

// TestDimsCreateBalanced checks DimsCreate against an exhaustive search, on every
// nnodes up to 300 in two to four dimensions and up to 100 in five and six.
func TestDimsCreateBalanced(t *testing.T) {
	for k := 1; k <= 6; k++ {
		top := 300
		if k >= 5 {
			top = 100
		}
		for n := 1; n <= top; n++ {
			dims := make([]int, k)
			if err := DimsCreate(n, dims); err != nil {
				t.Fatalf("DimsCreate(%d, %d zeros): %v", n, k, err)
			}
			if want := best(n, k); !slices.Equal(dims, want) {
				t.Errorf("DimsCreate(%d, %d zeros) = %v, want %v", n, k, dims, want)
			}
		}
	}
}

// TestDimsCreateHard runs the numbers below 2**31 with the most divisors in every
// number of dimensions up to 40 (and 2**30, and the product of the first nine
// primes): each must come back non-increasing, multiplying to nnodes.
func TestDimsCreateHard(t *testing.T) {
	for _, n := range []int{2095133040, 1396755360, 735134400, 1 << 30, 223092870} {
		for k := 2; k <= 40; k++ {
			dims := make([]int, k)
			if err := DimsCreate(n, dims); err != nil {
				t.Fatalf("DimsCreate(%d, %d zeros): %v", n, k, err)
			}
			p := 1
			for _, d := range dims {
				p *= d
			}
			if p != n || !slices.IsSortedFunc(dims, func(a, b int) int { return b - a }) {
				t.Errorf("DimsCreate(%d, %d zeros) = %v", n, k, dims)
			}
		}
	}
}

// TestDimsCreateMPICH holds what MPICH's tests test/mpi/topo/dims0.c to dims4.c ask:
// no dimensions for one node; products of small primes come back whole and
// non-increasing; fixed entries stay; powers of two in three and four dimensions have
// no dimension more than twice the next; 10**9 in three is 1000 cubed.
func TestDimsCreateMPICH(t *testing.T) {
	if err := DimsCreate(1, nil); err != nil {
		t.Errorf("DimsCreate(1, no dims): %v", err)
	}
	for _, tc := range []struct{ n, k int }{{2 * 3 * 5 * 7 * 11, 2}, {2 * 7, 2}, {2 * 2 * 3 * 3 * 5 * 7 * 11, 2}, {11, 2}, {5 * 7 * 11, 4}, {64, 4}} {
		dims := make([]int, tc.k)
		if err := DimsCreate(tc.n, dims); err != nil || !slices.IsSortedFunc(dims, func(a, b int) int { return b - a }) {
			t.Errorf("DimsCreate(%d, %d zeros) = %v, %v", tc.n, tc.k, dims, err)
		}
	}
	for n := 1; n <= 32; n *= 2 {
		if dims := []int{0, n}; DimsCreate(n, dims) != nil || dims[0] != 1 {
			t.Errorf("DimsCreate(%d, [0 %d]) = %v", n, n, dims)
		}
		if dims := []int{0, n / 2, 0, 2}; n >= 4 && (DimsCreate(n, dims) != nil || !slices.Equal(dims, []int{1, n / 2, 1, 2})) {
			t.Errorf("DimsCreate(%d, [0 %d 0 2]) = %v", n, n/2, dims)
		}
	}
	for k := 3; k <= 4; k++ {
		for n := 2; n <= 4096; n *= 2 {
			dims := make([]int, k)
			if err := DimsCreate(n, dims); err != nil {
				t.Fatal(err)
			}
			for i := range k - 1 {
				if dims[i]/2 > dims[i+1] {
					t.Errorf("DimsCreate(%d, %d zeros) = %v: dims[%d] is more than twice the next", n, k, dims, i)
				}
			}
		}
	}
}

func BenchmarkDimsCreate(b *testing.B) {
	b.ReportAllocs()
	dims := make([]int, 3)
	for b.Loop() {
		clear(dims)
		if err := DimsCreate(720720, dims); err != nil {
			b.Fatal(err)
		}
	}
}
