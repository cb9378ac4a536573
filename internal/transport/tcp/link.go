package tcp

import (
	"sync"
	"sync/atomic"
)

// link is the transport's state for one peer it reaches: the stream to it, the stream
// from it, and whether it is gone. The streams point at their link, so the per-packet
// paths reach it without looking it up.
type link struct {
	peer   int
	ep     atomic.Pointer[endpoint] // our stream to the peer, once dialled
	dialMu sync.Mutex
	recv   atomic.Pointer[recvConn] // the stream the peer dialled to us
	gone   atomic.Bool
	// err is why the peer is gone, nil while it lives; reported says PeerGone was
	// called for it. Both under Transport.goneMu.
	err      error
	reported bool
	// card is how to reach the peer (open mode); removed says Remove took the link
	// out of the table (set under dialMu), so that no stream is added to it after.
	card    *card
	removed atomic.Bool
}

// linkTable maps peers to links: peer p's is ls[p-lo], nil for a peer not reached. A
// job's table covers its ranks; an open transport's covers the peers added, whose
// indices start where the job's ranks end. The table is replaced whole when it changes
// (under Transport.linkMu), so a reader takes it with one atomic load.
type linkTable struct {
	lo int
	ls []*link
}

// link returns peer's link, or nil.
func (t *Transport) link(peer int) *link {
	tab := t.links.Load()
	i := uint(peer - tab.lo)
	if i >= uint(len(tab.ls)) {
		return nil
	}
	return tab.ls[i]
}

// each calls f for every link in the table.
func (t *Transport) each(f func(*link)) {
	for _, l := range t.links.Load().ls {
		if l != nil {
			f(l)
		}
	}
}

// setLink puts l (nil: none) as peer's link, in a new table that covers peer. The
// caller holds linkMu.
func (t *Transport) setLink(peer int, l *link) {
	old := t.links.Load()
	lo, hi := old.lo, old.lo+len(old.ls)
	if len(old.ls) == 0 {
		lo, hi = peer, peer
	}
	lo, hi = min(lo, peer), max(hi, peer+1)
	tab := &linkTable{lo: lo, ls: make([]*link, hi-lo)}
	if len(old.ls) > 0 {
		copy(tab.ls[old.lo-lo:], old.ls)
	}
	tab.ls[peer-lo] = l
	t.links.Store(tab)
}
