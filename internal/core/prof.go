package core

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/prof"
)

// The device's side of the record of calls (internal/prof). Data flows down to it:
// each communicator carries the record's descriptor of it (rec), registered when the
// communicator is made (describe), renamed by SetName and retired by Free; the engine's
// count of messages is handed down at start (startProfile), the node collectives' and
// the windows' counts by their packages when they are made (internal/collective,
// node.go; internal/window, prof.go). The record calls
// nothing of the device: its snapshots, whoever asks for one (the launcher's question
// through the wire-up client, Finalize, the faces' error seam), read the memory it was
// given. This file starts, flushes and reports the record (startProfile, endProfile,
// abortProfile).

// Prof is c's descriptor in the record, by which the faces name c to it: the address
// of c itself (rec is c's first field), so that a hot call's entry stores a pointer it
// holds already, with no load, and a nil c is no communicator.
func (c *Comm) Prof() *prof.Comm { return (*prof.Comm)(unsafe.Pointer(c)) }

// Prof's conversion holds only while rec is first in Comm.
var _ [0]struct{} = [unsafe.Offsetof(Comm{}.rec)]struct{}{}

// describe registers c with the record: its context id, its groups (the world's given
// as nil, which the record reports as such) and its name.
func (c *Comm) describe() {
	local := c.group
	if local == World.group {
		local = nil
	}
	c.rec.Register(c.ctx, c.size, local, c.remote, c.Name())
}

// profiler is what the launcher's connection offers the recorder: answering the
// launcher's question (where is this rank, flushing its profile first) and taking
// the rank's report at Finalize. mpigo's wire-up client has it; other process
// managers do not, and the recorder then only writes files.
type profiler interface {
	OnQuery(func() []byte)
	Report([]byte) error
}

// startProfile starts the rank's profile; multi: calls may come from several
// goroutines at once (or may later, once another user of the runtime asks for
// ThreadMultiple: a session's runtime is always profiled so). The engine's counts of
// what this rank sent go down to the record here: by destination, the odd contexts'
// (the collectives', see ctx.go) in the collective column too.
func startProfile(multi bool) {
	sent := eng.Sent()
	taps := make([]prof.Tap, len(sent))
	for i := range sent {
		taps[i] = prof.Tap{Link: &sent[i], World: i / 2, Cols: prof.Sent}
		if i%2 == 1 {
			taps[i].Cols |= prof.Coll
		}
	}
	prof.Watch(taps)
	if err := prof.Start(World.rank, World.size, multi); err != nil {
		prof.Warn(err)
	}
	if p, ok := proc.(profiler); ok {
		p.OnQuery(prof.Query)
	}
}

// endProfile closes the record t of a Finalize (none where t < 0); when the runtime
// stops (last), once every rank has fenced, the rank's profile is written and its
// report sent to the launcher.
func endProfile(t int64, last bool) {
	if t >= 0 {
		prof.Exit(prof.Finalize, t, 0)
	}
	if !last {
		return
	}
	prof.Settle()
	if err := prof.Flush("finalize"); err != nil {
		prof.Warn(err)
	}
	if p, ok := proc.(profiler); ok {
		p.Report(prof.ReportMessage())
	}
}

func beginFinalize() int64 {
	if !Live() {
		return -1
	}
	return prof.EnterTimed(prof.Finalize, World.Prof(), prof.NoPeer, -1, 0)
}

func abortProfile() {
	prof.Settle()
	if err := prof.Flush("abort"); err != nil {
		prof.Warn(err)
	}
}
