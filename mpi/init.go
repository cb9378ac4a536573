package mpi

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/pm/pmi"
	"github.com/mpigo/mpigo/internal/wireup"
)

const (
	stateNone int32 = iota
	stateInit
	stateFinal
)

var (
	lifeMu sync.Mutex
	state  atomic.Int32
	proc   pm.Client
	epoch  = time.Now()
)

// Init starts MPI in this process: it joins the job the launcher started (or becomes a
// job of one rank when there is none) and connects the ranks. Call it once, before any
// other MPI call, and defer Finalize. Every MPI call is then safe from many goroutines
// at once (ThreadMultiple); InitThread can trade that for speed.
func Init() error {
	_, err := InitThread(ThreadMultiple)
	return err
}

// InitThread is Init with a thread level (MPI_Init_thread), and returns the level
// provided, which is the one required.
//
// ThreadMultiple is Init's level: any goroutine may call MPI at any time. The lower
// levels are a promise the program makes: ThreadSerialized, that calls never overlap
// (each returns before the next starts, in the Go memory model's sense: the same
// goroutine, or goroutines ordered by a channel or mutex); ThreadFunneled and
// ThreadSingle, that moreover one goroutine makes them all. mpigo takes no lock on its
// point-to-point paths then, which saves locked instructions per message, and with
// them the wait for the stores before them to drain (a stream of 1 KiB messages
// measured about 10% faster on average). It takes its lock again, for good, where it
// runs goroutines of its own beside the caller's: nonblocking collectives, Idup and
// the nonblocking neighbourhood collectives. Breaking
// the promise corrupts the rank's state (the race detector, go test -race, catches
// such overlaps when they happen).
func InitThread(required ThreadLevel) (ThreadLevel, error) {
	if required < ThreadSingle || required > ThreadMultiple {
		return 0, errorf(ClassArg, "InitThread", "required = %d: want ThreadSingle, ThreadFunneled, ThreadSerialized or ThreadMultiple (0 to 3)", int(required))
	}
	lifeMu.Lock()
	defer lifeMu.Unlock()
	switch state.Load() {
	case stateInit:
		return 0, errorf(ClassOther, "Init", "MPI is already initialised")
	case stateFinal:
		return 0, errorf(ClassOther, "Init", "MPI was finalised; it cannot be initialised again")
	}
	c, err := connect()
	if err != nil {
		return 0, &Error{Class: ClassOther, Op: "Init", Msg: "cannot reach the process manager", Err: err}
	}
	threadLevel = required
	if err := startWorld(c); err != nil {
		return 0, err
	}
	proc = c
	state.Store(stateInit)
	return required, nil
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
		wireup.OnLauncherLost = func(err error) {
			fmt.Fprintf(os.Stderr, "mpigo: rank %d: %v; exiting\n", c.Rank(), err)
			os.Exit(1)
		}
		if err := c.Hello(); err != nil {
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

// Initialized reports whether Init has succeeded.
func Initialized() bool { return state.Load() != stateNone }

// Finalized reports whether Finalize has run.
func Finalized() bool { return state.Load() == stateFinal }

// Finalize ends MPI in this process, once every rank has reached it. It is safe to
// defer: called before a successful Init, or twice, it returns an error; deferred
// directly (defer mpi.Finalize()) while the program panics, it reports the panic with
// its stack, ends the whole job, and exits with code 2, so that no rank waits forever
// for one that is gone.
func Finalize() error {
	if r := recover(); r != nil {
		fmt.Fprintf(os.Stderr, "panic: %v\n\n%s", r, debug.Stack())
		if state.Load() == stateInit {
			proc.Abort(2, fmt.Sprintf("rank %d panicked: %v", proc.Rank(), r))
		}
		os.Exit(2)
	}
	lifeMu.Lock()
	defer lifeMu.Unlock()
	switch state.Load() {
	case stateNone:
		return errorf(ClassOther, "Finalize", "MPI is not initialised")
	case stateFinal:
		return errorf(ClassOther, "Finalize", "MPI is already finalised")
	}
	var err error
	// Buffered sends still under way must be delivered (MPI_Finalize flushes them). A
	// pipelined one needs this rank to keep pushing fragments, which it cannot do once it
	// waits in the fence below.
	if eng != nil {
		eng.BufferDetach() // an error only says no buffer was attached
	}
	if ferr := proc.Fence(); ferr != nil {
		err = &Error{Class: ClassOther, Op: "Finalize", Msg: "waiting for the other ranks", Err: ferr}
	}
	if serr := stopWorld(); serr != nil && err == nil {
		err = &Error{Class: ClassOther, Op: "Finalize", Msg: "closing the transports", Err: serr}
	}
	if ferr := proc.Finalize(); ferr != nil && err == nil {
		err = &Error{Class: ClassOther, Op: "Finalize", Msg: "telling the launcher", Err: ferr}
	}
	state.Store(stateFinal)
	return err
}

// Abort ends every rank of the job with code (MPI_Abort on the world communicator).
// It does not return.
func Abort(code int) {
	if state.Load() == stateInit {
		proc.Abort(code, "")
	}
	os.Exit(code)
}

// Wtime returns the elapsed time in seconds since an arbitrary moment in the past that
// does not change while the process runs.
func Wtime() float64 { return time.Since(epoch).Seconds() }

// Wtick is the resolution of Wtime, in seconds.
func Wtick() float64 { return 1e-9 }

// LibraryVersion describes this MPI library (MPI_Get_library_version): mpigo's module
// version as the program was built with it ("devel" in a build from a work tree),
// and the Go toolchain and platform.
func LibraryVersion() string {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
		mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
		for _, m := range mods {
			if m.Path == modulePath && m.Version != "" && m.Version != "(devel)" {
				v = m.Version
				if m.Replace != nil && m.Replace.Version != "" {
					v = m.Replace.Version
				}
			}
		}
	}
	return fmt.Sprintf("mpigo %s (%s %s/%s)", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// modulePath is mpigo's module, as build information names it.
const modulePath = "github.com/mpigo/mpigo"

// ProcessorName names the machine this rank runs on.
func ProcessorName() string {
	h, err := os.Hostname()
	if err != nil {
		return "localhost"
	}
	return h
}

// ThreadLevel is the thread support MPI provides.
type ThreadLevel int

const (
	ThreadSingle ThreadLevel = iota
	ThreadFunneled
	ThreadSerialized
	ThreadMultiple
)

// threadLevel is the level Init provided; set before the world starts, read after.
var threadLevel = ThreadMultiple

// QueryThread reports the thread level Init or InitThread provided (MPI_Query_thread):
// ThreadMultiple, every call safe from many goroutines at once, unless InitThread was
// asked for less.
func QueryThread() ThreadLevel { return threadLevel }
