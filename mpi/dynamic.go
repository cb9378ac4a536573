package mpi

import (
	"syscall"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Dynamic processes (MPI 4.1 chapter 11): starting new processes while the job runs,
// joining jobs started apart through ports, the name service that finds a port by a
// service's name, and disconnecting. Each call here converts its arguments and calls
// internal/mpir (dynamic.go there), which does what MPI says; the intercommunicators
// they make are wrapped as every new communicator is (wrapComm), and their errors go
// through the handler of the communicator of the call (Self's for the calls with
// none), as every error does.
//
// The arguments MPI calls significant at the root only (the commands of a spawn, the
// port and info of an accept or connect) are read at the root only: the other
// processes may pass anything, and nothing of theirs is checked.

// SpawnCommand is one program of CommSpawnMultiple: the program to run (found as
// mpigo run finds programs: by the PATH, or in the info key "wdir" or "path"), its
// arguments (without the program's name), how many processes to start, and the info
// that says where and how (nil for none: see CommSpawn for its keys).
type SpawnCommand struct {
	Command  string
	Argv     []string
	MaxProcs int
	Info     *Info
}

// CommSpawn starts maxprocs processes of command with arguments argv (without the
// program's name) as a new job, and returns the intercommunicator between comm's
// group (local) and the new job's World (remote) (MPI_Comm_spawn). In the new
// processes, CommGetParent returns the other side of it. It is collective over comm,
// an intracommunicator.
//
// command, argv, maxprocs and info are significant at root only: the other processes
// may pass anything (e.g. "", nil, 0, nil). info's keys (MPI 4.1 section 11.8.4) say
// where and how: "host" (the hosts to start on, as mpigo run's --host takes them;
// without it, the spawning job's hosts), "wdir" (the working directory), "path"
// (directories to look for command in, before the PATH), "file" (a file of more keys,
// KEY=VALUE a line), "soft" (the numbers of processes acceptable instead of maxprocs,
// as "1:4" or "2,4"); "arch" and other keys are ignored, as MPI allows.
//
// errs has one entry per process asked for (maxprocs, at every process of comm): nil
// for a process started, else why it was not (class ErrSpawn). err is the call's
// error, at every process of comm: of class ErrSpawn when not every process could be
// started (unless "soft" allowed fewer), and the intercommunicator then joins those
// that were, for the caller to disconnect (nil if none was); ErrArg for the root's bad
// arguments (maxprocs < 1, no command), ErrRoot for a root that is no rank of comm,
// ErrComm for a nil, freed or intercommunicator comm, with no intercommunicator.
func CommSpawn(command string, argv []string, maxprocs int, info *Info, root int, comm *Comm) (*Comm, []error, error) {
	defer prof.Exit(prof.CommSpawn, comm.enterRare(prof.CommSpawn, root, 0), 0)
	return comm.spawn("CommSpawn", root, func() []mpir.SpawnCmd {
		return []mpir.SpawnCmd{{Command: command, Argv: argv, MaxProcs: maxprocs, Info: info.obj()}}
	})
}

// CommSpawnMultiple is CommSpawn of several programs (or one program with several
// argument lists) started as one new job: their processes are the new World's ranks,
// cmds[0]'s first, and KeyAppNum tells each process the index of its command
// (MPI_Comm_spawn_multiple). cmds is significant at root only; errs has one entry per
// process asked for, in command order.
func CommSpawnMultiple(cmds []SpawnCommand, root int, comm *Comm) (*Comm, []error, error) {
	defer prof.Exit(prof.CommSpawn, comm.enterRare(prof.CommSpawn, root, 0), 0)
	return comm.spawn("CommSpawnMultiple", root, func() []mpir.SpawnCmd {
		out := make([]mpir.SpawnCmd, len(cmds))
		for i, c := range cmds {
			out[i] = mpir.SpawnCmd{Command: c.Command, Argv: c.Argv, MaxProcs: c.MaxProcs, Info: c.Info.obj()}
		}
		return out
	})
}

// spawn is op with root's commands, which cmds gives (called at root only).
func (c *Comm) spawn(op string, root int, cmds func() []mpir.SpawnCmd) (*Comm, []error, error) {
	if c.special() {
		var errs []error
		nc, done, err := c.aroundNew(op, func(b *Comm) (nc *Comm, err error) {
			nc, errs, err = b.spawn(op, root, cmds)
			return nc, err
		})
		if done {
			if err != nil {
				return nil, nil, err // nc and errs are not read: a given-up call may still set them
			}
			return nc, errs, nil
		}
	}
	if err := c.check(op); err != nil {
		return nil, nil, err
	}
	if err := mpir.CheckCollective(op, root, c.d); err != nil {
		return nil, nil, c.fail(op, err)
	}
	var at []mpir.SpawnCmd
	if c.d.Rank() == root {
		at = cmds()
	}
	// A spawn that started fewer processes than asked for fails, yet joins those that
	// started (nd is not nil then), which the caller must be able to disconnect.
	nd, errs, err := mpir.CommSpawn(op, at, nil, root, c.d, c.owner())
	return wrapComm(c, nd), errs, c.fail(op, err)
}

// CommGetParent returns the intercommunicator to the job that started this one with
// CommSpawn or CommSpawnMultiple (its local group this job's World, its remote group
// the spawning processes), or nil when this job was not spawned (MPI_Comm_get_parent).
// Every call returns the same *Comm, until it is freed or disconnected; after that,
// nil. Its error handler is at first ErrorsReturn, as World's is.
func CommGetParent() *Comm {
	x := mpir.Parent(mpir.ErrorsReturn, func(x *mpir.Comm) { newComm(x) })
	if x == nil {
		return nil
	}
	return x.Handle.(*Comm)
}

// OpenPort opens a port on which this process can accept connections (CommAccept)
// and returns its name, which the connecting processes pass to CommConnect
// (MPI_Open_port). It stays open until ClosePort. info may be nil; mpigo takes no key
// of it. Its errors go to Self's handler.
func OpenPort(info *Info) (string, error) {
	port, err := mpir.OpenPort("OpenPort", info.obj())
	return port, noObject("OpenPort", err)
}

// ClosePort closes port, a name OpenPort gave this process (MPI_Close_port); a name
// this process did not open, or closed already, is an error of class ErrPort.
func ClosePort(port string) error {
	return noObject("ClosePort", mpir.ClosePort("ClosePort", port))
}

// CommAccept waits for a job to connect (CommConnect) to port, a port this process
// opened (OpenPort), and returns the intercommunicator between comm's group (local)
// and the connecting group (remote) (MPI_Comm_accept). It is collective over comm, an
// intracommunicator; port and info are significant at root only, and it is root that
// waits on port. A port nobody opened here is an error of class ErrPort; a root that
// is no rank of comm, ErrRoot.
func CommAccept(port string, info *Info, root int, comm *Comm) (*Comm, error) {
	defer prof.Exit(prof.CommAccept, comm.enterRare(prof.CommAccept, root, 0), 0)
	if nc, done, err := comm.aroundNew("CommAccept", func(b *Comm) (*Comm, error) { return CommAccept(port, info, root, b) }); done {
		return nc, err
	}
	return comm.join("CommAccept", mpir.CommAccept, port, info, root)
}

// CommConnect connects comm's group to the group accepting (CommAccept) on port, and
// returns the intercommunicator between them, comm's group local (MPI_Comm_connect).
// It is collective over comm, an intracommunicator; port and info are significant at
// root only, and it is root that reaches the port. A port that nobody accepts on is
// an error of class ErrPort.
func CommConnect(port string, info *Info, root int, comm *Comm) (*Comm, error) {
	defer prof.Exit(prof.CommConnect, comm.enterRare(prof.CommConnect, root, 0), 0)
	if nc, done, err := comm.aroundNew("CommConnect", func(b *Comm) (*Comm, error) { return CommConnect(port, info, root, b) }); done {
		return nc, err
	}
	return comm.join("CommConnect", mpir.CommConnect, port, info, root)
}

// join is CommAccept or CommConnect (do, mpir's) on c, port and info read at root
// only.
func (c *Comm) join(op string, do func(string, string, *mpir.Info, error, error, int, *core.Comm, *mpir.Session) (*core.Comm, error),
	port string, info *Info, root int) (*Comm, error) {
	if err := c.check(op); err != nil {
		return nil, err
	}
	if err := mpir.CheckCollective(op, root, c.d); err != nil {
		return nil, c.fail(op, err)
	}
	var p string
	var in *mpir.Info
	if c.d.Rank() == root {
		p, in = port, info.obj()
	}
	nd, err := do(op, p, in, nil, nil, root, c.d, c.owner())
	if err != nil {
		return nil, c.fail(op, err)
	}
	return wrapComm(c, nd), nil
}

// PublishName publishes port under service in the name service, where LookupName
// finds it: in this job and in every job mpigo run starts for the same user on the
// machine (MPI_Publish_name). info may be nil. A name already published, by anyone,
// is an error of class ErrService. The name goes when UnpublishName withdraws it or
// the job ends. Its errors go to Self's handler.
func PublishName(service string, info *Info, port string) error {
	return noObject("PublishName", mpir.PublishName("PublishName", service, info.obj(), port))
}

// UnpublishName withdraws service, which this job published with port
// (MPI_Unpublish_name). A name not published, or published by another job, is an
// error of class ErrService.
func UnpublishName(service string, info *Info, port string) error {
	return noObject("UnpublishName", mpir.UnpublishName("UnpublishName", service, info.obj(), port))
}

// LookupName returns the port published under service (MPI_Lookup_name). A name
// nobody published is an error of class ErrName.
func LookupName(service string, info *Info) (string, error) {
	port, err := mpir.LookupName("LookupName", service, info.obj())
	return port, noObject("LookupName", err)
}

// CommJoin connects this process with the one at the other end of fd, a connected
// stream socket, which calls CommJoin too, and returns the intercommunicator of the
// two, each in its own local group (MPI_Comm_join). The socket only introduces them:
// they talk by mpigo's own transports after, and the socket is the caller's to close
// (while the call runs, neither side may use it). Its error handler is Self's, as
// there is no communicator it is made from.
func CommJoin(fd int) (*Comm, error) {
	defer prof.Exit(prof.CommJoin, Self.enterRare(prof.CommJoin, prof.NoPeer, 0), 0)
	nd, err := mpir.CommJoin("CommJoin", fd)
	if err != nil {
		return nil, noObject("CommJoin", err)
	}
	return wrapComm(Self, nd), nil
}

// CommJoinConn is CommJoin over conn, a socket as Go holds one: a *net.TCPConn,
// *net.UnixConn or *os.File of a socket. A Go program has no descriptor of its own to
// give (net.Conn hides it, and (*net.TCPConn).File gives a copy that leaves the
// runtime's poller); conn's stays the caller's, and open.
func CommJoinConn(conn syscall.Conn) (*Comm, error) {
	if conn == nil {
		return nil, noObject("CommJoin", errorf(ClassArg, "CommJoin", "conn is nil"))
	}
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, noObject("CommJoin", errorf(ClassArg, "CommJoin", "conn has no descriptor: %v", err))
	}
	var nc *Comm
	var jerr error
	// Control keeps the descriptor open (and its number meaning it) for the whole
	// join, even if the caller closes conn meanwhile.
	if err := raw.Control(func(fd uintptr) { nc, jerr = CommJoin(int(fd)) }); err != nil {
		return nil, noObject("CommJoin", errorf(ClassArg, "CommJoin", "conn: %v", err))
	}
	return nc, jerr
}

// Disconnect waits for the communication pending on c to complete, then frees it, so
// that the processes on its two sides are independent after (if no other
// communicator, window or file joins them) (MPI_Comm_disconnect). It is collective
// over c, which may be any communicator but World and Self; the intercommunicators of
// CommSpawn, CommAccept, CommConnect, CommJoin and CommGetParent are the usual ones.
// As with Free, every later call on c returns ErrComm.
func (c *Comm) Disconnect() error {
	defer prof.Exit(prof.CommDisconnect, c.enterRare(prof.CommDisconnect, prof.NoPeer, 0), 0)
	if err := c.check("Disconnect"); err != nil {
		return err
	}
	return c.fail("Disconnect", mpir.CommDisconnect("Disconnect", c.x))
}
