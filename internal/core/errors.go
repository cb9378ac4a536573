package core

import (
	"errors"
	"fmt"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/shmcoll"
	"github.com/mpigo/mpigo/internal/transport"
)

// ErrorClass is an MPI error class (MPI_ERR_*), with the numbers MPICH and Open MPI use.
type ErrorClass int

const (
	ClassSuccess    ErrorClass = 0
	ClassBuffer     ErrorClass = 1
	ClassCount      ErrorClass = 2
	ClassType       ErrorClass = 3
	ClassTag        ErrorClass = 4
	ClassComm       ErrorClass = 5
	ClassRank       ErrorClass = 6
	ClassRequest    ErrorClass = 7
	ClassRoot       ErrorClass = 8
	ClassGroup      ErrorClass = 9
	ClassOp         ErrorClass = 10
	ClassTopology   ErrorClass = 11
	ClassDims       ErrorClass = 12
	ClassArg        ErrorClass = 13
	ClassUnknown    ErrorClass = 14
	ClassTruncate   ErrorClass = 15
	ClassOther      ErrorClass = 16
	ClassIntern     ErrorClass = 17
	ClassInStatus   ErrorClass = 18
	ClassPending    ErrorClass = 19
	ClassInfo       ErrorClass = 28 // MPICH's numbers from here (Open MPI's differ)
	ClassInfoKey    ErrorClass = 29
	ClassInfoValue  ErrorClass = 30
	ClassInfoNokey  ErrorClass = 31
	ClassNoMem      ErrorClass = 34
	ClassBase       ErrorClass = 46
	ClassKeyval     ErrorClass = 48
	ClassProcFailed ErrorClass = 75 // MPIX_ERR_PROC_FAILED (ULFM)
)

var classNames = map[ErrorClass]string{
	ClassSuccess: "MPI_SUCCESS", ClassBuffer: "MPI_ERR_BUFFER", ClassCount: "MPI_ERR_COUNT",
	ClassType: "MPI_ERR_TYPE", ClassTag: "MPI_ERR_TAG", ClassComm: "MPI_ERR_COMM",
	ClassRank: "MPI_ERR_RANK", ClassRequest: "MPI_ERR_REQUEST", ClassRoot: "MPI_ERR_ROOT",
	ClassGroup: "MPI_ERR_GROUP", ClassOp: "MPI_ERR_OP", ClassTopology: "MPI_ERR_TOPOLOGY",
	ClassDims: "MPI_ERR_DIMS", ClassArg: "MPI_ERR_ARG", ClassUnknown: "MPI_ERR_UNKNOWN",
	ClassTruncate: "MPI_ERR_TRUNCATE", ClassOther: "MPI_ERR_OTHER", ClassIntern: "MPI_ERR_INTERN",
	ClassInStatus: "MPI_ERR_IN_STATUS", ClassPending: "MPI_ERR_PENDING",
	ClassProcFailed: "MPIX_ERR_PROC_FAILED", ClassInfo: "MPI_ERR_INFO", ClassInfoKey: "MPI_ERR_INFO_KEY",
	ClassInfoValue: "MPI_ERR_INFO_VALUE", ClassInfoNokey: "MPI_ERR_INFO_NOKEY", ClassNoMem: "MPI_ERR_NO_MEM",
	ClassBase: "MPI_ERR_BASE", ClassKeyval: "MPI_ERR_KEYVAL",
}

// String is the class's MPI name; an added class's string (AddString), if it has one.
func (c ErrorClass) String() string {
	if n, ok := classNames[c]; ok {
		return n
	}
	if s, ok := addedString(ErrorCode(c)); ok {
		return s
	}
	return fmt.Sprintf("MPI error class %d", int(c))
}

// Error is an error from an MPI call: its class, the call, and what went wrong.
type Error struct {
	Class ErrorClass
	Code  ErrorCode // an added code of Class (AddCode); 0 for the class itself
	Op    string    // the call, e.g. "Send"
	Msg   string
	Err   error // the cause, if any
}

// Error prints the call, what went wrong and the cause, each once: an error that
// wraps another says only what it adds (Msg may be empty) before the cause's own words.
func (e *Error) Error() string {
	if e.Op == "" && e.Msg == "" && e.Err == nil {
		return "mpi: " + e.codeText()
	}
	head := e.Op
	if head == "" && (e.Code != 0 || ErrorCode(e.Class) > LastCode) {
		head = e.codeText()
	}
	s := "mpi: " + head
	sep := ": "
	if head == "" {
		sep = ""
	}
	if e.Msg != "" {
		s += sep + e.Msg
		sep = ": "
	}
	if e.Err != nil {
		s += sep + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, mpi.ErrTruncate) true for every error of that class, and
// errors.Is(err, NewError(code, "")) for every error of that added code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Op == "" && t.Msg == "" && t.Err == nil && t.Class == e.Class &&
		(t.Code == 0 || t.Code == e.Code)
}

// One sentinel per class, for errors.Is.
var (
	ErrBuffer     = &Error{Class: ClassBuffer}
	ErrCount      = &Error{Class: ClassCount}
	ErrType       = &Error{Class: ClassType}
	ErrTag        = &Error{Class: ClassTag}
	ErrComm       = &Error{Class: ClassComm}
	ErrRank       = &Error{Class: ClassRank}
	ErrRequest    = &Error{Class: ClassRequest}
	ErrRoot       = &Error{Class: ClassRoot}
	ErrGroup      = &Error{Class: ClassGroup}
	ErrOp         = &Error{Class: ClassOp}
	ErrTopology   = &Error{Class: ClassTopology}
	ErrDims       = &Error{Class: ClassDims}
	ErrArg        = &Error{Class: ClassArg}
	ErrUnknown    = &Error{Class: ClassUnknown}
	ErrTruncate   = &Error{Class: ClassTruncate}
	ErrOther      = &Error{Class: ClassOther}
	ErrIntern     = &Error{Class: ClassIntern}
	ErrInStatus   = &Error{Class: ClassInStatus}
	ErrPending    = &Error{Class: ClassPending}
	ErrProcFailed = &Error{Class: ClassProcFailed}
	ErrInfo       = &Error{Class: ClassInfo}
	ErrInfoKey    = &Error{Class: ClassInfoKey}
	ErrInfoValue  = &Error{Class: ClassInfoValue}
	ErrInfoNokey  = &Error{Class: ClassInfoNokey}
	ErrNoMem      = &Error{Class: ClassNoMem}
	ErrBase       = &Error{Class: ClassBase}
	ErrKeyval     = &Error{Class: ClassKeyval}
)

// ClassOf returns the MPI error class of err: ClassSuccess for nil, ClassOther for an
// error that did not come from an MPI call.
func ClassOf(err error) ErrorClass {
	if err == nil {
		return ClassSuccess
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return ClassOther
}

// Errorf makes an error of class for the call op.
func Errorf(class ErrorClass, op, format string, a ...any) error {
	return &Error{Class: class, Op: op, Msg: fmt.Sprintf(format, a...)}
}

// Wrap gives err, from a layer below, its MPI class (MapErr) and says which call met it.
func Wrap(class ErrorClass, op, msg string, err error) error {
	return &Error{Class: class, Op: op, Msg: msg, Err: err}
}

// MapErr gives an error of the layers below (the engine, the transports) its MPI class
// for the call op; an *Error passes unchanged. The cause is kept as Err and printed
// once.
func MapErr(op string, err error) error {
	if err == nil {
		return nil // inlined: the success path costs a compare
	}
	return mapErr(op, err)
}

func mapErr(op string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	class := ClassOther
	switch {
	case errors.Is(err, p2p.ErrTruncate), errors.Is(err, shmcoll.ErrTruncate), errors.Is(err, coll.ErrTruncate):
		class = ClassTruncate
	case errors.Is(err, coll.ErrShort), errors.Is(err, coll.ErrMismatch), errors.Is(err, shmcoll.ErrCount):
		class = ClassCount
	case errors.Is(err, p2p.ErrBuffer), errors.Is(err, p2p.ErrNoBuffer), errors.Is(err, p2p.ErrBufferAttached):
		class = ClassBuffer
	case errors.Is(err, p2p.ErrRequest):
		class = ClassRequest
	case errors.Is(err, transport.ErrPeerGone):
		class = ClassProcFailed
	}
	return &Error{Class: class, Op: op, Err: err}
}

// TypeErr gives a datatype engine error its MPI class.
func TypeErr(op string, err error) error {
	if err == nil {
		return nil
	}
	class := ClassType
	switch {
	case errors.Is(err, datatype.ErrArg), errors.Is(err, datatype.ErrOverflow):
		class = ClassArg
	case errors.Is(err, datatype.ErrBuffer):
		class = ClassBuffer
	}
	return &Error{Class: class, Op: op, Err: err}
}

// GroupErr gives a group error its MPI class.
func GroupErr(op string, err error) error {
	if err == nil {
		return nil
	}
	class := ClassGroup
	switch {
	case errors.Is(err, group.ErrRank):
		class = ClassRank
	case errors.Is(err, group.ErrArg):
		class = ClassArg
	}
	return &Error{Class: class, Op: op, Err: err}
}
