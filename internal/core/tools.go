package core

import (
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/p2p"
)

// What the device shows the tool information interface (MPI_T, internal/mpir): the
// memory its counts are in, read where it is, the watches that make it count what it
// counts only for a tool, and its event log. Nothing here runs unless a tool asks.

// The engine's and the selection's types the tool interface names.
type (
	QueueStats     = p2p.QueueStats
	TransportStats = p2p.TransportStats
	EngineEvent    = p2p.Event
	EventLog       = p2p.EventLog
	Collective     = coll.Collective
	Algo           = coll.Algo
)

// The engine's event kinds and the collectives whose algorithm is counted.
const (
	EventUnexpected = p2p.EventUnexpected
	EventPeerFailed = p2p.EventPeerFailed

	CollBcast      = coll.CollBcast
	CollAllreduce  = coll.CollAllreduce
	CollAllgather  = coll.CollAllgather
	CollAlltoall   = coll.CollAlltoall
	NumCollectives = coll.NumCollectives
)

// toolEvents is the engine's event log. It exists before the engine does, so that a
// tool may want an event before Init; the engine fills it from its start.
var toolEvents = p2p.NewEventLog(4096)

// ToolEvents is the engine's event log.
func ToolEvents() *EventLog { return toolEvents }

// Engine's counts, nil while no engine runs (before Init; after Finalize they stay).
func engine() *p2p.Engine {
	if state.Load() == stateNone {
		return nil
	}
	return eng
}

// UnexpectedStats is the engine's count of messages queued unexpected (nil before
// Init).
func UnexpectedStats() *QueueStats {
	if e := engine(); e != nil {
		return e.Stats()
	}
	return nil
}

// UnexpectedStatsOf is c's count of messages queued unexpected on its point-to-point
// context (nil before Init).
func (c *Comm) UnexpectedStatsOf() *QueueStats {
	if e := engine(); e != nil {
		return e.ContextStats(c.ctx)
	}
	return nil
}

// SentOver is what this rank sent over the transport named name.
func SentOver(name string) TransportStats {
	if e := engine(); e != nil {
		return e.TransportStats(name)
	}
	return TransportStats{}
}

// TrackUnexpectedMax has the engine keep cell at least as high as its unexpected
// queue until untrack; before Init there is no queue, and it does nothing.
func TrackUnexpectedMax(cell *atomic.Uint64) (untrack func()) {
	if e := engine(); e != nil {
		return e.TrackUnexpectedMax(cell)
	}
	return func() {}
}

// WatchWaits starts (1) or stops (-1) a watch of the engine's waits' time.
func WatchWaits(delta int) {
	if e := engine(); e != nil {
		e.WatchWaits(delta)
	}
}

// WaitTime is the time, in seconds, the engine's waits took while watched.
func WaitTime() float64 {
	if e := engine(); e != nil {
		return e.WaitTime().Seconds()
	}
	return 0
}

// WatchAlgorithms starts (1) or stops (-1) a watch of the collectives' algorithms.
func WatchAlgorithms(delta int) { coll.Watch(delta) }

// AlgorithmRuns is how many calls of c ran algorithm a while watched.
func AlgorithmRuns(c Collective, a Algo) uint64 { return coll.Chosen(c, a) }

// Algorithms lists the algorithms each collective may run.
func Algorithms(c Collective) []Algo { return coll.Algorithms[c] }

// Retune has the device apply the settings a program wrote that it reads once and
// can apply again (the engine's, internal/p2p: p2p_protocol, eager_limit, ...); it
// does nothing before Init, when the device will read them as it starts.
func Retune() error {
	e := engine()
	if e == nil {
		return nil
	}
	if err := e.Retune(); err != nil {
		return err
	}
	setEagerMax()
	return nil
}

// setEagerMax sets what the collectives may send by blocking Send without a
// receiver (SmallSend, unless a rendezvous protocol now covers such a message).
func setEagerMax() {
	if eng.EagerUpTo(coll.SmallSend) {
		eagerMax.Store(coll.SmallSend)
		return
	}
	eagerMax.Store(-1)
}

// Context is c's point-to-point context id: the one its messages, and so the
// engine's events about them, carry.
func (c *Comm) Context() uint32 { return c.ctx }

// RuntimeStates names the states of the runtime RuntimeState reports, in order.
var RuntimeStates = []string{stateNone: "not_started", stateInit: "running", stateFinal: "finalized", stateIdle: "idle"}

// RuntimeState is the runtime's state now: an index of RuntimeStates.
func RuntimeState() int { return int(state.Load()) }
