package mpir

import (
	"fmt"
	"strings"

	"github.com/mpigo/mpigo/internal/collective"
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

// OpenPort opens a port on which this process can accept connections and returns
// its name (MPI_Open_port). mpigo defines no info keys for ports; in is not read.
func OpenPort(op string, in *Info) (string, error) { return core.OpenPortCore(op) }

// ClosePort closes a port opened by OpenPort (MPI_Close_port).
func ClosePort(op, port string) error {
	if err := core.Ready(op); err != nil {
		return err
	}
	return core.ClosePortCore(op, port)
}

// CommAccept waits at root for a connection on port and returns the
// intercommunicator between c's group and the connecting group (MPI_Comm_accept).
// port and in are significant at root only. A bad port fails at root after root has
// told the other members, so that every member returns the error rather than waits;
// bad, at root, is the error its arguments gave in the binding (a handle that is no
// Info), which root reports the same way without reaching any port; mine, at any
// member, is an error of its own arguments that lets the connection be made and then
// fails it at every member of both sides (core.AcceptCore).
func CommAccept(op, port string, in *Info, bad, mine error, root int, c *core.Comm, owner *Session) (*core.Comm, error) {
	return collective.Accept(op, port, bad, mine, root, c)
}

// CommConnect connects c's group, from root, to the group accepting on port and
// returns the intercommunicator between them (MPI_Comm_connect). port and in are
// significant at root only; bad and mine are as for CommAccept.
func CommConnect(op, port string, in *Info, bad, mine error, root int, c *core.Comm, owner *Session) (*core.Comm, error) {
	return collective.Connect(op, port, bad, mine, root, c)
}

// CommSpawn starts the processes of cmds as one new job (MPI_Comm_spawn with one
// command, MPI_Comm_spawn_multiple with more) and returns the intercommunicator
// between c's group and the new job's world. cmds is significant at root only. The
// returned slice has one entry per process asked for, in command order, at every
// process of c: nil for a process started, else why it was not (class ClassSpawn).
// Where fewer processes started than asked for and no command allowed it (the info
// key soft), the error is ClassSpawn and the intercommunicator joins those that did.
// mine, at any process, is an error of its own arguments (a NULL output): nothing is
// started and every process fails (core.SpawnCore).
func CommSpawn(op string, cmds []SpawnCmd, mine error, root int, c *core.Comm, owner *Session) (*core.Comm, []error, error) {
	if err := c.Check(op); err != nil {
		return nil, nil, err
	}
	var pcmds []core.SpawnCmd
	var bad error
	soft := false
	if c.Rank() == root {
		pcmds, soft, bad = spawnCmds(op, cmds)
	}
	nc, errs, err := collective.Spawn(op, pcmds, bad, mine, root, c)
	if err == nil && !soft {
		for _, e := range errs {
			if e != nil {
				err = core.Errorf(core.ClassSpawn, op, "not every process asked for started: %v", e)
				break
			}
		}
	}
	return nc, errs, err
}

// spawnCmds checks root's commands and converts them for the process manager; soft
// says whether any command allows fewer processes than asked for.
func spawnCmds(op string, cmds []SpawnCmd) ([]core.SpawnCmd, bool, error) {
	if len(cmds) == 0 {
		return nil, false, core.Errorf(core.ClassArg, op, "count = 0: want at least one command")
	}
	out := make([]core.SpawnCmd, len(cmds))
	soft := false
	for i, cmd := range cmds {
		what := "command"
		if len(cmds) > 1 {
			what = fmt.Sprintf("command %d", i)
		}
		if strings.TrimSpace(cmd.Command) == "" {
			return nil, false, core.Errorf(core.ClassArg, op, "%s is empty: want a program to start", what)
		}
		if cmd.MaxProcs < 1 {
			return nil, false, core.Errorf(core.ClassArg, op, "maxprocs of %s = %d: want at least 1", what, cmd.MaxProcs)
		}
		keys := map[string]string{}
		if cmd.Info != nil {
			pairs, err := cmd.Info.Pairs()
			if err != nil {
				return nil, false, core.Wrap(core.ClassInfo, op, "the info of "+what, err)
			}
			for _, kv := range pairs {
				keys[kv[0]] = kv[1]
			}
		}
		if _, ok := keys["soft"]; ok {
			soft = true
		}
		out[i] = core.SpawnCmd{Program: cmd.Command, Args: cmd.Argv, MaxProcs: cmd.MaxProcs, Info: keys}
	}
	return out, soft, nil
}

// CommGetParent returns the intercommunicator to the job that spawned this one, or
// nil when this job was not spawned or the parent was disconnected
// (MPI_Comm_get_parent).
func CommGetParent() *core.Comm { return collective.Parent() }

// CommJoin connects this process with the one at the other end of the connected
// socket fd and returns the intercommunicator of the two (MPI_Comm_join).
func CommJoin(op string, fd int) (*core.Comm, error) { return collective.Join(op, fd) }

// CommDisconnect waits for the communication pending on c to complete, then frees it
// (MPI_Comm_disconnect). It is collective over c. The processes of other jobs that no
// communicator names any more are then unreachable, and their end is no failure here.
func CommDisconnect(op string, c *Comm) error {
	if err := c.Dev().DisconnectWait(op); err != nil {
		return err
	}
	if err := c.Free(op); err != nil {
		return err
	}
	core.DropUnused()
	return nil
}

// PublishName publishes port under service in the launcher's name service, where
// other jobs can look it up (MPI_Publish_name). mpigo defines no info keys here.
func PublishName(op, service string, in *Info, port string) error {
	if err := nameArgs(op, service, port, true); err != nil {
		return err
	}
	return core.PublishCore(op, service, port)
}

// UnpublishName withdraws a name published by PublishName (MPI_Unpublish_name).
func UnpublishName(op, service string, in *Info, port string) error {
	if err := nameArgs(op, service, port, true); err != nil {
		return err
	}
	return core.UnpublishCore(op, service, port)
}

// LookupName returns the port published under service (MPI_Lookup_name).
func LookupName(op, service string, in *Info) (string, error) {
	if err := nameArgs(op, service, "", false); err != nil {
		return "", err
	}
	return core.LookupCore(op, service)
}

func nameArgs(op, service, port string, withPort bool) error {
	if service == "" {
		return core.Errorf(core.ClassService, op, "service_name is empty")
	}
	if withPort && port == "" {
		return core.Errorf(core.ClassPort, op, "port_name is empty")
	}
	return nil
}

// UniverseSize is the value of the attribute MPI_UNIVERSE_SIZE: how many processes
// the job may have in all; ok is false where the process manager does not say.
func UniverseSize() (n int, ok bool) { return core.UniverseSize() }

// AppNum is the value of the attribute MPI_APPNUM: the index of this process's
// command in the mpigo run line or MPI_Comm_spawn_multiple; ok is false where there
// is none.
func AppNum() (n int, ok bool) { return core.AppNum() }
