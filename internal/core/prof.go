package core

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/mpigo/mpigo/internal/group"
	"github.com/mpigo/mpigo/internal/prof"
)

// The recorder's view of the device (internal/prof): the facade reports each call it
// serves to prof directly, naming the communicator by its *Comm (ProfComm); this file
// lends the recorder what it needs to read those back (profSources) and starts,
// flushes and reports the record (startProfile, endProfile, abortProfile).

// ProfComm is c as the recorder holds it (nil: none).
func (c *Comm) ProfComm() unsafe.Pointer { return unsafe.Pointer(c) }

// profSources describe the communicators prof holds and count what the engine sent
// and the node collectives' flows (node.go), and lend it the windows' one-sided counts
// (win_prof.go).
var profSources = prof.Sources{
	Describe: func(p unsafe.Pointer) prof.CommInfo {
		c := (*Comm)(p)
		d := prof.CommInfo{Ctx: c.ctx, Name: c.Name(), Size: c.size}
		if c.group != nil && c.group != World.group {
			d.Group = worldRanks(c.group)
		}
		if c.remote != nil {
			d.Remote = worldRanks(c.remote)
		}
		return d
	},
	Ctx: func(p unsafe.Pointer) uint32 { return (*Comm)(p).ctx },
	Traffic: func(bytes, msgs, collBytes, collMsgs []uint64) {
		if eng != nil {
			eng.Traffic(bytes, msgs, collBytes, collMsgs)
		}
		nodeTraffic(bytes, msgs, collBytes, collMsgs)
	},
	RMA: rmaLinks,
}

func worldRanks(g *group.Group) []int {
	out := make([]int, g.Size())
	for i := range out {
		out[i] = int(g.WorldRank(i))
	}
	return out
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
// ThreadMultiple: a session's runtime is always profiled so).
func startProfile(multi bool) {
	prof.SetSources(profSources)
	if err := prof.Start(World.rank, World.size, multi); err != nil {
		warnProfile(err)
	}
	if p, ok := proc.(profiler); ok {
		p.OnQuery(func() []byte {
			if err := prof.Flush("stopped"); err != nil {
				warnProfile(err)
			}
			return prof.StateMessage()
		})
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
		warnProfile(err)
	}
	if p, ok := proc.(profiler); ok {
		p.Report(prof.ReportMessage())
	}
}

func beginFinalize() int64 {
	if !Live() {
		return -1
	}
	return prof.EnterTimed(prof.Finalize, World.ProfComm(), prof.NoPeer, -1, 0)
}

func abortProfile() {
	prof.Settle()
	if err := prof.Flush("abort"); err != nil {
		warnProfile(err)
	}
}

func warnProfile(err error) {
	fmt.Fprintf(os.Stderr, "mpigo: rank %d: %v (the job goes on without it)\n", World.rank, err)
}
