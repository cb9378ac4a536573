package core

import (
	"sync"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/prof"
)

// The recorder's one-sided counts (internal/prof, links.go): a direct operation
// counts what it moved in its target's winPeer (to, from: two plain adds below
// ThreadMultiple into memory of the calling rank), so the short ways look up
// nothing to count. The recorder's snapshots read the live windows' counts (rmaLinks,
// through profSources) and Free hands a window's over to the recorder (retire)
// before its peers go.
var liveWins struct {
	sync.Mutex
	m map[*Win]struct{}
}

// register makes w's counts visible to the recorder (window creation).
func (w *Win) register() {
	liveWins.Lock()
	if liveWins.m == nil {
		liveWins.m = map[*Win]struct{}{}
	}
	liveWins.m[w] = struct{}{}
	liveWins.Unlock()
}

// retire hands w's counts over to the recorder (Free, before the peers go).
func (w *Win) retire() {
	liveWins.Lock()
	defer liveWins.Unlock()
	if _, ok := liveWins.m[w]; !ok {
		return
	}
	delete(liveWins.m, w)
	for i := range w.peers {
		p := &w.peers[i]
		prof.Retire(p.world, loadLink(&p.to), loadLink(&p.from))
	}
}

// rmaLinks adds the live windows' counts into to and from, by world rank.
func rmaLinks(to, from []prof.Link) {
	liveWins.Lock()
	defer liveWins.Unlock()
	for w := range liveWins.m {
		for i := range w.peers {
			p := &w.peers[i]
			if uint(p.world) >= uint(len(to)) {
				continue
			}
			t, f := loadLink(&p.to), loadLink(&p.from)
			to[p.world].Bytes += t.Bytes
			to[p.world].Ops += t.Ops
			from[p.world].Bytes += f.Bytes
			from[p.world].Ops += f.Ops
		}
	}
}

func loadLink(l *prof.Link) prof.Link {
	return prof.Link{Bytes: atomic.LoadUint64(&l.Bytes), Ops: atomic.LoadUint64(&l.Ops)}
}
