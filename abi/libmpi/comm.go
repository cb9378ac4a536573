package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"
#include <stdlib.h>

// The attribute callbacks of communicators and datatypes differ only in the type of
// their first argument, a handle, which is a pointer either way.
// Handles and attribute values travel as integers: they are not Go pointers.
static int call_copy_attr(void *fn, uintptr_t obj, int key, void *extra, uintptr_t in, void *out, int *flag) {
	return ((MPI_Comm_copy_attr_function *)fn)((MPI_Comm)obj, key, extra, (void *)in, out, flag);
}
static int call_delete_attr(void *fn, uintptr_t obj, int key, uintptr_t val, void *extra) {
	return ((MPI_Comm_delete_attr_function *)fn)((MPI_Comm)obj, key, (void *)val, extra);
}
*/
import "C"

import (
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/prof"
	"golang.org/x/sys/unix"
)

// comm is a communicator: the device's core, the error handler's handle, the
// attributes (C values, kept as integers) and the name.
type comm struct {
	c     *core.Comm
	errh  atomic.Int64
	mu    sync.Mutex
	attrs map[int32]uintptr
	// attrSeq orders the attributes by when they were set (attrClock), so that
	// their delete callbacks run last set, first deleted: MPI requires it of
	// MPI_COMM_SELF at MPI_Finalize, and Comm_free keeps the same order.
	attrSeq map[int32]uint64
	name    string
	topo    *topology // set at creation, never changed
	hints   *info     // MPI_Comm_set_info's, under mu
	// sess is the session the communicator derives from (made from a session's
	// group, or from a communicator that was), nil for the world model's; set at
	// creation. Its groups carry it, so that what is made from them is the session's.
	sess *session
}

var (
	world, self comm
	comms       table[comm]
)

func init() {
	world.c, self.c = core.World, core.Self
	world.errh.Store(hErrhFatal)
	self.errh.Store(hErrhFatal)
	world.name, self.name = "MPI_COMM_WORLD", "MPI_COMM_SELF"
}

// commOf is the communicator of handle h, nil for MPI_COMM_NULL or a handle that is
// not a live communicator.
func commOf(h uintptr) *comm {
	switch h {
	case hCommWorld:
		return &world
	case hCommSelf:
		return &self
	}
	if h < handleBase {
		return nil
	}
	return comms.get(h)
}

// newComm registers a communicator the device made, inheriting parent's handler.
func newComm(c *core.Comm, parent *comm) uintptr {
	if c == nil {
		return hCommNull
	}
	n := &comm{c: c, sess: parent.sess}
	c.InheritSessionBuffer(parent.c) // a communicator derived from a session's
	eh := parent.errh.Load()
	refErrh(uintptr(eh))
	n.errh.Store(eh)
	return comms.add(n)
}

// needComm checks a communicator argument.
func needComm(op string, h uintptr) (*comm, int32) {
	c := commOf(h)
	if c == nil {
		if h == hCommNull {
			return nil, fail(op, 0, errorf(errComm, op, "comm is MPI_COMM_NULL"))
		}
		return nil, fail(op, 0, errorf(errComm, op, "comm %#x is not a communicator", h))
	}
	if err := c.c.Check(op); err != nil {
		return nil, fail(op, h, err)
	}
	return c, 0
}

// Thread levels: the ABI's values and the device's.
func coreLevel(l int32) int {
	switch {
	case l >= 4096:
		return core.ThreadMultiple
	case l >= 2048:
		return core.ThreadSerialized
	case l >= 1024:
		return core.ThreadFunneled
	}
	return core.ThreadSingle
}

func abiLevel(l int) int32 {
	return [...]int32{0, 1024, 2048, 4096}[l]
}

var mainThread int64 // the OS thread that called Init (gettid)

func initialize(op string, level int32) int32 {
	if err := core.Init(coreLevel(level)); err != nil {
		return fail(op, 0, err)
	}
	mainThread = int64(gettid())
	if err := predefinedAttrs(); err != nil {
		return fail(op, 0, err)
	}
	setShortLive(true)
	return 0
}

//export PMPI_Init
func PMPI_Init(argc, argv unsafe.Pointer) int32 {
	return initialize("Init", 0)
}

//export PMPI_Init_thread
func PMPI_Init_thread(argc, argv unsafe.Pointer, required int32, provided unsafe.Pointer) int32 {
	if r := initialize("Init_thread", required); r != 0 {
		return r
	}
	setInt(provided, int(abiLevel(core.ThreadLevel())))
	return 0
}

//export PMPI_Query_thread
func PMPI_Query_thread(provided unsafe.Pointer) int32 {
	setInt(provided, int(abiLevel(core.ThreadLevel())))
	return 0
}

//export PMPI_Is_thread_main
func PMPI_Is_thread_main(flag unsafe.Pointer) int32 {
	setBool(flag, int64(gettid()) == mainThread)
	return 0
}

//export PMPI_Initialized
func PMPI_Initialized(flag unsafe.Pointer) int32 {
	setBool(flag, core.Initialized())
	return 0
}

//export PMPI_Finalized
func PMPI_Finalized(flag unsafe.Pointer) int32 {
	setBool(flag, core.Finalized())
	return 0
}

//export PMPI_Finalize
func PMPI_Finalize() int32 {
	// MPI_COMM_SELF's attributes are deleted first, while MPI still works, so that a
	// library can hook the end of MPI with a delete callback (MPI 4.1 section 11.2.4).
	err := core.Finalize(func() error {
		err := deleteAll(&self, hCommSelf)
		setShortLive(false) // after the callbacks, which may still use windows
		return err
	})
	setShortLive(core.Live())
	return fail("Finalize", 0, err)
}

//export PMPI_Abort
func PMPI_Abort(ch uintptr, code int32) int32 {
	core.Abort(int(code), "MPI_Abort was called")
	return 0
}

//export PMPI_Comm_rank
func PMPI_Comm_rank(ch uintptr, rank unsafe.Pointer) int32 {
	c, r := needComm("Comm_rank", ch)
	if c == nil {
		return r
	}
	if rank == nil {
		return fail("Comm_rank", ch, errorf(errArg, "Comm_rank", "rank is NULL"))
	}
	*(*int32)(rank) = int32(c.c.Rank())
	return 0
}

//export PMPI_Comm_size
func PMPI_Comm_size(ch uintptr, size unsafe.Pointer) int32 {
	c, r := needComm("Comm_size", ch)
	if c == nil {
		return r
	}
	if size == nil {
		return fail("Comm_size", ch, errorf(errArg, "Comm_size", "size is NULL"))
	}
	*(*int32)(size) = int32(c.c.Size())
	return 0
}

//export PMPI_Comm_remote_size
func PMPI_Comm_remote_size(ch uintptr, size unsafe.Pointer) int32 {
	c, r := needComm("Comm_remote_size", ch)
	if c == nil {
		return r
	}
	if !c.c.IsInter() {
		return fail("Comm_remote_size", ch, errorf(errComm, "Comm_remote_size", "comm is not an intercommunicator"))
	}
	setInt(size, c.c.Remote().Size())
	return 0
}

//export PMPI_Comm_test_inter
func PMPI_Comm_test_inter(ch uintptr, flag unsafe.Pointer) int32 {
	c, r := needComm("Comm_test_inter", ch)
	if c == nil {
		return r
	}
	setBool(flag, c.c.IsInter())
	return 0
}

var start = time.Now()

//export PMPI_Wtime
func PMPI_Wtime() float64 { return float64(time.Since(start).Nanoseconds()) * 1e-9 }

//export PMPI_Wtick
func PMPI_Wtick() float64 { return 1e-9 }

//export PMPI_Get_processor_name
func PMPI_Get_processor_name(name, n unsafe.Pointer) int32 {
	h, _ := os.Hostname()
	putCString(name, 256, h, n)
	return 0
}

//export PMPI_Get_version
func PMPI_Get_version(v, sv unsafe.Pointer) int32 {
	setInt(v, 5)
	setInt(sv, 0)
	return 0
}

//export PMPI_Abi_get_version
func PMPI_Abi_get_version(v, sv unsafe.Pointer) int32 {
	setInt(v, 1)
	setInt(sv, 0)
	return 0
}

//export PMPI_Get_library_version
func PMPI_Get_library_version(s, n unsafe.Pointer) int32 {
	putCString(s, 8192, "mpigo (MPI in Go), MPI 5.0 standard ABI 1.0", n)
	return 0
}

// --- communicator creation ---

func created(op string, parent *comm, ph uintptr, c *core.Comm, err error, out unsafe.Pointer) int32 {
	if err != nil {
		return fail(op, ph, err)
	}
	if out == nil {
		return fail(op, ph, errorf(errArg, op, "newcomm is NULL"))
	}
	setHandle(out, newComm(c, parent))
	return 0
}

//export PMPI_Comm_dup
func PMPI_Comm_dup(ch uintptr, out unsafe.Pointer) int32 {
	const op = "Comm_dup"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Dup, c.enterTimed(prof.Dup, prof.NoPeer, -1, 0), 0)
	return dup(op, c, ch, out)
}

// dup is MPI_Comm_dup of c (handle ch), unrecorded (Comm_dup_with_info's).
func dup(op string, c *comm, ch uintptr, out unsafe.Pointer) int32 {
	nc, err := c.c.Dup(op)
	if r := created(op, c, ch, nc, err, out); r != 0 {
		return r
	}
	nh := *(*uintptr)(out)
	commOf(nh).topo, commOf(nh).hints = c.topo, c.hintsFor(0)
	if err := copyAttrs(c, ch, commOf(nh), nh); err != nil {
		discardComm(nh)
		setHandle(out, hCommNull)
		return fail(op, ch, err)
	}
	return 0
}

// discardComm frees the duplicate h whose attribute copy callback failed: the
// duplication is not returned (newcomm is MPI_COMM_NULL), and the attributes copied
// so far are deleted with their callbacks. Freeing is local.
func discardComm(h uintptr) {
	c := commOf(h)
	if c == nil {
		return
	}
	_ = deleteAll(c, h) // the duplication's own error is the one reported
	_ = c.c.Free("Comm_dup")
	unrefErrh(uintptr(c.errh.Load()))
	comms.remove(h)
}

//export PMPI_Comm_dup_with_info
func PMPI_Comm_dup_with_info(ch uintptr, info uintptr, out unsafe.Pointer) int32 {
	const op = "Comm_dup_with_info"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	if info != hInfoNull && infoOf(info) == nil {
		return fail(op, ch, errorf(errInfo, op, "info %#x is not an info object", info))
	}
	defer prof.Exit(prof.Dup, c.enterTimed(prof.Dup, prof.NoPeer, -1, 0), 0)
	if r := dup("Comm_dup", c, ch, out); r != 0 {
		return r
	}
	n := commOf(*(*uintptr)(out))
	n.hints = nil
	if info != hInfoNull {
		n.hints = infoOf(info).clone()
	}
	return 0
}

//export PMPI_Comm_split
func PMPI_Comm_split(ch uintptr, color, key int32, out unsafe.Pointer) int32 {
	const op = "Comm_split"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Split, c.enterTimed(prof.Split, prof.NoPeer, -1, 0), 0)
	nc, err := c.c.Split(op, int(color), int(key))
	return created(op, c, ch, nc, err, out)
}

//export PMPI_Comm_split_type
func PMPI_Comm_split_type(ch uintptr, kind, key int32, info uintptr, out unsafe.Pointer) int32 {
	const op = "Comm_split_type"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.SplitType, c.enterTimed(prof.SplitType, prof.NoPeer, -1, 0), 0)
	a := core.SplitTypeArgs{Key: int(key)}
	switch kind {
	case 221:
		a.Kind = core.SplitShared
	case 222:
		a.Kind = core.SplitHWUnguided
	case 223:
		a.Kind = core.SplitHWGuided
	case 224:
		a.Kind = core.SplitResourceGuided
	case undefined:
		a.Kind = core.Undefined
	default:
		return fail(op, ch, errorf(errArg, op, "split_type %d is not MPI_COMM_TYPE_SHARED, _HW_UNGUIDED, _HW_GUIDED, _RESOURCE_GUIDED or MPI_UNDEFINED", kind))
	}
	in := infoOf(info)
	if in != nil && info != hInfoNull {
		a.HWType, a.HasHWType = in.get("mpi_hw_resource_type")
		a.Pset, a.HasPset = in.get("mpi_pset_name")
	}
	nc, typ, err := c.c.SplitType(op, a)
	if r := created(op, c, ch, nc, err, out); r != 0 {
		return r
	}
	// HW_UNGUIDED says which level it split by in the info (MPI 4.1 7.4.2).
	if typ != "" && in != nil && info != hInfoEnv && info != hInfoNull {
		in.set("mpi_hw_resource_type", typ)
	}
	return 0
}

//export PMPI_Get_hw_resource_info
func PMPI_Get_hw_resource_info(out unsafe.Pointer) int32 {
	const op = "Get_hw_resource_info"
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "hw_info is NULL"))
	}
	hw, err := core.HWResources()
	if err != nil {
		return fail(op, 0, errorf(errOther, op, "cannot read the CPUs this process may run on: %v", err))
	}
	in := &info{}
	for _, r := range hw {
		in.set(core.HWPrefix+r.Type, strconv.FormatBool(r.Within))
	}
	setHandle(out, infos.add(in))
	return 0
}

//export PMPI_Comm_create
func PMPI_Comm_create(ch uintptr, gh uintptr, out unsafe.Pointer) int32 {
	const op = "Comm_create"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Create, c.enterTimed(prof.Create, prof.NoPeer, -1, 0), 0)
	g := groupOf(gh)
	if g == nil {
		return fail(op, ch, errorf(errGroup, op, "group is not a group"))
	}
	if err := commOwns(op, c, gh); err != nil {
		return fail(op, ch, err)
	}
	nc, err := c.c.Create(op, g)
	return created(op, c, ch, nc, err, out)
}

//export PMPI_Comm_create_group
func PMPI_Comm_create_group(ch uintptr, gh uintptr, tag int32, out unsafe.Pointer) int32 {
	const op = "Comm_create_group"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.CreateGroup, c.enterTimed(prof.CreateGroup, prof.NoPeer, -1, 0), 0)
	g := groupOf(gh)
	if g == nil {
		return fail(op, ch, errorf(errGroup, op, "group is not a group"))
	}
	if err := commOwns(op, c, gh); err != nil {
		return fail(op, ch, err)
	}
	nc, err := c.c.CreateGroup(op, g, int(tag))
	return created(op, c, ch, nc, err, out)
}

//export PMPI_Intercomm_create
func PMPI_Intercomm_create(lh uintptr, lleader int32, ph uintptr, rleader, tag int32, out unsafe.Pointer) int32 {
	const op = "Intercomm_create"
	l, r := needComm(op, lh)
	if l == nil {
		return r
	}
	defer prof.Exit(prof.IntercommCreate, l.enterTimed(prof.IntercommCreate, prof.NoPeer, -1, 0), 0)
	var peer *core.Comm
	if p := commOf(ph); p != nil {
		peer = p.c
	}
	nc, err := core.IntercommCreate(op, l.c, int(lleader), peer, int(rleader), int(tag))
	return created(op, l, lh, nc, err, out)
}

//export PMPI_Intercomm_merge
func PMPI_Intercomm_merge(ch uintptr, high int32, out unsafe.Pointer) int32 {
	const op = "Intercomm_merge"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.IntercommMerge, c.enterTimed(prof.IntercommMerge, prof.NoPeer, -1, 0), 0)
	nc, err := c.c.Merge(op, high != 0)
	return created(op, c, ch, nc, err, out)
}

//export PMPI_Comm_free
func PMPI_Comm_free(p unsafe.Pointer) int32 {
	const op = "Comm_free"
	if p == nil {
		return fail(op, 0, errorf(errArg, op, "comm is NULL"))
	}
	h := *(*uintptr)(p)
	if h == hCommWorld || h == hCommSelf {
		return fail(op, h, errorf(errComm, op, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed"))
	}
	c, r := needComm(op, h)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.CommFree, c.enterTimed(prof.CommFree, prof.NoPeer, -1, 0), 0)
	if err := deleteAll(c, h); err != nil {
		return fail(op, h, err)
	}
	if err := c.c.Free(op); err != nil {
		return fail(op, h, err)
	}
	unrefErrh(uintptr(c.errh.Load()))
	comms.remove(h)
	setHandle(p, hCommNull)
	return 0
}

//export PMPI_Comm_disconnect
func PMPI_Comm_disconnect(p unsafe.Pointer) int32 { return PMPI_Comm_free(p) }

//export PMPI_Comm_compare
func PMPI_Comm_compare(h1, h2 uintptr, result unsafe.Pointer) int32 {
	const op = "Comm_compare"
	c1, r := needComm(op, h1)
	if c1 == nil {
		return r
	}
	c2, r := needComm(op, h2)
	if c2 == nil {
		return r
	}
	res := 204 // MPI_UNEQUAL
	switch {
	case c1 == c2:
		res = 201
	case c1.c.IsInter() != c2.c.IsInter():
	default:
		cmp, err := group.Compare(c1.c.Group(), c2.c.Group())
		if err != nil {
			return fail(op, h1, core.GroupErr(op, err))
		}
		switch cmp {
		case group.Ident:
			res = 202
		case group.Similar:
			res = 203
		}
	}
	setInt(result, res)
	return 0
}

//export PMPI_Comm_set_name
func PMPI_Comm_set_name(ch uintptr, name unsafe.Pointer) int32 {
	c, r := needComm("Comm_set_name", ch)
	if c == nil {
		return r
	}
	c.mu.Lock()
	c.name = cstr(name)
	c.mu.Unlock()
	return 0
}

//export PMPI_Comm_get_name
func PMPI_Comm_get_name(ch uintptr, name, n unsafe.Pointer) int32 {
	c, r := needComm("Comm_get_name", ch)
	if c == nil {
		return r
	}
	c.mu.Lock()
	s := c.name
	c.mu.Unlock()
	putCString(name, 128, s, n)
	return 0
}

//export PMPI_Comm_get_parent
func PMPI_Comm_get_parent(p unsafe.Pointer) int32 {
	setHandle(p, hCommNull) // mpigo does not spawn: no process has a parent
	return 0
}

// --- groups ---

// grp is a group and its owner: the session it derives from (Group_from_session_pset,
// the group of a session's communicator or window, a group computed from such
// groups), nil for the world model. MPI 4.1 section 11.3 mixes no objects of
// different owners in one call: sameOwner refuses them with MPI_ERR_GROUP.
// MPI_GROUP_EMPTY has no entry and belongs to every owner.
type grp struct {
	g *group.Group
	s *session
}

var groups table[grp]

func groupOf(h uintptr) *group.Group {
	if h == hGroupEmpty {
		return group.Empty()
	}
	if g := groups.get(h); g != nil {
		return g.g
	}
	return nil
}

func newGroup(g *group.Group) uintptr {
	if g.Size() == 0 {
		return hGroupEmpty
	}
	return groups.add(&grp{g: g})
}

func groupResult(op string, g *group.Group, err error, out unsafe.Pointer) int32 {
	if err != nil {
		return fail(op, 0, core.GroupErr(op, err))
	}
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "newgroup is NULL"))
	}
	setHandle(out, newGroup(g))
	return 0
}

// groupResultFrom is groupResult for a group computed from the groups from: they
// must have one owner (sameOwner), which the result gets. Its errors go to that
// owner's handler: a session's, else MPI_COMM_SELF's (failOwned).
func groupResultFrom(op string, g *group.Group, err error, out unsafe.Pointer, from ...uintptr) int32 {
	s, oerr := sameOwner(op, from...)
	if oerr != nil {
		return failOwned(op, oerr, from...)
	}
	if err != nil {
		return failOwned(op, core.GroupErr(op, err), from...)
	}
	if out == nil {
		return failOwned(op, errorf(errArg, op, "newgroup is NULL"), from...)
	}
	if r := groupResult(op, g, nil, out); r != 0 {
		return r
	}
	setGroupSession(*(*uintptr)(out), s)
	return 0
}

// newGroupOf is newGroup for a group owned by session s (nil: the world model).
func newGroupOf(g *group.Group, s *session) uintptr {
	h := newGroup(g)
	setGroupSession(h, s)
	return h
}

func setGroupSession(h uintptr, s *session) {
	if x := groups.get(h); x != nil {
		x.s = s
	}
}

// groupSession is the session group h derives from, nil for none.
func groupSession(h uintptr) *session {
	if x := groups.get(h); x != nil {
		return x.s
	}
	return nil
}

// sameOwner is the owner of the groups hs, or an error of class MPI_ERR_GROUP where
// two of them have different owners (two sessions, or a session and the world
// model). Handles that are no groups, and MPI_GROUP_EMPTY, are passed over.
func sameOwner(op string, hs ...uintptr) (*session, error) {
	var s *session
	seen := false
	for _, h := range hs {
		x := groups.get(h)
		if x == nil {
			continue
		}
		if seen && x.s != s {
			return nil, mixErr(op, s, x.s)
		}
		s, seen = x.s, true
	}
	return s, nil
}

// mixErr is the error of op given objects of owners a and b.
func mixErr(op string, a, b *session) error { return core.MixedOwners(op, a == nil || b == nil) }

// failOwned raises err of op, a call with no communicator, on the handler of the
// live session the first of the groups hs derives from, else on MPI_COMM_SELF's (the
// world model's default).
func failOwned(op string, err error, hs ...uintptr) int32 {
	for _, h := range hs {
		if s := groupSession(h); s != nil && s.s.Check(op) == nil {
			return failSession(op, s, s.h, err)
		}
	}
	return fail(op, 0, err)
}

// commOwns is nil when group gh belongs to c's owner, else MPI_ERR_GROUP's error.
func commOwns(op string, c *comm, gh uintptr) error {
	if x := groups.get(gh); x != nil && x.s != c.sess {
		return mixErr(op, c.sess, x.s)
	}
	return nil
}

func needGroup(op string, h uintptr) (*group.Group, int32) {
	g := groupOf(h)
	if g == nil {
		return nil, fail(op, 0, errorf(errGroup, op, "group %#x is not a group", h))
	}
	return g, 0
}

//export PMPI_Comm_group
func PMPI_Comm_group(ch uintptr, out unsafe.Pointer) int32 {
	c, r := needComm("Comm_group", ch)
	if c == nil {
		return r
	}
	if r := groupResult("Comm_group", c.c.Group(), nil, out); r != 0 {
		return r
	}
	setGroupSession(*(*uintptr)(out), c.sess)
	return 0
}

//export PMPI_Comm_remote_group
func PMPI_Comm_remote_group(ch uintptr, out unsafe.Pointer) int32 {
	c, r := needComm("Comm_remote_group", ch)
	if c == nil {
		return r
	}
	if !c.c.IsInter() {
		return fail("Comm_remote_group", ch, errorf(errComm, "Comm_remote_group", "comm is not an intercommunicator"))
	}
	if r := groupResult("Comm_remote_group", c.c.Remote(), nil, out); r != 0 {
		return r
	}
	setGroupSession(*(*uintptr)(out), c.sess)
	return 0
}

//export PMPI_Group_size
func PMPI_Group_size(gh uintptr, size unsafe.Pointer) int32 {
	g, r := needGroup("Group_size", gh)
	if g == nil {
		return r
	}
	setInt(size, g.Size())
	return 0
}

//export PMPI_Group_rank
func PMPI_Group_rank(gh uintptr, rank unsafe.Pointer) int32 {
	g, r := needGroup("Group_rank", gh)
	if g == nil {
		return r
	}
	me := core.WorldRank()
	setInt(rank, g.Rank(int32(me)))
	return 0
}

//export PMPI_Group_incl
func PMPI_Group_incl(gh uintptr, n int32, ranks unsafe.Pointer, out unsafe.Pointer) int32 {
	g, r := needGroup("Group_incl", gh)
	if g == nil {
		return r
	}
	ng, err := g.Incl(toInts(ints(ranks, int(n))))
	return groupResultFrom("Group_incl", ng, err, out, gh)
}

//export PMPI_Group_excl
func PMPI_Group_excl(gh uintptr, n int32, ranks unsafe.Pointer, out unsafe.Pointer) int32 {
	g, r := needGroup("Group_excl", gh)
	if g == nil {
		return r
	}
	ng, err := g.Excl(toInts(ints(ranks, int(n))))
	return groupResultFrom("Group_excl", ng, err, out, gh)
}

func ranges(p unsafe.Pointer, n int) []group.Range {
	v := ints(p, 3*n)
	out := make([]group.Range, n)
	for i := range out {
		out[i] = group.Range{First: int(v[3*i]), Last: int(v[3*i+1]), Stride: int(v[3*i+2])}
	}
	return out
}

//export PMPI_Group_range_incl
func PMPI_Group_range_incl(gh uintptr, n int32, rs unsafe.Pointer, out unsafe.Pointer) int32 {
	g, r := needGroup("Group_range_incl", gh)
	if g == nil {
		return r
	}
	ng, err := g.RangeIncl(ranges(rs, int(n)))
	return groupResultFrom("Group_range_incl", ng, err, out, gh)
}

//export PMPI_Group_range_excl
func PMPI_Group_range_excl(gh uintptr, n int32, rs unsafe.Pointer, out unsafe.Pointer) int32 {
	g, r := needGroup("Group_range_excl", gh)
	if g == nil {
		return r
	}
	ng, err := g.RangeExcl(ranges(rs, int(n)))
	return groupResultFrom("Group_range_excl", ng, err, out, gh)
}

func setop(op string, h1, h2 uintptr, f func(a, b *group.Group) (*group.Group, error), out unsafe.Pointer) int32 {
	g1, r := needGroup(op, h1)
	if g1 == nil {
		return r
	}
	g2, r := needGroup(op, h2)
	if g2 == nil {
		return r
	}
	ng, err := f(g1, g2)
	return groupResultFrom(op, ng, err, out, h1, h2)
}

//export PMPI_Group_union
func PMPI_Group_union(h1, h2 uintptr, out unsafe.Pointer) int32 {
	return setop("Group_union", h1, h2, group.Union, out)
}

//export PMPI_Group_intersection
func PMPI_Group_intersection(h1, h2 uintptr, out unsafe.Pointer) int32 {
	return setop("Group_intersection", h1, h2, group.Intersection, out)
}

//export PMPI_Group_difference
func PMPI_Group_difference(h1, h2 uintptr, out unsafe.Pointer) int32 {
	return setop("Group_difference", h1, h2, group.Difference, out)
}

//export PMPI_Group_compare
func PMPI_Group_compare(h1, h2 uintptr, result unsafe.Pointer) int32 {
	g1, r := needGroup("Group_compare", h1)
	if g1 == nil {
		return r
	}
	g2, r := needGroup("Group_compare", h2)
	if g2 == nil {
		return r
	}
	cmp, err := group.Compare(g1, g2)
	if err != nil {
		return fail("Group_compare", 0, core.GroupErr("Group_compare", err))
	}
	setInt(result, [...]int{201, 203, 204}[cmp])
	return 0
}

//export PMPI_Group_translate_ranks
func PMPI_Group_translate_ranks(h1 uintptr, n int32, r1 unsafe.Pointer, h2 uintptr, r2 unsafe.Pointer) int32 {
	g1, r := needGroup("Group_translate_ranks", h1)
	if g1 == nil {
		return r
	}
	g2, r := needGroup("Group_translate_ranks", h2)
	if g2 == nil {
		return r
	}
	// MPI_PROC_NULL translates to itself (MPI-2.2 errata); it is -3 in the ABI and
	// group.ProcNull in the group package.
	in := toInts(ints(r1, int(n)))
	for i, v := range in {
		if v == -3 {
			in[i] = group.ProcNull
		} else if v == group.ProcNull {
			in[i] = badSentinel
		}
	}
	out, err := group.TranslateRanks(g1, in, g2)
	if err != nil {
		return fail("Group_translate_ranks", 0, core.GroupErr("Group_translate_ranks", err))
	}
	dst := ints(r2, int(n))
	for i, v := range out {
		switch v {
		case group.Undefined:
			v = -32766
		case group.ProcNull:
			v = -3
		}
		dst[i] = int32(v)
	}
	return 0
}

//export PMPI_Group_free
func PMPI_Group_free(p unsafe.Pointer) int32 {
	if p == nil {
		return fail("Group_free", 0, errorf(errArg, "Group_free", "group is NULL"))
	}
	h := *(*uintptr)(p)
	if h != hGroupEmpty {
		if groups.get(h) == nil {
			return fail("Group_free", 0, errorf(errGroup, "Group_free", "group %#x is not a group", h))
		}
		groups.remove(h)
	}
	setHandle(p, hGroupNull)
	return 0
}

// --- attributes ---

// keyval is a key made by MPI_Comm_create_keyval or MPI_Type_create_keyval: its C
// callbacks (0 and 1 are the predefined NULL_COPY/NULL_DELETE and DUP functions)
// and the extra state passed to them.
//
// A key is counted like an error handler: its handle, and each attribute set with it,
// so that MPI_x_free_keyval releases the entry once no attribute uses the key.
type keyval struct {
	copyFn, deleteFn unsafe.Pointer
	extra            unsafe.Pointer
	refs             atomic.Int32
	freed            atomic.Bool
}

// liveKey is the key of number k if a program may still set attributes with it.
func liveKey(k int32) *keyval {
	x := keyvals.get(uintptr(k))
	if x == nil || x.freed.Load() {
		return nil
	}
	return x
}

func refKey(k int32) {
	if x := keyvals.get(uintptr(k)); x != nil {
		x.refs.Add(1)
	}
}

func unrefKey(k int32) {
	if x := keyvals.get(uintptr(k)); x != nil && x.refs.Add(-1) == 0 {
		keyvals.remove(uintptr(k))
	}
}

// dropAttr runs the delete callback of an attribute being removed and releases its
// key.
// deleteAttr removes the attribute key of the object obj, whose attributes are *attrs
// guarded by mu (MPI_x_delete_attr): it runs the delete callback first and keeps the
// attribute when the callback fails, so that the failed call changes nothing.
func deleteAttr(op string, obj uintptr, mu *sync.Mutex, attrs *map[int32]uintptr, key int32) (found bool, err error) {
	mu.Lock()
	v, ok := (*attrs)[key]
	mu.Unlock()
	if !ok {
		return false, nil
	}
	if err := callDelete(op, obj, key, v); err != nil {
		return true, err
	}
	mu.Lock()
	if cur, ok := (*attrs)[key]; ok && cur == v {
		delete(*attrs, key)
	}
	mu.Unlock()
	unrefKey(key)
	return true, nil
}

func dropAttr(op string, obj uintptr, key int32, val uintptr) error {
	err := callDelete(op, obj, key, val)
	unrefKey(key)
	return err
}

var keyvals table[keyval]

// Predefined attribute keys (mpi.h) and the C memory holding their values:
// MPI_Comm_get_attr gives a pointer to an int.
const (
	keyTagUB         = 501
	keyIO            = 502
	keyHost          = 503
	keyWtimeIsGlobal = 504
	keyUniverseSize  = 505
	keyAppnum        = 506
	keyLastUsedCode  = 507
)

var predefVals *[8]C.int

func predefinedAttrs() error {
	if predefVals == nil {
		predefVals = (*[8]C.int)(C.calloc(8, C.size_t(unsafe.Sizeof(C.int(0)))))
	}
	predefVals[0] = C.int(core.MaxTag)
	predefVals[1] = C.int(-3) // MPI_IO: MPI_PROC_NULL, this process cannot do I/O through MPI
	predefVals[2] = C.int(-3) // MPI_HOST: MPI_PROC_NULL
	predefVals[3] = 0
	predefVals[4] = C.int(world.c.Size())
	predefVals[5] = 0
	return nil
}

func predefAttr(key int32) (unsafe.Pointer, bool) {
	if predefVals == nil {
		return nil, false
	}
	switch key {
	case keyTagUB:
		return unsafe.Pointer(&predefVals[0]), true
	case keyIO:
		return unsafe.Pointer(&predefVals[1]), true
	case keyHost:
		return unsafe.Pointer(&predefVals[2]), true
	case keyWtimeIsGlobal:
		return unsafe.Pointer(&predefVals[3]), true
	case keyUniverseSize:
		return unsafe.Pointer(&predefVals[4]), true
	case keyAppnum:
		return unsafe.Pointer(&predefVals[5]), true
	case keyLastUsedCode:
		predefVals[6] = C.int(core.LastUsedCode())
		return unsafe.Pointer(&predefVals[6]), true
	}
	return nil, false
}

func createKeyval(op string, copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	if key == nil {
		return fail(op, 0, errorf(errArg, op, "keyval is NULL"))
	}
	k := &keyval{copyFn: copyFn, deleteFn: deleteFn, extra: extra}
	k.refs.Store(1)
	setInt(key, int(keyvals.add(k)))
	return 0
}

func freeKeyval(op string, key unsafe.Pointer) int32 {
	if key == nil {
		return fail(op, 0, errorf(errArg, op, "keyval is NULL"))
	}
	k := *(*int32)(key)
	x := liveKey(k)
	if x == nil {
		return fail(op, 0, errorf(errKeyval, op, "keyval %d is not a key this program made", k))
	}
	// Attributes set with the key keep their callbacks until they are deleted.
	if !x.freed.Swap(true) {
		unrefKey(k)
	}
	setInt(key, 0) // MPI_KEYVAL_INVALID
	return 0
}

// callDelete runs k's delete callback on an attribute of obj.
func callDelete(op string, obj uintptr, key int32, val uintptr) error {
	k := keyvals.get(uintptr(key))
	if k == nil || uintptr(k.deleteFn) <= 1 {
		return nil
	}
	rc := C.call_delete_attr(k.deleteFn, C.uintptr_t(obj), C.int(key), C.uintptr_t(val), k.extra)
	if rc != 0 {
		return errorf(int32(rc), op, "the delete callback of keyval %d returned %d", key, int(rc))
	}
	return nil
}

// copyAttrs runs the copy callbacks of old's attributes for its duplicate nw.
func copyAttrs(old *comm, oh uintptr, nw *comm, nh uintptr) error {
	err := copyAttrTable("Comm_dup", oh, &old.mu, &old.attrs, &nw.mu, &nw.attrs)
	// The duplicate's attributes keep the order they were set in on old.
	type set struct {
		key int32
		seq uint64
	}
	old.mu.Lock()
	sets := make([]set, 0, len(old.attrSeq))
	for k, q := range old.attrSeq {
		sets = append(sets, set{k, q})
	}
	old.mu.Unlock()
	sort.Slice(sets, func(i, j int) bool { return sets[i].seq < sets[j].seq })
	nw.mu.Lock()
	for _, a := range sets {
		if _, ok := nw.attrs[a.key]; ok {
			nw.stampAttr(a.key)
		}
	}
	nw.mu.Unlock()
	return err
}

// copyAttrTable runs the copy callbacks (op: the duplication's name) of the
// attributes in from, guarded by fmu, of the object oh, and keeps in *to, guarded by
// tmu, those the callbacks keep: a communicator's or a datatype's duplication.
func copyAttrTable(op string, oh uintptr, fmu *sync.Mutex, from *map[int32]uintptr, tmu *sync.Mutex, to *map[int32]uintptr) error {
	fmu.Lock()
	attrs := make(map[int32]uintptr, len(*from))
	for k, v := range *from {
		attrs[k] = v
	}
	fmu.Unlock()
	for key, val := range attrs {
		out, keep, err := copyAttr(op, oh, key, val)
		if err != nil {
			return err
		}
		if keep {
			refKey(key)
			tmu.Lock()
			if *to == nil {
				*to = map[int32]uintptr{}
			}
			(*to)[key] = out
			tmu.Unlock()
		}
	}
	return nil
}

func copyAttr(op string, oh uintptr, key int32, val uintptr) (uintptr, bool, error) {
	k := keyvals.get(uintptr(key))
	if k == nil {
		return 0, false, nil
	}
	switch uintptr(k.copyFn) {
	case 0: // MPI_x_NULL_COPY_FN
		return 0, false, nil
	case 1: // MPI_x_DUP_FN
		return val, true, nil
	}
	var out uintptr
	var flag C.int
	rc := C.call_copy_attr(k.copyFn, C.uintptr_t(oh), C.int(key), k.extra, C.uintptr_t(val), unsafe.Pointer(&out), &flag)
	if rc != 0 {
		return 0, false, errorf(int32(rc), op, "the copy callback of keyval %d returned %d", key, int(rc))
	}
	return out, flag != 0, nil
}

// deleteAll runs the delete callbacks of every attribute of c (Comm_free, and
// MPI_COMM_SELF's at Finalize).
func deleteAll(c *comm, h uintptr) error {
	c.mu.Lock()
	attrs, seq := c.attrs, c.attrSeq
	c.attrs, c.attrSeq = nil, nil
	c.mu.Unlock()
	keys := make([]int32, 0, len(attrs))
	for key := range attrs {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { return seq[keys[i]] > seq[keys[j]] })
	for _, key := range keys {
		if err := dropAttr("Comm_free", h, key, attrs[key]); err != nil {
			return err
		}
	}
	return nil
}

// attrClock numbers the settings of communicator attributes (comm.attrSeq).
var attrClock atomic.Uint64

// stampAttr records that key was set on c now; c.mu is held.
func (c *comm) stampAttr(key int32) {
	if c.attrSeq == nil {
		c.attrSeq = map[int32]uint64{}
	}
	c.attrSeq[key] = attrClock.Add(1)
}

//export PMPI_Comm_create_keyval
func PMPI_Comm_create_keyval(copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	return createKeyval("Comm_create_keyval", copyFn, deleteFn, key, extra)
}

//export PMPI_Keyval_create
func PMPI_Keyval_create(copyFn, deleteFn, key, extra unsafe.Pointer) int32 {
	return createKeyval("Keyval_create", copyFn, deleteFn, key, extra)
}

//export PMPI_Comm_free_keyval
func PMPI_Comm_free_keyval(key unsafe.Pointer) int32 { return freeKeyval("Comm_free_keyval", key) }

//export PMPI_Keyval_free
func PMPI_Keyval_free(key unsafe.Pointer) int32 { return freeKeyval("Keyval_free", key) }

//export PMPI_Comm_set_attr
func PMPI_Comm_set_attr(ch uintptr, key int32, val unsafe.Pointer) int32 {
	const op = "Comm_set_attr"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	if liveKey(key) == nil {
		return fail(op, ch, errorf(errKeyval, op, "keyval %d is not a key this program made (or was freed)", key))
	}
	c.mu.Lock()
	old, had := c.attrs[key]
	c.mu.Unlock()
	if had {
		if err := callDelete(op, ch, key, old); err != nil {
			return fail(op, ch, err)
		}
	} else {
		refKey(key)
	}
	c.mu.Lock()
	if c.attrs == nil {
		c.attrs = map[int32]uintptr{}
	}
	c.attrs[key] = uintptr(val)
	c.stampAttr(key)
	c.mu.Unlock()
	return 0
}

//export PMPI_Attr_put
func PMPI_Attr_put(ch uintptr, key int32, val unsafe.Pointer) int32 {
	return PMPI_Comm_set_attr(ch, key, val)
}

//export PMPI_Comm_get_attr
func PMPI_Comm_get_attr(ch uintptr, key int32, val, flag unsafe.Pointer) int32 {
	const op = "Comm_get_attr"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	if val == nil || flag == nil {
		return fail(op, ch, errorf(errArg, op, "attribute_val or flag is NULL"))
	}
	if p, ok := predefAttr(key); ok { // on every communicator, as MPICH and Open MPI do
		*(*unsafe.Pointer)(val) = p
		setInt(flag, 1)
		return 0
	}
	if keyvals.get(uintptr(key)) == nil {
		return fail(op, ch, errorf(errKeyval, op, "keyval %d is not a key", key))
	}
	c.mu.Lock()
	v, ok := c.attrs[key]
	c.mu.Unlock()
	if ok {
		*(*uintptr)(val) = v
	}
	setBool(flag, ok)
	return 0
}

//export PMPI_Attr_get
func PMPI_Attr_get(ch uintptr, key int32, val, flag unsafe.Pointer) int32 {
	return PMPI_Comm_get_attr(ch, key, val, flag)
}

//export PMPI_Comm_delete_attr
func PMPI_Comm_delete_attr(ch uintptr, key int32) int32 {
	const op = "Comm_delete_attr"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	ok, err := deleteAttr(op, ch, &c.mu, &c.attrs, key)
	if !ok {
		return fail(op, ch, errorf(errKeyval, op, "comm has no attribute with keyval %d", key))
	}
	return fail(op, ch, err)
}

//export PMPI_Attr_delete
func PMPI_Attr_delete(ch uintptr, key int32) int32 { return PMPI_Comm_delete_attr(ch, key) }

func gettid() int { return unix.Gettid() }
