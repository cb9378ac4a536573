package mpir

import (
	"github.com/mpigo/mpigo/internal/core"
)

// Dynamic processes (MPI 4.1 chapter 11): spawning new processes, joining separately
// started jobs through ports, the name service, and disconnecting. The faces convert
// arguments and call these; the new communicators they return are device
// communicators, which the face wraps as it wraps any new communicator (Derive from
// the communicator the call was made on: the error handler and owner are inherited).

// SpawnCmd is one command of MPI_Comm_spawn_multiple (MPI_Comm_spawn has one): the
// program, its arguments (without the program's name), how many processes to start
// and the info that says where and how (the reserved keys host, wdir, path, file,
// soft, and mpigo's own).
type SpawnCmd struct {
	Command  string
	Argv     []string
	MaxProcs int
	Info     *Info
}

// notYet is what a procedure of this file returns until its part is built.
func notYet(op string) error {
	return core.Errorf(core.ClassUnsupportedOperation, op, "dynamic processes are not built yet")
}

// OpenPort opens a port on which this process can accept connections and returns
// its name (MPI_Open_port).
func OpenPort(op string, in *Info) (string, error) { return "", notYet(op) }

// ClosePort closes a port opened by OpenPort (MPI_Close_port).
func ClosePort(op, port string) error { return notYet(op) }

// CommAccept waits at root for a connection on port and returns the
// intercommunicator between c's group and the connecting group (MPI_Comm_accept).
// port and in are significant at root only. owner is c's owner.
func CommAccept(op, port string, in *Info, root int, c *core.Comm, owner *Session) (*core.Comm, error) {
	return nil, notYet(op)
}

// CommConnect connects c's group, from root, to the group accepting on port and
// returns the intercommunicator between them (MPI_Comm_connect). port and in are
// significant at root only.
func CommConnect(op, port string, in *Info, root int, c *core.Comm, owner *Session) (*core.Comm, error) {
	return nil, notYet(op)
}

// CommSpawn starts the processes of cmds as one new job (MPI_Comm_spawn with one
// command, MPI_Comm_spawn_multiple with more) and returns the intercommunicator
// between c's group and the new job's world. cmds is significant at root only. The
// returned slice has one entry per process asked for, in command order, at every
// process of c: nil for a process started, else why it was not (class ClassSpawn).
func CommSpawn(op string, cmds []SpawnCmd, root int, c *core.Comm, owner *Session) (*core.Comm, []error, error) {
	return nil, nil, notYet(op)
}

// CommGetParent returns the intercommunicator to the job that spawned this one, or
// nil when this job was not spawned or the parent was disconnected
// (MPI_Comm_get_parent).
func CommGetParent() *core.Comm { return nil }

// CommJoin connects this process with the one at the other end of the connected
// socket fd and returns the intercommunicator of the two (MPI_Comm_join).
func CommJoin(op string, fd int) (*core.Comm, error) { return nil, notYet(op) }

// CommDisconnect waits for the communication pending on c to complete, then frees it
// (MPI_Comm_disconnect). It is collective over c.
func CommDisconnect(op string, c *Comm) error { return notYet(op) }

// PublishName publishes port under service in the launcher's name service, where
// other jobs can look it up (MPI_Publish_name).
func PublishName(op, service string, in *Info, port string) error { return notYet(op) }

// UnpublishName withdraws a name published by PublishName (MPI_Unpublish_name).
func UnpublishName(op, service string, in *Info, port string) error { return notYet(op) }

// LookupName returns the port published under service (MPI_Lookup_name).
func LookupName(op, service string, in *Info) (string, error) { return "", notYet(op) }

// UniverseSize is the value of the attribute MPI_UNIVERSE_SIZE: how many processes
// the job may have in all; ok is false where the process manager does not say.
func UniverseSize() (n int, ok bool) { return 0, false }

// AppNum is the value of the attribute MPI_APPNUM: the index of this process's
// command in the mpigo run line or MPI_Comm_spawn_multiple; ok is false where there
// is none.
func AppNum() (n int, ok bool) { return 0, false }
