package tcp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/transport"
)

// endpoint is this rank's stream to one peer. Everything a Send needs is
// preallocated here: the frame header, the iovec and the msghdr.
type endpoint struct {
	t    *Transport
	l    *link
	peer int

	mu  sync.Mutex
	fd  int
	err error // set once the stream is unusable; wraps ErrPeerGone
	hdr [frameSize]byte
	iov [2]unix.Iovec
	msg unix.Msghdr
	// pend holds the unwritten tail of a packet the kernel took only in part, so that
	// Send can return having "written out" the packet. Allocated on first need, once.
	pendBuf          []byte
	pendOff, pendEnd int
	// room is how many bytes the socket queues before a large write may be cut short:
	// three quarters of SO_SNDBUF as the kernel reports it (twice what was asked, to
	// cover its own overhead); 0 if the kernel autotunes the size (read it each time);
	// negative: no check (tests of partly written packets).
	room int
	opt  int32 // getsockopt's answer, here so that it does not escape per call
	optn uint32
	// queued bounds the bytes in the send queue: what SIOCOUTQ last said plus what
	// Send wrote since (the queue only shrinks by itself), so that a packet that fits
	// under the bound needs no ioctl. A packet counts whole once the kernel took
	// some of it.
	queued int
	// blocked: the last Send gave ErrWouldBlock (counted in Transport.blocked). Arm
	// then has the watcher wait for the socket to drain too (EPOLLOUT, one-shot):
	// inEpoll says the socket is in the epoll set, outArmed that the one-shot waits.
	blocked  bool
	inEpoll  bool
	outArmed atomic.Bool
}

// wouldBlock notes that Send could not write, for Arm, and says so.
func (e *endpoint) wouldBlock() error {
	if !e.blocked {
		e.blocked = true
		e.t.blocked.Add(1)
	}
	return transport.ErrWouldBlock
}

// roomCheckMin is the smallest payload for which Send first checks that the socket has
// room for the whole packet. A packet the kernel takes only in part leaves a tail that
// Send must copy aside, and with a stream of large fragments into a full socket that
// would be nearly every fragment: a second copy of the message on the sending side.
// Waiting for room instead costs an ioctl per large packet.
const roomCheckMin = 32 << 10

// hasRoom reports whether the socket will take n more bytes whole: the bytes still in
// its send queue (SIOCOUTQ) plus n fit in room, or the queue is empty (a packet larger
// than the whole buffer must go in pieces anyway). When unsure it says yes: sendmsg
// then decides.
func (e *endpoint) hasRoom(n int) bool {
	room := e.room
	if room < 0 { // tests: let the kernel cut packets short
		return true
	}
	if room > 0 && e.queued+n <= room {
		return true
	}
	var q int32
	if _, _, errno := unix.RawSyscall(unix.SYS_IOCTL, uintptr(e.fd), unix.SIOCOUTQ, uintptr(unsafe.Pointer(&q))); errno != 0 || q <= 0 {
		e.queued = 0
		return true
	}
	e.queued = int(q)
	if room == 0 {
		if room = e.sndbuf(); room == 0 {
			return true
		}
	}
	return int(q)+n <= room
}

// sndbuf is three quarters of SO_SNDBUF, or 0 if it cannot be read.
func (e *endpoint) sndbuf() int {
	e.optn = 4
	_, _, errno := unix.RawSyscall6(unix.SYS_GETSOCKOPT, uintptr(e.fd), unix.SOL_SOCKET, unix.SO_SNDBUF,
		uintptr(unsafe.Pointer(&e.opt)), uintptr(unsafe.Pointer(&e.optn)), 0)
	if errno != 0 || e.opt <= 0 {
		return 0
	}
	return int(e.opt) / 4 * 3
}

// Endpoint returns the stream to peer, dialling and authenticating it on first use.
// Start must have been called (a transport made by Open has started).
func (t *Transport) Endpoint(peer int) (transport.Endpoint, error) {
	l := t.link(peer)
	if l == nil {
		if t.open != nil {
			return nil, fmt.Errorf("TCP: Endpoint(%d): no process was added as peer %d", peer, peer)
		}
		return nil, fmt.Errorf("TCP: Endpoint(%d): peer must be another rank in [0, %d), not %d itself", peer, t.size, t.rank)
	}
	if t.closed.Load() {
		return nil, fmt.Errorf("TCP: Endpoint(%d): the transport is closed", peer)
	}
	if !t.started.Load() {
		return nil, fmt.Errorf("TCP: Endpoint(%d): call Start (after the fence that follows New) first", peer)
	}
	if l.gone.Load() {
		return nil, t.PeerErr(peer)
	}
	if e := l.ep.Load(); e != nil {
		return e, nil
	}
	l.dialMu.Lock()
	defer l.dialMu.Unlock()
	if e := l.ep.Load(); e != nil {
		return e, nil
	}
	if l.removed.Load() {
		return nil, fmt.Errorf("TCP: Endpoint(%d): the peer was removed", peer)
	}
	if err := t.PeerErr(peer); err != nil {
		return nil, err
	}
	fd, err := t.dial(l)
	if err != nil {
		return nil, err
	}
	e := &endpoint{t: t, l: l, peer: peer, fd: fd}
	e.msg.Iov = &e.iov[0]
	if socketBufferSetting.Get() > 0 {
		e.room = e.sndbuf() // fixed, since set explicitly; 0 (unknown) reads it each time
	}
	l.ep.Store(e)
	if t.closed.Load() { // Close ran meanwhile and may have missed it
		e.mu.Lock()
		e.close()
		e.mu.Unlock()
	}
	return e, nil
}

// dial connects to l's peer at its addresses in turn and authenticates: a rank of the
// job at the addresses it published, a process added in open mode at its card's.
func (t *Transport) dial(l *link) (int, error) {
	var addrs []string
	var hello, secret []byte
	if l.card != nil {
		addrs, hello, secret = l.card.dialOrder(t.open.host), t.openHello(l.card.id), l.card.secret
	} else {
		v, ok := t.c.Get(pm.Proc, pm.KeyTCP, l.peer)
		if !ok || len(v) == 0 {
			return -1, fmt.Errorf("TCP: rank %d published no address (key %v)", l.peer, pm.KeyTCP)
		}
		addrs, hello, secret = strings.Split(string(v), ","), t.jobHello(l.peer), t.secret
	}
	var errs []error
	d := net.Dialer{Timeout: t.timeout}
	for _, addr := range addrs {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := t.dialHandshake(c, hello, secret, l.peer); err != nil {
			c.Close()
			errs = append(errs, fmt.Errorf("handshake with %s: %w", addr, err))
			continue
		}
		return rawFD(c)
	}
	return -1, fmt.Errorf("TCP: connect to %s: %w", t.who(l.peer), errors.Join(errs...))
}

// MaxPayload is the largest payload one Send takes.
func (e *endpoint) MaxPayload() int { return e.t.maxPayload }

// Models are the costs measured on loopback (see models.go).
func (e *endpoint) Models() []transport.Model { return e.t.models() }

// putFrame writes the frame header: payload length, magic, then the Header fields in
// little-endian order, as the receiver's getFrame reads them.
func putFrame(b *[frameSize]byte, h *transport.Header, n int) {
	le := binary.LittleEndian
	le.PutUint32(b[0:], uint32(n))
	le.PutUint32(b[4:], frameMagic)
	b[8], b[9], b[10], b[11] = h.Kind, h.Flags, 0, 0
	le.PutUint32(b[12:], uint32(h.Src))
	le.PutUint32(b[16:], h.Context)
	le.PutUint32(b[20:], uint32(h.Tag))
	le.PutUint64(b[24:], h.Len)
	le.PutUint64(b[32:], h.SendID)
	le.PutUint64(b[40:], h.RecvID)
	le.PutUint64(b[48:], h.Addr)
	le.PutUint64(b[56:], h.Offset)
}

// sendmsg is sendmsg(2) without the allocations of the x/sys wrapper, and with
// MSG_NOSIGNAL, so that a dead peer gives EPIPE and never SIGPIPE. The socket is
// non-blocking, so the call cannot park the thread, and the raw form skips the
// scheduler's system-call bookkeeping on every packet.
func sendmsg(fd int, msg *unix.Msghdr) (int, unix.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(msg)),
		unix.MSG_NOSIGNAL|unix.MSG_DONTWAIT)
	return int(r), e
}

// read is read(2) on a non-blocking socket, raw for the same reason as sendmsg.
func read(fd int, b []byte) (int, unix.Errno) {
	if len(b) == 0 {
		return 0, unix.EINVAL
	}
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	return int(r), e
}

// readv is readv(2) on a non-blocking socket, raw like read.
func readv(fd int, iov *[2]unix.Iovec) (int, unix.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_READV, uintptr(fd), uintptr(unsafe.Pointer(&iov[0])), 2)
	return int(r), e
}

// Send writes one packet with a single sendmsg. A socket with no room gives
// ErrWouldBlock with nothing written, and so does one without room for the whole of a
// large packet (hasRoom); if the kernel takes part of a packet all the same, the rest
// is copied aside and written by later Sends or Polls, and Send returns nil.
func (e *endpoint) Send(h *transport.Header, payload []byte) error {
	if h == nil {
		return errors.New("TCP: Send: header is nil")
	}
	if len(payload) > e.t.maxPayload {
		return fmt.Errorf("TCP: Send: payload of %d bytes exceeds MaxPayload %d; fragment it", len(payload), e.t.maxPayload)
	}
	if e.l.gone.Load() {
		return e.t.PeerErr(e.peer)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return e.err
	}
	if e.pendEnd > e.pendOff {
		if err := e.flush(); err != nil {
			return err
		}
		if e.pendEnd > e.pendOff {
			return e.wouldBlock()
		}
	}
	if len(payload) >= roomCheckMin && !e.hasRoom(frameSize+len(payload)) {
		return e.wouldBlock()
	}
	putFrame(&e.hdr, h, len(payload))
	e.iov[0].Base = &e.hdr[0]
	e.iov[0].SetLen(frameSize)
	niov := 1
	if len(payload) > 0 {
		e.iov[1].Base = &payload[0]
		e.iov[1].SetLen(len(payload))
		niov = 2
	}
	e.msg.SetIovlen(niov)
	total := frameSize + len(payload)
	n, errno := sendmsg(e.fd, &e.msg)
	for errno == unix.EINTR {
		n, errno = sendmsg(e.fd, &e.msg)
	}
	e.iov[1].Base = nil // do not keep the caller's buffer alive
	if n > 0 {
		e.queued += total // the tail, if any, is written later
	}
	switch {
	case errno == unix.EAGAIN:
		return e.wouldBlock()
	case errno != 0:
		return e.fail(errno)
	case n < total:
		e.keep(payload, n)
	}
	if e.blocked {
		e.blocked = false
		e.t.blocked.Add(-1)
	}
	return nil
}

// keep saves what sendmsg left of the packet just sent (it wrote n bytes).
func (e *endpoint) keep(payload []byte, n int) {
	if e.pendBuf == nil {
		e.pendBuf = make([]byte, frameSize+e.t.maxPayload)
	}
	m := 0
	if n < frameSize {
		m = copy(e.pendBuf, e.hdr[n:])
		m += copy(e.pendBuf[m:], payload)
	} else {
		m = copy(e.pendBuf, payload[n-frameSize:])
	}
	e.pendOff, e.pendEnd = 0, m
	e.t.pending.Add(1)
}

// flush writes as much of the kept tail as the socket takes.
func (e *endpoint) flush() error {
	buf := e.pendBuf
	for e.pendEnd > e.pendOff {
		e.iov[0].Base = &buf[e.pendOff]
		e.iov[0].SetLen(e.pendEnd - e.pendOff)
		e.msg.SetIovlen(1)
		n, errno := sendmsg(e.fd, &e.msg)
		switch {
		case errno == unix.EINTR:
			continue
		case errno == unix.EAGAIN:
			return nil
		case errno != 0:
			return e.fail(errno)
		}
		e.pendOff += n
	}
	e.pendOff, e.pendEnd = 0, 0
	e.t.pending.Add(-1)
	return nil
}

// fail marks the stream, and the peer, gone.
func (e *endpoint) fail(errno unix.Errno) error {
	e.err = e.t.markGone(e.l, fmt.Errorf("send: %v", errno))
	e.close()
	return e.err
}

func (e *endpoint) close() {
	if e.fd >= 0 {
		unix.Close(e.fd)
		e.fd = -1
	}
	if e.err == nil {
		e.err = fmt.Errorf("TCP: %s: %w (transport closed)", e.t.who(e.peer), transport.ErrPeerGone)
	}
	if e.pendEnd > e.pendOff {
		e.pendOff, e.pendEnd = 0, 0
		e.t.pending.Add(-1)
	}
	if e.blocked {
		e.blocked = false
		e.t.blocked.Add(-1)
	}
}
