package mpi_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// np is the null process, short for the tables.
const np = mpi.ProcNull

// TestDimsCreate checks the face of DimsCreate: the grids and error classes are
// vtopo's (internal/vtopo/dims_test.go has the algorithm's tests).
func TestDimsCreate(t *testing.T) {
	tests := []struct {
		nnodes int
		dims   []int
		want   []int          // nil: an error
		class  mpi.ErrorClass // of the error
		msg    string         // in the error
	}{
		// The examples of the MPI standard.
		{6, []int{0, 0}, []int{3, 2}, 0, ""},
		{7, []int{0, 0}, []int{7, 1}, 0, ""},
		{6, []int{0, 3, 0}, []int{2, 3, 1}, 0, ""},
		{7, []int{0, 3, 0}, nil, mpi.ClassDims, "not a multiple of 3"},
		{16, []int{0, 0, 0}, []int{4, 2, 2}, 0, ""}, // spread 2, not 4x4x1 (spread 3)
		// A tie of the smallest spread goes to the larger smallest dimension, as in
		// MPICH (the C library's MPI_Dims_create gives the same: abi/testdata/topo.c).
		{5040, []int{0, 0, 0}, []int{21, 16, 15}, 0, ""},
		{1, []int{}, []int{}, 0, ""},
		{5, []int{}, nil, mpi.ClassDims, "multiply to 1, not nnodes = 5"},
		{6, []int{-1, 0}, nil, mpi.ClassDims, "dims[0] = -1 must not be negative"},
		{0, []int{0}, nil, mpi.ClassArg, "nnodes = 0 must be in [1,2147483647]"},
		{math.MaxInt32 + 1, []int{0}, nil, mpi.ClassArg, "nnodes = 2147483648 must be in"},
	}
	for _, tc := range tests {
		dims := slices.Clone(tc.dims)
		err := mpi.DimsCreate(tc.nnodes, dims)
		name := fmt.Sprintf("DimsCreate(%d, %v)", tc.nnodes, tc.dims)
		if tc.want == nil {
			if err == nil || mpi.ClassOf(err) != tc.class || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s = %v, want a %v error saying %q", name, err, tc.class, tc.msg)
			}
			continue
		}
		if err != nil || !slices.Equal(dims, tc.want) {
			t.Errorf("%s: dims %v, err %v; want %v", name, dims, err, tc.want)
		}
	}
}

// TestDimsCreateSelfHandler: an error of DimsCreate, which has no communicator, goes
// to Self's handler, as MPI says of errors with no object (MPI_Dims_create in C did
// so already).
func TestDimsCreateSelfHandler(t *testing.T) {
	job(t, 1, func(t *testing.T, rank, size int) {
		var got []error
		must(t, mpi.Self.SetErrHandler(mpi.NewErrHandler(func(c *mpi.Comm, err error) {
			if c == mpi.Self {
				got = append(got, err)
			}
		})))
		err := mpi.DimsCreate(7, []int{0, 3, 0})
		if len(got) != 1 || got[0] != err || !errors.Is(err, mpi.ErrDims) {
			t.Errorf("DimsCreate(7, [0 3 0]) = %v; Self's handler saw %v", err, got)
		}
		must(t, mpi.DimsCreate(6, make([]int, 2)))
		if len(got) != 1 {
			t.Errorf("Self's handler ran on success: %v", got)
		}
		must(t, mpi.Self.SetErrHandler(nil))
	})
}

// TestCartShift checks CartShift on every rank against neighbours worked out by hand.
func TestCartShift(t *testing.T) {
	// want[r] = {src, dest} for rank r.
	type shift struct {
		dir, disp int
		want      [][2]int
	}
	tests := []struct {
		dims    []int
		periods []bool
		shifts  []shift
	}{
		// 2x3, rank = 3i+j:  0 1 2
		//                    3 4 5
		{[]int{2, 3}, []bool{false, false}, []shift{
			{1, 1, [][2]int{{np, 1}, {0, 2}, {1, np}, {np, 4}, {3, 5}, {4, np}}},
			{1, 2, [][2]int{{np, 2}, {np, np}, {0, np}, {np, 5}, {np, np}, {3, np}}},
			{1, -1, [][2]int{{1, np}, {2, 0}, {np, 1}, {4, np}, {5, 3}, {np, 4}}},
			{0, 1, [][2]int{{np, 3}, {np, 4}, {np, 5}, {0, np}, {1, np}, {2, np}}},
			{0, 0, [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}},
			{0, 7, [][2]int{{np, np}, {np, np}, {np, np}, {np, np}, {np, np}, {np, np}}},
		}},
		{[]int{2, 3}, []bool{true, true}, []shift{
			{1, 1, [][2]int{{2, 1}, {0, 2}, {1, 0}, {5, 4}, {3, 5}, {4, 3}}},
			{1, 4, [][2]int{{2, 1}, {0, 2}, {1, 0}, {5, 4}, {3, 5}, {4, 3}}}, // 4 = 1 mod 3
			{1, -1, [][2]int{{1, 2}, {2, 0}, {0, 1}, {4, 5}, {5, 3}, {3, 4}}},
			{0, 1, [][2]int{{3, 3}, {4, 4}, {5, 5}, {0, 0}, {1, 1}, {2, 2}}},
			{0, 2, [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}},
		}},
		// 3x2, periodic in the first dimension only, rank = 2i+j:  0 1
		//                                                          2 3
		//                                                          4 5
		{[]int{3, 2}, []bool{true, false}, []shift{
			{0, 1, [][2]int{{4, 2}, {5, 3}, {0, 4}, {1, 5}, {2, 0}, {3, 1}}},
			{1, 1, [][2]int{{np, 1}, {0, np}, {np, 3}, {2, np}, {np, 5}, {4, np}}},
		}},
	}
	job(t, 6, func(t *testing.T, rank, size int) {
		for _, tc := range tests {
			c, err := mpi.World.CartCreate(tc.dims, tc.periods, false)
			must(t, err)
			for _, s := range tc.shifts {
				src, dest, err := c.CartShift(s.dir, s.disp)
				must(t, err)
				if w := s.want[rank]; src != w[0] || dest != w[1] {
					t.Errorf("%v periodic %v, rank %d: CartShift(%d, %d) = %d, %d; want %d, %d",
						tc.dims, tc.periods, rank, s.dir, s.disp, src, dest, w[0], w[1])
				}
			}
			must(t, c.Free())
		}
	})
}

func TestCartShift3D(t *testing.T) {
	// 2x2x2, rank = 4i+2j+k, periodic in the first and last dimensions.
	want := map[int][][2]int{ // direction -> {src, dest} by rank
		0: {{4, 4}, {5, 5}, {6, 6}, {7, 7}, {0, 0}, {1, 1}, {2, 2}, {3, 3}},
		1: {{np, 2}, {np, 3}, {0, np}, {1, np}, {np, 6}, {np, 7}, {4, np}, {5, np}},
		2: {{1, 1}, {0, 0}, {3, 3}, {2, 2}, {5, 5}, {4, 4}, {7, 7}, {6, 6}},
	}
	job(t, 8, func(t *testing.T, rank, size int) {
		c, err := mpi.World.CartCreate([]int{2, 2, 2}, []bool{true, false, true}, true)
		must(t, err)
		if c.Topology() != mpi.TopoCart || c.Topology().String() != "MPI_CART" {
			t.Errorf("Topology() = %d, %v", c.Topology(), c.Topology())
		}
		var nb []int
		for dir := 0; dir < 3; dir++ {
			src, dest, err := c.CartShift(dir, 1)
			must(t, err)
			if w := want[dir][rank]; src != w[0] || dest != w[1] {
				t.Errorf("rank %d: CartShift(%d, 1) = %d, %d; want %v", rank, dir, src, dest, w)
			}
			nb = append(nb, src, dest)
		}
		// The neighbourhood collectives' lists: -1 then +1 neighbour, per dimension.
		srcs, dests, ok := mpi.Neighbors(c)
		if !ok || !slices.Equal(srcs, nb) || !slices.Equal(dests, nb) {
			t.Errorf("rank %d: neighbors = %v, %v, %v; want %v both", rank, srcs, dests, ok, nb)
		}
		if _, _, ok := mpi.Neighbors(mpi.World); ok {
			t.Errorf("World has neighbours")
		}
	})
}

// TestCartHalo exchanges a halo along both directions of every dimension, the way a
// stencil code does, and checks that each value came from the rank one step away.
func TestCartHalo(t *testing.T) {
	job(t, 6, func(t *testing.T, rank, size int) {
		dims := []int{0, 0}
		must(t, mpi.DimsCreate(size, dims))
		c, err := mpi.World.CartCreate(dims, []bool{false, true}, false)
		must(t, err)
		_, _, me, err := c.CartGet()
		must(t, err)
		for dir := range dims {
			for _, disp := range []int{1, -1} {
				src, dest, err := c.CartShift(dir, disp)
				must(t, err)
				got := []int{-1, -1}
				st, err := mpi.Sendrecv(c, []int{c.Rank(), me[dir]}, dest, 7, got, src, 7)
				must(t, err)
				if src == mpi.ProcNull {
					if got[0] != -1 || st.Source != mpi.ProcNull {
						t.Errorf("dir %d disp %d: received %v from ProcNull", dir, disp, got)
					}
					continue
				}
				// The sender's coordinate is ours minus disp, wrapped if periodic.
				wantCoord := ((me[dir]-disp)%dims[dir] + dims[dir]) % dims[dir]
				co, err := c.CartCoords(got[0])
				must(t, err)
				if got[0] != src || got[1] != wantCoord || co[dir] != wantCoord {
					t.Errorf("rank %d %v dir %d disp %d: got %v from %d, want coordinate %d", c.Rank(), me, dir, disp, got, src, wantCoord)
				}
			}
		}
		must(t, c.Free())
	})
}

func TestCartRankCoords(t *testing.T) {
	job(t, 8, func(t *testing.T, rank, size int) {
		c, err := mpi.World.CartCreate([]int{2, 4}, []bool{true, false}, false)
		must(t, err)
		for r := 0; r < size; r++ {
			co, err := c.CartCoords(r)
			must(t, err)
			if want := []int{r / 4, r % 4}; !slices.Equal(co, want) {
				t.Errorf("CartCoords(%d) = %v, want %v (row-major)", r, co, want)
			}
			back, err := c.CartRank(co)
			must(t, err)
			if back != r {
				t.Errorf("CartRank(CartCoords(%d)) = %d", r, back)
			}
			// The first dimension wraps.
			for _, k := range []int{-2, 2, 10} {
				w, err := c.CartRank([]int{co[0] + k, co[1]})
				if err != nil || w != r {
					t.Errorf("CartRank(%v) = %d, %v; want %d (periodic)", []int{co[0] + k, co[1]}, w, err, r)
				}
			}
		}
		dims, periods, coords, err := c.CartGet()
		must(t, err)
		nd, err := c.Cartdim()
		must(t, err)
		if !slices.Equal(dims, []int{2, 4}) || !slices.Equal(periods, []bool{true, false}) ||
			!slices.Equal(coords, []int{rank / 4, rank % 4}) || nd != 2 {
			t.Errorf("CartGet = %v %v %v, Cartdim %d", dims, periods, coords, nd)
		}
		// A duplicate carries the grid.
		d, err := c.Dup()
		must(t, err)
		if d2, _, co2, err := d.CartGet(); err != nil || !slices.Equal(d2, dims) || !slices.Equal(co2, coords) {
			t.Errorf("Dup: CartGet = %v, %v, %v", d2, co2, err)
		}
		must(t, d.Free())
		must(t, c.Free())
	})
}

func TestCartSub(t *testing.T) {
	job(t, 6, func(t *testing.T, rank, size int) {
		c, err := mpi.World.CartCreate([]int{2, 3}, []bool{false, true}, false)
		must(t, err)
		i, j := rank/3, rank%3
		tests := []struct {
			remain     []bool
			size, rank int
			dims       []int
			periods    []bool
			first      int // world rank of the subgrid's rank 0
		}{
			{[]bool{false, true}, 3, j, []int{3}, []bool{true}, 3 * i}, // my row
			{[]bool{true, false}, 2, i, []int{2}, []bool{false}, j},    // my column
			{[]bool{true, true}, 6, rank, []int{2, 3}, []bool{false, true}, 0},
			{[]bool{false, false}, 1, 0, []int{}, []bool{}, rank},
		}
		for _, tc := range tests {
			s, err := c.CartSub(tc.remain)
			must(t, err)
			dims, periods, _, err := s.CartGet()
			must(t, err)
			if s.Size() != tc.size || s.Rank() != tc.rank || !slices.Equal(dims, tc.dims) || !slices.Equal(periods, tc.periods) {
				t.Errorf("CartSub(%v): rank %d of %d, grid %v %v; want %d of %d, %v %v",
					tc.remain, s.Rank(), s.Size(), dims, periods, tc.rank, tc.size, tc.dims, tc.periods)
			}
			tr, err := mpi.TranslateRanks(s.Group(), []int{0}, mpi.World.Group())
			must(t, err)
			if tr[0] != tc.first {
				t.Errorf("CartSub(%v): rank 0 is world rank %d, want %d", tc.remain, tr[0], tc.first)
			}
			// The subgrid communicates: pass world ranks one step along it.
			if len(dims) == 1 {
				src, dest, err := s.CartShift(0, 1)
				must(t, err)
				got := []int{-1}
				_, err = mpi.Sendrecv(s, []int{rank}, dest, 1, got, src, 1)
				must(t, err)
				if src != mpi.ProcNull {
					w, err := mpi.TranslateRanks(s.Group(), []int{src}, mpi.World.Group())
					must(t, err)
					if got[0] != w[0] {
						t.Errorf("CartSub(%v): received %d from %d, world rank %d", tc.remain, got[0], src, w[0])
					}
				}
			}
			must(t, s.Free())
		}
		must(t, c.Free())
	})
}

// TestCartCreateSmall makes grids smaller than the communicator: the ranks left out
// get nil, and a zero-dimensional grid holds rank 0 alone.
func TestCartCreateSmall(t *testing.T) {
	job(t, 5, func(t *testing.T, rank, size int) {
		c, err := mpi.World.CartCreate([]int{2, 2}, []bool{false, false}, true)
		must(t, err)
		if (rank == 4) != (c == nil) {
			t.Fatalf("rank %d: CartCreate 2x2 on 5 ranks gave %v", rank, c)
		}
		if c != nil {
			if c.Size() != 4 || c.Rank() != rank {
				t.Errorf("rank %d of %d", c.Rank(), c.Size())
			}
			must(t, c.Barrier())
			must(t, c.Free())
		}
		m, err := mpi.World.CartMap([]int{2, 2}, []bool{false, false})
		must(t, err)
		if want := map[bool]int{true: mpi.Undefined, false: rank}[rank == 4]; m != want {
			t.Errorf("CartMap = %d, want %d", m, want)
		}
		z, err := mpi.World.CartCreate(nil, nil, false)
		must(t, err)
		if (rank == 0) != (z != nil) {
			t.Fatalf("rank %d: zero-dimensional CartCreate gave %v", rank, z)
		}
		if z != nil {
			nd, err := z.Cartdim()
			must(t, err)
			r, err := z.CartRank(nil)
			must(t, err)
			if z.Size() != 1 || nd != 0 || r != 0 {
				t.Errorf("zero-dimensional grid: size %d, Cartdim %d, CartRank %d", z.Size(), nd, r)
			}
			must(t, z.Free())
		}
	})
}

// TestCartErrors passes bad arguments. Every rank gets an error, none hangs, even
// when only one rank's arguments are wrong.
func TestCartErrors(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		create := []struct {
			dims    []int
			periods []bool
			class   mpi.ErrorClass
			msg     string // in the error of every rank, or of the rank at fault
		}{
			{[]int{2, 3}, []bool{false, false}, mpi.ClassDims, "more points than the 4 ranks"},
			{[]int{2, 0}, []bool{false, false}, mpi.ClassDims, "dims[1] = 0 must be positive"},
			{[]int{-2, 2}, []bool{false, false}, mpi.ClassDims, "dims[0] = -2 must be positive"},
			{[]int{2, 2}, []bool{false}, mpi.ClassArg, "len(periods) = 1, want len(dims) = 2"},
		}
		for _, tc := range create {
			c, err := mpi.World.CartCreate(tc.dims, tc.periods, false)
			if c != nil || mpi.ClassOf(err) != tc.class || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("CartCreate(%v, %v) = %v, %v; want a %v error saying %q", tc.dims, tc.periods, c, err, tc.class, tc.msg)
			}
		}

		// Only rank 1 is wrong: it gets its own error, the others one naming it.
		dims := []int{2, 2}
		if rank == 1 {
			dims = []int{5, 5}
		}
		c, err := mpi.World.CartCreate(dims, []bool{false, false}, false)
		want := "rank 1 of"
		if rank == 1 {
			want = "more points than"
		}
		if c != nil || !errors.Is(err, mpi.ErrDims) || !strings.Contains(err.Error(), want) {
			t.Errorf("rank %d: CartCreate with rank 1 wrong = %v, %v; want an MPI_ERR_DIMS error saying %q", rank, c, err, want)
		}
		// Valid but different arguments.
		dims = []int{2, 2}
		if rank == 2 {
			dims = []int{4, 1}
		}
		c, err = mpi.World.CartCreate(dims, []bool{false, false}, false)
		if c != nil || !errors.Is(err, mpi.ErrArg) || !strings.Contains(err.Error(), "different arguments") {
			t.Errorf("rank %d: CartCreate with different dims = %v, %v", rank, c, err)
		}

		c, err = mpi.World.CartCreate([]int{2, 2}, []bool{false, true}, false)
		must(t, err)
		queries := []struct {
			name  string
			err   error
			class mpi.ErrorClass
			msg   string
		}{
			{"CartCoords(4)", second(c.CartCoords(4)), mpi.ClassRank, "rank 4 out of range [0,4)"},
			{"CartCoords(-1)", second(c.CartCoords(-1)), mpi.ClassRank, "rank -1 out of range"},
			{"CartRank({2,0})", second(c.CartRank([]int{2, 0})), mpi.ClassArg, "coords[0] = 2 is outside [0,2) and dimension 0 is not periodic"},
			{"CartRank({-1,0})", second(c.CartRank([]int{-1, 0})), mpi.ClassArg, "coords[0] = -1"},
			{"CartRank({0})", second(c.CartRank([]int{0})), mpi.ClassArg, "len(coords) = 1"},
			{"CartShift(2, 1)", third(c.CartShift(2, 1)), mpi.ClassArg, "direction 2 out of range [0,2)"},
			{"CartShift(-1, 1)", third(c.CartShift(-1, 1)), mpi.ClassArg, "direction -1"},
			{"CartSub({true})", second(c.CartSub([]bool{true})), mpi.ClassArg, "len(remain) = 1"},
			{"World.CartGet", fourth(mpi.World.CartGet()), mpi.ClassTopology, "has topology MPI_UNDEFINED, not MPI_CART"},
			{"World.CartShift", third(mpi.World.CartShift(0, 1)), mpi.ClassTopology, "not MPI_CART"},
			{"World.Cartdim", second(mpi.World.Cartdim()), mpi.ClassTopology, "not MPI_CART"},
			{"cart.GraphNeighbors", second(c.GraphNeighbors(0)), mpi.ClassTopology, "has topology MPI_CART, not MPI_GRAPH"},
			{"CartMap too big", second(mpi.World.CartMap([]int{3, 3}, []bool{false, false})), mpi.ClassDims, "more points"},
		}
		for _, q := range queries {
			if mpi.ClassOf(q.err) != q.class || !strings.Contains(q.err.Error(), q.msg) {
				t.Errorf("%s: %v; want a %v error saying %q", q.name, q.err, q.class, q.msg)
			}
		}
		// Errors go through the communicator's handler, which new communicators inherit.
		calls := 0
		h := mpi.NewErrHandler(func(*mpi.Comm, error) { calls++ })
		c.SetErrHandler(h)
		c.CartShift(9, 1)
		c.CartCoords(-5)
		if calls != 2 {
			t.Errorf("the error handler ran %d times for 2 errors", calls)
		}
		s, err := c.CartSub([]bool{true, false})
		must(t, err)
		if s.ErrHandler() != h {
			t.Errorf("CartSub did not inherit the error handler")
		}
		must(t, s.Free())
		c.SetErrHandler(nil)
		// Periodic wrap in the second dimension is no error.
		if r, err := c.CartRank([]int{1, -1}); err != nil || r != 3 {
			t.Errorf("CartRank({1,-1}) = %d, %v; want 3", r, err)
		}
		must(t, c.Free())
		if _, err := c.CartCoords(0); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("CartCoords on a freed communicator: %v", err)
		}
		var null *mpi.Comm
		if _, err := null.CartCreate([]int{1}, []bool{false}, false); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("CartCreate on nil: %v", err)
		}
		if null.Topology() != mpi.TopoNone || mpi.World.Topology() != mpi.TopoNone {
			t.Errorf("Topology of nil or World is not TopoNone")
		}
	})
}

func second[T any](_ T, err error) error        { return err }
func third[T, U any](_ T, _ U, err error) error { return err }
func fourth[T, U, V any](_ T, _ U, _ V, err error) error {
	return err
}
