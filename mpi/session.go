package mpi

import (
	"strconv"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Session is an MPI session (MPI_Session, MPI 4.1 section 11.3): a way into MPI that
// needs neither Init nor World. A program (or each library in it) starts a session,
// asks it for a process set's group (GroupFromPset, "mpi://WORLD" or "mpi://SELF"),
// makes communicators from groups (CommCreateFromGroup), and finalizes the session.
// The groups and communicators derived from a session belong to it (see Group).
// Sessions may be started any number of times, from many goroutines, before or beside
// the world model (Init to Finalize); MPI runs while any of them does. When the last
// session ends with no world model running, MPI idles (calls other than SessionInit and
// Init fail with ErrOther) until a session or Init starts it again; when Finalize of
// the world model is the last end, MPI stops for good, and SessionInit fails with
// ErrOther. Initialized and Finalized speak of the world model only.
//
// A nil *Session is MPI_SESSION_NULL; calls on it, as on a finalized session, return
// an error of class ErrSession (through Self's handler). A session's other errors go
// to its own handler (SetErrHandler), ErrorsReturn unless SessionInit was given
// another.
type Session struct {
	d    *mpir.Session
	errh mpir.Errh // SessionInit's errh, until SetErrHandler
}

// MaxStringTag is MPI_MAX_STRINGTAG_LEN: a string tag of CommCreateFromGroup and
// IntercommCreateFromGroups has fewer bytes (C's terminating NUL counts in it).
const MaxStringTag = core.MaxStringTag

// String is the level's MPI name.
func (l ThreadLevel) String() string {
	if n := mpir.ThreadLevelName(int(l)); n != "" {
		return n
	}
	return "ThreadLevel(" + strconv.Itoa(int(l)) + ")"
}

// SessionInit starts a session (MPI_Session_init). info may ask for a thread level
// with the key "thread_level" ("MPI_THREAD_SINGLE" to "MPI_THREAD_MULTIPLE"; other
// values are ignored, as hints are); without it the session gets ThreadMultiple, as
// Init does. errh becomes the session's handler (nil: ErrorsReturn); it must be
// ErrorsReturn, ErrorsAreFatal, ErrorsAbort or one of NewSessionErrHandler (else
// ErrErrhandler), and it also serves this call's own errors, with a nil session.
func SessionInit(info *Info, errh *ErrHandler) (*Session, error) {
	const op = "SessionInit"
	h := errh.dev()
	if err := h.Fits(op, mpir.KindSession); err != nil {
		return nil, noObject(op, err)
	}
	d, err := mpir.SessionInit(op, info.obj())
	if err != nil {
		return nil, h.Run(op, nil, mpir.Text("a new session"), err)
	}
	s := &Session{d: d}
	s.errh.Init(h)
	d.Face = s
	return s, nil
}

// dev is s's session in mpir, nil for a nil s.
func (s *Session) dev() *mpir.Session {
	if s == nil {
		return nil
	}
	return s.d
}

// check is the session's handle check: nil when op may use s, else the error (class
// ErrSession) through Self's handler, as for errors with no valid object.
func (s *Session) check(op string) error {
	if err := s.dev().Check(op); err != nil {
		return noObject(op, err)
	}
	return nil
}

// fail is the session's side of the error seam: err goes to s's handler. On success
// it costs one comparison.
func (s *Session) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	return s.raise(op, err)
}

func (s *Session) raise(op string, err error) error { return s.invoke(op, core.MapErr(op, err)) }

func (s *Session) invoke(op string, err error) error {
	if s == nil {
		return (*Comm)(nil).invoke(op, err)
	}
	return s.errh.Raise(op, s, mpir.Text("a session"), err)
}

// Finalize ends the session (MPI_Session_finalize). Communicators made from it should
// be freed first, as MPI requires; the messages in its buffer (AttachBuffer) are
// delivered and the buffer let go. It waits for no other rank. When no other session
// and no world model are left, MPI idles until the next SessionInit or Init. Every
// later call on s returns ErrSession.
func (s *Session) Finalize() error {
	const op = "SessionFinalize"
	if err := s.check(op); err != nil {
		return err
	}
	err := s.d.Finalize(op)
	if !core.Live() {
		stopRunners() // MPI idles or has stopped: no view's collective is left to run
	}
	if err != nil {
		if core.ClassOf(err) == ClassSession {
			return noObject(op, err)
		}
		return s.fail(op, err)
	}
	return nil
}

// NumPsets is the number of process sets the session knows
// (MPI_Session_get_num_psets); info is for hints, none of which mpigo takes (nil is
// MPI_INFO_NULL).
func (s *Session) NumPsets(info *Info) (int, error) {
	const op = "SessionGetNumPsets"
	if err := s.check(op); err != nil {
		return 0, err
	}
	ps, err := s.d.Psets(op, info.obj())
	if err != nil {
		return 0, s.fail(op, err)
	}
	return len(ps), nil
}

// NthPset is the name of process set n, from 0 to NumPsets()-1
// (MPI_Session_get_nth_pset): "mpi://WORLD", then "mpi://SELF". n out of range is an
// error of class ErrArg.
func (s *Session) NthPset(info *Info, n int) (string, error) {
	const op = "SessionGetNthPset"
	if err := s.check(op); err != nil {
		return "", err
	}
	name, err := s.d.NthPset(op, info.obj(), n)
	return name, s.fail(op, err)
}

// Info returns a new Info describing the session (MPI_Session_get_info):
// "mpi_thread_support_level", the thread level it provides ("MPI_THREAD_MULTIPLE",
// ...), and the same under "thread_level", the key SessionInit reads (MPICH gives
// that one). The caller owns it.
func (s *Session) Info() (*Info, error) {
	const op = "SessionGetInfo"
	if err := s.check(op); err != nil {
		return nil, err
	}
	in, err := s.d.Info(op)
	if err != nil {
		return nil, s.fail(op, err)
	}
	return wrapInfo(in), nil
}

// PsetInfo returns a new Info describing process set name (MPI_Session_get_pset_info):
// "mpi_size", its number of processes. An unknown name is an error of class ErrArg.
func (s *Session) PsetInfo(name string) (*Info, error) {
	const op = "SessionGetPsetInfo"
	if err := s.check(op); err != nil {
		return nil, err
	}
	in, err := s.d.PsetInfo(op, name)
	if err != nil {
		return nil, s.fail(op, err)
	}
	return wrapInfo(in), nil
}

// GroupFromPset returns the group of process set name (MPI_Group_from_session_pset):
// every process of the job for "mpi://WORLD" (ranked as in World), this process for
// "mpi://SELF"; the names in any case. An unknown name is an error of class ErrArg.
func (s *Session) GroupFromPset(name string) (*Group, error) {
	const op = "GroupFromSessionPset"
	if err := s.check(op); err != nil {
		return nil, err
	}
	g, err := s.d.GroupFromPset(op, name)
	if err != nil {
		return nil, s.fail(op, err)
	}
	return wrapGroup(g), nil
}

// NewSessionErrHandler makes a handler for sessions that calls fn with the session and
// the error (MPI_Session_create_errhandler); the error is then returned. fn gets a nil
// session for an error of SessionInit.
func NewSessionErrHandler(fn func(s *Session, err error)) *ErrHandler {
	return newErrHandler(mpir.KindSession, fn)
}

// SetErrHandler sets the session's handler (MPI_Session_set_errhandler): ErrorsReturn,
// ErrorsAreFatal, ErrorsAbort or one of NewSessionErrHandler (else ErrErrhandler);
// nil restores ErrorsReturn.
func (s *Session) SetErrHandler(h *ErrHandler) error {
	const op = "SessionSetErrhandler"
	if err := s.check(op); err != nil {
		return err
	}
	_, err := s.errh.Set(op, mpir.KindSession, h.dev())
	return s.fail(op, err)
}

// ErrHandler returns the session's handler (MPI_Session_get_errhandler); ErrorsReturn
// for a nil session.
func (s *Session) ErrHandler() *ErrHandler {
	if s == nil {
		return ErrorsReturn
	}
	return errhOf(s.errh.Get())
}

// CallErrHandler invokes the session's handler on err (MPI_Session_call_errhandler).
// The error is passed as it is and returned; a nil or finalized session is an error
// of class ErrSession.
func (s *Session) CallErrHandler(err error) error {
	const op = "SessionCallErrhandler"
	if cerr := s.check(op); cerr != nil {
		return cerr
	}
	if err == nil {
		return nil
	}
	return s.invoke(op, err)
}

// CommCreateFromGroup makes an intracommunicator of the members of g
// (MPI_Comm_create_from_group), collectively over them only: no parent communicator,
// so a program with sessions only (no Init) makes its communicators with it, from a
// session's group. Every member passes the same group and stringtag, at most
// MaxStringTag-1 bytes; concurrent creations by overlapping groups pass different
// stringtags. info may give the communicator hints Comm.SetInfo takes (nil: none).
// errh becomes the communicator's handler, and serves this call's errors too (with a
// nil communicator); it must be ErrorsReturn, ErrorsAreFatal, ErrorsAbort or one of
// NewErrHandler (else ErrErrhandler). GroupEmpty gives a nil communicator, at once.
//
// The communicator belongs to g's owner (see Group): where g derives from a session,
// its buffered sends use the session's buffer (Session.AttachBuffer) when it has none
// of its own, and an errh of the wrong kind is raised on the session's handler, not
// Self's. A group of a finalized session is an error of class ErrSession.
func CommCreateFromGroup(g *Group, stringtag string, info *Info, errh *ErrHandler) (*Comm, error) {
	const op = "CommCreateFromGroup"
	h := errh.dev()
	if err := h.Fits(op, mpir.KindComm); err != nil {
		return nil, failNoObject(op, err, g)
	}
	hints, err := mpir.NewCommHints(op, info.obj())
	if err != nil {
		return nil, h.Run(op, nil, mpir.Text("a new communicator"), err)
	}
	d, err := mpir.CommFromGroup(op, g.obj(), stringtag, nil)
	if err != nil {
		return nil, h.Run(op, nil, mpir.Text("a new communicator"), err)
	}
	return fromGroups(d, g.obj(), hints, h), nil
}

// IntercommCreateFromGroups makes an intercommunicator between local, the caller's
// group, and remote (MPI_Intercomm_create_from_groups), collectively over both, with
// no parent or peer communicator. The groups must be disjoint and have one owner
// (see Group; else ErrGroup);
// localLeader and remoteLeader are ranks in each (else ErrRank), every member of a
// side passing the same. stringtag, info and errh are as for CommCreateFromGroup.
func IntercommCreateFromGroups(local *Group, localLeader int, remote *Group, remoteLeader int, stringtag string, info *Info, errh *ErrHandler) (*Comm, error) {
	const op = "IntercommCreateFromGroups"
	h := errh.dev()
	if err := h.Fits(op, mpir.KindComm); err != nil {
		return nil, failNoObject(op, err, local, remote)
	}
	hints, err := mpir.NewCommHints(op, info.obj())
	if err != nil {
		return nil, h.Run(op, nil, mpir.Text("a new intercommunicator"), err)
	}
	d, err := mpir.IntercommFromGroups(op, local.obj(), localLeader, remote.obj(), remoteLeader, stringtag, nil)
	if err != nil {
		return nil, h.Run(op, nil, mpir.Text("a new intercommunicator"), err)
	}
	return fromGroups(d, local.obj(), hints, h), nil
}

// fromGroups wraps a communicator made from groups such as g, with its hints and
// handler; it belongs to g's owner.
func fromGroups(d *core.Comm, g *mpir.Group, hints *mpir.Hints, errh *mpir.Errhandler) *Comm {
	return newComm(mpir.NewComm(d, g.Owner(), errh, hints))
}

// failNoObject raises err of op, a call with no object of its own (a group call, a
// creation from groups before it has its communicator), on the handler of the live
// session the first of gs derives from, else on Self's, as MPI sends errors with no
// object to MPI_COMM_SELF's handler.
func failNoObject(op string, err error, gs ...*Group) error {
	if s := liveOwner(gs); s != nil {
		return s.fail(op, err)
	}
	return noObject(op, err)
}

// liveOwner is the session of the first of gs that derives from a live one, nil for
// none.
func liveOwner(gs []*Group) *Session {
	for _, g := range gs {
		if s := mpir.LiveOwner(g.obj()); s != nil {
			return s.Face.(*Session)
		}
	}
	return nil
}

// AttachBuffer gives the session a buffer for buffered sends
// (MPI_Session_attach_buffer): Bsend and its kin on a communicator made from a group
// of this session (a GroupFromPset group, a group computed from one, or the group of
// a communicator of this session: see Group), or from such a communicator, use it when the communicator has no buffer
// of its own (Comm.AttachBuffer). buf may be BufferAutomatic. One buffer at a time
// (else ErrBuffer).
func (s *Session) AttachBuffer(buf []byte) error {
	const op = "SessionAttachBuffer"
	if err := s.check(op); err != nil {
		return err
	}
	return s.fail(op, mpir.AttachBuffer(op, s.d, buf, isAutomatic(buf)))
}

// DetachBuffer waits until every message in the session's buffer has been sent,
// detaches it and returns it (MPI_Session_detach_buffer); BufferAutomatic for an
// automatic one. With none attached it fails with ErrBuffer.
func (s *Session) DetachBuffer() ([]byte, error) {
	const op = "SessionDetachBuffer"
	if err := s.check(op); err != nil {
		return nil, err
	}
	b, auto, err := mpir.DetachBuffer(op, s.d)
	if auto {
		b = BufferAutomatic
	}
	return b, s.fail(op, err)
}

// FlushBuffer waits until every message in the session's buffer has been sent,
// leaving it attached (MPI_Session_flush_buffer). With none attached it returns at
// once.
func (s *Session) FlushBuffer() error {
	const op = "SessionFlushBuffer"
	if err := s.check(op); err != nil {
		return err
	}
	return s.fail(op, mpir.FlushBuffer(prof.None, op, s.d, nil))
}

// IflushBuffer is FlushBuffer as a request (MPI_Session_iflush_buffer).
func (s *Session) IflushBuffer() (Request, error) {
	const op = "SessionIflushBuffer"
	if err := s.check(op); err != nil {
		return Request{}, err
	}
	x, err := mpir.IflushBuffer(prof.None, op, s.d, nil)
	if err != nil {
		return Request{}, s.fail(op, err)
	}
	return Request{x: x}, nil
}
