package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Dynamic processes (MPI 4.1 chapter 11): the C forms of internal/mpir's (dynamic.go
// there), which converts nothing but its arguments: C strings and the
// NULL-terminated argument vectors (MPI_ARGV_NULL, MPI_ARGVS_NULL: none), info
// handles (MPI_INFO_NULL: none), the errors of a spawn as MPI error codes
// (MPI_ERRCODES_IGNORE: not wanted), port names into MPI_MAX_PORT_NAME bytes.
//
// The arguments MPI calls significant at the root only (a spawn's commands, an
// accept's or connect's port and info) are read at the root only: at the other
// processes they may be anything, even pointers to nothing.

//export PMPI_Comm_spawn
func PMPI_Comm_spawn(command, argv unsafe.Pointer, maxprocs int32, info uintptr, root int32, ch uintptr, intercomm, errcodes unsafe.Pointer) int32 {
	const op = "Comm_spawn"
	return spawn(op, root, ch, intercomm, errcodes, func() ([]mpir.SpawnCmd, error) {
		in, err := infoArg(op, info)
		if err != nil {
			return nil, err
		}
		if err := nullOut(op, "command", command); err != nil {
			return nil, err
		}
		return []mpir.SpawnCmd{{Command: cstr(command), Argv: cArgv(argv), MaxProcs: int(maxprocs), Info: in}}, nil
	})
}

//export PMPI_Comm_spawn_multiple
func PMPI_Comm_spawn_multiple(count int32, commands, argvs, maxprocs, infos unsafe.Pointer, root int32, ch uintptr, intercomm, errcodes unsafe.Pointer) int32 {
	const op = "Comm_spawn_multiple"
	return spawn(op, root, ch, intercomm, errcodes, func() ([]mpir.SpawnCmd, error) {
		if count <= 0 {
			return nil, nil // mpir's check names count
		}
		n := int(count)
		switch {
		case commands == nil:
			return nil, argErr(op, "array_of_commands is NULL")
		case maxprocs == nil:
			return nil, argErr(op, "array_of_maxprocs is NULL")
		case infos == nil:
			return nil, argErr(op, "array_of_info is NULL")
		}
		names := unsafe.Slice((**C.char)(commands), n)
		np := ints(maxprocs, n)
		ih := unsafe.Slice((*uintptr)(infos), n)
		var av []*C.char
		if argvs != nil { // MPI_ARGVS_NULL: no command has arguments
			av = unsafe.Slice((**C.char)(argvs), n)
		}
		cmds := make([]mpir.SpawnCmd, n)
		for i := range cmds {
			in, err := infoArg(op, ih[i])
			if err != nil {
				return nil, err
			}
			if names[i] == nil {
				return nil, argErr(op, "array_of_commands[%d] is NULL", i)
			}
			cmds[i] = mpir.SpawnCmd{Command: cstr(unsafe.Pointer(names[i])), MaxProcs: int(np[i]), Info: in}
			if av != nil {
				cmds[i].Argv = cArgv(unsafe.Pointer(av[i]))
			}
		}
		return cmds, nil
	})
}

// spawn is MPI_Comm_spawn or _spawn_multiple on the communicator ch: cmds converts
// the root's arguments, and is called at the root only. The new intercommunicator
// goes to *intercomm (MPI_COMM_NULL when no process started), each process's error
// as a code to errcodes, at every process. A root's argument that cannot be converted
// (an info handle that is none, a NULL array) is the root's error; the root still
// enters the spawn, with no command, which mpir refuses and reports to every process,
// so that the others return an error rather than wait for the root.
func spawn(op string, root int32, ch uintptr, intercomm, errcodes unsafe.Pointer, cmds func() ([]mpir.SpawnCmd, error)) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	mine := nullOut(op, "intercomm", intercomm) // agreed before anything starts
	defer prof.Exit(prof.CommSpawn, c.enterTimed(prof.CommSpawn, int(root), -1, 0), 0)
	if err := mpir.CheckCollective(op, int(root), c.c); err != nil {
		return fail(op, ch, err)
	}
	var at []mpir.SpawnCmd
	var bad error
	if c.c.Rank() == int(root) {
		at, bad = cmds() // at is nil when bad
	}
	nc, errs, err := mpir.CommSpawn(op, at, mine, int(root), c.c, c.x.Owner())
	if bad != nil {
		err = bad // the root's own reason, not mpir's "no command"
	}
	if mine != nil {
		return fail(op, ch, mine) // nothing was started
	}
	if errcodes != nil { // MPI_ERRCODES_IGNORE
		codes := ints(errcodes, len(errs))
		for i, e := range errs {
			codes[i] = 0
			if e != nil {
				codes[i] = cerror(op, e).code
			}
		}
	}
	// A spawn that started fewer processes than asked for fails, yet joins those
	// that started (nc is not nil then), which the program must be able to
	// disconnect.
	setHandle(intercomm, newComm(nc, c, nil, nil)) // MPI_COMM_NULL for a nil nc
	return fail(op, ch, err)
}

// cArgv is the NULL-terminated C array of strings p (MPI_ARGV_NULL: none).
func cArgv(p unsafe.Pointer) []string {
	if p == nil {
		return nil
	}
	var out []string
	for a := (**C.char)(p); *a != nil; a = (**C.char)(unsafe.Add(unsafe.Pointer(a), unsafe.Sizeof(a))) {
		out = append(out, C.GoString(*a))
	}
	return out
}

//export PMPI_Comm_get_parent
func PMPI_Comm_get_parent(p unsafe.Pointer) int32 {
	const op = "Comm_get_parent"
	if p == nil {
		return fail(op, 0, argErr(op, "parent is NULL"))
	}
	// The parent's handler is MPI_ERRORS_ARE_FATAL at first, as MPI_COMM_WORLD's.
	x := mpir.Parent(mpir.ErrorsAreFatal, func(x *mpir.Comm) { register(x) })
	if x == nil {
		setHandle(p, hCommNull)
		return 0
	}
	setHandle(p, x.Handle.(uintptr))
	return 0
}

//export PMPI_Open_port
func PMPI_Open_port(info uintptr, portName unsafe.Pointer) int32 {
	const op = "Open_port"
	if portName == nil {
		return fail(op, 0, argErr(op, "port_name is NULL"))
	}
	in, err := infoArg(op, info)
	if err != nil {
		return fail(op, 0, err)
	}
	port, err := mpir.OpenPort(op, in)
	if err == nil {
		err = putPort(op, portName, port, "the port opened")
	}
	return fail(op, 0, err)
}

// putPort writes the port name port (what says which) into the C buffer p of
// MPI_MAX_PORT_NAME bytes; a name that would not fit there is an error, never cut.
func putPort(op string, p unsafe.Pointer, port, what string) error {
	if len(port) > C.MPI_MAX_PORT_NAME-1 {
		return core.Errorf(core.ClassPort, op, "%s has a name of %d bytes, more than MPI_MAX_PORT_NAME (%d) holds with its terminating zero",
			what, len(port), C.MPI_MAX_PORT_NAME)
	}
	putCString(p, C.MPI_MAX_PORT_NAME, port, nil)
	return nil
}

//export PMPI_Close_port
func PMPI_Close_port(portName unsafe.Pointer) int32 {
	const op = "Close_port"
	if portName == nil {
		return fail(op, 0, argErr(op, "port_name is NULL"))
	}
	return fail(op, 0, mpir.ClosePort(op, cstr(portName)))
}

//export PMPI_Comm_accept
func PMPI_Comm_accept(portName unsafe.Pointer, info uintptr, root int32, ch uintptr, out unsafe.Pointer) int32 {
	return accept("Comm_accept", prof.CommAccept, mpir.CommAccept, portName, info, root, ch, out)
}

//export PMPI_Comm_connect
func PMPI_Comm_connect(portName unsafe.Pointer, info uintptr, root int32, ch uintptr, out unsafe.Pointer) int32 {
	return accept("Comm_connect", prof.CommConnect, mpir.CommConnect, portName, info, root, ch, out)
}

// accept is MPI_Comm_accept or _connect (do, mpir's; call, the recorder's): the port
// name and info are read at the root only. An info handle at the root that is none,
// or a NULL port name there (which names no port: MPI_ERR_PORT), is the root's error;
// the root still enters the call with it, and mpir reports it to every process, so
// that the others return it rather than wait for the root. A NULL newcomm at any
// process lets the connection be made and fails its agreement at every process of
// both sides (mpir's mine).
func accept(op string, call prof.Call, do func(string, string, *mpir.Info, error, error, int, *core.Comm, *mpir.Session) (*core.Comm, error),
	portName unsafe.Pointer, info uintptr, root int32, ch uintptr, out unsafe.Pointer) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	mine := nullOut(op, "newcomm", out)
	defer prof.Exit(call, c.enterTimed(call, int(root), -1, 0), 0)
	if err := mpir.CheckCollective(op, int(root), c.c); err != nil {
		return fail(op, ch, err)
	}
	var port string
	var in *mpir.Info
	var bad error
	if c.c.Rank() == int(root) {
		switch in, bad = infoArg(op, info); {
		case bad != nil:
		case portName == nil: // names no port: MPI_ERR_PORT, as one nobody opened
			bad = errorf(core.ClassPort, op, "port_name is NULL")
		default:
			port = cstr(portName)
		}
	}
	nc, err := do(op, port, in, bad, mine, int(root), c.c, c.x.Owner())
	if err != nil {
		if out != nil {
			setHandle(out, hCommNull)
		}
		return fail(op, ch, err)
	}
	setHandle(out, newComm(nc, c, nil, nil))
	return 0
}

//export PMPI_Comm_join
func PMPI_Comm_join(fd int32, out unsafe.Pointer) int32 {
	const op = "Comm_join"
	if out == nil {
		return fail(op, 0, argErr(op, "intercomm is NULL"))
	}
	defer prof.Exit(prof.CommJoin, self.enterTimed(prof.CommJoin, prof.NoPeer, -1, 0), 0)
	nc, err := mpir.CommJoin(op, int(fd))
	if err != nil {
		setHandle(out, hCommNull)
		return fail(op, 0, err)
	}
	// Made from no communicator: it takes MPI_COMM_SELF's handler, the handler of
	// the calls that have none.
	setHandle(out, newComm(nc, &self, nil, nil))
	return 0
}

//export PMPI_Comm_disconnect
func PMPI_Comm_disconnect(p unsafe.Pointer) int32 {
	const op = "Comm_disconnect"
	if p == nil {
		return fail(op, 0, argErr(op, "comm is NULL"))
	}
	h := *(*uintptr)(p)
	c, r := needComm(op, h)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.CommDisconnect, c.enterTimed(prof.CommDisconnect, prof.NoPeer, -1, 0), 0)
	hideColl(h) // before its region goes
	postPending()
	adoptCMsgsOf(op, h)
	if err := mpir.CommDisconnect(op, c.x); err != nil {
		return fail(op, h, err)
	}
	removeComm(h)
	setHandle(p, hCommNull)
	return 0
}

//export PMPI_Publish_name
func PMPI_Publish_name(service unsafe.Pointer, info uintptr, portName unsafe.Pointer) int32 {
	const op = "Publish_name"
	s, in, err := nameArgs(op, service, info, portName)
	if err == nil {
		err = mpir.PublishName(op, s, in, cstr(portName))
	}
	return fail(op, 0, err)
}

//export PMPI_Unpublish_name
func PMPI_Unpublish_name(service unsafe.Pointer, info uintptr, portName unsafe.Pointer) int32 {
	const op = "Unpublish_name"
	s, in, err := nameArgs(op, service, info, portName)
	if err == nil {
		err = mpir.UnpublishName(op, s, in, cstr(portName))
	}
	return fail(op, 0, err)
}

//export PMPI_Lookup_name
func PMPI_Lookup_name(service unsafe.Pointer, info uintptr, portName unsafe.Pointer) int32 {
	const op = "Lookup_name"
	s, in, err := nameArgs(op, service, info, portName)
	if err != nil {
		return fail(op, 0, err)
	}
	port, err := mpir.LookupName(op, s, in)
	if err == nil {
		err = putPort(op, portName, port, "the port published as "+s)
	}
	return fail(op, 0, err)
}

// nameArgs converts the arguments of the name service's calls: service_name and
// port_name must not be NULL (port_name is the output of MPI_Lookup_name).
func nameArgs(op string, service unsafe.Pointer, info uintptr, portName unsafe.Pointer) (string, *mpir.Info, error) {
	if service == nil {
		return "", nil, argErr(op, "service_name is NULL")
	}
	if portName == nil {
		return "", nil, argErr(op, "port_name is NULL")
	}
	in, err := infoArg(op, info)
	return cstr(service), in, err
}
