package tcp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"
)

// The handshake, dialer D to acceptor A (the stream will carry D's packets to A):
//
//	D -> A  hello: magic "mpigoTCP", version, D's name, A's name, nonce_d (32 bytes)
//	A -> D  nonce_a (32 bytes), mac_a = HMAC(secret, "A" | hello | nonce_a)
//	D -> A  mac_d = HMAC(secret, "D" | hello | nonce_a)
//	A -> D  one byte: accepted
//
// Each side proves it knows the secret over a nonce the other side just chose, so a
// recorded handshake replayed later fails (nonce_a differs), and a process that does
// not know the secret learns nothing it can reuse. The names are inside the MACs, so a
// proof made for one pair is worth nothing for another.
//
// In a job (version 1) the names are the ranks (32 bits) and the secret is the job's.
// In open mode (version 2) they are the processes' random 64-bit ids from their cards,
// and the secret is A's, from its card: knowing it is what allows D in, and A then
// knows D by the id it gave.

const (
	helloMagic  = "mpigoTCP"
	jobVersion  = 1
	openVersion = 2
	nonceSize   = 32
	helloHead   = len(helloMagic) + 4
	accepted    = 0xA5
)

// helloSize is the length of a hello of version v, or 0 for an unknown version.
func helloSize(v uint32) int {
	switch v {
	case jobVersion:
		return helloHead + 4 + 4 + nonceSize
	case openVersion:
		return helloHead + 8 + 8 + nonceSize
	}
	return 0
}

func mac(secret []byte, role byte, hello, nonceA []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte{role})
	m.Write(hello)
	m.Write(nonceA)
	return m.Sum(nil)
}

// jobHello is rank t.rank's hello to rank peer (its nonce still to be drawn).
func (t *Transport) jobHello(peer int) []byte {
	hello := make([]byte, helloSize(jobVersion))
	copy(hello, helloMagic)
	binary.LittleEndian.PutUint32(hello[8:], jobVersion)
	binary.LittleEndian.PutUint32(hello[12:], uint32(t.rank))
	binary.LittleEndian.PutUint32(hello[16:], uint32(peer))
	return hello
}

// openHello is this process's hello to the process whose id is to.
func (t *Transport) openHello(to uint64) []byte {
	hello := make([]byte, helloSize(openVersion))
	copy(hello, helloMagic)
	binary.LittleEndian.PutUint32(hello[8:], openVersion)
	binary.LittleEndian.PutUint64(hello[12:], t.open.id)
	binary.LittleEndian.PutUint64(hello[20:], to)
	return hello
}

// dialHandshake runs the dialer's side over c with hello (its nonce is drawn here)
// and the acceptor's secret; it returns nil once the acceptor has accepted.
func (t *Transport) dialHandshake(c net.Conn, hello, secret []byte, peer int) error {
	c.SetDeadline(time.Now().Add(t.timeout))
	if _, err := rand.Read(hello[len(hello)-nonceSize:]); err != nil {
		return err
	}
	if _, err := c.Write(hello); err != nil {
		return fmt.Errorf("send hello: %w", err)
	}
	reply := make([]byte, nonceSize+sha256.Size)
	if _, err := io.ReadFull(c, reply); err != nil {
		return fmt.Errorf("read challenge (is %s listening there?): %w", t.who(peer), err)
	}
	nonceA, macA := reply[:nonceSize], reply[nonceSize:]
	if !hmac.Equal(macA, mac(secret, 'A', hello, nonceA)) {
		return errors.New("the peer does not prove knowledge of the secret")
	}
	if _, err := c.Write(mac(secret, 'D', hello, nonceA)); err != nil {
		return fmt.Errorf("send proof: %w", err)
	}
	var ack [1]byte
	if _, err := io.ReadFull(c, ack[:]); err != nil || ack[0] != accepted {
		return fmt.Errorf("the peer refused the connection: %v", err)
	}
	c.SetDeadline(time.Time{})
	return nil
}

// acceptHandshake runs the acceptor's side and returns the dialer's name: its rank in
// a job, its process id in open mode.
func (t *Transport) acceptHandshake(c net.Conn) (uint64, error) {
	c.SetDeadline(time.Now().Add(t.timeout))
	want := uint32(jobVersion)
	if t.open != nil {
		want = openVersion
	}
	hello := make([]byte, helloSize(want))
	if _, err := io.ReadFull(c, hello[:helloHead]); err != nil {
		return 0, fmt.Errorf("read hello: %w", err)
	}
	if string(hello[:8]) != helloMagic {
		return 0, errors.New("not an mpigo hello")
	}
	if v := binary.LittleEndian.Uint32(hello[8:]); v != want {
		return 0, fmt.Errorf("handshake version %d, want %d", v, want)
	}
	if _, err := io.ReadFull(c, hello[helloHead:]); err != nil {
		return 0, fmt.Errorf("read hello: %w", err)
	}
	from, err := t.checkHello(hello)
	if err != nil {
		return 0, err
	}
	nonceA := make([]byte, nonceSize)
	if _, err := rand.Read(nonceA); err != nil {
		return 0, err
	}
	if _, err := c.Write(append(nonceA, mac(t.secret, 'A', hello, nonceA)...)); err != nil {
		return 0, fmt.Errorf("send challenge: %w", err)
	}
	macD := make([]byte, sha256.Size)
	if _, err := io.ReadFull(c, macD); err != nil {
		return 0, fmt.Errorf("read proof: %w", err)
	}
	if !hmac.Equal(macD, mac(t.secret, 'D', hello, nonceA)) {
		if t.open != nil {
			return 0, fmt.Errorf("process %#x's proof does not match this process's secret (wrong card or replayed handshake)", from)
		}
		return 0, fmt.Errorf("rank %d's proof does not match the job secret (wrong secret or replayed handshake)", from)
	}
	return from, nil
}

// checkHello checks that hello is meant for this process and returns its sender's name.
func (t *Transport) checkHello(hello []byte) (uint64, error) {
	le := binary.LittleEndian
	if t.open != nil {
		from, to := le.Uint64(hello[12:]), le.Uint64(hello[20:])
		if to != t.open.id {
			return 0, fmt.Errorf("hello is for process %#x, this is process %#x", to, t.open.id)
		}
		if from == t.open.id {
			return 0, errors.New("hello from this process itself")
		}
		return from, nil
	}
	from := int(int32(le.Uint32(hello[12:])))
	to := int(int32(le.Uint32(hello[16:])))
	if to != t.rank {
		return 0, fmt.Errorf("hello is for rank %d, this is rank %d", to, t.rank)
	}
	if from < 0 || from >= t.size || from == t.rank {
		return 0, fmt.Errorf("hello from rank %d: must be another rank in [0, %d)", from, t.size)
	}
	return uint64(from), nil
}

// acceptLoop serves one listener until Close: each connection is authenticated in a
// goroutine of its own, so a slow or hostile client holds up nobody.
func (t *Transport) acceptLoop(ln net.Listener) {
	defer t.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if t.closed.Load() {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			// EMFILE and friends: keep serving rather than lose the job's listener.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			t.accept(c)
		}()
	}
}

func (t *Transport) accept(c net.Conn) {
	start := time.Now()
	from, err := t.acceptHandshake(c)
	if err != nil {
		t.refuse.add(c.RemoteAddr(), err)
		c.Close()
		return
	}
	if t.closed.Load() {
		c.Close()
		return
	}
	if t.open != nil {
		t.acceptOpen(c, from, start)
		return
	}
	// A second stream from the same rank is refused (addRecv checks again, atomically).
	// Packets the dialer sends right after the ack wait in the socket until addRecv
	// puts the stream in the epoll set, which is level-triggered.
	l := t.link(int(from))
	if l.recv.Load() != nil || t.PeerErr(l.peer) != nil {
		t.refuse.add(c.RemoteAddr(), fmt.Errorf("rank %d already has a stream here, or is gone", from))
		c.Close()
		return
	}
	fd, ok := t.acknowledge(c)
	if !ok {
		return
	}
	if err := t.addRecv(l, fd); err != nil {
		t.refuse.add(nil, err)
	}
}

// acknowledge tells the dialer that its stream is accepted and takes the socket out of
// Go's network poller (rawFD). It reports false, the connection closed, if either
// fails.
func (t *Transport) acknowledge(c net.Conn) (int, bool) {
	addr := c.RemoteAddr()
	if _, err := c.Write([]byte{accepted}); err != nil {
		c.Close()
		return -1, false
	}
	fd, err := rawFD(c)
	if err != nil {
		t.refuse.add(addr, err)
		return -1, false
	}
	return fd, true
}

// refusals keeps the last few refused connections, for diagnostics and tests.
type refusals struct {
	mu    sync.Mutex
	n     int
	cause []string
}

func (r *refusals) add(from net.Addr, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	s := err.Error()
	if from != nil {
		s = from.String() + ": " + s
	}
	if len(r.cause) == 16 {
		copy(r.cause, r.cause[1:])
		r.cause = r.cause[:15]
	}
	r.cause = append(r.cause, s)
}

// Refused reports how many incoming connections were refused, and the latest causes.
func (t *Transport) Refused() (int, string) {
	t.refuse.mu.Lock()
	defer t.refuse.mu.Unlock()
	return t.refuse.n, strings.Join(t.refuse.cause, "\n")
}
