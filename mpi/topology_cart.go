package mpi

import (
	"math"
	"slices"

	"github.com/mpigo/mpigo/internal/prof"
)

// cartTopo is a Cartesian grid. Ranks are laid out in row-major order, the last
// dimension varying fastest, as MPI specifies, so coordinates are computed from ranks.
type cartTopo struct {
	dims    []int
	periods []bool
	// nbrs is this process's neighbours in the order of the neighbourhood
	// collectives, worked out once because those ask on every call. It belongs to
	// the process's rank, which a Dup keeps.
	nbrs []int
}

func newCartTopo(dims []int, periods []bool, rank int) *cartTopo {
	t := &cartTopo{dims: dims, periods: periods}
	co := t.coords(rank)
	t.nbrs = make([]int, 0, 2*len(dims))
	for d := range dims {
		src, dest := t.shift(co, d, 1)
		t.nbrs = append(t.nbrs, src, dest)
	}
	return t
}

// coords returns the coordinates of rank r.
func (t *cartTopo) coords(r int) []int {
	co := make([]int, len(t.dims))
	for i := len(t.dims) - 1; i >= 0; i-- {
		co[i] = r % t.dims[i]
		r /= t.dims[i]
	}
	return co
}

// rank returns the rank at coords, wrapping periodic dimensions; ok is false when a
// coordinate of a non-periodic dimension is off the grid.
func (t *cartTopo) rank(coords []int) (r int, ok bool) {
	for i, x := range coords {
		d := t.dims[i]
		if x < 0 || x >= d {
			if !t.periods[i] {
				return 0, false
			}
			x = ((x % d) + d) % d
		}
		r = r*d + x
	}
	return r, true
}

// shift returns the ranks disp steps back and forward from coords along dimension
// dir: ProcNull where a non-periodic dimension ends.
func (t *cartTopo) shift(coords []int, dir, disp int) (src, dest int) {
	at := func(delta int) int {
		co := slices.Clone(coords)
		co[dir] += delta
		r, ok := t.rank(co)
		if !ok {
			return ProcNull
		}
		return r
	}
	return at(-disp), at(disp)
}

// DimsCreate fills the zero entries of dims so that the grid has nnodes points and its
// dimensions are as close to one another as possible (MPI_Dims_create). Positive
// entries are fixed and kept; the entries it sets come out in non-increasing order.
// It fails when nnodes is not a multiple of the fixed entries' product, and for a
// negative entry. nnodes is at most MaxInt32, as MPI's C int is. It is local: it
// needs no communicator and no Init.
//
// "As close as possible" means the smallest difference between the largest and the
// smallest free dimension, ties going to the smaller largest one: 16 in three
// dimensions is 4x2x2, not 4x4x1.
func DimsCreate(nnodes int, dims []int) error {
	const op = "DimsCreate"
	if nnodes < 1 || nnodes > math.MaxInt32 {
		// MPI's nnodes is a C int. The bound also keeps factorising nnodes by trial
		// division quick (at most 46341 trials), whatever nnodes is.
		return errorf(ClassArg, op, "nnodes = %d must be in [1,%d]", nnodes, math.MaxInt32)
	}
	fixed, free := 1, 0
	for i, d := range dims {
		switch {
		case d < 0:
			return errorf(ClassDims, op, "dims[%d] = %d must not be negative (0 lets DimsCreate choose it)", i, d)
		case d == 0:
			free++
		default:
			if d > nnodes/fixed {
				// Also keeps the product from overflowing.
				return errorf(ClassDims, op, "the fixed dims %v multiply to more than nnodes = %d", dims, nnodes)
			}
			fixed *= d
		}
	}
	if nnodes%fixed != 0 {
		return errorf(ClassDims, op, "nnodes = %d is not a multiple of %d, the product of the fixed dims %v", nnodes, fixed, dims)
	}
	rest := nnodes / fixed
	if free == 0 {
		if rest != 1 {
			return errorf(ClassDims, op, "the dims %v are all fixed and multiply to %d, not nnodes = %d", dims, fixed, nnodes)
		}
		return nil
	}
	f := balancedFactors(rest, free)
	k := 0
	for i := range dims {
		if dims[i] == 0 {
			dims[i] = f[k]
			k++
		}
	}
	return nil
}

// balancedFactors splits n into k factors, largest first, with the smallest spread
// (largest minus smallest), ties to the lexicographically smallest.
//
// For a given largest factor top, the spread is smallest when the smallest factor is
// largest, so the search is over top, from the k-th root of n up, asking each time for
// the largest smallest factor the rest can have (maxMin, memoised: the same remainders
// recur across branches). It stops once top minus the best smallest factor it could
// possibly have exceeds the best spread found. The factors after top are then rebuilt,
// each the smallest (no larger than the one before) that still lets the rest keep the
// smallest factor: the lexicographically smallest, in non-increasing order.
func balancedFactors(n, k int) []int {
	divs := divisors(n)
	type key struct{ rest, m, hi int }
	memo := map[key]int{}
	// maxMin is the largest possible smallest factor of rest split into m factors of
	// at most hi each (all divisors of n), 0 if there is no such split.
	var maxMin func(rest, m, hi int) int
	maxMin = func(rest, m, hi int) int {
		switch {
		case rest == 1:
			return 1
		case m == 1:
			if rest <= hi {
				return rest
			}
			return 0
		}
		hi = min(hi, rest)
		kk := key{rest, m, hi}
		if v, ok := memo[kk]; ok {
			return v
		}
		best := 0
		for _, d := range divs {
			if d > hi {
				break
			}
			if rest%d != 0 || !powAtLeast(d, m, rest) {
				continue // d cannot be the largest: m factors of at most d would not reach rest
			}
			if iroot(rest/d, m-1) <= best {
				break // the smallest of the others is at most this, and it only falls as d grows
			}
			best = max(best, min(d, maxMin(rest/d, m-1, d)))
		}
		memo[kk] = best
		return best
	}

	top, lo, bestSpread := n, 1, math.MaxInt
	for _, d := range divs {
		if !powAtLeast(d, k, n) {
			continue
		}
		if d-min(d, iroot(n/d, k-1)) >= bestSpread {
			break // a lower bound on the spread, growing with d; ties go to the smaller top
		}
		if mm := min(d, maxMin(n/d, k-1, d)); mm > 0 && d-mm < bestSpread {
			top, lo, bestSpread = d, mm, d-mm
		}
	}
	f := []int{top}
	rest, prev := n/top, top
	for m := k - 1; m > 0; m-- {
		if m == 1 {
			f = append(f, rest)
			break
		}
		for _, d := range divs {
			if d >= lo && d <= prev && rest%d == 0 && maxMin(rest/d, m-1, d) >= lo {
				f, rest, prev = append(f, d), rest/d, d
				break
			}
		}
	}
	return f
}

// divisors returns the divisors of n in ascending order, from its factorisation into
// primes, so that a smooth n (the usual case) is quick whatever its size.
func divisors(n int) []int {
	divs := []int{1}
	for p := 2; n > 1; p++ {
		if p > n/p {
			p = n // what is left is prime
		}
		e := 0
		for n%p == 0 {
			n /= p
			e++
		}
		cur := len(divs)
		pk := 1
		for range e {
			pk *= p
			for _, d := range divs[:cur] {
				divs = append(divs, d*pk)
			}
		}
	}
	slices.Sort(divs)
	return divs
}

// pow is d**m, or ok = false when that exceeds MaxInt.
func pow(d, m int) (p int, ok bool) {
	p = 1
	for range m {
		if d > 1 && p > math.MaxInt/d {
			return 0, false
		}
		p *= d
	}
	return p, true
}

// powAtLeast reports whether d**m >= x.
func powAtLeast(d, m, x int) bool {
	p, ok := pow(d, m)
	return !ok || p >= x
}

// powAbove reports whether d**m > x.
func powAbove(d, m, x int) bool {
	p, ok := pow(d, m)
	return !ok || p > x
}

// iroot is the largest r with r**m <= x, for x >= 1 and m >= 1.
func iroot(x, m int) int {
	if m <= 1 {
		return x
	}
	r := max(int(math.Pow(float64(x), 1/float64(m))), 1)
	for r > 1 && powAbove(r, m, x) {
		r--
	}
	for !powAbove(r+1, m, x) {
		r++
	}
	return r
}

// checkCart validates a grid for a communicator of size ranks and returns its number
// of points.
func checkCart(op string, dims []int, periods []bool, size int) (int, error) {
	if len(periods) != len(dims) {
		return 0, errorf(ClassArg, op, "len(periods) = %d, want len(dims) = %d", len(periods), len(dims))
	}
	n := 1
	for i, d := range dims {
		if d <= 0 {
			return 0, errorf(ClassDims, op, "dims[%d] = %d must be positive", i, d)
		}
		if d > size/n {
			return 0, errorf(ClassDims, op, "the grid %v has more points than the %d ranks of the communicator", dims, size)
		}
		n *= d
	}
	return n, nil
}

// CartCreate makes a communicator with a Cartesian grid of dims attached, periodic
// (wrapping around) in the dimensions where periods is true (MPI_Cart_create). It is
// collective over c. The grid may be smaller than c: ranks beyond it get nil. Ranks
// keep their rank in c; reorder is accepted, and mpigo does not reorder yet. Every
// rank must pass the same arguments; if any rank's are invalid, all get an error.
func (c *Comm) CartCreate(dims []int, periods []bool, reorder bool) (*Comm, error) {
	defer prof.Exit(prof.CartCreate, c.enterRare(prof.CartCreate, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("CartCreate", func(b *Comm) (*Comm, error) { return b.CartCreate(dims, periods, reorder) }); done {
		return nc, err
	}
	const op = "CartCreate"
	if err := c.topoUsable(op); err != nil {
		return nil, err
	}
	n, err := checkCart(op, dims, periods, c.Size())
	var h argHash
	h.ints(dims...)
	h.bools(periods...)
	h.bools(reorder)
	if _, err := c.agree(op, err, h.sum(), 0); err != nil {
		return nil, c.fail(op, err)
	}
	nc, err := c.createFirst(op, n)
	if err != nil || nc == nil {
		return nil, c.fail(op, err)
	}
	nc.topo = newCartTopo(slices.Clone(dims), slices.Clone(periods), nc.Rank())
	return nc, nil
}

// cart returns c's grid, or an error naming op when c has none.
func (c *Comm) cart(op string) (*cartTopo, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	t, ok := c.topo.(*cartTopo)
	if !ok {
		return nil, c.fail(op, noTopo(c, op, TopoCart))
	}
	return t, nil
}

// Cartdim returns the number of dimensions of c's grid (MPI_Cartdim_get).
func (c *Comm) Cartdim() (int, error) {
	t, err := c.cart("Cartdim")
	if err != nil {
		return 0, err
	}
	return len(t.dims), nil
}

// CartGet returns c's grid: its dimensions, which of them are periodic, and this
// rank's coordinates (MPI_Cart_get). The slices are the caller's.
func (c *Comm) CartGet() (dims []int, periods []bool, coords []int, err error) {
	t, err := c.cart("CartGet")
	if err != nil {
		return nil, nil, nil, err
	}
	return slices.Clone(t.dims), slices.Clone(t.periods), t.coords(c.Rank()), nil
}

// CartRank returns the rank at coords in c's grid (MPI_Cart_rank). A coordinate off a
// periodic dimension wraps around; off a non-periodic one it is an error.
func (c *Comm) CartRank(coords []int) (int, error) {
	const op = "CartRank"
	t, err := c.cart(op)
	if err != nil {
		return 0, err
	}
	if len(coords) != len(t.dims) {
		return 0, c.fail(op, errorf(ClassArg, op, "len(coords) = %d, want the grid's %d dimensions", len(coords), len(t.dims)))
	}
	r, ok := t.rank(coords)
	if !ok {
		for i, x := range coords {
			if !t.periods[i] && (x < 0 || x >= t.dims[i]) {
				return 0, c.fail(op, errorf(ClassArg, op, "coords[%d] = %d is outside [0,%d) and dimension %d is not periodic", i, x, t.dims[i], i))
			}
		}
	}
	return r, nil
}

// CartCoords returns the coordinates of rank in c's grid (MPI_Cart_coords).
func (c *Comm) CartCoords(rank int) ([]int, error) {
	const op = "CartCoords"
	t, err := c.cart(op)
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= c.Size() {
		return nil, c.fail(op, errorf(ClassRank, op, "rank %d out of range [0,%d)", rank, c.Size()))
	}
	return t.coords(rank), nil
}

// CartShift returns the ranks this rank exchanges with in a shift by disp along
// dimension direction (MPI_Cart_shift): dest is disp steps forward, src disp steps
// back, the pair to pass to Sendrecv. Along a non-periodic dimension a step off the
// grid gives ProcNull, so the edges of a halo exchange need no special case.
func (c *Comm) CartShift(direction, disp int) (src, dest int, err error) {
	const op = "CartShift"
	t, err := c.cart(op)
	if err != nil {
		return 0, 0, err
	}
	if direction < 0 || direction >= len(t.dims) {
		return 0, 0, c.fail(op, errorf(ClassArg, op, "direction %d out of range [0,%d)", direction, len(t.dims)))
	}
	src, dest = t.shift(t.coords(c.Rank()), direction, disp)
	return src, dest, nil
}

// CartSub splits c's grid into subgrids of the dimensions where remain is true, one
// communicator for each combination of the other coordinates (MPI_Cart_sub). It is
// collective over c. On a 2x3 grid, remain = {false, true} gives the rows (3 ranks
// each), {true, false} the columns. With every entry false each rank gets a
// communicator of itself alone, with a zero-dimensional grid.
func (c *Comm) CartSub(remain []bool) (*Comm, error) {
	defer prof.Exit(prof.CartSub, c.enterRare(prof.CartSub, prof.NoPeer, 0), 0)
	if nc, done, err := c.aroundNew("CartSub", func(b *Comm) (*Comm, error) { return b.CartSub(remain) }); done {
		return nc, err
	}
	const op = "CartSub"
	t, err := c.cart(op)
	if err != nil {
		return nil, err
	}
	if len(remain) != len(t.dims) {
		err = errorf(ClassArg, op, "len(remain) = %d, want the grid's %d dimensions", len(remain), len(t.dims))
	}
	var h argHash
	h.bools(remain...)
	if _, err := c.agree(op, err, h.sum(), 0); err != nil {
		return nil, c.fail(op, err)
	}
	// Colour by the dropped coordinates, key by the kept ones: row-major order of the
	// kept coordinates is then the rank order of the subgrid.
	co := t.coords(c.Rank())
	color, key := 0, 0
	var dims []int
	var periods []bool
	for i, keep := range remain {
		if keep {
			key = key*t.dims[i] + co[i]
			dims = append(dims, t.dims[i])
			periods = append(periods, t.periods[i])
		} else {
			color = color*t.dims[i] + co[i]
		}
	}
	nc, err := c.Split(color, key)
	if err != nil {
		return nil, c.fail(op, err)
	}
	c.mu.Lock()
	c.mu.Unlock()
	nc.topo = newCartTopo(dims, periods, nc.Rank())
	return nc, nil
}

// CartMap returns the rank this process would have in CartCreate(dims, periods, true)
// on c, or Undefined if it would be outside the grid (MPI_Cart_map). It is local.
func (c *Comm) CartMap(dims []int, periods []bool) (int, error) {
	const op = "CartMap"
	if err := c.topoUsable(op); err != nil {
		return 0, err
	}
	n, err := checkCart(op, dims, periods, c.Size())
	if err != nil {
		return 0, c.fail(op, err)
	}
	if c.Rank() >= n {
		return Undefined, nil
	}
	return c.Rank(), nil
}
