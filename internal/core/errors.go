package core

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/shmcoll"
	"github.com/mpigo/mpigo/internal/transport"
)

// ErrorClass is an MPI error class (MPI_ERR_*). The predefined classes have the
// numbers of the MPI 5.0 standard's ABI (zclasses.go, generated from the C header's
// source), so that the C library hands a program the device's classes unconverted and
// a Go program's classes are the numbers a C program sees.
type ErrorClass int

// ClassProcFailed is MPIX_ERR_PROC_FAILED, the class of ULFM (the fault tolerance
// proposal) for an operation that failed because a peer process died: mpigo raises
// it when a transport loses a peer. The standard and its ABI have no such class;
// this is MPICH's and Open MPI's number for it, above the ABI's classes and below
// LastCode, so it cannot meet a class a program adds.
const ClassProcFailed ErrorClass = 75

// ErrProcFailed is ClassProcFailed's sentinel, for errors.Is.
var ErrProcFailed = &Error{Class: ClassProcFailed}

// name is c's MPI name, if c is a predefined class.
func (c ErrorClass) name() (string, bool) {
	if c >= 0 && int(c) < len(abiClassNames) && abiClassNames[c] != "" {
		return abiClassNames[c], true
	}
	if c == ClassProcFailed {
		return "MPIX_ERR_PROC_FAILED", true
	}
	if n, ok := toolClassNames[c]; ok {
		return n, true
	}
	return "", false
}

// Predefined reports whether c is a class MPI (or mpigo, ClassProcFailed) defines,
// rather than one a program added (AddClass) or no class at all.
func (c ErrorClass) Predefined() bool {
	_, ok := c.name()
	return ok
}

// String is the class's MPI name; an added class's string (AddString), if it has one.
func (c ErrorClass) String() string {
	if n, ok := c.name(); ok {
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
// wraps another says only what it adds (Msg may be empty) before the cause's own words
// (userText: the call not named twice).
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
		if t := userText(e.Op, e.Err.Error()); t != "" {
			s += sep + t
		}
	}
	return s
}

// userText is the text of a cause from the layers below (a chain of "what: why"
// parts) as a user of op reads it: without a part that names the call again, as the
// layer below calls it (op itself, or its last word: "Incl" in GroupIncl), or repeats
// the part before it. The layers' errors say what went wrong in the user's terms and
// never name their package (internal/deps's TestErrorTextNamesNoPackage), so that this
// is the one place that frames them: "mpi: " and the call, once.
func userText(op, s string) string {
	if !strings.Contains(s, ": ") {
		return s
	}
	parts := strings.Split(s, ": ")
	kept := parts[:0]
	for i, p := range parts {
		last := i == len(parts)-1
		switch {
		case !last && namesCall(op, p):
		case len(kept) > 0 && kept[len(kept)-1] == p:
		default:
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ": ")
}

// namesCall reports whether part is op's name or its last words ("Incl" of
// "GroupIncl"): one identifier that begins with a capital letter.
func namesCall(op, part string) bool {
	if op == "" || part == "" || part[0] < 'A' || part[0] > 'Z' || strings.ContainsAny(part, " ,()[]") {
		return false
	}
	return strings.HasSuffix(op, part)
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, mpi.ErrTruncate) true for every error of that class, and
// errors.Is(err, NewError(code, "")) for every error of that added code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Op == "" && t.Msg == "" && t.Err == nil && t.Class == e.Class &&
		(t.Code == 0 || t.Code == e.Code)
}

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
	case errors.Is(err, coll.ErrShort), errors.Is(err, coll.ErrMismatch), errors.Is(err, shmcoll.ErrCount),
		errors.Is(err, shmcoll.ErrStopped):
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

// BcastErr names the root in a Bcast receiver's truncation (its buffer shorter than
// the root's message, whose lengths the cause gives), so that the error names the
// call, the sender and both lengths; other errors pass unchanged.
func BcastErr(op string, root int, err error) error {
	if err == nil {
		return nil // inlined: the success path costs a compare
	}
	return fromErr(op, "from the root, rank %d", root, err)
}

// RecvErr names the sender, rank from of the communicator, in a receiver's
// truncation (the message longer than its buffer, whose lengths the cause gives), so
// that the error names the call, the sender and both lengths; other errors, and a
// truncation whose sender is unknown (from < 0), pass unchanged.
func RecvErr(op string, from int, err error) error {
	if err == nil {
		return nil // inlined: the success path costs a compare
	}
	return fromErr(op, "from rank %d", from, err)
}

// TruncFrom is err, a receive's failure on c that op reports, with the sender of a
// truncated message named as a rank of c (RecvErr): for the calls that learn of it
// apart from the receive (Waitany, a set's statuses), from the engine's error, which
// keeps the sender's world rank. Other errors, and a nil c, pass unchanged.
func TruncFrom(op string, c *Comm, err error) error {
	var te *p2p.TruncError
	if c == nil || !errors.As(err, &te) {
		return err
	}
	return RecvErr(op, c.CommRank(te.Src), mapErr(op, err))
}

// TruncFromCause is TruncFrom for a cause that an error of op frames (a set's first
// failure, inside its MPI_ERR_IN_STATUS): the sender named, the text not framed.
func TruncFromCause(c *Comm, err error) error {
	var te *p2p.TruncError
	if c == nil || !errors.As(err, &te) {
		return err
	}
	return fmt.Errorf("from rank %d: %w", c.CommRank(te.Src), err)
}

func fromErr(op, format string, from int, err error) error {
	e, ok := mapErr(op, err).(*Error)
	if !ok || e.Class != ClassTruncate || e.Msg != "" || from < 0 {
		return err
	}
	return &Error{Class: e.Class, Code: e.Code, Op: e.Op, Msg: fmt.Sprintf(format, from), Err: e.Err}
}

// TypeErr gives a datatype engine error its MPI class.
func TypeErr(op string, err error) error {
	if err == nil {
		return nil
	}
	class := ClassType
	switch {
	case errors.Is(err, datatype.ErrCount):
		class = ClassCount
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
