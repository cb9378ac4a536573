package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"
*/
import "C"

import (
	"cmp"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Sessions (MPI 4.1 section 11.3). A session is
// an entry of a table like the other handles: the device's session and its error
// handler (internal/mpir's, as a communicator's). Errors of a session call go to the
// session's handler; those of a call on a handle that is no live session
// (MPI_ERR_SESSION) to MPI_COMM_SELF's, as errors with no valid object do.
// Communicators made from groups take the handler passed in, which also serves the
// errors of the call that makes them.

const hSessionNull = 0x120

// --- sessions ---

type session struct {
	s    *mpir.Session
	errh mpir.Errh
	h    uintptr // its handle, for its handler's first argument
}

var sessions = table[session]{kind: kSession}

// needSession checks a session argument; a bad one is raised on MPI_COMM_SELF.
func needSession(op string, sh uintptr) (*session, int32) {
	s := sessions.get(sh)
	if s == nil {
		return nil, fail(op, 0, badHandle(op, "session", sh, kSession))
	}
	if err := s.s.Check(op); err != nil {
		return nil, fail(op, 0, err)
	}
	return s, 0
}

// failSession raises err through the session's handler.
func failSession(op string, s *session, sh uintptr, err error) int32 {
	if err == nil {
		return 0
	}
	return s.raise(op, sh, err)
}

func (s *session) raise(op string, sh uintptr, err error) int32 {
	ce := cerror(op, err)
	s.errh.Raise(ce.op, sh, mpir.Text("a session"), ce)
	return ce.code
}

// failWith raises err of a call that makes an object through the handler x passed to
// it, h standing for the object (a null handle).
func failWith(op string, x *mpir.Errhandler, h uintptr, what string, err error) int32 {
	ce := cerror(op, err)
	x.Run(ce.op, h, mpir.Text(what), ce)
	return ce.code
}

//export PMPI_Session_init
func PMPI_Session_init(ih uintptr, eh uintptr, out unsafe.Pointer) int32 {
	const op = "Session_init"
	x, err := errhArg(op, eh, mpir.KindSession)
	if err != nil {
		return fail(op, 0, err)
	}
	if out == nil {
		return failWith(op, x, hSessionNull, "a new session", errorf(errArg, op, "session is NULL"))
	}
	in, err := infoArg(op, ih)
	if err != nil {
		return failWith(op, x, hSessionNull, "a new session", err)
	}
	d, err := mpir.SessionInit(op, in)
	if err != nil {
		return failWith(op, x, hSessionNull, "a new session", err)
	}
	setShortLive(true)
	if d.Level() == core.ThreadMultiple {
		shortMT()
		reqsMT()
	}
	s := &session{s: d}
	d.Face = s
	s.errh.Init(x)
	s.h = sessions.add(s)
	setHandle(out, s.h)
	return 0
}

//export PMPI_Session_finalize
func PMPI_Session_finalize(p unsafe.Pointer) int32 {
	const op = "Session_finalize"
	if p == nil {
		return fail(op, 0, errorf(errArg, op, "session is NULL"))
	}
	sh := *(*uintptr)(p)
	s, r := needSession(op, sh)
	if s == nil {
		return r
	}
	hideColls() // before its communicators' regions may go
	err := s.s.Finalize(op)
	r = failSession(op, s, sh, err) // the session's handler, while it still has one
	if s.s.Check(op) != nil {       // finalised, even where delivering its buffer failed
		setShortLive(core.Live())
		sessions.remove(sh)
		setHandle(p, hSessionNull)
	}
	return r
}

//export PMPI_Session_get_num_psets
func PMPI_Session_get_num_psets(sh uintptr, ih uintptr, n unsafe.Pointer) int32 {
	const op = "Session_get_num_psets"
	s, r := needSession(op, sh)
	if s == nil {
		return r
	}
	if n == nil {
		return failSession(op, s, sh, errorf(errArg, op, "npset_names is NULL"))
	}
	in, err := infoArg(op, ih)
	if err != nil {
		return failSession(op, s, sh, err)
	}
	ps, err := s.s.Psets(op, in)
	if err != nil {
		return failSession(op, s, sh, err)
	}
	setInt(n, len(ps))
	return 0
}

//export PMPI_Session_get_nth_pset
func PMPI_Session_get_nth_pset(sh uintptr, ih uintptr, n int32, plen, name unsafe.Pointer) int32 {
	const op = "Session_get_nth_pset"
	s, r := needSession(op, sh)
	if s == nil {
		return r
	}
	in, err := infoArg(op, ih)
	if err != nil {
		return failSession(op, s, sh, err)
	}
	p, err := s.s.NthPset(op, in, int(n))
	if err != nil {
		return failSession(op, s, sh, err)
	}
	if plen == nil {
		return failSession(op, s, sh, errorf(errArg, op, "pset_len is NULL"))
	}
	// MPI 4.1 section 11.3.2: a positive pset_len is the buffer's size, and the name
	// is cut to fit; pset_name is left alone for 0; on return pset_len is the size the
	// whole name needs, with C's NUL.
	if max := *(*int32)(plen); max > 0 {
		if name == nil {
			return failSession(op, s, sh, errorf(errArg, op, "pset_name is NULL"))
		}
		putCString(name, int(max), p, nil)
	}
	*(*int32)(plen) = int32(len(p) + 1)
	return 0
}

//export PMPI_Session_get_info
func PMPI_Session_get_info(sh uintptr, out unsafe.Pointer) int32 {
	const op = "Session_get_info"
	s, r := needSession(op, sh)
	if s == nil {
		return r
	}
	if out == nil {
		return failSession(op, s, sh, errorf(errArg, op, "info_used is NULL"))
	}
	in, err := s.s.Info(op)
	if err != nil {
		return failSession(op, s, sh, err)
	}
	setHandle(out, newInfoHandle(in))
	return 0
}

// psetArgs checks the arguments of a call about a process set: the session, the
// set's name and the output (named outName); s is nil when the call must return r.
func psetArgs(op string, sh uintptr, np, out unsafe.Pointer, outName string) (s *session, name string, r int32) {
	if s, r = needSession(op, sh); s == nil {
		return nil, "", r
	}
	if np == nil {
		return nil, "", failSession(op, s, sh, errorf(errArg, op, "pset_name is NULL"))
	}
	if out == nil {
		return nil, "", failSession(op, s, sh, errorf(errArg, op, "%s is NULL", outName))
	}
	return s, cstr(np), 0
}

//export PMPI_Session_get_pset_info
func PMPI_Session_get_pset_info(sh uintptr, np unsafe.Pointer, out unsafe.Pointer) int32 {
	const op = "Session_get_pset_info"
	s, name, r := psetArgs(op, sh, np, out, "info")
	if s == nil {
		return r
	}
	in, err := s.s.PsetInfo(op, name)
	if err != nil {
		return failSession(op, s, sh, err)
	}
	setHandle(out, newInfoHandle(in))
	return 0
}

//export PMPI_Group_from_session_pset
func PMPI_Group_from_session_pset(sh uintptr, np unsafe.Pointer, out unsafe.Pointer) int32 {
	const op = "Group_from_session_pset"
	s, name, r := psetArgs(op, sh, np, out, "newgroup")
	if s == nil {
		return r
	}
	g, err := s.s.GroupFromPset(op, name)
	if err != nil {
		return failSession(op, s, sh, err)
	}
	setHandle(out, newGroup(g))
	return 0
}

//export PMPI_Session_create_errhandler
func PMPI_Session_create_errhandler(fn, eh unsafe.Pointer) int32 {
	return createErrh("Session_create_errhandler", fn, eh, mpir.KindSession)
}

//export PMPI_Session_set_errhandler
func PMPI_Session_set_errhandler(sh uintptr, eh uintptr) int32 {
	const op = "Session_set_errhandler"
	s, r := needSession(op, sh)
	if s == nil {
		return r
	}
	return failSession(op, s, sh, setErrh(op, &s.errh, mpir.KindSession, eh))
}

//export PMPI_Session_get_errhandler
func PMPI_Session_get_errhandler(sh uintptr, eh unsafe.Pointer) int32 {
	const op = "Session_get_errhandler"
	s, r := needSession(op, sh)
	if s == nil {
		return r
	}
	return failSession(op, s, sh, getErrh(op, &s.errh, eh))
}

//export PMPI_Session_call_errhandler
func PMPI_Session_call_errhandler(sh uintptr, code int32) int32 {
	const op = "Session_call_errhandler"
	s, r := needSession(op, sh)
	if s == nil {
		return r
	}
	s.errh.Raise("MPI_"+op, sh, mpir.Text("a session"), codeErr(op, code))
	return 0
}

// fromGroups registers a communicator made from groups such as g, with handler x
// and the hints of info ih; it belongs to g's owner.
func fromGroups(c *core.Comm, g *mpir.Group, x *mpir.Errhandler, hints *mpir.Hints, out unsafe.Pointer) {
	if c == nil {
		setHandle(out, hCommNull)
		return
	}
	setHandle(out, register(mpir.NewComm(c, g.Owner(), x, hints)))
}

// groupArgs checks the arguments every creation from groups shares: the handler
// (a communicator's: x, nil where the error is that eh is not one), the info, the
// output.
func groupArgs(op string, ih, eh uintptr, out unsafe.Pointer) (*mpir.Hints, *mpir.Errhandler, error) {
	x, err := errhArg(op, eh, mpir.KindComm)
	if err != nil {
		return nil, nil, err
	}
	if out == nil {
		return nil, x, errorf(errArg, op, "newcomm is NULL")
	}
	hints, err := newCommHints(op, ih)
	return hints, x, err
}

func stringTagArg(op string, p unsafe.Pointer) (string, error) {
	if p == nil {
		return "", errorf(errArg, op, "stringtag is NULL")
	}
	return cstr(p), nil
}

//export PMPI_Comm_create_from_group
func PMPI_Comm_create_from_group(gh uintptr, tp unsafe.Pointer, ih uintptr, eh uintptr, out unsafe.Pointer) int32 {
	const op, what = "Comm_create_from_group", "a new communicator"
	// A group and a tag say with whom and where to agree; without them this rank
	// cannot take part. The other arguments' errors fail it at every member.
	hints, x, bad := groupArgs(op, ih, eh, out)
	failed := func(err error) int32 {
		if x == nil {
			return failOwned(op, err, gh)
		}
		return failWith(op, x, hCommNull, what, err)
	}
	g := groupOf(gh)
	if g == nil {
		return failed(cmp.Or(bad, badHandle(op, "group", gh, kGroup)))
	}
	tag, err := stringTagArg(op, tp)
	if err != nil {
		return failed(cmp.Or(bad, err))
	}
	c, err := mpir.CommFromGroup(op, g, tag, bad)
	if err != nil {
		return failed(err)
	}
	fromGroups(c, g, x, hints, out)
	return 0
}

//export PMPI_Intercomm_create_from_groups
func PMPI_Intercomm_create_from_groups(lh uintptr, ll int32, rh uintptr, rl int32, tp unsafe.Pointer, ih uintptr, eh uintptr, out unsafe.Pointer) int32 {
	const op, what = "Intercomm_create_from_groups", "a new intercommunicator"
	// As for MPI_Comm_create_from_group: the groups and the tag are needed to take
	// part, the other arguments' errors fail it at every member of both groups.
	hints, x, bad := groupArgs(op, ih, eh, out)
	failed := func(err error) int32 {
		if x == nil {
			return failOwned(op, err, lh, rh)
		}
		return failWith(op, x, hCommNull, what, err)
	}
	var lg, rg *mpir.Group
	if lg, rg = groupOf(lh), groupOf(rh); lg == nil {
		return failed(cmp.Or(bad, badHandle(op, "local_group", lh, kGroup)))
	} else if rg == nil {
		return failed(cmp.Or(bad, badHandle(op, "remote_group", rh, kGroup)))
	}
	tag, err := stringTagArg(op, tp)
	if err != nil {
		return failed(cmp.Or(bad, err))
	}
	c, err := mpir.IntercommFromGroups(op, lg, int(ll), rg, int(rl), tag, bad)
	if err != nil {
		return failed(err)
	}
	fromGroups(c, lg, x, hints, out)
	return 0
}

//export PMPI_Session_attach_buffer
func PMPI_Session_attach_buffer(sh uintptr, p unsafe.Pointer, size int32) int32 {
	return PMPI_Session_attach_buffer_c(sh, p, int64(size))
}

//export PMPI_Session_attach_buffer_c
func PMPI_Session_attach_buffer_c(sh uintptr, p unsafe.Pointer, size int64) int32 {
	const op = "Session_attach_buffer_c"
	s, r := needSession(op, sh)
	if s == nil {
		return r
	}
	b, auto, err := bufferIn(op, p, size)
	if err != nil {
		return failSession(op, s, sh, err)
	}
	return failSession(op, s, sh, mpir.AttachBuffer(op, s.s, b, auto))
}

//export PMPI_Session_detach_buffer
func PMPI_Session_detach_buffer(sh uintptr, addr, size unsafe.Pointer) int32 {
	var n int64
	r := PMPI_Session_detach_buffer_c(sh, addr, narrowOut(size, &n))
	if r == 0 {
		setInt(size, int(n))
	}
	return r
}

//export PMPI_Session_detach_buffer_c
func PMPI_Session_detach_buffer_c(sh uintptr, addr, size unsafe.Pointer) int32 {
	const op = "Session_detach_buffer_c"
	s, r := needSession(op, sh)
	if s == nil {
		return r
	}
	if err := nullOut(op, "buffer_addr, size", addr, size); err != nil {
		return failSession(op, s, sh, err)
	}
	b, auto, err := mpir.DetachBuffer(op, s.s)
	if err != nil {
		return failSession(op, s, sh, err)
	}
	bufferOut(addr, size, b, auto)
	return 0
}

//export PMPI_Session_flush_buffer
func PMPI_Session_flush_buffer(sh uintptr) int32 {
	const op = "Session_flush_buffer"
	s, r := needSession(op, sh)
	if s == nil {
		return r
	}
	return failSession(op, s, sh, mpir.FlushBuffer(prof.None, op, s.s, nil))
}

//export PMPI_Session_iflush_buffer
func PMPI_Session_iflush_buffer(sh uintptr, req unsafe.Pointer) int32 {
	const op = "Session_iflush_buffer"
	s, r := needSession(op, sh)
	if s == nil {
		return r
	}
	if req == nil {
		return failSession(op, s, sh, errorf(errArg, op, "request is NULL"))
	}
	p, err := mpir.IflushBuffer(prof.None, op, s.s, nil)
	if err != nil {
		return failSession(op, s, sh, err)
	}
	addPending(p, nil, 0, nil, req)
	return 0
}
