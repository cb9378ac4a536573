// Package core is mpigo's device: the untyped MPI machinery under the Go facade (package
// mpi) and the C ABI (abi/libmpi). It owns the process's runtime (the process manager,
// the transports, the point-to-point engine, the world), the communicator core (context
// ids, the tag spaces of every context, rank translation, intercommunicator
// addressing), the error classes, the collectives each communicator chose when it was
// made, and the progress of nonblocking operations. One-sided windows sit beside it
// (internal/window) and use its runtime through the API of beside.go; core imports no
// package beside it.
//
// Its API speaks bytes: a buffer is memory (a byte slice, which may view Go or C
// memory) with an element size or a datatype of the datatype engine, as MPI's C binding
// does. Nothing above core talks to the engine's transports, and core never calls up
// into the facade: error handlers, attributes with Go values and argument checks that
// need Go types belong to the layer that owns the handle.
package core

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/topo"
	"github.com/mpigo/mpigo/internal/transport"
	"github.com/mpigo/mpigo/internal/transport/self"
	"github.com/mpigo/mpigo/internal/transport/shm"
	"github.com/mpigo/mpigo/internal/transport/tcp"
)

var setTransports = config.String("transports", "self,shm,tcp",
	"transports to use, in order of preference: self, shm, tcp (self,tcp forces TCP on one machine)").ListOf("self", "shm", "tcp").Same()

var setGOMAXPROCS = config.String("gomaxprocs", "auto",
	"Go threads per rank: auto (the node's CPUs shared out among its ranks, at least 1), keep (Go's default), or a number; a GOMAXPROCS variable wins").OneOf("auto", "keep").OrRange(1, 1<<16)

// shareCPUs sets GOMAXPROCS so that the ranks of a node do not each run a thread per
// CPU: with more runnable threads than cores, a rank waiting for a message is
// descheduled behind its own runtime's threads, and every message hop pays for it.
func shareCPUs(localSize int) error {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return nil
	}
	switch v := setGOMAXPROCS.Get(); v {
	case "keep":
	case "auto", "":
		runtime.GOMAXPROCS(max(1, runtime.NumCPU()/max(1, localSize)))
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return Errorf(ClassArg, "Init", "setting gomaxprocs=%q: want auto, keep or a positive number", v)
		}
		runtime.GOMAXPROCS(n)
	}
	return nil
}

var (
	eng        *p2p.Engine
	transports []transport.Transport
)

// startWorld builds the transports and the engine: each transport publishes its address
// in the wire-up, one fence exchanges them, and connections are then made lazily, on
// the first message to a peer.
func startWorld(c pm.Client) error {
	if err := shareCPUs(c.LocalSize()); err != nil {
		return err
	}
	switch b := topo.BindTo.Get(); b {
	case "none":
	case "auto", "":
		// Ranks that fill or outnumber the CPUs are best placed once, one (or k) to a
		// core: left to the scheduler they are stacked and moved run by run, and two
		// ranks may stay on one CPU for a whole run (docs/BENCHMARKS.md, Binding).
		// Only where the process may use every CPU (nobody, srun or mpiexec, bound
		// it), and a refusal leaves it unbound.
		m := topo.Machine()
		if all, err := topo.Allowed(); err == nil && all.Equal(m.CPUs) && c.LocalSize() >= all.Count() {
			_ = topo.Bind(m.CoreFor(c.LocalRank()))
		}
	case "core":
		if err := topo.Bind(topo.Machine().CoreFor(c.LocalRank())); err != nil {
			return &Error{Class: ClassOther, Op: "Init", Msg: "binding to a core", Err: err}
		}
	default:
		return Errorf(ClassArg, "Init", "setting bind_to=%q: want none, core or auto", b)
	}
	want := map[string]bool{}
	for _, t := range strings.Split(setTransports.Get(), ",") {
		switch t = strings.TrimSpace(t); t {
		case "self", "shm", "tcp":
			want[t] = true
		case "":
		default:
			return Errorf(ClassArg, "Init", "setting transports: unknown transport %q (want self, shm or tcp)", t)
		}
	}
	fail := func(what string, err error) error {
		closeTransports()
		return &Error{Class: ClassOther, Op: "Init", Msg: what, Err: err}
	}
	var (
		sh   *shm.Transport
		tc   *tcp.Transport
		bell = transport.NewLocalDoorbell()
		err  error
	)
	if c.Size() > 1 && want["shm"] && c.LocalSize() > 1 {
		if sh, err = shm.New(c, shm.Options{}); err != nil {
			return fail("shared-memory transport", err)
		}
		bell = sh.Doorbell()
	}
	if c.Size() > 1 && want["tcp"] && (c.NumNodes() > 1 || sh == nil) {
		// A peer found dead inside Poll fails its requests; the engine queues the failure
		// and applies it after Poll returns.
		gone := func(peer int, err error) {
			if eng != nil {
				eng.PeerFailed(peer, err)
			}
		}
		if tc, err = tcp.New(c, tcp.Options{Doorbell: bell, PeerGone: gone}); err != nil {
			return fail("TCP transport", err)
		}
	}
	rankBell = bell
	transports = transports[:0]
	transports = append(transports, self.New(c.Rank()))
	if sh != nil {
		transports = append(transports, sh)
	}
	if tc != nil {
		transports = append(transports, tc)
	}
	if err := c.Fence(); err != nil {
		return fail("wire-up with the other ranks", err)
	}
	if sh != nil {
		if err := sh.Start(); err != nil {
			return fail("shared-memory transport", err)
		}
	}
	if tc != nil {
		if err := tc.Start(); err != nil {
			return fail("TCP transport", err)
		}
	}
	eng, err = p2p.New(c.Rank(), c.Size(), transports, p2p.Options{
		Doorbell:       bell,
		Oversubscribed: c.LocalSize() > runtime.NumCPU(),
		Serialized:     threadLevel < ThreadMultiple,
		SharedLock:     sharedLock.Load(),
		Events:         toolEvents,
	})
	if err != nil {
		return fail("point-to-point engine", err)
	}
	setEagerMax()
	for r := 0; r < c.Size(); r++ {
		if !reachable(r) {
			return fail("transports", fmt.Errorf("no transport of %q reaches rank %d", setTransports.Get(), r))
		}
	}
	return nil
}

func reachable(r int) bool {
	for _, t := range transports {
		if t.Reaches(r) {
			return true
		}
	}
	return false
}

// closeTransports closes the transports in the reverse of their order: tcp rings the
// doorbell that lives in shm's segment, so it must be gone before shm unmaps it.
func closeTransports() {
	for i := len(transports) - 1; i >= 0; i-- {
		transports[i].Close()
	}
	transports = transports[:0]
}

// stopWorld releases the engine and the transports; every rank has passed the final
// fence, so no peer reads this rank's memory any more.
func stopWorld() error {
	var err error
	if eng != nil {
		err = eng.Close()
	}
	closeTransports()
	return err
}
