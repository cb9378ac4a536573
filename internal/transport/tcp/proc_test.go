package tcp

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/topo"
	"github.com/mpigo/mpigo/internal/transport"
)

// The two-process tests re-run this test binary as rank 1 (TestChildRank, which does
// nothing unless MPIGO_TCP_CHILD names a mode). Rank 1 learns rank 0's address and the
// secret from its environment and tells its own address on its first line of output.

const stopKind = 99

// TestChildRank is rank 1 of the two-process tests. Modes: "echo" sends every packet
// back until one of kind stopKind arrives; "crash" exits, sockets open, at the first
// packet.
func TestChildRank(t *testing.T) {
	mode := os.Getenv("MPIGO_TCP_CHILD")
	if mode == "" {
		t.Skip("run by the two-process tests")
	}
	secret, _ := hex.DecodeString(os.Getenv("MPIGO_TCP_SECRET"))
	if cpu := os.Getenv("MPIGO_TCP_BIND"); cpu != "" {
		set, err := topo.ParseCPUList(cpu)
		if err == nil {
			err = topo.Bind(set)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	s := newStore(2)
	s.put(pm.Proc, pm.KeyTCP, 0, []byte(os.Getenv("MPIGO_TCP_ADDR0")))
	s.put(pm.Job, pm.KeySecret, 0, secret)
	tr, err := New(&fakeClient{s: s, rank: 1}, Options{HandshakeTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ADDR %s\n", tr.Addrs()[0])
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	e, err := tr.Endpoint(0)
	if err != nil {
		t.Fatal(err)
	}
	if mode == "sink" {
		sink(t, tr, e)
		return
	}
	ec := &echo{e: e, t: tr}
	for !ec.stop {
		tr.Poll(ec)
		if ec.err != nil {
			t.Fatal(ec.err)
		}
		if mode == "crash" && ec.n > 0 {
			os.Exit(7)
		}
	}
	tr.Close()
}

// sinkWindow is bw.c's window: the sink acknowledges every sinkWindow messages.
const sinkWindow = 64

// sink counts whole messages and sends a 4-byte ack after each window, until a
// packet of kind stopKind arrives.
func sink(t *testing.T, tr *Transport, e transport.Endpoint) {
	s := &side{t: tr, e: e, buf: make([]byte, 4), hdr: transport.Header{Src: 1}}
	for {
		for s.msgs < sinkWindow {
			if tr.Poll(s) > 0 && s.stopped {
				tr.Close()
				return
			}
		}
		s.msgs -= sinkWindow
		if err := s.sendMsg(4); err != nil {
			t.Fatal(err)
		}
	}
}

// echo sends each packet back as it arrives (the streams are separate, so a handler
// may send).
type echo struct {
	e    transport.Endpoint
	t    *Transport
	n    int
	stop bool
	err  error
	hdr  transport.Header
}

func (c *echo) Packet(h *transport.Header, p []byte) {
	c.n++
	if h.Kind == stopKind {
		c.stop = true
		return
	}
	c.hdr = *h
	c.hdr.Src = 1
	for {
		err := c.e.Send(&c.hdr, p)
		if err == nil || !errors.Is(err, transport.ErrWouldBlock) {
			c.err = err
			return
		}
		c.t.flushPending() // Poll would refuse to run inside itself
	}
}

// startChild starts rank 1 and returns rank 0's transport, connected both ways.
func startChild(t testing.TB, mode string) (*Transport, transport.Endpoint, *exec.Cmd) {
	return startChildBound(t, mode, -1)
}

// startChildBound is startChild with the child bound to CPU cpu (if cpu >= 0).
func startChildBound(t testing.TB, mode string, cpu int) (*Transport, transport.Endpoint, *exec.Cmd) {
	t.Helper()
	s := newStore(2)
	t0, err := New(&fakeClient{s: s, rank: 0}, Options{HandshakeTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { t0.Close() })
	secret, _ := (&fakeClient{s: s}).Get(pm.Job, pm.KeySecret, 0)
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildRank$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MPIGO_TCP_CHILD="+mode,
		"MPIGO_TCP_ADDR0="+t0.Addrs()[0], "MPIGO_TCP_SECRET="+hex.EncodeToString(secret))
	if cpu >= 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("MPIGO_TCP_BIND=%d", cpu))
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "ADDR ")
	if err != nil || !ok {
		t.Fatalf("child's first line %q: %v", line, err)
	}
	go func() { bufio.NewReader(out).WriteTo(&bytes.Buffer{}) }() // keep the pipe drained
	s.put(pm.Proc, pm.KeyTCP, 1, []byte(addr))
	if err := t0.Start(); err != nil {
		t.Fatal(err)
	}
	e, err := t0.Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	return t0, e, cmd
}

func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	t0, e, cmd := startChild(t, "echo")
	c := &collector{}
	sizes := []int{0, 8, 100, 4096, 65536, e.MaxPayload()}
	const rounds = 120
	more := deadline(t)
	start := time.Now()
	for i := range rounds {
		size := sizes[i%len(sizes)]
		h := transport.Header{Kind: 1, Src: 0, Tag: int32(i), Len: uint64(size)}
		send(t, e, &h, pattern(i, size), []*Transport{t0}, []transport.Handler{c})
		for len(c.got[1]) <= i && more() {
			t0.Poll(c)
		}
		p := c.got[1][i]
		if p.h.Tag != int32(i) || !bytes.Equal(p.payload, pattern(i, size)) {
			t.Fatalf("echo %d: tag %d, %d bytes", i, p.h.Tag, len(p.payload))
		}
	}
	t.Logf("%d round trips, sizes up to %d, in %v", rounds, e.MaxPayload(), time.Since(start))
	if err := e.Send(&transport.Header{Kind: stopKind}, nil); err != nil {
		t.Fatal(err)
	}
	// The child closes its transport and exits: rank 0 sees the peer gone.
	for t0.PeerErr(1) == nil && more() {
		t0.Poll(c)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("child: %v", err)
	}
}

func TestTwoProcessesCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	t0, e, cmd := startChild(t, "crash")
	c := &collector{}
	if err := e.Send(&transport.Header{Kind: 1}, []byte("die")); err != nil {
		t.Fatal(err)
	}
	more := deadline(t)
	for t0.PeerErr(1) == nil && more() {
		t0.Poll(c)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "exit status 7") {
		t.Errorf("child: %v", err)
	}
	// Sends to the dead rank fail with ErrPeerGone, naming it.
	err := e.Send(&transport.Header{Kind: 1}, []byte("anyone?"))
	if !errors.Is(err, transport.ErrPeerGone) || !strings.Contains(err.Error(), "rank 1") {
		t.Errorf("Send to a crashed peer: %v", err)
	}
}

// BenchmarkTwoProcessStream is bw.c's pattern between two processes: windows of 64
// messages, each window acknowledged by the receiver with 4 bytes.
func BenchmarkTwoProcessStream(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10, 1 << 20, 4 << 20} {
		b.Run(sizeName(size), func(b *testing.B) {
			t0, e, _ := startChildBound(b, "sink", bindPair(b))
			s := &side{t: t0, e: e, buf: make([]byte, size)}
			window := func() {
				for range sinkWindow {
					if err := s.sendMsg(size); err != nil {
						b.Fatal(err)
					}
				}
				s.waitMsgs(1, nil)
			}
			window() // warm up
			b.ReportAllocs()
			b.SetBytes(int64(sinkWindow * size))
			b.ResetTimer()
			for range b.N {
				window()
			}
			b.StopTimer()
			e.Send(&transport.Header{Kind: stopKind}, nil)
		})
	}
}

// BenchmarkTwoProcessPingPong is lat.c's ping-pong between two processes.
func BenchmarkTwoProcessPingPong(b *testing.B) {
	for _, size := range []int{8, 4 << 10, 256 << 10, 1 << 20} {
		b.Run(sizeName(size), func(b *testing.B) {
			t0, e, _ := startChildBound(b, "echo", bindPair(b))
			s := &side{t: t0, e: e, buf: make([]byte, size)}
			for range 100 { // warm up
				s.sendMsg(size)
				s.waitMsgs(1, nil)
			}
			b.ReportAllocs()
			b.SetBytes(int64(2 * size))
			b.ResetTimer()
			for range b.N {
				if err := s.sendMsg(size); err != nil {
					b.Fatal(err)
				}
				s.waitMsgs(1, nil)
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2/1e3, "us/one-way")
			e.Send(&transport.Header{Kind: stopKind}, nil)
		})
	}
}

// bindPair binds this process to the first core and returns the CPU of the second for
// the child, as mpirun --bind-to core places two ranks; -1 (no binding) on one core.
func bindPair(b *testing.B) int {
	m := topo.Machine()
	allowed, err := topo.Allowed()
	if err != nil || len(m.Cores) < 2 {
		return -1
	}
	if err := topo.Bind(m.CoreFor(0)); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { topo.Bind(allowed) })
	return m.CoreFor(1).First()
}
