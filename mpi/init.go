package mpi

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
)

var epoch = time.Now()

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
// them the wait for the stores before them to drain. It takes its lock again, for
// good, where it runs goroutines of its own beside the caller's: nonblocking
// collectives, Idup and the nonblocking neighbourhood collectives. Breaking the
// promise corrupts the rank's state (the race detector, go test -race, catches such
// overlaps when they happen).
func InitThread(required ThreadLevel) (ThreadLevel, error) {
	if err := collective.Init(int(required)); err != nil {
		return 0, err
	}
	mainGoroutine.Store(core.GoroutineID())
	return required, nil
}

// mainGoroutine is the goroutine that called Init: MPI's main thread.
var mainGoroutine atomic.Int64

// goid is the calling goroutine's number, which the first line of its stack trace
// gives ("goroutine 7 [running]:"); Go offers no other way to tell goroutines apart.
// IsThreadMain reports whether the calling goroutine is the one that called Init or
// InitThread (MPI_Is_thread_main): at ThreadFunneled, the one that may make MPI calls.
// Goroutines are MPI's threads here; a goroutine that moves between OS threads stays
// the same one.
func IsThreadMain() (bool, error) {
	if err := core.Ready("IsThreadMain"); err != nil {
		return false, Self.fail("IsThreadMain", err)
	}
	return core.GoroutineID() == mainGoroutine.Load(), nil
}

// The version of the MPI standard mpigo implements (MPI_VERSION, MPI_SUBVERSION).
const (
	Version    = 4
	Subversion = 1
)

// GetVersion returns the version of the MPI standard mpigo implements, 4.1
// (MPI_Get_version). It may be called at any time, before Init and after Finalize too.
func GetVersion() (version, subversion int) { return Version, Subversion }

// Initialized reports whether Init has succeeded (MPI_Initialized): the world
// model's state; sessions (SessionInit) do not count.
func Initialized() bool { return core.Initialized() }

// Finalized reports whether Finalize has run (MPI_Finalized): the world model's
// state, whatever sessions remain.
func Finalized() bool { return core.Finalized() }

// Finalize ends the world model once every rank has reached it (it waits for them, as
// MPI_Finalize is collective over the world, also where sessions came and went before
// Init), and MPI in this process; where sessions remain (SessionInit), MPI goes on for
// them, and World and Self close (their calls fail with ErrOther). It is safe to
// defer: called before a successful Init, or twice, it returns an error; deferred
// directly (defer mpi.Finalize()) while the program panics, it reports the panic with
// its stack, ends the whole job, and exits with code 2, so that no rank waits forever
// for one that is gone.
func Finalize() error {
	if r := recover(); r != nil {
		fmt.Fprintf(os.Stderr, "panic: %v\n\n%s", r, debug.Stack())
		if core.Live() {
			core.Fatal(2, fmt.Sprintf("panicked: %v", r))
		}
		os.Exit(2)
	}
	err := collective.Finalize(finalizeSelf)
	if !core.Live() {
		// The runtime has stopped its goroutines (or idles, sessions having none
		// left); the facade stops its runners, which no view can use any more.
		stopRunners()
	}
	return err
}

// finalizeSelf frees Self's attributes before anything else is torn down, as MPI
// requires (MPI 4.1, section 11.2.4): their delete functions run, the last set first,
// while MPI is still usable (Finalized reports false).
func finalizeSelf() error {
	background.wait()
	return Self.fail("Finalize", Self.x.Finalize("Finalize", "Self"))
}

// Abort ends every rank of the job with code (MPI_Abort on the world communicator).
// It does not return. The job's exit status is what exit(code) would give, code's low
// 8 bits, but 1 where those are 0: an aborted job never exits 0.
func Abort(code int) { core.Abort(code, "") }

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
	ThreadSingle     ThreadLevel = core.ThreadSingle
	ThreadFunneled   ThreadLevel = core.ThreadFunneled
	ThreadSerialized ThreadLevel = core.ThreadSerialized
	ThreadMultiple   ThreadLevel = core.ThreadMultiple
)

// QueryThread reports the thread level Init or InitThread provided (MPI_Query_thread):
// ThreadMultiple, every call safe from many goroutines at once, unless InitThread was
// asked for less.
func QueryThread() ThreadLevel { return ThreadLevel(core.ThreadLevel()) }
