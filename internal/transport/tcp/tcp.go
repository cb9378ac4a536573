// Package tcp is the TCP transport: it carries packets between ranks that share no
// memory (other nodes), or between any two ranks when shared memory is turned off.
//
// # Set-up
//
// Set-up has two phases around the process manager's fence:
//
//	t, err := tcp.New(client, tcp.Options{})   // listens, puts pm.KeyTCP (and the secret, on rank 0)
//	err = client.Fence()                       // the caller fences
//	err = t.Start()                            // reads the secret, starts accepting
//
// New listens on loopback when every rank is on one node, otherwise on the routable
// interfaces (setting tcp_interfaces chooses), and publishes the addresses as this
// rank's pm.KeyTCP. When no job secret (pm.KeySecret, job scope) is known yet, rank 0
// makes 32 random bytes and puts them, so the secret crosses the same fence as the
// addresses; a launcher that sets the secret itself takes precedence.
//
// A transport made by Open instead (open mode, open.go) reaches processes of other
// jobs: it needs no process manager, listens and accepts at once, and reaches exactly
// the peers added with Add, each with its Card.
//
// # Connections
//
// Each rank dials each peer it sends to, lazily, on the first Endpoint(peer); it reads
// from the connections its peers dialled to it, and a packet's Header.Src is the peer
// whose stream carried it (whatever its sender wrote there). So every ordered pair of ranks has its
// own one-way stream: per-peer order is TCP's order, and two ranks that dial each other
// at once need no tie-break. Every connection starts with a challenge-response handshake
// (handshake.go) proving that both sides know the job secret; the acceptor refuses
// garbage, a wrong secret or a replayed handshake before it reads any packet, and keeps
// serving the job.
//
// # Progress
//
// Poll reads the sockets itself, without blocking: with one or two incoming streams it
// reads each directly, with more it asks epoll_wait (zero timeout) which are readable;
// packets go to the handler straight from the stream's buffer. No goroutine sits
// between the socket and the engine, because on a machine whose cores all run
// busy-polling ranks, waking a reader thread for each packet costs a context switch,
// and that is most of a loopback round trip. For a rank that would rather sleep than
// spin, a watcher goroutine blocks in epoll_wait and rings the doorbell
// (Options.Doorbell, shared with shm, or Doorbell()) — but only once armed, so that a
// busy engine pays nothing. An engine calls Arm before it sleeps on the doorbell:
//
//	seq := bell.Seq()
//	if engine.poll() == 0 {
//		tcp.Arm()
//		if engine.poll() == 0 {
//			bell.Wait(seq, timeout)
//		}
//	}
//
// Poll also arms the watcher by itself after a millisecond without packets.
//
// Send writes header and payload with one sendmsg from a preallocated iovec and never
// blocks: a full socket gives ErrWouldBlock. A large packet is written only when the
// socket has room for all of it (SIOCOUTQ against SO_SNDBUF), because a packet the
// kernel took in part must have its tail copied aside (to be finished by later Sends
// and Polls), and in a stream into a full socket that would be nearly every fragment.
// When an armed engine sleeps with a send blocked, the watcher also waits for that
// socket to drain (EPOLLOUT). Nothing allocates per packet.
//
// Large messages travel as Pipeline fragments of at most MaxPayload bytes; there is no
// single-copy Get over TCP, but the receiving side copies once: a handler that can tell
// where a fragment belongs (Placer; the engine does, for contiguous receive buffers)
// has its payload read by the kernel straight into the receive buffer, as Open MPI's
// TCP BTL does for its RDMA-style puts, instead of through the stream buffer.
package tcp

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/transport"
)

var (
	interfacesSetting = config.String("tcp_interfaces", "",
		"network interfaces (names like eth0, or CIDR prefixes like 10.1.0.0/16), comma-separated, that the TCP transport listens on; empty: loopback when the job is on one node, else every routable interface").Rule(interfacesRule, checkInterfaces)
	maxPayloadSetting = config.Size("tcp_max_payload", 256<<10,
		"largest payload of one TCP packet: pipeline fragments of large messages are this big").Range(minMaxPayload, maxMaxPayload)
	// 4 MiB rather than autotuning, which starts a stream at 128 KiB and grows it only
	// as traffic goes by: on loopback the fixed size halved the 1 MiB ping-pong time
	// (docs/BENCHMARKS.md, TCP).
	socketBufferSetting = config.Size("tcp_socket_buffer", 4<<20,
		"SO_SNDBUF and SO_RCVBUF of every TCP stream (the kernel caps them at net.core.[rw]mem_max); 0 leaves them to the kernel's autotuning").Range(0, 1<<30).Live()
)

// Placer is implemented by a transport.Handler that can tell, from a packet's header,
// where its payload belongs (the point-to-point engine does, for the fragments of a
// pipelined message bound for a contiguous receive buffer). For a packet whose payload
// is still on its way, Poll asks Place, and if it returns a slice of exactly n bytes,
// reads the rest of the payload straight into it, over as many Polls as it takes, and
// finally calls Packet with that slice as the payload: the bytes are copied once, by
// the kernel, instead of twice. Place must not change the handler's state; between
// Place and Packet the destination must stay valid (it may receive nothing else).
type Placer interface {
	Place(h *transport.Header, n int) []byte
}

// placeMin is the smallest payload Poll offers to a Placer: below it, staging and
// copying cost less than the question.
const placeMin = 4 << 10

// frameSize is what precedes every payload on the wire: the payload length, a magic
// word that catches a stream out of step, and the transport.Header.
const frameSize = 8 + transport.HeaderSize

// frameMagic marks every frame ("MPGT"). byeMagic marks the last frame of a stream
// that Remove ends ("MPGB"): its reader then closes the stream without taking the peer
// for failed.
const (
	frameMagic = 0x5447504d
	byeMagic   = 0x4247504d
)

// Limits on MaxPayload: below the lower one, pipelining costs more in headers than it
// saves; above the upper one, per-connection buffers get silly.
const (
	minMaxPayload = 4 << 10
	maxMaxPayload = 64 << 20
)

// Options tune a Transport; the zero value is the default.
type Options struct {
	// Doorbell is rung when packets wait for Poll and the transport has been armed
	// (see Arm); pass the rank's doorbell so that shm and tcp wake one sleeper. The
	// zero value makes the transport use a doorbell of its own.
	Doorbell transport.Doorbell
	// MaxPayload is the largest payload of one packet; 0 takes setting tcp_max_payload.
	MaxPayload int
	// Interfaces overrides setting tcp_interfaces.
	Interfaces string
	// HandshakeTimeout bounds connecting and each handshake; 0 means 30 s.
	HandshakeTimeout time.Duration
	// PeerGone, if set, is called from Poll (in the polling goroutine) once for each
	// peer found dead or closed.
	PeerGone func(peer int, err error)
}

// Transport is the TCP transport of one rank (New), or of one process towards the
// processes of other jobs (Open).
type Transport struct {
	c          pm.Client // nil in open mode
	rank, size int       // job mode: this rank and the job's size
	maxPayload int
	timeout    time.Duration
	bell       transport.Doorbell
	peerGone   func(int, error)

	listeners []net.Listener
	addrs     []string
	secret    []byte // job mode: the job's; open mode: this process's, in its card
	started   atomic.Bool
	closed    atomic.Bool
	done      chan struct{} // closed by Close: ends connections held for an Add
	wg        sync.WaitGroup

	links  atomic.Pointer[linkTable]
	linkMu sync.Mutex
	open   *openState // nil in job mode (open.go)

	active   atomic.Pointer[[]*recvConn] // the streams peers dialled to us, for Poll to walk
	activeMu sync.Mutex
	epfd     int
	wakeFD   int // eventfd that ends the watcher at Close
	events   [64]unix.EpollEvent
	pollMu   sync.Mutex
	goneMu   sync.Mutex
	goneNew  atomic.Bool

	pending atomic.Int32 // endpoints holding the tail of a partly written packet
	blocked atomic.Int32 // endpoints whose last Send gave ErrWouldBlock

	idleSince int64 // monotonic ns of the first of a run of empty Polls, under pollMu
	armed     atomic.Bool
	armCh     chan struct{}
	refuse    refusals
}

// armAfter is how many consecutive empty Polls arm the watcher: a few tens of
// microseconds of spinning, longer than a loopback round trip, so a ping-pong never
// wakes it but an engine about to sleep has.
const armAfter = 64

// New listens, publishes this rank's address (and, on rank 0, a fresh job secret if
// none is known yet) with c.Put. The caller then fences and calls Start.
func New(c pm.Client, opts Options) (*Transport, error) {
	if c == nil {
		return nil, errors.New("TCP: New: the pm client is nil")
	}
	rank, size := c.Rank(), c.Size()
	if size <= 0 || rank < 0 || rank >= size {
		return nil, fmt.Errorf("TCP: New: rank %d of size %d: the rank must lie in [0, size)", rank, size)
	}
	t, err := newTransport(opts)
	if err != nil {
		return nil, err
	}
	t.c, t.rank, t.size = c, rank, size
	tab := &linkTable{ls: make([]*link, size)}
	for p := range tab.ls {
		if p != rank {
			tab.ls[p] = &link{peer: p}
		}
	}
	t.links.Store(tab)
	ifaces := opts.Interfaces
	if ifaces == "" {
		ifaces = interfacesSetting.Get()
	}
	hosts, err := listenHosts(ifaces, c.NumNodes() > 1)
	if err == nil {
		err = t.listen(hosts)
	}
	if err != nil {
		t.Close()
		return nil, err
	}
	if err := c.Put(pm.Proc, pm.KeyTCP, []byte(strings.Join(t.addrs, ","))); err != nil {
		t.Close()
		return nil, fmt.Errorf("TCP: publish address: %w", err)
	}
	if rank == 0 {
		if _, ok := c.Get(pm.Job, pm.KeySecret, 0); !ok {
			s := make([]byte, 32)
			if _, err := rand.Read(s); err != nil {
				t.Close()
				return nil, fmt.Errorf("TCP: make job secret: %w", err)
			}
			if err := c.Put(pm.Job, pm.KeySecret, s); err != nil {
				t.Close()
				return nil, fmt.Errorf("TCP: publish job secret: %w", err)
			}
		}
	}
	return t, nil
}

// newTransport makes what both modes share: the options in force, the epoll set and
// the eventfd that ends the watcher. It reaches nobody yet.
func newTransport(opts Options) (*Transport, error) {
	t := &Transport{
		rank: -1, maxPayload: opts.MaxPayload,
		timeout:  opts.HandshakeTimeout,
		bell:     opts.Doorbell,
		peerGone: opts.PeerGone,
		epfd:     -1, wakeFD: -1,
		armCh: make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
	t.links.Store(&linkTable{})
	if t.maxPayload == 0 {
		t.maxPayload = int(maxPayloadSetting.Get())
	}
	if t.maxPayload < minMaxPayload || t.maxPayload > maxMaxPayload {
		return nil, fmt.Errorf("TCP: max payload %d: must lie in [%d, %d]", t.maxPayload, minMaxPayload, maxMaxPayload)
	}
	if t.timeout <= 0 {
		t.timeout = 30 * time.Second
	}
	if t.bell == (transport.Doorbell{}) {
		t.bell = transport.NewLocalDoorbell()
	}
	var err error
	if t.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		t.Close()
		return nil, fmt.Errorf("TCP: epoll_create1: %w", err)
	}
	if t.wakeFD, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		t.Close()
		return nil, fmt.Errorf("TCP: eventfd: %w", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}
	if err := unix.EpollCtl(t.epfd, unix.EPOLL_CTL_ADD, t.wakeFD, &ev); err != nil {
		t.Close()
		return nil, fmt.Errorf("TCP: epoll_ctl: %w", err)
	}
	return t, nil
}

// listen opens a listener on an ephemeral port of each host.
func (t *Transport) listen(hosts []string) error {
	for _, h := range hosts {
		ln, err := net.Listen("tcp", net.JoinHostPort(h, "0"))
		if err != nil {
			return fmt.Errorf("TCP: listen on %s: %w", h, err)
		}
		t.listeners = append(t.listeners, ln)
		t.addrs = append(t.addrs, ln.Addr().String())
	}
	return nil
}

// Addrs are the addresses this rank listens on, as published.
func (t *Transport) Addrs() []string { return t.addrs }

// Start reads the job secret (visible after the fence that follows New) and starts
// accepting connections. It must be called once, after that fence.
func (t *Transport) Start() error {
	if t.closed.Load() {
		return errors.New("TCP: Start: the transport is closed")
	}
	if t.c == nil {
		return errors.New("TCP: Start: a transport made by Open has started already")
	}
	s, ok := t.c.Get(pm.Job, pm.KeySecret, 0)
	if !ok || len(s) < 16 {
		return fmt.Errorf("TCP: Start: job secret (key %v) missing or shorter than 16 bytes; fence after New and before Start", pm.KeySecret)
	}
	if !t.started.CompareAndSwap(false, true) {
		return errors.New("TCP: Start called twice")
	}
	t.secret = append([]byte(nil), s...)
	t.start()
	return nil
}

// start runs the accept loops and the watcher.
func (t *Transport) start() {
	for _, ln := range t.listeners {
		t.wg.Add(1)
		go t.acceptLoop(ln)
	}
	t.wg.Add(1)
	go t.watch()
}

// Name is "tcp".
func (t *Transport) Name() string { return "tcp" }

// Reaches reports whether the transport reaches peer: in a job, every other rank; in
// open mode, exactly the peers added and not removed.
func (t *Transport) Reaches(peer int) bool { return t.link(peer) != nil }

// Doorbell is the doorbell the transport rings when armed and packets wait.
func (t *Transport) Doorbell() transport.Doorbell { return t.bell }

// MaxPayload is the largest payload of one packet.
func (t *Transport) MaxPayload() int { return t.maxPayload }

// PeerErr returns why peer is gone (wrapping transport.ErrPeerGone), or nil.
func (t *Transport) PeerErr(peer int) error {
	l := t.link(peer)
	if l == nil {
		return nil
	}
	t.goneMu.Lock()
	defer t.goneMu.Unlock()
	return l.err
}

// who names peer in errors: a rank of the job, or a process of another job.
func (t *Transport) who(peer int) string {
	if t.open != nil {
		return fmt.Sprintf("process %d", peer)
	}
	return fmt.Sprintf("rank %d", peer)
}

// markGone records that l's peer is gone, closes both streams to and from it, and
// rings the doorbell so that a sleeping engine notices. The first cause is kept.
func (t *Transport) markGone(l *link, cause error) error {
	t.goneMu.Lock()
	err := l.err
	if err == nil {
		if cause == nil {
			err = fmt.Errorf("TCP: %s: %w", t.who(l.peer), transport.ErrPeerGone)
		} else {
			err = fmt.Errorf("TCP: %s: %w (%v)", t.who(l.peer), transport.ErrPeerGone, cause)
		}
		l.err = err
		l.gone.Store(true)
		t.goneNew.Store(true)
	}
	t.goneMu.Unlock()
	t.bell.Ring()
	return err
}

// Close shuts every socket, stops the goroutines and waits for them. Packets not yet
// written out are dropped: the engine finishes its sends before it closes.
func (t *Transport) Close() error {
	if !t.closed.CompareAndSwap(false, true) {
		return nil
	}
	close(t.done)
	for _, ln := range t.listeners {
		ln.Close()
	}
	if t.wakeFD >= 0 {
		var one = [8]byte{1}
		unix.Write(t.wakeFD, one[:])
	}
	select { // let the watcher see the eventfd if it waits to be armed
	case t.armCh <- struct{}{}:
	default:
	}
	t.wg.Wait()
	t.pollMu.Lock()
	defer t.pollMu.Unlock()
	t.each(func(l *link) {
		if e := l.ep.Load(); e != nil {
			e.mu.Lock()
			e.close()
			e.mu.Unlock()
		}
		if rc := l.recv.Swap(nil); rc != nil {
			unix.Close(rc.fd)
		}
	})
	if t.epfd >= 0 {
		unix.Close(t.epfd)
	}
	if t.wakeFD >= 0 {
		unix.Close(t.wakeFD)
	}
	return nil
}

// rawFD takes the socket out of Go's network poller: it duplicates the descriptor,
// makes the copy non-blocking, and closes the net.Conn (which unregisters the original
// from the runtime's epoll), so that no runtime thread is woken when data arrives.
func rawFD(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		c.Close()
		return -1, errors.New("TCP: connection has no file descriptor")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		c.Close()
		return -1, err
	}
	fd := -1
	var derr error
	if err := rc.Control(func(f uintptr) {
		fd, derr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		derr = err
	}
	c.Close()
	if derr != nil {
		return -1, fmt.Errorf("TCP: dup socket: %w", derr)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("TCP: set non-blocking: %w", err)
	}
	if n := socketBufferSetting.Get(); n > 0 {
		// Best effort: the kernel caps the values, and a refusal costs only speed.
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, int(min(n, 1<<30)))
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, int(min(n, 1<<30)))
	}
	return fd, nil
}

// Describe is one line for `mpigo info` and diagnostics: where this rank listens and how
// many connections it has refused (strangers, wrong secrets, replays).
func (t *Transport) Describe() string {
	n, _ := t.Refused()
	return fmt.Sprintf("listening on %s, %d connections refused, packets up to %d bytes",
		strings.Join(t.Addrs(), " "), n, t.maxPayload)
}
