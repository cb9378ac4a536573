package vtopo

import (
	"errors"
	"fmt"
)

// The classes of vtopo's errors, for errors.Is; mpir maps them to MPI_ERR_ARG,
// MPI_ERR_DIMS, MPI_ERR_RANK and MPI_ERR_TOPOLOGY.
var (
	ErrArg      = errors.New("invalid argument")
	ErrDims     = errors.New("invalid dimensions")
	ErrRank     = errors.New("invalid rank")
	ErrTopology = errors.New("invalid topology")
)

// Error is an error of a topology's construction or query: the rule broken, in words
// that follow the name of the MPI call (mpir adds it), and its class.
type Error struct {
	Msg   string
	Class error // ErrArg, ErrDims, ErrRank or ErrTopology
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the class, so errors.Is(err, ErrDims) works.
func (e *Error) Unwrap() error { return e.Class }

func errorf(class error, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), Class: class}
}
