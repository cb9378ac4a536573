package group

import (
	"errors"
	"fmt"
)

// Error classes, for errors.Is; the MPI layer maps them to MPI_ERR_GROUP,
// MPI_ERR_RANK and MPI_ERR_ARG.
var (
	ErrGroup = errors.New("invalid group")
	ErrRank  = errors.New("invalid rank")
	ErrArg   = errors.New("invalid argument")
)

// Error is the error of a group operation: it names the operation, the argument and
// the rule broken, as in "Incl: ranks[3] = 17 out of range [0,16)".
type Error struct {
	Op    string // Incl, RangeExcl, ...
	Msg   string
	Class error // ErrGroup, ErrRank or ErrArg
}

func (e *Error) Error() string { return e.Op + ": " + e.Msg }

// Unwrap returns the class, so errors.Is(err, ErrRank) works.
func (e *Error) Unwrap() error { return e.Class }

func errorf(class error, op, format string, args ...any) error {
	return &Error{Op: op, Msg: fmt.Sprintf(format, args...), Class: class}
}

func nilGroup(op, arg string) error {
	return errorf(ErrGroup, op, "%s is nil (MPI_GROUP_NULL)", arg)
}
