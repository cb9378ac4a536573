package tcp

import (
	"encoding/binary"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/transport"
)

// recvConn is the stream a peer dialled to us. Its buffer starts small (streams of
// small packets are the common case, and there may be thousands of peers) and grows,
// once, to hold a frame of the largest size when the first large one comes, so that a
// packet is always handed over in one piece, straight from here.
type recvConn struct {
	l          *link
	peer       int
	fd         int
	buf        []byte
	start, end int // unparsed bytes are buf[start:end]
	hdr        transport.Header
	// dst, when not nil, is where the payload of the frame whose header is hdr is
	// being read, straight from the socket (see Placer); dstGot bytes of it have come.
	// buf is empty meanwhile.
	dst    []byte
	dstGot int
	iov    [2]unix.Iovec
}

// recvSlack is read room beyond one largest frame, so that small packets arrive many
// to a read(2).
const recvSlack = 64 << 10

// addRecv puts an authenticated stream from l's peer in the poll set.
func (t *Transport) addRecv(l *link, fd int) error {
	peer := l.peer
	rc := &recvConn{l: l, peer: peer, fd: fd, buf: make([]byte, recvSlack)}
	if !l.recv.CompareAndSwap(nil, rc) {
		unix.Close(fd)
		return fmt.Errorf("TCP: %s already has a stream here", t.who(peer))
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(peer)}
	if err := unix.EpollCtl(t.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		l.recv.Store(nil)
		unix.Close(fd)
		return fmt.Errorf("TCP: epoll_ctl for %s: %w", t.who(peer), err)
	}
	t.setActive(rc, true)
	if l.removed.Load() { // Remove ran meanwhile and may have missed it
		t.pollMu.Lock()
		t.endRecv(rc)
		t.pollMu.Unlock()
	}
	return nil
}

// directMax is the number of streams up to which Poll reads each one directly rather
// than asking epoll which are readable: with one or two peers, a read that finds
// nothing costs what epoll_wait costs, and a read that finds a packet saves a call.
const directMax = 2

// setActive adds rc to, or removes it from, the list Poll walks. The list is copied
// on change (rare) so that Poll reads it with one atomic load.
func (t *Transport) setActive(rc *recvConn, on bool) {
	t.activeMu.Lock()
	defer t.activeMu.Unlock()
	var next []*recvConn
	if old := t.active.Load(); old != nil {
		for _, x := range *old {
			if x != rc {
				next = append(next, x)
			}
		}
	}
	if on {
		next = append(next, rc)
	}
	t.active.Store(&next)
}

// armIdle is how long Poll must have found nothing before it arms the watcher by
// itself. It is a safety net for an engine that sleeps without calling Arm: long
// enough that a busy engine never pays for a watcher wake-up (each costs a context
// switch, dear when every core runs a rank), short enough to bound the delay for one
// that dozes off.
const armIdle = time.Millisecond

// Poll hands over every packet that has arrived, in per-peer order, without blocking.
// It also writes out the tails of partly sent packets. Only one goroutine polls at a
// time; a concurrent (or re-entrant, from a handler) Poll returns 0 at once. Handlers
// may Send, but must not Close the transport.
func (t *Transport) Poll(h transport.Handler) int {
	if !t.pollMu.TryLock() {
		return 0
	}
	defer t.pollMu.Unlock()
	if t.closed.Load() {
		return 0
	}
	if t.pending.Load() > 0 {
		t.flushPending()
	}
	n := 0
	if list := t.active.Load(); list != nil && len(*list) <= directMax {
		for _, rc := range *list {
			n += t.readConn(rc, h)
		}
	} else if list != nil {
		nev, err := unix.EpollWait(t.epfd, t.events[:], 0)
		if err == nil {
			for i := range nev {
				peer := t.events[i].Fd
				if peer < 0 {
					if peer <= -2 { // a socket we send on drained: Send finds out
						t.sawWritable(peer)
					}
					continue // or the close eventfd
				}
				if l := t.link(int(peer)); l != nil {
					if rc := l.recv.Load(); rc != nil {
						n += t.readConn(rc, h)
					}
				}
			}
		}
	}
	if t.goneNew.Load() {
		t.reportGone()
	}
	if n > 0 {
		t.idleSince = 0
	} else {
		now := nanotime()
		if t.idleSince == 0 {
			t.idleSince = now
		} else if now-t.idleSince > int64(armIdle) {
			t.Arm()
		}
	}
	return n
}

var epoch = time.Now()

// nanotime is monotonic nanoseconds since start; never 0 after the first call.
func nanotime() int64 { return int64(time.Since(epoch)) + 1 }

// firstRead bounds a read that starts a frame: enough for dozens of small packets at
// once, little to copy out of buf when the frame's payload is then placed.
const firstRead = 16 << 10

// maxPasses bounds the reads readConn makes on one stream per Poll, so that a stream
// of large fragments does not starve the others.
const maxPasses = 4

// readConn reads from rc and hands over every complete frame. A frame whose payload is
// still on its way, and which the handler can place (Placer), has the rest of its
// payload read straight into its destination, across Polls if need be.
func (t *Transport) readConn(rc *recvConn, h transport.Handler) int {
	n := 0
	for range maxPasses {
		placed := rc.dst != nil
		if placed {
			if !t.readDirect(rc) {
				return n
			}
			dst := rc.dst
			rc.dst, rc.dstGot = nil, 0
			h.Packet(&rc.hdr, dst)
			n++
			if rc.l.recv.Load() != rc { // the handler closed the transport
				return n
			}
			// readDirect may have read the next frame's header too: parse it before
			// reading again, for it may be a whole packet (most have no payload).
		} else {
			// Unless a staged frame is being completed, read a little: if this is the
			// start of a placed payload, the less went into buf, the less to copy.
			end := len(rc.buf)
			if rc.end-rc.start < frameSize {
				end = min(end, rc.end+firstRead)
			}
			nr, errno := read(rc.fd, rc.buf[rc.end:end])
			if errno == unix.EAGAIN || errno == unix.EINTR {
				return n
			}
			if errno != 0 || nr == 0 {
				cause := error(errno)
				if errno == 0 {
					cause = fmt.Errorf("connection closed")
					if rc.end > rc.start {
						cause = fmt.Errorf("connection closed inside a packet")
					}
				}
				t.dropRecv(rc, cause)
				return n
			}
			rc.end += nr
		}
		m, ok := t.parse(rc, h)
		n += m
		if !ok || (rc.dst == nil && !placed) {
			return n // after a staged read, the socket is most likely empty
		}
	}
	return n
}

// readDirect reads more of the payload being placed, and with it at most the header
// of the next frame, into buf. It reports whether the payload is complete.
func (t *Transport) readDirect(rc *recvConn) bool {
	if rc.l.gone.Load() {
		// The peer failed (seen on the send side): the engine fails the receive, and
		// its buffer is the user's again, so nothing more may land in it.
		rc.dst, rc.dstGot = nil, 0
		t.dropRecv(rc, fmt.Errorf("peer gone inside a packet"))
		return false
	}
	rest := rc.dst[rc.dstGot:]
	rc.iov[0].Base = &rest[0]
	rc.iov[0].SetLen(len(rest))
	rc.iov[1].Base = &rc.buf[0] // buf is empty while a payload is placed
	rc.iov[1].SetLen(frameSize)
	nr, errno := readv(rc.fd, &rc.iov)
	rc.iov[0].Base = nil // rc.dst holds the destination, as long as it is needed
	if errno == unix.EAGAIN || errno == unix.EINTR {
		return false
	}
	if errno != 0 || nr == 0 {
		cause := error(errno)
		if errno == 0 {
			cause = fmt.Errorf("connection closed inside a packet")
		}
		rc.dst, rc.dstGot = nil, 0 // let go of the destination
		t.dropRecv(rc, cause)
		return false
	}
	if nr <= len(rest) {
		rc.dstGot += nr
	} else {
		rc.dstGot = len(rc.dst)
		rc.start, rc.end = 0, nr-len(rest)
	}
	return rc.dstGot == len(rc.dst)
}

// parse hands over every complete frame in buf, and starts placing the payload of an
// incomplete one when the handler can. It reports false if the stream was dropped or
// the transport closed by a handler.
func (t *Transport) parse(rc *recvConn, h transport.Handler) (int, bool) {
	le := binary.LittleEndian
	n := 0
	for rc.end-rc.start >= frameSize {
		b := rc.buf[rc.start:rc.end]
		plen := int(le.Uint32(b))
		if le.Uint32(b[4:]) != frameMagic || plen > t.maxPayload {
			if le.Uint32(b[4:]) == byeMagic && plen == 0 {
				t.endRecv(rc) // the peer removed us: no failure
				return n, false
			}
			t.dropRecv(rc, fmt.Errorf("stream out of step: frame magic %#x, payload %d bytes (limit %d)", le.Uint32(b[4:]), plen, t.maxPayload))
			return n, false
		}
		if len(b) < frameSize+plen {
			if p, ok := h.(Placer); ok && plen >= placeMin {
				getFrame(&rc.hdr, b, rc.peer)
				if dst := p.Place(&rc.hdr, plen); len(dst) == plen {
					rc.dstGot = copy(dst, b[frameSize:])
					rc.dst = dst
					rc.start, rc.end = 0, 0
					return n, true
				}
			}
			if len(rc.buf) < frameSize+t.maxPayload+recvSlack {
				// First large packet on this stream that must be staged: grow once, to
				// hold the largest.
				nb := make([]byte, frameSize+t.maxPayload+recvSlack)
				rc.end = copy(nb, b)
				rc.start, rc.buf = 0, nb
			}
			break
		}
		getFrame(&rc.hdr, b, rc.peer)
		h.Packet(&rc.hdr, b[frameSize:frameSize+plen:frameSize+plen])
		rc.start += frameSize + plen
		n++
		if rc.l.recv.Load() != rc { // the handler closed the transport
			return n, false
		}
	}
	// Keep room for the rest of a partial frame: move it to the front when it could
	// not finish where it is. Afterwards end < len(buf), so the next read has room
	// and a zero-byte read always means end of stream.
	if rc.start == rc.end {
		rc.start, rc.end = 0, 0
	} else {
		need := frameSize
		if rc.end-rc.start >= frameSize {
			need += int(le.Uint32(rc.buf[rc.start:]))
		}
		if rc.start+need > len(rc.buf) {
			rc.end = copy(rc.buf, rc.buf[rc.start:rc.end])
			rc.start = 0
		}
	}
	return n, true
}

// getFrame decodes what putFrame wrote, but for the source: src, the peer whose stream
// it came on. The stream is authenticated, the Src the sender wrote is not; and in open
// mode the sender's own index means nothing to the receiver.
func getFrame(h *transport.Header, b []byte, src int) {
	le := binary.LittleEndian
	h.Kind, h.Flags = b[8], b[9]
	h.Src = int32(src)
	h.Context = le.Uint32(b[16:])
	h.Tag = int32(le.Uint32(b[20:]))
	h.Len = le.Uint64(b[24:])
	h.SendID = le.Uint64(b[32:])
	h.RecvID = le.Uint64(b[40:])
	h.Addr = le.Uint64(b[48:])
	h.Offset = le.Uint64(b[56:])
}

// dropRecv ends a stream whose peer closed, died or sent garbage, and marks the peer gone.
func (t *Transport) dropRecv(rc *recvConn, cause error) {
	t.endRecv(rc)
	t.markGone(rc.l, fmt.Errorf("receive: %v", cause))
}

// endRecv takes rc out of the poll set and closes it. The caller holds pollMu, or
// knows that no Poll reads rc.
func (t *Transport) endRecv(rc *recvConn) {
	if rc.l.recv.CompareAndSwap(rc, nil) {
		unix.EpollCtl(t.epfd, unix.EPOLL_CTL_DEL, rc.fd, nil)
		unix.Close(rc.fd)
		t.setActive(rc, false)
	}
}

// flushPending writes out kept tails, skipping endpoints another goroutine holds.
func (t *Transport) flushPending() {
	t.each(func(l *link) {
		e := l.ep.Load()
		if e == nil || !e.mu.TryLock() {
			return
		}
		if e.pendEnd > e.pendOff && e.err == nil {
			e.flush()
		}
		e.mu.Unlock()
	})
}

// reportGone calls Options.PeerGone once for every newly gone peer.
func (t *Transport) reportGone() {
	t.goneNew.Store(false)
	t.each(func(l *link) {
		t.goneMu.Lock()
		err := l.err
		fresh := err != nil && !l.reported
		if fresh {
			l.reported = true
		}
		t.goneMu.Unlock()
		if fresh && t.peerGone != nil {
			t.peerGone(l.peer, err)
		}
	})
}

// Arm makes the watcher ring the doorbell when a packet next waits (or at once if one
// does). Call it before sleeping on the doorbell; Poll also arms it by itself after
// armIdle without packets. It costs two atomic loads when already armed and no send
// is blocked.
func (t *Transport) Arm() {
	if t.blocked.Load() > 0 || t.pending.Load() > 0 {
		t.watchWritable()
	}
	if t.armed.CompareAndSwap(false, true) {
		select {
		case t.armCh <- struct{}{}:
		default:
		}
	}
}

// watchWritable has the watcher wake the engine also when a socket that could not take
// a packet (or holds a tail to write) drains: a sender that sleeps while its peer
// reads would otherwise wait for its nap to end. The sockets join the epoll set for
// EPOLLOUT, one-shot, with event data -2-peer (recv streams use peer, the close
// eventfd -1); whoever sees the event clears outArmed, and the next Arm re-arms.
func (t *Transport) watchWritable() {
	t.each(func(l *link) {
		e := l.ep.Load()
		if e == nil || e.outArmed.Load() {
			return
		}
		e.mu.Lock()
		if e.fd >= 0 && e.err == nil && (e.blocked || e.pendEnd > e.pendOff) {
			ev := unix.EpollEvent{Events: unix.EPOLLOUT | unix.EPOLLONESHOT, Fd: outEvent(l.peer)}
			op := unix.EPOLL_CTL_MOD
			if !e.inEpoll {
				op = unix.EPOLL_CTL_ADD
			}
			if unix.EpollCtl(t.epfd, op, e.fd, &ev) == nil {
				e.inEpoll = true
				e.outArmed.Store(true)
			}
		}
		e.mu.Unlock()
	})
}

// outEvent is the epoll event data of peer's outgoing socket; outPeer inverts it.
func outEvent(peer int) int32 { return int32(-2 - peer) }
func outPeer(fd int32) int    { return int(-2 - fd) }

// sawWritable records that the one-shot EPOLLOUT event of event data fd has fired.
func (t *Transport) sawWritable(fd int32) {
	if l := t.link(outPeer(fd)); l != nil {
		if e := l.ep.Load(); e != nil {
			e.outArmed.Store(false)
		}
	}
}

// watch rings the doorbell for a sleeping engine: once armed, it blocks in epoll_wait
// on the streams (level-triggered, so data already waiting counts), rings, and waits
// to be armed again. While the engine is busy it is never armed and never runs.
func (t *Transport) watch() {
	defer t.wg.Done()
	var evs [8]unix.EpollEvent
	for range t.armCh {
		if t.closed.Load() {
			return
		}
		for {
			n, err := unix.EpollWait(t.epfd, evs[:], -1)
			for i := range max(n, 0) {
				if evs[i].Fd <= -2 {
					t.sawWritable(evs[i].Fd)
				}
			}
			if err != unix.EINTR {
				break
			}
		}
		if t.closed.Load() {
			return
		}
		t.armed.Store(false)
		t.bell.Ring()
	}
}
