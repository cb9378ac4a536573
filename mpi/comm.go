package mpi

import (
	"github.com/mpigo/mpigo/internal/pm"
)

// Comm is a communicator: a group of ranks and a context in which their messages match.
type Comm struct {
	ctx  uint32
	rank int
	size int
	name string
}

// World is every rank of the job (MPI_COMM_WORLD); Self is this rank alone
// (MPI_COMM_SELF). Both are ready after Init.
var (
	World = &Comm{ctx: 0, name: "MPI_COMM_WORLD"}
	Self  = &Comm{ctx: 1, name: "MPI_COMM_SELF"}
)

// Rank is this process's rank in c, from 0 to Size()-1.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in c.
func (c *Comm) Size() int { return c.size }

// Name is the communicator's name (MPI_Comm_get_name).
func (c *Comm) Name() string { return c.name }

// Abort ends every rank of the job with code. It does not return.
func (c *Comm) Abort(code int) { Abort(code) }

func startWorld(c pm.Client) error {
	World.rank, World.size = c.Rank(), c.Size()
	Self.rank, Self.size = 0, 1
	if err := c.Fence(); err != nil {
		return &Error{Class: ClassOther, Op: "Init", Msg: "wire-up with the other ranks", Err: err}
	}
	return nil
}

func stopWorld() error { return nil }
