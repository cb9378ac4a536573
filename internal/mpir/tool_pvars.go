package mpir

import (
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpit"
	"github.com/mpigo/mpigo/internal/prof"
)

// The performance variables read the device's memory where it is, when a tool reads
// them (internal/p2p's tools.go says what the engine keeps for them and what it keeps
// only while watched):
//
//   - the engine's unexpected messages, in all and per communicator, with the queue's
//     length now and (while started) its high-water mark;
//   - the time its waits took (while started);
//   - what this process sent over each transport: messages and bytes, and of the
//     messages those sent eagerly and by rendezvous, and how each rendezvous ended;
//   - how many calls of each collective ran each algorithm (while started);
//   - every MPI call the record of calls counts (internal/prof): calls, bytes and time.
//
// Counters and aggregates are MPI_UNSIGNED_LONG_LONG, timers MPI_DOUBLE seconds. Each
// handle counts from zero from its allocation (a continuous variable) or its first
// start, and may be reset or written (the handle keeps the marks).

// transportNames are the transports a process may use (the transports setting's words).
var transportNames = []string{"self", "shm", "tcp"}

// pvarGroups are the indices of the performance variables by the category they go to.
type pvarGroups map[string][]int

// load is an atomic load of a count the engine publishes (nil: no engine yet).
func load(s *core.QueueStats, field func(*core.QueueStats) *uint64) uint64 {
	if s == nil {
		return 0
	}
	return atomic.LoadUint64(field(s))
}

func addPVars(r *mpit.Registry) pvarGroups {
	g := pvarGroups{}
	add := func(cat string, v *mpit.PVar) {
		if v.Verbosity == 0 {
			v.Verbosity = mpit.VerbosityTunerBasic
		}
		g[cat] = append(g[cat], r.AddPVar(v))
	}
	unexpected := []struct {
		name, desc string
		class      mpit.Class
		field      func(*core.QueueStats) *uint64
	}{
		{"unexpected_messages", "messages that arrived before a receive matched them, and were queued", mpit.ClassCounter,
			func(s *core.QueueStats) *uint64 { return &s.Unexpected }},
		{"unexpected_bytes", "bytes of the messages queued unexpected (a rendezvous message's whole length)", mpit.ClassAggregate,
			func(s *core.QueueStats) *uint64 { return &s.UnexpectedBytes }},
		{"unexpected_queue_length", "messages in the unexpected queue now", mpit.ClassLevel,
			func(s *core.QueueStats) *uint64 { return &s.Queued }},
	}
	for _, u := range unexpected {
		field, level := u.field, u.class == mpit.ClassLevel
		add("p2p", &mpit.PVar{Name: u.name, Desc: upper(u.desc) + ", on every communicator.", Class: u.class,
			Verbosity: mpit.VerbosityUserBasic, Type: mpit.TypeUnsignedLongLong, Bind: mpit.BindNoObject,
			Readonly: level, Continuous: true, Atomic: !level,
			Source: func(string, any) (mpit.Source, error) {
				return mpit.Source{Uint: func() uint64 { return load(core.UnexpectedStats(), field) }}, nil
			}})
		add("p2p", &mpit.PVar{Name: "comm_" + u.name, Desc: upper(u.desc) + ", on the communicator bound.", Class: u.class,
			Type: mpit.TypeUnsignedLongLong, Bind: mpit.BindComm, Readonly: level, Continuous: true, Atomic: !level,
			Source: func(op string, obj any) (mpit.Source, error) {
				c, err := objComm(op, obj)
				if err != nil {
					return mpit.Source{}, err
				}
				st := c.UnexpectedStatsOf()
				return mpit.Source{Uint: func() uint64 { return load(st, field) }}, nil
			}})
	}
	add("p2p", &mpit.PVar{Name: "unexpected_queue_max", Class: mpit.ClassHighwatermark,
		Desc: "The most messages the unexpected queue held at once while started (reset: its length then).",
		Type: mpit.TypeUnsignedLongLong, Bind: mpit.BindNoObject,
		Source: func(string, any) (mpit.Source, error) {
			return mpit.Source{Uint: func() uint64 { return load(core.UnexpectedStats(), unexpected[2].field) },
				Track: core.TrackUnexpectedMax}, nil
		}})
	add("p2p", &mpit.PVar{Name: "p2p_wait_time", Class: mpit.ClassTimer, Verbosity: mpit.VerbosityUserBasic,
		Desc: "Seconds the point-to-point engine's blocking waits (Wait, Recv, a rendezvous Send) took while started; timed only while started.",
		Type: mpit.TypeDouble, Bind: mpit.BindNoObject, Atomic: true,
		Source: func(string, any) (mpit.Source, error) {
			return mpit.Source{Float: core.WaitTime, Watch: core.WatchWaits}, nil
		}})
	states := &mpit.Enum{Name: "mpi_state"}
	for i, n := range core.RuntimeStates {
		states.Items = append(states.Items, mpit.EnumItem{Value: i, Name: n})
	}
	add("runtime", &mpit.PVar{Name: "mpi_state", Class: mpit.ClassState, Verbosity: mpit.VerbosityUserBasic, Enum: states,
		Desc: "The state of this process's MPI runtime: not_started (before MPI_Init or MPI_Session_init), running, " +
			"finalized, or idle (every session finalised with no world model running: a new session starts it again).",
		Type: mpit.TypeInt, Bind: mpit.BindNoObject, Readonly: true, Continuous: true,
		Source: func(string, any) (mpit.Source, error) {
			return mpit.Source{Int: func() int64 { return int64(core.RuntimeState()) }}, nil
		}})
	for _, tr := range transportNames {
		addTransport(tr, func(v *mpit.PVar) { add(tr, v) })
	}
	add("shm", &mpit.PVar{Name: "shm_mapped_bytes", Class: mpit.ClassAggregate, Verbosity: mpit.VerbosityUserDetail,
		Desc: "Bytes this process copied to and from other ranks' MPI_Alloc_mem memory on the node through mappings " +
			"of it (shm_alloc_mem), without single-copy system calls.",
		Type: mpit.TypeUnsignedLongLong, Bind: mpit.BindNoObject, Continuous: true, Atomic: true,
		Source: func(string, any) (mpit.Source, error) { return mpit.Source{Uint: core.SharedMemBytes}, nil }})
	for c := core.Collective(0); c < core.NumCollectives; c++ {
		for _, a := range core.Algorithms(c) {
			c, a := c, a
			add("collectives", &mpit.PVar{Name: "coll_" + c.String() + "_" + a.String(), Class: mpit.ClassCounter,
				Desc: "Calls of " + c.String() + " that ran the " + a.String() + " algorithm while started (schedules over " +
					"point-to-point; the node shared-memory path is not counted); counted only while started.",
				Type: mpit.TypeUnsignedLongLong, Bind: mpit.BindNoObject, Atomic: true,
				Source: func(string, any) (mpit.Source, error) {
					return mpit.Source{Uint: func() uint64 { return core.AlgorithmRuns(c, a) }, Watch: core.WatchAlgorithms}, nil
				}})
		}
	}
	for _, call := range prof.Calls() {
		addCall(call, func(v *mpit.PVar) { add("calls_"+call.Kind().String(), v) })
	}
	return g
}

// addTransport adds the variables of what was sent over transport tr.
func addTransport(tr string, add func(*mpit.PVar)) {
	counts := []struct {
		name, desc string
		class      mpit.Class
		field      func(core.TransportStats) uint64
	}{
		{"messages_sent", "messages this process started to a peer", mpit.ClassCounter,
			func(s core.TransportStats) uint64 { return s.Messages }},
		{"bytes_sent", "bytes of the messages this process started to a peer", mpit.ClassAggregate,
			func(s core.TransportStats) uint64 { return s.Bytes }},
		{"eager_sends", "messages sent eagerly (their data in the first packet) to a peer", mpit.ClassCounter,
			func(s core.TransportStats) uint64 { return s.Eager }},
		{"rendezvous_sends", "messages sent to a peer by a rendezvous protocol", mpit.ClassCounter,
			func(s core.TransportStats) uint64 { return s.Rendezvous }},
		{"pipeline_sends", "rendezvous messages the receiver had streamed to it (pipeline), counted when its request came", mpit.ClassCounter,
			func(s core.TransportStats) uint64 { return s.Pipeline }},
		{"get_sends", "rendezvous messages the receiver read from this process's memory (get), counted when it was done", mpit.ClassCounter,
			func(s core.TransportStats) uint64 { return s.Get }},
	}
	for _, c := range counts {
		field := c.field
		add(&mpit.PVar{Name: tr + "_" + c.name, Class: c.class, Verbosity: mpit.VerbosityUserDetail,
			Desc: upper(c.desc) + " that the " + tr + " transport reaches.",
			Type: mpit.TypeUnsignedLongLong, Bind: mpit.BindNoObject, Continuous: true, Atomic: true,
			Source: func(string, any) (mpit.Source, error) {
				return mpit.Source{Uint: func() uint64 { return field(core.SentOver(tr)) }}, nil
			}})
	}
}

// addCall adds the variables of the record's counts of call: calls, bytes, time.
func addCall(call prof.Call, add func(*mpit.PVar)) {
	name := snake(call.String())
	mpi := "MPI_" + call.String()
	cont := func(read func() mpit.Source) func(string, any) (mpit.Source, error) {
		return func(string, any) (mpit.Source, error) { return read(), nil }
	}
	add(&mpit.PVar{Name: name + "_calls", Class: mpit.ClassCounter, Verbosity: mpit.VerbosityUserDetail,
		Desc: "Calls of " + mpi + " (or its Go form) this process made.", Type: mpit.TypeUnsignedLongLong,
		Bind: mpit.BindNoObject, Continuous: true, Atomic: true,
		Source: cont(func() mpit.Source {
			return mpit.Source{Uint: func() uint64 { n, _, _ := prof.LiveTotals(call); return n }}
		})})
	add(&mpit.PVar{Name: name + "_bytes", Class: mpit.ClassAggregate, Verbosity: mpit.VerbosityUserDetail,
		Desc: "Bytes the calls of " + mpi + " moved (sent, received, or this process's part of a collective).",
		Type: mpit.TypeUnsignedLongLong, Bind: mpit.BindNoObject, Continuous: true, Atomic: true,
		Source: cont(func() mpit.Source {
			return mpit.Source{Uint: func() uint64 { _, b, _ := prof.LiveTotals(call); return b }}
		})})
	add(&mpit.PVar{Name: name + "_time", Class: mpit.ClassTimer, Verbosity: mpit.VerbosityUserDetail,
		Desc: "Seconds in " + mpi + ": measured for the calls timed, and for the others the mean of the sampled ones (as mpigo run --report gives it).",
		Type: mpit.TypeDouble, Bind: mpit.BindNoObject, Continuous: true, Atomic: true,
		Source: cont(func() mpit.Source {
			return mpit.Source{Float: func() float64 { _, _, s := prof.LiveTotals(call); return s }}
		})})
}

// snake writes a call's name as a variable's: SendrecvReplace is sendrecv_replace.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
