package tcp

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/transport"
)

// Open mode: a transport that reaches processes of other jobs (spawned children, their
// parents, jobs joined through a port), which share no process manager and no fence
// with this one.
//
//	t, err := tcp.Open(tcp.Options{})  // listens and accepts at once
//	card := t.Card()                    // hand it to the other processes, by any means
//	err = t.Add(peer, theirCard)        // peer: this process's index for theirs
//	...
//	t.Remove(peer)                      // both streams end; the peer is forgotten
//
// A card carries what another process needs to reach this one: the addresses it
// listens on, a random 64-bit process id, and a secret. A dialer proves that it knows
// the acceptor's secret and says its own id; the acceptor knows the stream's peer by
// that id, mapped to the index its caller gave with Add. A process may learn of this
// one (and dial) before this one learns of it: its stream is accepted and held,
// unread, until Add names it, or dropped after the handshake timeout. Packets arrive
// with Header.Src set to this process's index of their sender.
//
// Open listens on loopback and on every routable IPv4 address (or, when setting
// tcp_interfaces is set, only on the addresses it names), and a dialer tries the
// loopback addresses first when the card's process is on its host (the same kernel
// and network namespace), last otherwise.

// openState is what a transport in open mode has beyond a job's: its id, its host's
// key, the peers by id (under linkMu) and the signal of the next Add.
type openState struct {
	id    uint64
	host  string
	card  []byte
	byID  map[uint64]*link
	added chan struct{} // closed and replaced by every Add
}

// Open makes a transport in open mode: it listens and accepts at once, and reaches
// exactly the peers added with Add. It needs no process manager and no Start.
func Open(opts Options) (*Transport, error) {
	t, err := newTransport(opts)
	if err != nil {
		return nil, err
	}
	o := &openState{host: hostKey(), byID: map[uint64]*link{}, added: make(chan struct{})}
	var id [8]byte
	t.secret = make([]byte, 32)
	if _, err := rand.Read(id[:]); err == nil {
		_, err = rand.Read(t.secret)
	}
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("TCP: Open: make process id and secret: %w", err)
	}
	o.id = binary.LittleEndian.Uint64(id[:])
	t.open = o
	spec := opts.Interfaces
	if spec == "" {
		spec = interfacesSetting.Get()
	}
	hosts, err := openHosts(spec)
	if err == nil {
		err = t.listen(hosts)
	}
	if err != nil {
		t.Close()
		return nil, err
	}
	o.card = (&card{id: o.id, secret: t.secret, host: o.host, addrs: t.addrs}).encode()
	t.started.Store(true)
	t.start()
	return t, nil
}

// openHosts are the addresses an open transport listens on: those tcp_interfaces
// names, or loopback and every routable IPv4 address, so that processes on this host
// and on others can reach it.
func openHosts(spec string) ([]string, error) {
	if strings.TrimSpace(spec) != "" {
		return listenHosts(spec, true)
	}
	hosts := []string{"127.0.0.1"}
	if more, err := listenHosts("", true); err == nil {
		hosts = append(hosts, more...)
	}
	return hosts, nil
}

// hostKey names this kernel and network namespace: processes with the same key reach
// each other over loopback. "" when it cannot be told.
func hostKey() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(boot)) + "/" + ns
}

// Card is what another process needs to reach this one (Add's argument there): its
// addresses, process id and secret. Only a transport made by Open has one (nil
// otherwise). Whoever holds the card may connect: hand it over only to processes that
// are to be reached.
func (t *Transport) Card() []byte {
	if t.open == nil {
		return nil
	}
	return append([]byte(nil), t.open.card...)
}

// Add makes the process whose card is card reachable as peer (an index of the
// caller's choosing, unique among the peers added and not removed), and lets in its
// stream if it has dialled already.
func (t *Transport) Add(peer int, card []byte) error {
	if t.open == nil {
		return errors.New("TCP: Add: only a transport made by Open reaches other jobs' processes")
	}
	if peer < 0 || peer > math.MaxInt32 {
		return fmt.Errorf("TCP: Add: peer %d out of range [0, %d]", peer, math.MaxInt32)
	}
	c, err := parseCard(card)
	if err != nil {
		return fmt.Errorf("TCP: Add(%d): %w", peer, err)
	}
	if t.closed.Load() {
		return fmt.Errorf("TCP: Add(%d): the transport is closed", peer)
	}
	t.linkMu.Lock()
	defer t.linkMu.Unlock()
	switch {
	case c.id == t.open.id:
		return fmt.Errorf("TCP: Add(%d): the card is this process's own", peer)
	case t.link(peer) != nil:
		return fmt.Errorf("TCP: Add(%d): peer %d is added already", peer, peer)
	case t.open.byID[c.id] != nil:
		return fmt.Errorf("TCP: Add(%d): the card's process is added already, as peer %d", peer, t.open.byID[c.id].peer)
	}
	l := &link{peer: peer, card: c}
	t.setLink(peer, l)
	t.open.byID[c.id] = l
	close(t.open.added)
	t.open.added = make(chan struct{})
	return nil
}

// Remove ends both streams with peer and forgets it: Reaches(peer) is false after
// (until an Add of that index, for whatever process). Packets sent to it before reach it, ahead of
// a last frame that tells it the end is no failure. Remove must not be called from
// inside Poll (a handler). A peer not added is left alone.
func (t *Transport) Remove(peer int) {
	if t.open == nil {
		return
	}
	t.linkMu.Lock()
	l := t.link(peer)
	if l != nil {
		t.setLink(peer, nil)
		delete(t.open.byID, l.card.id)
	}
	t.linkMu.Unlock()
	if l == nil {
		return
	}
	l.dialMu.Lock()
	l.removed.Store(true)
	e := l.ep.Load()
	l.dialMu.Unlock()
	if e != nil {
		e.mu.Lock()
		e.bye()
		e.close()
		e.mu.Unlock()
	}
	t.pollMu.Lock()
	if rc := l.recv.Load(); rc != nil {
		t.endRecv(rc)
	}
	t.pollMu.Unlock()
}

// bye ends e's stream in order: the tail of a partly written packet, then the bye
// frame, waiting up to the handshake timeout for room (the socket turns blocking, as
// it is about to close).
func (e *endpoint) bye() {
	if e.fd < 0 || e.err != nil {
		return
	}
	var frame [frameSize]byte
	putFrame(&frame, &transport.Header{}, 0)
	binary.LittleEndian.PutUint32(frame[4:], byeMagic)
	rest := append(e.pendBuf[e.pendOff:e.pendEnd:e.pendEnd], frame[:]...)
	tv := unix.NsecToTimeval(int64(e.t.timeout))
	if unix.SetNonblock(e.fd, false) != nil || unix.SetsockoptTimeval(e.fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv) != nil {
		return
	}
	for len(rest) > 0 {
		n, err := unix.SendmsgN(e.fd, rest, nil, nil, unix.MSG_NOSIGNAL)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return
		}
		rest = rest[n:]
	}
}

// acceptOpen finishes an open-mode connection whose dialer (process id from) proved it
// knows this process's secret: the stream is accepted at once and held, unread, until
// an Add names its process, and dropped if none has by the handshake timeout (counted
// from start).
func (t *Transport) acceptOpen(c net.Conn, from uint64, start time.Time) {
	addr := c.RemoteAddr()
	fd, ok := t.acknowledge(c)
	if !ok {
		return
	}
	l := t.awaitAdd(from, start.Add(t.timeout))
	if l == nil {
		unix.Close(fd)
		t.refuse.add(addr, fmt.Errorf("process %#x was not added within %v", from, t.timeout))
		return
	}
	if err := t.addRecv(l, fd); err != nil {
		t.refuse.add(addr, err)
	}
}

// awaitAdd returns the link of the process whose id is id, waiting for its Add until
// deadline; nil if none came (or the transport closed).
func (t *Transport) awaitAdd(id uint64, deadline time.Time) *link {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		t.linkMu.Lock()
		l, added := t.open.byID[id], t.open.added
		t.linkMu.Unlock()
		if l != nil {
			return l
		}
		select {
		case <-added:
		case <-timer.C:
			return nil
		case <-t.done:
			return nil
		}
	}
}

// card is a process's card, decoded.
type card struct {
	id     uint64
	secret []byte
	host   string
	addrs  []string
}

// The card's encoding: magic "MPGC", version byte, id (8 bytes, little-endian), then
// secret, host key and each address as a 2-byte length and the bytes, the addresses
// preceded by their count (2 bytes).
const (
	cardMagic   = "MPGC"
	cardVersion = 1
)

func (c *card) encode() []byte {
	b := append([]byte(cardMagic), cardVersion)
	b = binary.LittleEndian.AppendUint64(b, c.id)
	str := func(s []byte) {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	str(c.secret)
	str([]byte(c.host))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(c.addrs)))
	for _, a := range c.addrs {
		str([]byte(a))
	}
	return b
}

var errCard = errors.New("not a card of mpigo's TCP transport")

// parseCard decodes a card, refusing one that is cut short, too long, or has no
// address or a secret shorter than 16 bytes.
func parseCard(b []byte) (*card, error) {
	if len(b) < len(cardMagic)+1+8 || string(b[:len(cardMagic)]) != cardMagic {
		return nil, errCard
	}
	if v := b[len(cardMagic)]; v != cardVersion {
		return nil, fmt.Errorf("card version %d, want %d", v, cardVersion)
	}
	b = b[len(cardMagic)+1:]
	c := &card{id: binary.LittleEndian.Uint64(b)}
	b = b[8:]
	str := func() ([]byte, bool) {
		if len(b) < 2 {
			return nil, false
		}
		n := int(binary.LittleEndian.Uint16(b))
		if len(b) < 2+n {
			return nil, false
		}
		s := b[2 : 2+n]
		b = b[2+n:]
		return s, true
	}
	secret, ok1 := str()
	host, ok2 := str()
	if !ok1 || !ok2 || len(b) < 2 {
		return nil, fmt.Errorf("%w: cut short", errCard)
	}
	c.secret, c.host = append([]byte(nil), secret...), string(host)
	n := int(binary.LittleEndian.Uint16(b))
	b = b[2:]
	for range n {
		a, ok := str()
		if !ok {
			return nil, fmt.Errorf("%w: cut short", errCard)
		}
		c.addrs = append(c.addrs, string(a))
	}
	switch {
	case len(b) != 0:
		return nil, fmt.Errorf("%w: %d bytes too many", errCard, len(b))
	case len(c.secret) < 16:
		return nil, fmt.Errorf("card's secret has %d bytes, fewer than 16", len(c.secret))
	case len(c.addrs) == 0:
		return nil, errors.New("card has no address")
	}
	return c, nil
}

// dialOrder is the card's addresses in the order to try them from a process whose
// host key is host: loopback first on the card's own host, last elsewhere (where it is
// some other process's, refused by the handshake).
func (c *card) dialOrder(host string) []string {
	var lo, other []string
	for _, a := range c.addrs {
		h, _, _ := net.SplitHostPort(a)
		if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
			lo = append(lo, a)
		} else {
			other = append(other, a)
		}
	}
	if host != "" && host == c.host {
		return append(lo, other...)
	}
	return append(other, lo...)
}
