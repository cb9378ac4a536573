package core

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/pm/pmi"
	"github.com/mpigo/mpigo/internal/topo"
	"github.com/mpigo/mpigo/internal/wireup"
)

const (
	stateNone int32 = iota
	stateInit
	stateFinal
	// stateIdle: the last session ended with no world model running. The launcher
	// was told the rank is done, but the transports and the engine stay up, so that
	// SessionInit (or Init) resumes at once, as MPI allows sessions to begin again.
	stateIdle
)

// The runtime (the process manager's connection, the transports, the engine) serves
// two kinds of user: the world model (Init to Finalize) and sessions (SessionInit to
// SessionFinalize, any number, before, beside or after the world model). The first
// user starts it. When the world model's Finalize is the last end, the runtime stops
// as it always did: fence with the other ranks, close, tell the launcher; it cannot
// start again. When a session's is, it idles (idleRuntime): buffered sends are
// delivered and the launcher told, but nothing waits for the other ranks and the
// transports stay open for a later SessionInit or Init; the process's exit closes them.
// Finalize of the world model waits for every rank whatever else runs, as MPI_Finalize
// is collective over the world: every rank agrees over the transports (agreeEnd) on
// whether all can stop with the launcher's fence, which none can once sessions keep a
// rank's runtime up or an idle told the launcher the rank was done.
//
// state is the runtime's (the hot paths' test: stateInit while it runs); world is the
// world model's, which Initialized, Finalized and World and Self follow.
var (
	lifeMu   sync.Mutex
	state    atomic.Int32
	world    atomic.Int32
	sessions int // live sessions, under lifeMu
	proc     pm.Client
)

// Thread levels (MPI_THREAD_*).
const (
	ThreadSingle = iota
	ThreadFunneled
	ThreadSerialized
	ThreadMultiple
)

// threadLevel is the level Init provided; set before the world starts, read after.
var threadLevel = ThreadMultiple

// ThreadLevel is the level Init provided.
func ThreadLevel() int { return threadLevel }

// Live reports whether the runtime runs (for the world model or a session).
func Live() bool { return state.Load() == stateInit }

// Initialized reports whether Init has succeeded (also after Finalize): the world
// model only, as MPI_Initialized; sessions do not count.
func Initialized() bool { return world.Load() != stateNone }

// Finalized reports whether Finalize has run (the world model's, MPI_Finalized).
func Finalized() bool { return world.Load() == stateFinal }

// Ready returns nil when MPI is running, else an error for op that says why not in
// the words of the situation: before Init, or after Finalize.
func Ready(op string) error {
	switch state.Load() {
	case stateInit:
		return nil
	case stateNone:
		return Errorf(ClassOther, op, "MPI is not initialised yet (call mpi.Init or mpi.SessionInit first)")
	case stateIdle:
		return Errorf(ClassOther, op, "MPI is not running: every session was finalised and the world model is not initialised (SessionInit or Init starts it again)")
	}
	return Errorf(ClassOther, op, "MPI was finalised; no MPI call may follow Finalize (or the end of the last session)")
}

// Init joins the job (or becomes a job of one rank), starts the transports and the
// engine at the thread level required, and makes World and Self. Where a session
// started the runtime already, Init adds the world model to it.
func Init(required int) error {
	if required < ThreadSingle || required > ThreadMultiple {
		return Errorf(ClassArg, "InitThread", "required = %d: want ThreadSingle, ThreadFunneled, ThreadSerialized or ThreadMultiple (0 to 3)", required)
	}
	lifeMu.Lock()
	defer lifeMu.Unlock()
	switch world.Load() {
	case stateInit:
		return Errorf(ClassOther, "Init", "MPI is already initialised")
	case stateFinal:
		return Errorf(ClassOther, "Init", "MPI was finalised; it cannot be initialised again")
	}
	if err := startRuntime("Init", required); err != nil {
		return err
	}
	threadLevel = required
	World.freed.Store(false)
	Self.freed.Store(false)
	World.direct = true
	world.Store(stateInit)
	// A spawned job's ranks meet their parents before Init returns, as
	// MPI_Comm_get_parent must have the intercommunicator from then on.
	return connectParent("Init")
}

// startRuntime starts the runtime at the thread level required where nobody has, or
// raises a running one's level to ThreadMultiple where required asks for it. The
// caller holds lifeMu.
func startRuntime(op string, required int) error {
	switch state.Load() {
	case stateInit, stateIdle:
		if required == ThreadMultiple {
			eng.Concurrent()
		}
		state.Store(stateInit)
		return nil
	case stateFinal:
		return Errorf(ClassOther, op, "the MPI runtime of this process ended with the world model and every session; it cannot start again")
	}
	c, err := connect()
	if err != nil {
		return Wrap(ClassOther, op, "cannot reach the process manager", err)
	}
	threadLevel = required
	if err := setupWorldComms(c.Rank(), c.Size()); err != nil {
		return Wrap(ClassIntern, op, "the world group", err)
	}
	if err := startWorld(c); err != nil {
		return err
	}
	proc = c
	// World and Self are the world model's: closed to the calls of a program that has
	// only sessions until Init opens them.
	World.freed.Store(true)
	Self.freed.Store(true)
	World.direct = false
	state.Store(stateInit)
	World.setConns()
	Self.setConns()
	startProfile(required == ThreadMultiple || op != "Init")
	return nil
}

// OnSharedWaits makes f hear, at once and at every change, how the waits of the C
// library's short ways are capped while the launcher says other processes share the
// node, as Go's are (idle.SetShared): at most spin polls of spinning and handoffs
// yields that gave the core away; 0, 0 while the node is the job's.
func OnSharedWaits(f func(spin, handoffs int)) {
	idle.OnShared(func(on bool) {
		if on {
			f(idle.MinSpin, idle.MaxHandoffs)
		} else {
			f(0, 0)
		}
	})
}

// connect finds who launched this process, in order: mpigo's own launcher, a PMI-1 or
// PMI-2 launcher (MPICH's mpiexec, Slurm's srun --mpi=pmi2), a PMIx launcher (refused
// with a clear word: mpigo does not speak PMIx), or nobody (a singleton).
func connect() (pm.Client, error) {
	c, err := wireup.FromEnv()
	if err != nil {
		return nil, err
	}
	if c != nil {
		c.OnLost(func(err error) {
			fmt.Fprintf(os.Stderr, "mpigo: rank %d: %v; exiting\n", c.Rank(), err)
			os.Exit(1)
		})
		c.OnShared(idle.SetShared)
		all, err := topo.Allowed()
		if err := c.Hello(err == nil && all.Equal(topo.Machine().CPUs)); err != nil {
			return nil, err
		}
		return c, nil
	}
	if pc, err := pmi.FromEnv(); err != nil {
		return nil, err
	} else if pc != nil {
		return pc, nil
	}
	for _, v := range []string{"PMIX_RANK", "PMIX_VERSION", "PRTE_LAUNCHED"} {
		if _, ok := os.LookupEnv(v); ok {
			return nil, fmt.Errorf("launched by a PMIx launcher (prterun or srun --mpi=pmix), which mpigo does not speak; use srun --mpi=pmi2 or mpigo run")
		}
	}
	return pm.Singleton(), nil
}

func setupWorldComms(rank, size int) error {
	wg, err := group.World(size)
	if err != nil {
		return err
	}
	sg, err := wg.Incl([]int{rank})
	if err != nil {
		return err
	}
	World.rank, World.size, World.group, World.direct = rank, size, wg, true
	Self.setGroup(sg, nil)
	World.describe()
	Self.describe()
	return nil
}

// Finalize ends the world model, once every rank has called it. before runs first,
// with MPI still usable (the facade's delete callbacks on Self). Where no session is
// left, the runtime stops (stopRuntime); otherwise it goes on for the sessions, and
// World and Self close.
func Finalize(before func() error) error {
	lifeMu.Lock()
	defer lifeMu.Unlock()
	switch world.Load() {
	case stateFinal:
		return Errorf(ClassOther, "Finalize", "MPI is already finalised")
	case stateNone:
		return Errorf(ClassOther, "Finalize", "MPI is not initialised yet (call mpi.Init first)")
	}
	t := beginFinalize()
	var err error
	if before != nil {
		err = before()
	}
	if eng != nil && sessions == 0 {
		// Buffered sends still under way must be delivered (MPI_Finalize flushes
		// them). A pipelined one needs this rank to keep pushing fragments, which it
		// cannot do once it waits in the launcher's fence. An error is a failed peer,
		// which the agreement reports too.
		eng.FlushAllBuffers()
	}
	finishConnected("Finalize")
	canFence := sessions == 0 && !told
	fence, aerr := agreeEnd("Finalize", canFence)
	if aerr != nil && err == nil {
		err = aerr
	}
	if aerr != nil && canFence {
		// A peer failed before the agreement: wait in the launcher's fence as every
		// rank did before there was one, where the launcher, which knows the failed
		// rank's cause, ends the job with it. Leaving at once with this error would
		// race the failed rank's own report and could end the job as this rank's.
		fence = true
	}
	World.freed.Store(true)
	Self.freed.Store(true)
	World.direct = false
	world.Store(stateFinal)
	switch {
	case sessions > 0:
		endProfile(t, false)
	case fence:
		if serr := stopRuntime("Finalize", t); serr != nil && err == nil {
			err = serr
		}
	default:
		if serr := stopUnfenced("Finalize", t); serr != nil && err == nil {
			err = serr
		}
	}
	return err
}

// agreeEnd is Finalize's collective step, over World while it is still open. It
// returns once every rank has reached it, so Finalize waits for every rank whatever
// else runs, as MPI_Finalize is collective over the world; and it tells whether every
// rank can stop the runtime with the launcher's fence (canFence: no session keeps the
// runtime up, and the launcher was not told at an idle, after which a PMI launcher
// fences with no one). Where one cannot, none fences with the launcher: a rank waiting
// there for one that never comes would hang the job. The agreement runs on World's
// internal context by point-to-point messages only, so no node region is made at the
// end.
func agreeEnd(op string, canFence bool) (bool, error) {
	buf := make([]byte, 8)
	if canFence {
		binary.LittleEndian.PutUint64(buf, 1)
	}
	if err := World.lconn.Run(tagFinalize, 8, func(s *coll.Sched) { s.Allreduce(buf, buf, coll.Op{Fn: andKernel, Commute: true}) }); err != nil {
		return false, Wrap(ClassOther, op, "waiting for the other ranks", MapErr(op, err))
	}
	return binary.LittleEndian.Uint64(buf) == 1, nil
}

// stopRuntime ends the runtime once every rank has reached it and agreed to
// (agreeEnd): the ranks fence with the launcher, the transports close and the launcher
// is told. The caller holds lifeMu and has flushed the buffered sends; t is the
// profile's record of the call (beginFinalize).
func stopRuntime(op string, t int64) error {
	var err error
	if ferr := proc.Fence(); ferr != nil {
		err = Wrap(ClassOther, op, "waiting for the other ranks", ferr)
	}
	endProfile(t, true)
	if serr := stopWorld(); serr != nil && err == nil {
		err = Wrap(ClassOther, op, "closing the transports", serr)
	}
	if ferr := proc.Finalize(); ferr != nil && err == nil {
		err = Wrap(ClassOther, op, "telling the launcher", ferr)
	}
	state.Store(stateFinal)
	idle.StopWatchers()
	return err
}

// told records that the launcher was told this rank is done (idleRuntime).
var told bool

// stopUnfenced stops the runtime where the ranks did not all agree to fence with the
// launcher (agreeEnd): they have all reached Finalize, but one keeps the runtime up for
// its sessions or idled once. The launcher is told the rank is done (unless an idle
// told it), and the transports stay up until the process exits, as when idle: a rank
// that closed them could cut off one that still has sessions.
func stopUnfenced(op string, t int64) error {
	var err error
	if eng != nil {
		err = MapErr(op, eng.FlushAllBuffers())
	}
	if told {
		endProfile(t, false)
	} else {
		told = true
		endProfile(t, true)
		if ferr := proc.Finalize(); ferr != nil && err == nil {
			err = Wrap(ClassOther, op, "telling the launcher", ferr)
		}
	}
	state.Store(stateFinal)
	return err
}

// idleRuntime pauses the runtime when its last session ends and no world model runs.
// The caller holds lifeMu.
func idleRuntime(op string) error {
	var err error
	if eng != nil {
		err = MapErr(op, eng.FlushAllBuffers())
	}
	if !told {
		told = true
		endProfile(-1, true)
		if ferr := proc.Finalize(); ferr != nil && err == nil {
			err = Wrap(ClassOther, op, "telling the launcher", ferr)
		}
	}
	state.Store(stateIdle)
	idle.StopWatchers() // a later wait starts a watcher again
	return err
}

// aborting is set by the first Abort of the process.
var aborting atomic.Bool

// Abort ends every rank of the job with code, msg saying why (MPI_Abort). It does not
// return. Under mpigo's launcher it waits in proc.Abort until the launcher, stopping
// the job, ends this process after every other. Meanwhile the process's other threads
// may meet errors (its peers gone first); these, a second Abort among them, wait
// quietly for the end the first one brings.
func Abort(code int, msg string) { abort(code, msg, false) }

// Fatal ends the job as Abort does, for an error the user must read: msg, which
// need not name the rank, is shown once, by mpigo's launcher (which names the rank and
// host, and says that the rank failed rather than called MPI_Abort) when it launched
// this process, else here on standard error after the rank. The launcher shows only
// the first of a job's ends; an error that another rank's end caused on its way down
// is not news.
func Fatal(code int, msg string) { abort(code, msg, true) }

// abort ends the job; the process's exit status, where a launcher other than mpigo's
// takes it, is wireup.ExitStatus's of code, as mpigo's launcher gives the job's.
func abort(code int, msg string, fatal bool) {
	if !aborting.CompareAndSwap(false, true) {
		select {}
	}
	live := false
	if st := state.Load(); st == stateInit || st == stateIdle {
		live = true
	}
	ranked := msg // for a reader who is not told which rank said it
	if r := WorldRank(); r >= 0 && msg != "" {
		ranked = fmt.Sprintf("rank %d: %s", r, msg)
	}
	w, launcher := proc.(*wireup.Client)
	if fatal && (!live || !launcher) {
		fmt.Fprintln(os.Stderr, "mpigo:", ranked)
	}
	if live {
		abortProfile()
		var err error
		switch {
		case launcher && fatal:
			err = w.Fail(code, msg)
		case launcher:
			err = w.Abort(code, msg)
		default:
			err = proc.Abort(code, ranked)
		}
		if err != nil && fatal && launcher {
			fmt.Fprintln(os.Stderr, "mpigo:", ranked)
		}
	}
	os.Exit(wireup.ExitStatus(code))
}

// WorldRank is this process's rank in the world, -1 before Init (or SessionInit).
func WorldRank() int {
	if proc == nil {
		return -1
	}
	return World.rank
}

// WorldSize is the number of processes of the job, 0 before Init (or SessionInit).
func WorldSize() int {
	if proc == nil {
		return 0
	}
	return World.size
}

// GoroutineID is the calling goroutine's number, as the runtime prints it in stack
// traces. It costs a stack header's formatting (about a microsecond): for rare paths
// only (IsThreadMain, a dry run's checks).
func GoroutineID() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	// Read the digits in place: a string of the header would allocate, and a
	// persistent collective's Start, which allocates nothing, asks (core.Comm.Pinned).
	var id int64
	for _, d := range b[len(prefix):] {
		if d < '0' || d > '9' {
			break
		}
		id = 10*id + int64(d-'0')
	}
	return id
}
