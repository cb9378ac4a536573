package core

import (
	"errors"
	"hash/fnv"
	"strings"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/p2p"
)

// Sessions (MPI 4.1 chapter 11.3). A Session is a user of the runtime beside the world
// model (life.go): SessionInit starts the runtime where nobody has (or resumes it),
// Finalize of the last session idles it. A session names process sets (psets), gives their groups, and
// communicators are made from groups with no parent communicator: CreateFromGroup and
// IntercommFromGroups agree on a context over the group's members only, on the
// internal context of a communicator of every rank that no user holds (sessCtx), with
// a tag derived from the caller's string tag.

// sessCtx is the communicator of every rank on whose internal context (sessCtx+1)
// communicators made from groups agree on their contexts: context bit 2, reserved at
// start beside World's and Self's, never a user's.
const sessCtx = 4

// MaxStringTag is MPI_MAX_STRINGTAG_LEN: the longest string tag, with C's terminating
// NUL.
const MaxStringTag = 1024

// Session is the device's side of an MPI session: the thread level it asked for, and
// whether it was finalised.
type Session struct {
	level int
	key   uint32 // the engine's name for its buffer (p2p.SessionBuffer)
	done  atomic.Bool
}

var sessionIDs atomic.Uint32

// SessionInit starts a session at thread level (ThreadSingle to ThreadMultiple),
// starting the runtime if neither the world model nor another session has.
func SessionInit(op string, level int) (*Session, error) {
	if level < ThreadSingle || level > ThreadMultiple {
		return nil, Errorf(ClassArg, op, "thread level %d: want ThreadSingle to ThreadMultiple (0 to 3)", level)
	}
	lifeMu.Lock()
	defer lifeMu.Unlock()
	if err := startRuntime(op, level); err != nil {
		return nil, err
	}
	sessions++
	return &Session{level: level, key: p2p.SessionBuffer(sessionIDs.Add(1))}, nil
}

// Level is the thread level s provides.
func (s *Session) Level() int { return s.level }

// Check returns nil when s can be used by op, else an error of class ClassSession.
func (s *Session) Check(op string) error {
	if s == nil {
		return Errorf(ClassSession, op, "the session is nil (MPI_SESSION_NULL)")
	}
	if s.done.Load() {
		return Errorf(ClassSession, op, "the session was finalised")
	}
	return nil
}

// Finalize ends s; where no other session and no world model are left, the runtime
// idles (idleRuntime) until a later SessionInit or Init.
func (s *Session) Finalize(op string) error {
	if err := s.Check(op); err != nil {
		return err
	}
	lifeMu.Lock()
	defer lifeMu.Unlock()
	if s.done.Swap(true) {
		return Errorf(ClassSession, op, "the session was finalised")
	}
	// The messages in the session's buffer are delivered, and the buffer let go.
	var ferr error
	if _, _, err := eng.DetachBuffer(s.key); err != nil && !errors.Is(err, p2p.ErrNoBuffer) {
		ferr = MapErr(op, err)
	}
	sessions--
	if sessions == 0 && world.Load() != stateInit {
		if err := idleRuntime(op); err != nil {
			return err
		}
	}
	return ferr
}

// AttachBuffer attaches b (auto: an automatic buffer) as s's buffer
// (MPI_Session_attach_buffer): buffered sends on communicators derived from s that
// have no buffer of their own use it.
func (s *Session) AttachBuffer(op string, b []byte, auto bool) error {
	if err := s.Check(op); err != nil {
		return err
	}
	return MapErr(op, eng.AttachBuffer(s.key, b, auto))
}

// DetachBuffer waits until the messages in s's buffer have left, detaches it and
// returns it (auto: it was automatic).
func (s *Session) DetachBuffer(op string) ([]byte, bool, error) {
	if err := s.Check(op); err != nil {
		return nil, false, err
	}
	b, auto, err := eng.DetachBuffer(s.key)
	return b, auto, MapErr(op, err)
}

// FlushBuffer waits until the messages in s's buffer have left.
func (s *Session) FlushBuffer(op string) error {
	if err := s.Check(op); err != nil {
		return err
	}
	return MapErr(op, eng.FlushBuffer(s.key))
}

// IflushBuffer is FlushBuffer as a nonblocking operation.
func (s *Session) IflushBuffer(op string) (*Pending, error) {
	if err := s.Check(op); err != nil {
		return nil, err
	}
	return Go(op, func() error { return MapErr(op, eng.FlushBuffer(s.key)) }), nil
}

// UseSessionBuffer records that c derives from s: its buffered sends use s's buffer
// when c has none of its own.
func (c *Comm) UseSessionBuffer(s *Session) {
	if c != nil && s != nil {
		eng.SetBufferSession(c.ctx, s.key)
	}
}

// InheritSessionBuffer gives c the session buffer of parent, from which it was made.
func (c *Comm) InheritSessionBuffer(parent *Comm) {
	if c != nil && parent != nil && c != parent {
		eng.InheritBufferSession(c.ctx, parent.ctx)
	}
}

// Psets are the process sets a session knows, in the order Session_get_nth_pset
// numbers them.
func Psets() []string { return []string{PsetWorld, PsetSelf} }

// PsetGroup is the group of the process set name (its letters in any case), or an
// error of class ClassArg naming the sets there are.
func (s *Session) PsetGroup(op, name string) (*group.Group, error) {
	if err := s.Check(op); err != nil {
		return nil, err
	}
	switch canonicalPset(name) {
	case PsetWorld:
		return World.group, nil
	case PsetSelf:
		return World.group.Incl([]int{World.rank})
	}
	return nil, Errorf(ClassArg, op, "no process set is named %q (there are %s)", name, strings.Join(Psets(), " and "))
}

// PsetSize is the number of processes in the set name (its mpi_size).
func (s *Session) PsetSize(op, name string) (int, error) {
	g, err := s.PsetGroup(op, name)
	if err != nil {
		return 0, err
	}
	return g.Size(), nil
}

// stringTag turns a string tag into a tag of sessCtx's internal context, different
// for CreateFromGroup and IntercommFromGroups (kind). Concurrent creations by
// overlapping groups must use different string tags, as MPI requires; two different
// ones meet on one tag only if their 64-bit hashes agree in 30 bits.
func stringTag(op, kind, tag string) (int, error) {
	if len(tag) >= MaxStringTag {
		return 0, Errorf(ClassArg, op, "the string tag is %d bytes long: at most %d (MPI_MAX_STRINGTAG_LEN, with C's NUL)", len(tag), MaxStringTag-1)
	}
	h := fnv.New64a()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(tag))
	return int(h.Sum64() % (1 << 30)), nil
}

// CreateFromGroupCore makes an intracommunicator of the members of g, collectively over
// them only (MPI_Comm_create_from_group): every member passes the same group and
// string tag. An empty group gives nil at once. Its checks fail alike at every member
// of g, so bad is the only error the agreement carries.
func CreateFromGroupCore(op string, g *group.Group, stringtag string, bad error) (*Comm, error) {
	if err := Ready(op); err != nil {
		return nil, err
	}
	if g == nil {
		return nil, Errorf(ClassGroup, op, "the group is nil (MPI_GROUP_NULL)")
	}
	tag, err := stringTag(op, "intra", stringtag)
	if err != nil {
		return nil, err
	}
	if g.Size() == 0 {
		return nil, nil
	}
	if g.Rank(int32(World.rank)) == group.Undefined {
		return nil, Errorf(ClassGroup, op, "the calling process is not a member of the group")
	}
	k := groupConn(g, sessCtx+1)
	ctx, err := allocCtx(op, &k, sessCtx, tag, bad)
	if err != nil {
		return nil, err
	}
	return newComm(ctx, g, nil), nil
}

// IntercommFromGroupsCore makes an intercommunicator between the disjoint groups local
// (the caller's) and remote, collectively over both (MPI_Intercomm_create_from_groups).
// Every member knows both groups, so no leader need tell its side the other's, and
// every member orders the two alike by their first members. A leader out of range is
// bad, as bad itself is: the agreement carries it to both sides.
func IntercommFromGroupsCore(op string, local *group.Group, localLeader int, remote *group.Group, remoteLeader int, stringtag string, bad error) (*Comm, error) {
	if err := Ready(op); err != nil {
		return nil, err
	}
	if local == nil || remote == nil {
		return nil, Errorf(ClassGroup, op, "a group is nil (MPI_GROUP_NULL)")
	}
	if local.Size() == 0 || remote.Size() == 0 {
		return nil, Errorf(ClassGroup, op, "a group is empty; an intercommunicator joins two groups of at least one process")
	}
	if bad == nil && (localLeader < 0 || localLeader >= local.Size()) {
		bad = Errorf(ClassRank, op, "local_leader %d out of range [0,%d)", localLeader, local.Size())
	}
	if bad == nil && (remoteLeader < 0 || remoteLeader >= remote.Size()) {
		bad = Errorf(ClassRank, op, "remote_leader %d out of range [0,%d)", remoteLeader, remote.Size())
	}
	if local.Rank(int32(World.rank)) == group.Undefined {
		return nil, Errorf(ClassGroup, op, "the calling process is not a member of the local group")
	}
	if both, err := group.Intersection(local, remote); err != nil || both.Size() > 0 {
		return nil, Errorf(ClassGroup, op, "the local and remote groups overlap; an intercommunicator joins disjoint groups")
	}
	tag, err := stringTag(op, "inter", stringtag)
	if err != nil {
		return nil, err
	}
	// Both sides list the union alike: the group whose first member comes first.
	a, b := local, remote
	if procBefore(remote.WorldRank(0), local.WorldRank(0)) {
		a, b = remote, local
	}
	k := unionConn(a, b, sessCtx+1)
	ctx, err := allocCtx(op, &k, sessCtx, tag, bad)
	if err != nil {
		return nil, err
	}
	return newComm(ctx, local, remote), nil
}
