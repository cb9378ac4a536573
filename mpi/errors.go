package mpi

import "github.com/mpigo/mpigo/internal/core"

// ErrorClass is an MPI error class (MPI_ERR_*), with the numbers MPICH and Open MPI use.
type ErrorClass = core.ErrorClass

// Error is an error from an MPI call: its class, the call, what went wrong, and the
// cause from below, if any. Its text says each once.
type Error = core.Error

// The error classes.
const (
	ClassSuccess    = core.ClassSuccess
	ClassBuffer     = core.ClassBuffer
	ClassCount      = core.ClassCount
	ClassType       = core.ClassType
	ClassTag        = core.ClassTag
	ClassComm       = core.ClassComm
	ClassRank       = core.ClassRank
	ClassRequest    = core.ClassRequest
	ClassRoot       = core.ClassRoot
	ClassGroup      = core.ClassGroup
	ClassOp         = core.ClassOp
	ClassTopology   = core.ClassTopology
	ClassDims       = core.ClassDims
	ClassArg        = core.ClassArg
	ClassUnknown    = core.ClassUnknown
	ClassTruncate   = core.ClassTruncate
	ClassOther      = core.ClassOther
	ClassIntern     = core.ClassIntern
	ClassInStatus   = core.ClassInStatus
	ClassPending    = core.ClassPending
	ClassProcFailed = core.ClassProcFailed
)

// One sentinel per class, for errors.Is(err, mpi.ErrTruncate).
var (
	ErrBuffer     = core.ErrBuffer
	ErrCount      = core.ErrCount
	ErrType       = core.ErrType
	ErrTag        = core.ErrTag
	ErrComm       = core.ErrComm
	ErrRank       = core.ErrRank
	ErrRequest    = core.ErrRequest
	ErrRoot       = core.ErrRoot
	ErrGroup      = core.ErrGroup
	ErrOp         = core.ErrOp
	ErrTopology   = core.ErrTopology
	ErrDims       = core.ErrDims
	ErrArg        = core.ErrArg
	ErrUnknown    = core.ErrUnknown
	ErrTruncate   = core.ErrTruncate
	ErrOther      = core.ErrOther
	ErrIntern     = core.ErrIntern
	ErrInStatus   = core.ErrInStatus
	ErrPending    = core.ErrPending
	ErrProcFailed = core.ErrProcFailed
)

// ClassOf returns the MPI error class of err: ClassSuccess for nil, ClassOther for an
// error that did not come from an MPI call.
func ClassOf(err error) ErrorClass { return core.ClassOf(err) }

var (
	errorf   = core.Errorf
	mapErr   = core.MapErr
	typeErr  = core.TypeErr
	groupErr = core.GroupErr
)
