package vtopo

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// wantErr reports whether err is of class and says msg.
func wantErr(err, class error, msg string) bool {
	return errors.Is(err, class) && strings.Contains(fmt.Sprint(err), msg)
}

func TestCheckCart(t *testing.T) {
	tests := []struct {
		dims    []int
		periods []bool
		size    int
		want    int
		class   error
		msg     string
	}{
		{[]int{2, 3}, []bool{false, true}, 6, 6, nil, ""},
		{[]int{2, 3}, []bool{false, true}, 8, 6, nil, ""},
		{nil, nil, 4, 1, nil, ""}, // zero-dimensional: one point
		{[]int{2, 3}, []bool{false, false}, 4, 0, ErrDims, "the grid [2 3] has more points than the 4 ranks"},
		{[]int{2, 0}, []bool{false, false}, 4, 0, ErrDims, "dims[1] = 0 must be positive"},
		{[]int{-2, 2}, []bool{false, false}, 4, 0, ErrDims, "dims[0] = -2 must be positive"},
		{[]int{2, 2}, []bool{false}, 4, 0, ErrArg, "len(periods) = 1, want len(dims) = 2"},
		{[]int{math.MaxInt / 2, 4}, []bool{false, false}, 8, 0, ErrDims, "more points"},
		{[]int{1 << 40, 1 << 40}, []bool{false, false}, math.MaxInt, 0, ErrDims, "more points"},
	}
	for _, tc := range tests {
		n, err := CheckCart(tc.dims, tc.periods, tc.size)
		if tc.class == nil && (err != nil || n != tc.want) || tc.class != nil && !wantErr(err, tc.class, tc.msg) {
			t.Errorf("CheckCart(%v, %v, %d) = %d, %v; want %d, %v %q", tc.dims, tc.periods, tc.size, n, err, tc.want, tc.class, tc.msg)
		}
		r, member, err2 := CartMap(tc.dims, tc.periods, tc.size, 5)
		if (err2 == nil) != (err == nil) || err == nil && (member != (5 < n) || member && r != 5) {
			t.Errorf("CartMap(%v, %v, %d, 5) = %d, %v, %v", tc.dims, tc.periods, tc.size, r, member, err2)
		}
	}
}

// TestCartNeighbors checks the neighbour lists of the neighbourhood collectives on
// grids where the -1 and +1 neighbours are one rank, or the rank itself.
func TestCartNeighbors(t *testing.T) {
	const N = ProcNull
	tests := []struct {
		dims    []int
		periods []bool
		rank    int
		want    []int
	}{
		{[]int{2, 3}, []bool{false, false}, 0, []int{N, 3, N, 1}},
		{[]int{2, 3}, []bool{false, false}, 4, []int{1, N, 3, 5}},
		{[]int{2, 3}, []bool{true, true}, 0, []int{3, 3, 2, 1}},
		{[]int{2, 3}, []bool{true, false}, 5, []int{2, 2, 4, N}},
		{[]int{1, 4}, []bool{true, true}, 2, []int{2, 2, 1, 3}},
		{[]int{1}, []bool{false}, 0, []int{N, N}},
		{[]int{}, []bool{}, 0, []int{}},
	}
	for _, tc := range tests {
		topo := NewCart(tc.dims, tc.periods, tc.rank)
		in, out, cart, ok := topo.Neighbors()
		if !ok || !cart || !slices.Equal(in, tc.want) || !slices.Equal(out, tc.want) {
			t.Errorf("%v %v rank %d: neighbours %v %v %v %v, want %v", tc.dims, tc.periods, tc.rank, in, out, cart, ok, tc.want)
		}
		if topo.Kind() != Cart || topo.Ndims() != len(tc.dims) {
			t.Errorf("%v: kind %v, ndims %d", tc.dims, topo.Kind(), topo.Ndims())
		}
	}
	var none *Topology
	if in, out, cart, ok := none.Neighbors(); ok || cart || in != nil || out != nil || none.Kind() != None {
		t.Errorf("no topology: %v %v %v %v, kind %v", in, out, cart, ok, none.Kind())
	}
}

func TestCartCoordsRank(t *testing.T) {
	dims, periods := []int{2, 3, 4}, []bool{false, true, false}
	topo := NewCart(dims, periods, 0)
	// Row-major, the last dimension fastest; every rank and back.
	for r := range 24 {
		co, err := topo.Coords(r)
		want := []int{r / 12, r / 4 % 3, r % 4}
		if err != nil || !slices.Equal(co, want) {
			t.Fatalf("Coords(%d) = %v, %v; want %v", r, co, err, want)
		}
		back, err := topo.CartRank(co)
		if err != nil || back != r {
			t.Fatalf("CartRank(%v) = %d, %v; want %d", co, back, err, r)
		}
	}
	// Periodic dimension 1 wraps, however far off.
	for _, tc := range []struct {
		co   []int
		want int
	}{{[]int{1, -1, 2}, 12 + 8 + 2}, {[]int{0, 3, 0}, 0}, {[]int{0, -7, 1}, 8 + 1}, {[]int{0, math.MinInt, 0}, 4 * ((math.MinInt%3 + 3) % 3)}} {
		if r, err := topo.CartRank(tc.co); err != nil || r != tc.want {
			t.Errorf("CartRank(%v) = %d, %v; want %d", tc.co, r, err, tc.want)
		}
	}
	errs := []struct {
		err   error
		class error
		msg   string
	}{
		{second(topo.Coords(24)), ErrRank, "rank 24 out of range [0,24)"},
		{second(topo.Coords(-1)), ErrRank, "rank -1 out of range"},
		{second(topo.CartRank([]int{2, 0, 0})), ErrArg, "coords[0] = 2 is outside [0,2) and dimension 0 is not periodic"},
		{second(topo.CartRank([]int{0, 0, -1})), ErrArg, "coords[2] = -1"},
		{second(topo.CartRank([]int{0, 0})), ErrArg, "len(coords) = 2, want the grid's 3 dimensions"},
	}
	for _, e := range errs {
		if !wantErr(e.err, e.class, e.msg) {
			t.Errorf("%v; want %v saying %q", e.err, e.class, e.msg)
		}
	}
	// A zero-dimensional grid has one point, at no coordinates.
	z := NewCart(nil, nil, 0)
	if co, err := z.Coords(0); err != nil || len(co) != 0 {
		t.Errorf("zero-dimensional Coords(0) = %v, %v", co, err)
	}
	if r, err := z.CartRank(nil); err != nil || r != 0 {
		t.Errorf("zero-dimensional CartRank() = %d, %v", r, err)
	}
}

func TestCartShift(t *testing.T) {
	const N = ProcNull
	topo := NewCart([]int{3, 4}, []bool{false, true}, 0)
	tests := []struct {
		rank, dir, disp int
		src, dest       int
	}{
		{0, 0, 1, N, 4},
		{4, 0, 1, 0, 8},
		{8, 0, 1, 4, N},
		{4, 0, -1, 8, 0},
		{4, 0, 2, N, N},
		{0, 0, 2, N, 8},
		{4, 0, 0, 4, 4},
		{5, 1, 1, 4, 6},
		{4, 1, 1, 7, 5},
		{7, 1, 1, 6, 4},
		{5, 1, 6, 7, 7},  // 6 steps round 4: 2
		{5, 1, -9, 6, 4}, // -9 steps: -1
		{4, 0, math.MinInt, N, N},
		{4, 0, math.MaxInt, N, N},
		{5, 1, math.MinInt, 5, 5}, // 2**63 is a multiple of 4
		{5, 1, math.MaxInt, 6, 4}, // and 2**63-1 is -1 round 4
	}
	for _, tc := range tests {
		src, dest, err := topo.Shift(tc.rank, tc.dir, tc.disp)
		if err != nil || src != tc.src || dest != tc.dest {
			t.Errorf("Shift(%d, %d, %d) = %d, %d, %v; want %d, %d", tc.rank, tc.dir, tc.disp, src, dest, err, tc.src, tc.dest)
		}
	}
	if _, _, err := topo.Shift(0, 2, 1); !wantErr(err, ErrArg, "direction 2 out of range [0,2)") {
		t.Errorf("Shift along dimension 2: %v", err)
	}
	if _, _, err := topo.Shift(0, -1, 1); !wantErr(err, ErrArg, "direction -1") {
		t.Errorf("Shift along dimension -1: %v", err)
	}
}

func TestCartSub(t *testing.T) {
	topo := NewCart([]int{2, 3, 4}, []bool{true, false, true}, 0)
	tests := []struct {
		remain     []bool
		rank       int
		color, key int
		dims       []int
		periods    []bool
	}{
		// rank 17 is at (1, 1, 1).
		{[]bool{false, true, false}, 17, 1*4 + 1, 1, []int{3}, []bool{false}},
		{[]bool{true, false, true}, 17, 1, 1*4 + 1, []int{2, 4}, []bool{true, true}},
		{[]bool{true, true, true}, 17, 0, 17, []int{2, 3, 4}, []bool{true, false, true}},
		{[]bool{false, false, false}, 17, 17, 0, []int{}, []bool{}},
	}
	for _, tc := range tests {
		color, key, dims, periods, err := topo.Sub(tc.remain, tc.rank)
		if err != nil || color != tc.color || key != tc.key || !slices.Equal(dims, tc.dims) || !slices.Equal(periods, tc.periods) {
			t.Errorf("Sub(%v, %d) = %d, %d, %v, %v, %v; want %d, %d, %v, %v", tc.remain, tc.rank, color, key, dims, periods, err,
				tc.color, tc.key, tc.dims, tc.periods)
		}
	}
	if _, _, _, _, err := topo.Sub([]bool{true}, 0); !wantErr(err, ErrArg, "len(remain) = 1, want the grid's 3 dimensions") {
		t.Errorf("Sub with a short remain: %v", err)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{None: "MPI_UNDEFINED", Cart: "MPI_CART", Graph: "MPI_GRAPH", DistGraph: "MPI_DIST_GRAPH", 9: "MPI_UNDEFINED"} {
		if k.String() != want {
			t.Errorf("Kind(%d) = %q, want %q", int(k), k, want)
		}
	}
}

func second[T any](_ T, err error) error { return err }
