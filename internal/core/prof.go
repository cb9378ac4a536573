package core

import (
	"fmt"
	"os"

	"github.com/mpigo/mpigo/internal/prof"
)

// The recorder's view of a communicator (internal/prof): the facade reports each call
// it serves with ProfEnter and ProfExitSend (or prof.Exit), and the runtime starts,
// flushes and reports the record (startProfile, endProfile, abortProfile).

// ProfEnter is prof.Enter for call on c naming peer (a rank of c, a wildcard or
// ProcNull), tag and n bytes; the peer is recorded as a world rank. A nil c is
// recorded as the world.
func (c *Comm) ProfEnter(call prof.Call, peer, tag, n int) int64 {
	if c == nil {
		return prof.Enter(call, 0, 0, peer, tag, n)
	}
	if !c.direct && peer >= 0 && peer < c.Peers() {
		peer = c.WorldRank(peer)
	}
	return prof.Enter(call, c.ctx, c.size, peer, tag, n)
}

// ProfExitSend is prof.ExitSend for a send on c to its rank dest.
func (c *Comm) ProfExitSend(call prof.Call, t int64, n, dest int) {
	if c != nil && !c.direct && dest >= 0 && dest < c.Peers() {
		dest = c.WorldRank(dest)
	}
	prof.ExitSend(call, t, n, dest)
}

// profiler is what the launcher's connection offers the recorder: answering the
// launcher's question (where is this rank, flushing its profile first) and taking
// the rank's report at Finalize. mpigo's wire-up client has it; other process
// managers do not, and the recorder then only writes files.
type profiler interface {
	OnQuery(func() []byte)
	Report([]byte) error
}

func startProfile() {
	if err := prof.Start(World.rank, World.size, threadLevel == ThreadMultiple); err != nil {
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

// endProfile runs in Finalize once every rank has fenced: the rank's profile is
// written and its report sent to the launcher.
func endProfile(t int64) {
	if t < 0 {
		return
	}
	prof.Exit(prof.Finalize, t, 0)
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
	return prof.Enter(prof.Finalize, World.ctx, World.size, prof.NoPeer, -1, 0)
}

func abortProfile() {
	if err := prof.Flush("abort"); err != nil {
		warnProfile(err)
	}
}

func warnProfile(err error) {
	fmt.Fprintf(os.Stderr, "mpigo: rank %d: %v (the job goes on without it)\n", World.rank, err)
}
