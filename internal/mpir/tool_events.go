package mpir

import (
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpit"
)

// The events come from the engine (internal/p2p's event log, core.ToolEvents): a
// message queued unexpected on a communicator, a peer's failure. The engine logs an
// event only while a tool has a registration of its type (Want), and a goroutine of
// this file (the pump) runs while any does: it drains the log and delivers each event
// to the registrations of its type, outside every lock of the engine's and the
// interface's, one at a time, in the order the engine logged them (the source is
// ordered). A callback there may call any MPI_T procedure; it runs beside the
// program's own calls, so the context's safety level is MPI_T_CB_REQUIRE_MPI_RESTRICTED:
// the callback registered for it or a stricter one runs. Events the log had no room
// for are counted for each registration's dropped handler.

// engineEvents are the event types of the engine's log, by its kind.
var engineEvents [2]*mpit.EventType

// commsByCtx finds the communicator of a context a registration was bound to, so that
// an event's sender becomes its rank there.
var commsByCtx sync.Map // uint32 -> *core.Comm

func addEvents(r *mpit.Registry) map[string][]int {
	log := core.ToolEvents()
	src := r.AddSource(&mpit.EventSource{Name: "p2p_engine",
		Desc:  "The point-to-point engine: its events in the order it logged them, timed in nanoseconds of a monotonic clock.",
		Order: mpit.SourceOrdered, TicksPerSecond: 1e9, MaxTicks: math.MaxInt64, Now: log.Now})
	unexpected := &mpit.EventType{Name: "unexpected_message", Verbosity: mpit.VerbosityTunerBasic, Bind: mpit.BindComm,
		Desc: "A message arrived on the communicator bound before any receive matched it, and was queued. " +
			"Elements: the sender's rank in the communicator (MPI_INT), the tag (MPI_INT), the message's length in bytes (MPI_COUNT).",
		Elements: []mpit.Type{mpit.TypeInt, mpit.TypeInt, mpit.TypeCount}, Source: src,
		Key: func(op string, obj any) (any, error) {
			c, err := objComm(op, obj)
			if err != nil {
				return nil, err
			}
			commsByCtx.Store(c.Context(), c)
			return c.Context(), nil
		},
		Want: func(on bool) { want(core.EventUnexpected, on) }}
	failed := &mpit.EventType{Name: "peer_failed", Verbosity: mpit.VerbosityUserBasic, Bind: mpit.BindNoObject,
		Desc:     "A process of the job failed (it died, or its connection broke). Elements: its rank in MPI_COMM_WORLD (MPI_INT).",
		Elements: []mpit.Type{mpit.TypeInt}, Source: src,
		Want: func(on bool) { want(core.EventPeerFailed, on) }}
	engineEvents[core.EventUnexpected], engineEvents[core.EventPeerFailed] = unexpected, failed
	return map[string][]int{"p2p": {r.AddEvent(unexpected)}, "runtime": {r.AddEvent(failed)}}
}

// pump is the goroutine that delivers the engine's events while any is wanted.
var pump struct {
	sync.Mutex
	wanted int
	stop   chan struct{}
}

// want turns the logging of the engine's event kind on or off, and starts or stops
// the pump. It is called with the interface's lock held: it never waits for the pump.
func want(kind int, on bool) {
	core.ToolEvents().Want(kind, on)
	pump.Lock()
	defer pump.Unlock()
	if on {
		pump.wanted++
		if pump.wanted == 1 {
			pump.stop = make(chan struct{})
			go runPump(pump.stop)
		}
		return
	}
	pump.wanted--
	if pump.wanted == 0 {
		close(pump.stop)
	}
}

func runPump(stop chan struct{}) {
	log := core.ToolEvents()
	for {
		select {
		case <-stop:
			return
		case <-log.Ready():
		}
		dropped := log.Drain(deliver)
		for k, n := range dropped {
			if n > 0 && k < len(engineEvents) {
				Tools.Dropped(engineEvents[k], int64(n))
			}
		}
	}
}

// deliver raises one of the engine's events to its registrations.
func deliver(ev core.EngineEvent) {
	switch int(ev.Kind) {
	case core.EventUnexpected:
		c, ok := commsByCtx.Load(ev.Ctx)
		if !ok {
			return // no registration was ever bound to its communicator
		}
		src := c.(*core.Comm).CommRank(int(ev.Src))
		Tools.Deliver(engineEvents[core.EventUnexpected], ev.Ctx, ev.Time,
			[]int64{int64(src), int64(ev.Tag), ev.Len}, mpit.SafetyMPIRestricted)
	case core.EventPeerFailed:
		Tools.Deliver(engineEvents[core.EventPeerFailed], nil, ev.Time, []int64{int64(ev.Src)}, mpit.SafetyMPIRestricted)
	}
}

// addCategories groups the variables and events: a category per part of mpigo, the
// settings by the prefix of their names, the transports under one, the calls by kind.
func addCategories(r *mpit.Registry, cvars map[string]int, pvars pvarGroups, events map[string][]int) {
	cats := []struct{ name, desc string }{
		{"p2p", "Point-to-point: the engine's protocols, waiting, and messages queued unexpected."},
		{"collectives", "Collective operations: the algorithms, their thresholds, and the node shared-memory path."},
		{"self", "The transport of a process to itself."},
		{"shm", "The shared-memory transport between the processes of a node."},
		{"tcp", "The TCP transport."},
		{"runtime", "The runtime: transports chosen, binding, threads, groups, one-sided windows, failures."},
		{"profile", "mpigo run --profile: the record of every call."},
	}
	catCVars := map[string][]int{}
	for name, i := range cvars {
		c := cvarCategory(name)
		catCVars[c] = append(catCVars[c], i)
	}
	idx := map[string]int{}
	for _, c := range cats {
		cv := catCVars[c.name]
		sort.Ints(cv)
		idx[c.name] = r.AddCategory(&mpit.Category{Name: c.name, Desc: c.desc, CVars: cv, PVars: pvars[c.name], Events: events[c.name]})
	}
	r.AddCategory(&mpit.Category{Name: "transports", Desc: "What each transport moved, and its settings.",
		Categories: []int{idx["self"], idx["shm"], idx["tcp"]}})
	var calls []int
	for _, k := range []string{"send", "recv", "wait", "collective", "neighbor", "start", "rma", "other"} {
		calls = append(calls, r.AddCategory(&mpit.Category{Name: "calls_" + k,
			Desc:  "The record of calls (internal/prof), for the calls of kind " + k + ": calls, bytes and time of each.",
			PVars: pvars["calls_"+k]}))
	}
	r.AddCategory(&mpit.Category{Name: "calls", Desc: "Every MPI call's count, bytes and time, as mpigo's record of calls keeps them.",
		Categories: calls})
}

// cvarCategory is the category of the setting named name.
func cvarCategory(name string) string {
	switch {
	case strings.HasPrefix(name, "p2p_"), name == "eager_limit", name == "proto_info":
		return "p2p"
	case strings.HasPrefix(name, "coll_"):
		return "collectives"
	case strings.HasPrefix(name, "shm_"):
		return "shm"
	case strings.HasPrefix(name, "tcp_"):
		return "tcp"
	case strings.HasPrefix(name, "profile"):
		return "profile"
	}
	return "runtime"
}
