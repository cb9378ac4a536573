package mpi

import (
	"slices"

	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// DimsCreate fills the zero entries of dims so that the grid has nnodes points and its
// dimensions are as close to one another as possible (MPI_Dims_create). Positive
// entries are fixed and kept; the entries it sets come out in non-increasing order.
// It fails when nnodes is not a multiple of the fixed entries' product, and for a
// negative entry. nnodes is at most MaxInt32, as MPI's C int is. It is local: it
// needs no communicator and no Init. Its errors go to Self's handler.
//
// "As close as possible" means the smallest difference between the largest and the
// smallest free dimension: 16 in three dimensions is 4x2x2, not 4x4x1. Of grids with
// the same difference, the one whose smallest dimension is largest, then its second
// smallest, and so on, as MPICH chooses: 5040 in three dimensions is 21x16x15, not
// 20x18x14.
func DimsCreate(nnodes int, dims []int) error {
	const op = "DimsCreate"
	return Self.fail(op, mpir.DimsCreate(op, nnodes, dims))
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
	if err := c.check(op); err != nil {
		return nil, err
	}
	nd, t, err := mpir.CartCreate(op, c.d, nil, dims, periods, reorder)
	return c.adopt(op, nd, t, err)
}

// Cartdim returns the number of dimensions of c's grid (MPI_Cartdim_get).
func (c *Comm) Cartdim() (int, error) {
	const op = "Cartdim"
	if err := c.check(op); err != nil {
		return 0, err
	}
	n, err := mpir.Cartdim(op, c.d, c.topo())
	return n, c.fail(op, err)
}

// CartGet returns c's grid: its dimensions, which of them are periodic, and this
// rank's coordinates (MPI_Cart_get). The slices are the caller's.
func (c *Comm) CartGet() (dims []int, periods []bool, coords []int, err error) {
	const op = "CartGet"
	if err := c.check(op); err != nil {
		return nil, nil, nil, err
	}
	dims, periods, coords, err = mpir.CartGet(op, c.d, c.topo())
	if err != nil {
		return nil, nil, nil, c.fail(op, err)
	}
	return slices.Clone(dims), slices.Clone(periods), coords, nil
}

// CartRank returns the rank at coords in c's grid (MPI_Cart_rank). A coordinate off a
// periodic dimension wraps around; off a non-periodic one it is an error.
func (c *Comm) CartRank(coords []int) (int, error) {
	const op = "CartRank"
	if err := c.check(op); err != nil {
		return 0, err
	}
	r, err := mpir.CartRank(op, c.d, c.topo(), coords)
	return r, c.fail(op, err)
}

// CartCoords returns the coordinates of rank in c's grid (MPI_Cart_coords).
func (c *Comm) CartCoords(rank int) ([]int, error) {
	const op = "CartCoords"
	if err := c.check(op); err != nil {
		return nil, err
	}
	co, err := mpir.CartCoords(op, c.d, c.topo(), rank)
	return co, c.fail(op, err)
}

// CartShift returns the ranks this rank exchanges with in a shift by disp along
// dimension direction (MPI_Cart_shift): dest is disp steps forward, src disp steps
// back, the pair to pass to Sendrecv. Along a non-periodic dimension a step off the
// grid gives ProcNull, so the edges of a halo exchange need no special case.
func (c *Comm) CartShift(direction, disp int) (src, dest int, err error) {
	const op = "CartShift"
	if err := c.check(op); err != nil {
		return 0, 0, err
	}
	src, dest, err = mpir.CartShift(op, c.d, c.topo(), direction, disp)
	return src, dest, c.fail(op, err)
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
	if err := c.check(op); err != nil {
		return nil, err
	}
	nd, t, err := mpir.CartSub(op, c.d, c.topo(), nil, remain)
	return c.adopt(op, nd, t, err)
}

// CartMap returns the rank this process would have in CartCreate(dims, periods, true)
// on c, or Undefined if it would be outside the grid (MPI_Cart_map). It is local.
func (c *Comm) CartMap(dims []int, periods []bool) (int, error) {
	const op = "CartMap"
	if err := c.check(op); err != nil {
		return 0, err
	}
	r, err := mpir.CartMap(op, c.d, dims, periods)
	if err != nil {
		return 0, c.fail(op, err)
	}
	return r, nil
}
