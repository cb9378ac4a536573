package mpir

import (
	"strconv"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
)

// Sessions (MPI 4.1 section 11.3), once for both faces. A Session is the device's
// session (internal/core: a user of the runtime, the key of its buffer) with what MPI
// says of it above the device:
//
//   - Its info: the thread level that MPI_Session_init reads from "thread_level" and
//     MPI_Session_get_info reports, and each process set's "mpi_size".
//   - Its process sets, named in any case, and their groups, which belong to it.
//   - Owner identity. Every group, communicator and window has one owner: the session
//     it derives from, or the world model (nil). Objects of two owners never meet in
//     one call (group.go: Owns, SameOwner); a communicator made from a session's
//     groups belongs to the session (CommFromGroup, IntercommFromGroups).
//   - Its buffer for buffered sends, which the communicators it owns use when they
//     have none of their own (MPI 4.1 section 3.6.1).
//
// A nil *Session is MPI_SESSION_NULL: every method takes it, and a finalized session,
// as an error of class ClassSession. Error handlers are the face's (errh.go): a face
// raises a session's errors on the handler of its own object for the session, which
// Face names.

// Session is an MPI session.
type Session struct {
	d *core.Session

	// Face is the face's object for the session (a *mpi.Session, the C library's
	// session), set by the face before it hands the session out, never changed: the
	// owner of a group is a *Session, and the face finds its handler through it.
	Face any
}

// SessionInit starts a session (MPI_Session_init) at the thread level info asks for
// (sessionLevel), starting the runtime if nothing else has.
func SessionInit(op string, in *Info) (*Session, error) {
	level, err := sessionLevel(op, in)
	if err != nil {
		return nil, err
	}
	d, err := collective.SessionInit(op, level)
	if err != nil {
		return nil, core.MapErr(op, err)
	}
	return &Session{d: d}, nil
}

// Check is nil when op may use s, else an error of class ClassSession: s is nil
// (MPI_SESSION_NULL) or finalized.
func (s *Session) Check(op string) error {
	if s == nil {
		return core.Errorf(core.ClassSession, op, "the session is MPI_SESSION_NULL")
	}
	return s.d.Check(op)
}

// Level is the thread level s provides.
func (s *Session) Level() int { return s.d.Level() }

// Finalize ends s (MPI_Session_finalize): the messages in its buffer are delivered
// and the buffer let go; where no other session and no world model are left, MPI
// idles until the next MPI_Session_init or MPI_Init. It waits for no other process. s
// is finalized even where delivering its buffer failed (then the error says so).
func (s *Session) Finalize(op string) error {
	if err := s.Check(op); err != nil {
		return err
	}
	return s.d.Finalize(op)
}

// Psets are the names of the process sets s knows, in the order
// MPI_Session_get_nth_pset numbers them: "mpi://WORLD", "mpi://SELF". in is for hints,
// none of which mpigo takes; it must be usable (nil is MPI_INFO_NULL).
func (s *Session) Psets(op string, in *Info) ([]string, error) {
	if err := s.Check(op); err != nil {
		return nil, err
	}
	if _, err := in.Pairs(); err != nil {
		return nil, InfoErr(op, err)
	}
	return core.Psets(), nil
}

// NthPset is the name of process set n (MPI_Session_get_nth_pset), n from 0 to the
// number of Psets less one (else ClassArg).
func (s *Session) NthPset(op string, in *Info, n int) (string, error) {
	ps, err := s.Psets(op, in)
	if err != nil {
		return "", err
	}
	if n < 0 || n >= len(ps) {
		return "", core.Errorf(core.ClassArg, op, "n = %d: the session has %d process sets (0 to %d)", n, len(ps), len(ps)-1)
	}
	return ps[n], nil
}

// Info is a new info describing s (MPI_Session_get_info): its thread level.
func (s *Session) Info(op string) (*Info, error) {
	if err := s.Check(op); err != nil {
		return nil, err
	}
	return sessionInfo(s.d.Level()), nil
}

// PsetInfo is a new info describing the process set name
// (MPI_Session_get_pset_info): "mpi_size". An unknown name is an error of class
// ClassArg.
func (s *Session) PsetInfo(op, name string) (*Info, error) {
	if err := s.Check(op); err != nil {
		return nil, err
	}
	n, err := s.d.PsetSize(op, name)
	if err != nil {
		return nil, err
	}
	return psetInfo(n), nil
}

// GroupFromPset is the group of the process set name, owned by s
// (MPI_Group_from_session_pset): every process of the job for "mpi://WORLD", ranked as
// in MPI_COMM_WORLD, the caller for "mpi://SELF". An unknown name is an error of
// class ClassArg.
func (s *Session) GroupFromPset(op, name string) (*Group, error) {
	if err := s.Check(op); err != nil {
		return nil, err
	}
	g, err := s.d.PsetGroup(op, name)
	if err != nil {
		return nil, err
	}
	return NewGroup(g, s), nil
}

// AttachBuffer gives s buf for buffered sends (MPI_Session_attach_buffer), or an
// automatic buffer where auto is set, as the package's AttachBuffer (buffer.go) says:
// the faces call that, which gives s's and the communicators' buffers one rule.
func (s *Session) AttachBuffer(op string, buf []byte, auto bool) error {
	if err := s.Check(op); err != nil {
		return err
	}
	return s.d.AttachBuffer(op, buf, auto)
}

// DetachBuffer waits until every message in s's buffer has left, detaches the buffer
// and returns it, auto set for an automatic one (MPI_Session_detach_buffer). With
// none attached it is an error of class ClassBuffer.
func (s *Session) DetachBuffer(op string) (buf []byte, auto bool, err error) {
	if err := s.Check(op); err != nil {
		return nil, false, err
	}
	return s.d.DetachBuffer(op)
}

// FlushBuffer waits until every message in s's buffer has left, leaving it attached
// (MPI_Session_flush_buffer); with none attached it returns at once.
func (s *Session) FlushBuffer(op string) error {
	if err := s.Check(op); err != nil {
		return err
	}
	return s.d.FlushBuffer(op)
}

// IflushBuffer is FlushBuffer as an operation to complete
// (MPI_Session_iflush_buffer).
func (s *Session) IflushBuffer(op string) (*core.Pending, error) {
	if err := s.Check(op); err != nil {
		return nil, err
	}
	return s.d.IflushBuffer(op)
}

// The info keys a session reads and reports (MPI 4.1 section 11.3.1), and their
// values: the thread levels' names.
const (
	SessionThreadKey = "thread_level"             // MPI_Session_init's request
	SessionLevelKey  = "mpi_thread_support_level" // MPI_Session_get_info's report
)

var threadLevels = [...]string{"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"}

// ThreadLevelName is the MPI name of a thread level ("MPI_THREAD_MULTIPLE"), "" for a
// number that is none.
func ThreadLevelName(l int) string {
	if l < 0 || l >= len(threadLevels) {
		return ""
	}
	return threadLevels[l]
}

// sessionLevel is the thread level a session started with info asks for: its
// "thread_level" key when that names a level, else MPI_THREAD_MULTIPLE, as MPI_Init
// gives (other values are ignored, as hints are).
func sessionLevel(op string, in *Info) (int, error) {
	pairs, err := in.Pairs()
	if err != nil {
		return 0, InfoErr(op, err)
	}
	level := core.ThreadMultiple
	for _, p := range pairs {
		for l, n := range threadLevels {
			if p[0] == SessionThreadKey && p[1] == n {
				level = l
			}
		}
	}
	return level, nil
}

// sessionInfo is what MPI_Session_get_info reports of a session of thread level
// level: "mpi_thread_support_level", and the same under "thread_level", the key
// MPI_Session_init reads (MPICH reports that one).
func sessionInfo(level int) *Info {
	n := ThreadLevelName(level)
	return InfoOf(SessionLevelKey, n, SessionThreadKey, n)
}

// psetInfo is what MPI_Session_get_pset_info reports of a process set of size
// processes: "mpi_size".
func psetInfo(size int) *Info { return InfoOf("mpi_size", strconv.Itoa(size)) }
