package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"cmp"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// comm is a communicator: the device communicator of its object, which never
// changes, kept here (and first) so that the hot paths reach it with one load, and
// the object (internal/mpir/comm.go: owner, topology, hints, error handler,
// attributes as C values kept as integers).
type comm struct {
	c *core.Comm
	x *mpir.Comm
	// short is p2pshort.c's copy of the communicator (a *C.mpigo_comm), nil if sends
	// on it take the Go way (newShortComm).
	short unsafe.Pointer
}

var (
	world, self comm
	comms       = table[comm]{kind: kComm}
)

func init() {
	// MPI_ERRORS_ARE_FATAL is the initial error handler.
	world = comm{c: core.World, x: mpir.NewComm(core.World, nil, mpir.ErrorsAreFatal, nil)}
	self = comm{c: core.Self, x: mpir.NewComm(core.Self, nil, mpir.ErrorsAreFatal, nil)}
	world.x.Handle, self.x.Handle = uintptr(hCommWorld), uintptr(hCommSelf)
}

// commOf is the communicator of handle h, nil for MPI_COMM_NULL or a handle that is
// not a live communicator.
func commOf(h uintptr) *comm {
	if h == hCommWorld { // inlined: the communicator of most calls
		return &world
	}
	return commOther(h)
}

// commOther is commOf past MPI_COMM_WORLD, out of line so that commOf inlines.
//
//go:noinline
func commOther(h uintptr) *comm {
	if h == hCommSelf {
		return &self
	}
	if h < handleBase {
		return nil
	}
	return comms.get(h)
}

// newComm registers a communicator the device made from parent, which inherits what
// MPI says it does (mpir.Comm.Derive), with topology t and hints (nil: defaults).
func newComm(c *core.Comm, parent *comm, t *mpir.Topology, hints *mpir.Hints) uintptr {
	return register(parent.x.Derive(c, t, hints))
}

// register gives object x (nil: MPI_COMM_NULL) its handle.
func register(x *mpir.Comm) uintptr {
	if x == nil {
		return hCommNull
	}
	h := addComm(x)
	x.Handle = h
	return h
}

// needComm checks a communicator argument.
func needComm(op string, h uintptr) (*comm, int32) {
	c := commOf(h)
	if c == nil {
		return nil, fail(op, 0, badHandle(op, "comm", h, kComm))
	}
	if err := c.c.Check(op); err != nil {
		return nil, fail(op, h, err)
	}
	return c, 0
}

// the OS thread that called Init (gettid)

//export goPMPI_Comm_rank
func goPMPI_Comm_rank(ch uintptr, rank unsafe.Pointer) int32 {
	goHalves.Add(1)
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

//export goPMPI_Comm_size
func goPMPI_Comm_size(ch uintptr, size unsafe.Pointer) int32 {
	goHalves.Add(1)
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
	if err := nullOut("Comm_remote_size", "size", size); err != nil {
		return fail("Comm_remote_size", ch, err)
	}
	setInt(size, c.c.Remote().Size())
	return 0
}

//export goPMPI_Comm_test_inter
func goPMPI_Comm_test_inter(ch uintptr, flag unsafe.Pointer) int32 {
	goHalves.Add(1)
	c, r := needComm("Comm_test_inter", ch)
	if c == nil {
		return r
	}
	if err := nullOut("Comm_test_inter", "flag", flag); err != nil {
		return fail("Comm_test_inter", ch, err)
	}
	setBool(flag, c.c.IsInter())
	return 0
}

// --- communicator creation ---

// created ends a constructor: the new communicator's handle at out, or err through
// the parent's handler. The constructor was given newOut(op, out) as its bad, so a
// NULL out fails it at every member and never reaches here without err.
func created(op string, parent *comm, ph uintptr, c *core.Comm, err error, out unsafe.Pointer) int32 {
	if err != nil {
		return fail(op, ph, err)
	}
	setHandle(out, newComm(c, parent, nil, nil))
	return 0
}

// newOut is the error of a NULL new-communicator output of op, nil if out is not
// NULL. Constructors pass it down as their bad (mpir's constructors) rather than
// refuse at once: the call is collective, and the other members would wait in it.
func newOut(op string, out unsafe.Pointer) error { return nullOut(op, newCommName(op), out) }

// newCommName is the name the C binding of op gives its new communicator.
func newCommName(op string) string {
	switch op {
	case "Intercomm_create", "Intercomm_create_from_groups":
		return "newintercomm"
	case "Intercomm_merge":
		return "newintracomm"
	}
	return "newcomm"
}

//export PMPI_Comm_dup
func PMPI_Comm_dup(ch uintptr, out unsafe.Pointer) int32 {
	const op = "Comm_dup"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Dup, c.enterTimed(prof.Dup, prof.NoPeer, -1, 0), 0)
	nh, err := dup(op, c, nil, newOut(op, out))
	if out != nil {
		setHandle(out, nh) // MPI_COMM_NULL when it failed
	}
	return fail(op, ch, err)
}

// dup is MPI_Comm_dup of c (mpir.Comm.Dup), unrecorded, with hints in place of c's
// when not nil, failed at every member by bad: the new communicator's handle. A
// duplicate whose attribute copy failed (mpir freed its device communicator) loses
// its handle: the duplication is not returned.
func dup(op string, c *comm, hints *mpir.Hints, bad error) (uintptr, error) {
	var nh uintptr
	_, err := c.x.Dup(op, hints, bad, func(x *mpir.Comm) any {
		nh = addComm(x)
		return nh
	})
	if err != nil {
		if nh != 0 {
			removeComm(nh)
		}
		return hCommNull, err
	}
	return nh, nil
}

//export PMPI_Comm_dup_with_info
func PMPI_Comm_dup_with_info(ch uintptr, info uintptr, out unsafe.Pointer) int32 {
	const op = "Comm_dup_with_info"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	hints, bad := newCommHints(op, info)
	defer prof.Exit(prof.Dup, c.enterTimed(prof.Dup, prof.NoPeer, -1, 0), 0)
	nh, err := dup("Comm_dup", c, hints, cmp.Or(bad, newOut(op, out)))
	if out != nil {
		setHandle(out, nh) // MPI_COMM_NULL when it failed
	}
	return fail(op, ch, err)
}

//export PMPI_Comm_split
func PMPI_Comm_split(ch uintptr, color, key int32, out unsafe.Pointer) int32 {
	const op = "Comm_split"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Split, c.enterTimed(prof.Split, prof.NoPeer, -1, 0), 0)
	nc, err := mpir.Split(op, c.c, int(color), int(key), newOut(op, out))
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
	bad := newOut(op, out)
	switch kind {
	case C.MPI_COMM_TYPE_SHARED:
		a.Kind = core.SplitShared
	case C.MPI_COMM_TYPE_HW_UNGUIDED:
		a.Kind = core.SplitHWUnguided
	case C.MPI_COMM_TYPE_HW_GUIDED:
		a.Kind = core.SplitHWGuided
	case C.MPI_COMM_TYPE_RESOURCE_GUIDED:
		a.Kind = core.SplitResourceGuided
	case undefined:
		a.Kind = core.Undefined
	default:
		bad = cmp.Or(bad, errorf(errArg, op, "split_type %d is not MPI_COMM_TYPE_SHARED, _HW_UNGUIDED, _HW_GUIDED, _RESOURCE_GUIDED or MPI_UNDEFINED", kind))
	}
	in, ierr := infoArg(op, info)
	nc, hints, err := mpir.SplitType(op, c.c, a, in, cmp.Or(bad, ierr))
	if err != nil {
		return fail(op, ch, err)
	}
	setHandle(out, newComm(nc, c, nil, hints))
	return 0
}

//export PMPI_Get_hw_resource_info
func PMPI_Get_hw_resource_info(out unsafe.Pointer) int32 {
	const op = "Get_hw_resource_info"
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "hw_info is NULL"))
	}
	in, err := mpir.HWResourceInfo(op)
	if err != nil {
		return fail(op, 0, err)
	}
	setHandle(out, newInfoHandle(in))
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
	bad := newOut(op, out)
	g := groupOf(gh)
	if g == nil {
		bad = cmp.Or(bad, badHandle(op, "group", gh, kGroup))
	}
	nc, err := mpir.Create(op, c.c, c.x.Owner(), g, bad)
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
	if g == nil { // without the group this rank cannot know whom to agree with
		return fail(op, ch, badHandle(op, "group", gh, kGroup))
	}
	nc, err := mpir.CreateGroup(op, c.c, c.x.Owner(), g, int(tag), newOut(op, out))
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
	var peerOwner *mpir.Session
	if p := commOf(ph); p != nil {
		peer, peerOwner = p.c, p.x.Owner()
	}
	nc, err := mpir.IntercommCreate(op, l.c, l.x.Owner(), int(lleader), peer, peerOwner, int(rleader), int(tag), newOut(op, out))
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
	nc, err := mpir.Merge(op, c.c, high != 0, newOut(op, out))
	return created(op, c, ch, nc, err, out)
}

//export PMPI_Comm_free
func PMPI_Comm_free(p unsafe.Pointer) int32 {
	const op = "Comm_free"
	if p == nil {
		return fail(op, 0, errorf(errArg, op, "comm is NULL"))
	}
	h := *(*uintptr)(p)
	c, r := needComm(op, h)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.CommFree, c.enterTimed(prof.CommFree, prof.NoPeer, -1, 0), 0)
	hideColl(h) // before its region goes
	postPending()
	adoptCMsgsOf(op, h)
	if err := c.x.Free(op); err != nil {
		return fail(op, h, err) // on a delete function's error the communicator stays
	}
	removeComm(h)
	setHandle(p, hCommNull)
	return 0
}

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
	if result == nil {
		return fail(op, h1, argErr(op, "result is NULL"))
	}
	cmp, err := mpir.CommCompare(op, c1.c, c2.c)
	if err != nil {
		return fail(op, h1, err)
	}
	setInt(result, comparisonOut(cmp))
	return 0
}

//export PMPI_Comm_set_name
func PMPI_Comm_set_name(ch uintptr, name unsafe.Pointer) int32 {
	const op = "Comm_set_name"
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	if err := nullOut(op, "comm_name", name); err != nil {
		return fail(op, ch, err)
	}
	return fail(op, ch, c.x.SetName(op, cstr(name)))
}

//export PMPI_Comm_get_name
func PMPI_Comm_get_name(ch uintptr, name, n unsafe.Pointer) int32 {
	const op = "Comm_get_name"
	var x *mpir.Comm // MPI_COMM_NULL, which has a name too
	if ch != hCommNull {
		c, r := needComm(op, ch)
		if c == nil {
			return r
		}
		x = c.x
	}
	if err := nullOut(op, "comm_name, resultlen", name, n); err != nil {
		return fail(op, ch, err)
	}
	putCString(name, C.MPI_MAX_OBJECT_NAME, x.Name(), n)
	return 0
}

//export PMPI_Comm_idup
func PMPI_Comm_idup(ch uintptr, out, req unsafe.Pointer) int32 {
	return idup("Comm_idup", ch, false, hInfoNull, out, req)
}

//export PMPI_Comm_idup_with_info
func PMPI_Comm_idup_with_info(ch uintptr, info uintptr, out, req unsafe.Pointer) int32 {
	return idup("Comm_idup_with_info", ch, true, info, out, req)
}

// idup duplicates in the background; the new handle is written when the request
// completes (the standard lends newcomm to MPI until then). withInfo gives the new
// communicator the hints of info instead of c's.
func idup(op string, ch uintptr, withInfo bool, info uintptr, out, req unsafe.Pointer) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Idup, c.enterTimed(prof.Idup, prof.NoPeer, -1, 0), 0)
	bad := nullOut(op, "newcomm, request", out, req)
	hints := c.x.Hints().Dup() // as they are at the call
	if withInfo {
		var err error
		hints, err = newCommHints(op, info)
		bad = cmp.Or(bad, err)
	}
	var nh uintptr
	p, err := c.x.Idup(op, hints, bad, func(x *mpir.Comm) any {
		nh = addComm(x)
		return nh
	}, func(_ *mpir.Comm, err error) {
		if err == nil {
			setHandle(out, nh)
		} else if nh != 0 {
			removeComm(nh)
		}
	})
	if err != nil {
		return fail(op, ch, err)
	}
	addPending(p, c, ch, nil, req)
	return 0
}
