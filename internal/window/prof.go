package window

import (
	"sync"

	"github.com/mpigo/mpigo/internal/prof"
)

// The record's one-sided counts (internal/prof, links.go): a direct operation counts
// what it moved in its target's winPeer (to, from: two plain adds below ThreadMultiple
// into memory of the calling rank), so the short ways look up nothing to count. The
// window hands those counts down to the record when it is made (register), by the
// targets' world ranks, and retires them when it is freed (retire), before its peers
// go: the record's snapshots read them, calling nothing here.
var liveWins struct {
	sync.Mutex
	m map[*Win]*prof.Taps
}

// register hands w's counts down to the record (window creation).
func (w *Win) register() {
	taps := make([]prof.Tap, 0, 2*len(w.peers))
	for i := range w.peers {
		p := &w.peers[i]
		taps = append(taps, prof.Tap{Link: &p.to, World: p.world, Cols: prof.RMATo},
			prof.Tap{Link: &p.from, World: p.world, Cols: prof.RMAFrom})
	}
	liveWins.Lock()
	if liveWins.m == nil {
		liveWins.m = map[*Win]*prof.Taps{}
	}
	liveWins.m[w] = prof.Watch(taps)
	liveWins.Unlock()
}

// retire hands w's counts over to the record's totals (Free, before the peers go).
func (w *Win) retire() {
	liveWins.Lock()
	defer liveWins.Unlock()
	liveWins.m[w].Retire()
	delete(liveWins.m, w)
}
