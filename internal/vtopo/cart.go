package vtopo

import "slices"

// CheckCart checks a grid for a communicator of size members (MPI_Cart_create's and
// MPI_Cart_map's dims and periods) and returns its number of points, at most size.
func CheckCart(dims []int, periods []bool, size int) (int, error) {
	if len(periods) != len(dims) {
		return 0, errorf(ErrArg, "len(periods) = %d, want len(dims) = %d", len(periods), len(dims))
	}
	n := 1
	for i, d := range dims {
		if d <= 0 {
			return 0, errorf(ErrDims, "dims[%d] = %d must be positive", i, d)
		}
		if d > size/n {
			// Also keeps the product from overflowing.
			return 0, errorf(ErrDims, "the grid %v has more points than the %d ranks of the communicator", dims, size)
		}
		n *= d
	}
	return n, nil
}

// NewCart is the grid of dims, periodic where periods says, as the member of rank
// rank sees it. The arguments must have passed CheckCart; NewCart copies them.
func NewCart(dims []int, periods []bool, rank int) *Topology {
	t := &Topology{kind: Cart, dims: slices.Clone(dims), periods: slices.Clone(periods)}
	if t.dims == nil {
		t.dims, t.periods = []int{}, []bool{}
	}
	co := t.coords(rank)
	nb := make([]int, 0, 2*len(dims))
	for d := range t.dims {
		nb = append(nb, t.moved(co, d, -1), t.moved(co, d, 1))
	}
	t.in, t.out = nb, nb
	return t
}

// CartMap is the rank MPI_Cart_map gives the member of rank rank of a communicator
// of size members for the grid dims (periodic where periods says): its own, since
// ranks are kept, and member false when the grid has fewer points than rank.
func CartMap(dims []int, periods []bool, size, rank int) (newRank int, member bool, err error) {
	n, err := CheckCart(dims, periods, size)
	if err != nil || rank >= n {
		return 0, false, err
	}
	return rank, true, nil
}

// Ndims is the number of dimensions of grid t.
func (t *Topology) Ndims() int { return len(t.dims) }

// Dims is the extent of each dimension of grid t.
func (t *Topology) Dims() []int { return t.dims }

// Periods says which dimensions of grid t wrap around.
func (t *Topology) Periods() []bool { return t.periods }

// points is the number of points of grid t, the size of its communicator.
func (t *Topology) points() int {
	n := 1
	for _, d := range t.dims {
		n *= d
	}
	return n
}

// Coords returns the coordinates of rank in grid t (MPI_Cart_coords), a new slice.
func (t *Topology) Coords(rank int) ([]int, error) {
	if n := t.points(); rank < 0 || rank >= n {
		return nil, errorf(ErrRank, "rank %d out of range [0,%d)", rank, n)
	}
	return t.coords(rank), nil
}

func (t *Topology) coords(r int) []int {
	co := make([]int, len(t.dims))
	for i := len(t.dims) - 1; i >= 0; i-- {
		co[i] = r % t.dims[i]
		r /= t.dims[i]
	}
	return co
}

// CartRank returns the rank at coords in grid t (MPI_Cart_rank). A coordinate off a
// periodic dimension wraps around; off a non-periodic one it is an error.
func (t *Topology) CartRank(coords []int) (int, error) {
	if len(coords) != len(t.dims) {
		return 0, errorf(ErrArg, "len(coords) = %d, want the grid's %d dimensions", len(coords), len(t.dims))
	}
	r := 0
	for i, x := range coords {
		d := t.dims[i]
		if x < 0 || x >= d {
			if !t.periods[i] {
				return 0, errorf(ErrArg, "coords[%d] = %d is outside [0,%d) and dimension %d is not periodic", i, x, d, i)
			}
			x = (x%d + d) % d
		}
		r = r*d + x
	}
	return r, nil
}

// Shift returns the ranks disp steps back (src) and forward (dest) from rank along
// dimension direction of grid t (MPI_Cart_shift): ProcNull where a non-periodic
// dimension ends.
func (t *Topology) Shift(rank, direction, disp int) (src, dest int, err error) {
	if direction < 0 || direction >= len(t.dims) {
		return 0, 0, errorf(ErrArg, "direction %d out of range [0,%d)", direction, len(t.dims))
	}
	co, err := t.Coords(rank)
	if err != nil {
		return 0, 0, err
	}
	ext := t.dims[direction]
	if !t.periods[direction] && (disp >= ext || disp <= -ext) {
		// Off the grid both ways; and -disp could overflow.
		return ProcNull, ProcNull, nil
	}
	step := disp % ext
	return t.moved(co, direction, -step), t.moved(co, direction, step), nil
}

// moved is the rank at co moved by delta (in (-ext, ext)) along dimension dir:
// wrapped around a periodic dimension, ProcNull off a non-periodic one.
func (t *Topology) moved(co []int, dir, delta int) int {
	ext := t.dims[dir]
	x := co[dir] + delta
	if x < 0 || x >= ext {
		if !t.periods[dir] {
			return ProcNull
		}
		x = (x + ext) % ext
	}
	r := 0
	for i, c := range co {
		if i == dir {
			c = x
		}
		r = r*t.dims[i] + c
	}
	return r
}

// Sub is how MPI_Cart_sub splits grid t into the subgrids of the dimensions where
// remain is true: the member of rank rank goes to the subgrid of colour color, at
// rank key in it (row-major order of the kept coordinates), and that subgrid has
// dims and periods. With no dimension kept, each member is a zero-dimensional grid
// of its own.
func (t *Topology) Sub(remain []bool, rank int) (color, key int, dims []int, periods []bool, err error) {
	if len(remain) != len(t.dims) {
		return 0, 0, nil, nil, errorf(ErrArg, "len(remain) = %d, want the grid's %d dimensions", len(remain), len(t.dims))
	}
	co, err := t.Coords(rank)
	if err != nil {
		return 0, 0, nil, nil, err
	}
	dims, periods = []int{}, []bool{}
	for i, keep := range remain {
		if keep {
			key = key*t.dims[i] + co[i]
			dims = append(dims, t.dims[i])
			periods = append(periods, t.periods[i])
		} else {
			color = color*t.dims[i] + co[i]
		}
	}
	return color, key, dims, periods, nil
}
