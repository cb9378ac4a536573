package shm

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/idle"
	"github.com/mpigo/mpigo/internal/transport"
)

// Tests with real processes: the test binary re-executes itself as TestChild with the
// role in the environment. The parent is rank 0 and joins through the same file-based
// test pm as its children.

const (
	envRole   = "MPIGO_SHM_TEST_ROLE"
	envDir    = "MPIGO_SHM_TEST_DIR"
	envJob    = "MPIGO_SHM_TEST_JOB"
	envRank   = "MPIGO_SHM_TEST_RANK"
	envSize   = "MPIGO_SHM_TEST_SIZE"
	envMemory = "MPIGO_SHM_TEST_MEMORY"
)

// Packet kinds of the test protocol.
const (
	kData = iota + 1
	kStop
	kFrag
	kSync
	kAck
	kRTS
	kFin
)

type job struct {
	dir, job, memory string
	size             int
	kids             []*exec.Cmd
	logs             []*bytes.Buffer
}

// startJob starts ranks 1..size-1 with role and returns rank 0's started transport.
func startJob(t testing.TB, role string, size int, memory string) (*job, *Transport) {
	t.Helper()
	j := &job{dir: t.TempDir(), job: testJob(t), memory: memory, size: size}
	for r := 1; r < size; r++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), envRole+"="+role, envDir+"="+j.dir, envJob+"="+j.job,
			envRank+"="+strconv.Itoa(r), envSize+"="+strconv.Itoa(size), envMemory+"="+memory)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		j.kids = append(j.kids, cmd)
		j.logs = append(j.logs, &log)
	}
	t.Cleanup(func() {
		for i, k := range j.kids {
			if k.ProcessState == nil {
				k.Process.Kill()
				k.Wait()
			}
			if t.Failed() {
				t.Logf("rank %d output:\n%s", i+1, j.logs[i])
			}
		}
	})
	tr, err := join(newFilePM(j.dir, j.job, 0, size), memory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return j, tr
}

func join(c *filePM, memory string) (*Transport, error) {
	tr, err := New(c, Options{Memory: memory})
	if err != nil {
		return nil, err
	}
	if err := c.Fence(); err != nil {
		tr.Close()
		return nil, err
	}
	return tr, tr.Start()
}

// wait reaps the children and fails on any that did not exit cleanly.
func (j *job) wait(t testing.TB) {
	t.Helper()
	for i, k := range j.kids {
		if err := k.Wait(); err != nil {
			t.Errorf("rank %d: %v\n%s", i+1, err, j.logs[i])
		}
	}
}

func TestChild(t *testing.T) {
	role := os.Getenv(envRole)
	if role == "" {
		t.Skip("helper process for the multi-process tests")
	}
	rank, _ := strconv.Atoi(os.Getenv(envRank))
	size, _ := strconv.Atoi(os.Getenv(envSize))
	pin(rank)
	tr, err := join(newFilePM(os.Getenv(envDir), os.Getenv(envJob), rank, size), os.Getenv(envMemory))
	if err == nil {
		err = children[role](tr)
		tr.Close()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "rank %d (%s): %v\n", rank, role, err)
		os.Exit(1)
	}
	os.Exit(0)
}

var children = map[string]func(*Transport) error{
	"echo":     childEcho,
	"sink":     childSink,
	"cma":      childCMA,
	"allocmem": childAllocMem,
	"sendhang": childSendHang,
	"alltoall": childAllToAll,
	"echotake": childEchoTake,
}

// handlerFunc adapts a function to transport.Handler.
type handlerFunc func(h *transport.Header, payload []byte)

func (f handlerFunc) Packet(h *transport.Header, payload []byte) { f(h, payload) }

// serve polls until stop is set, giving up after a minute of silence.
func serve(tr *Transport, h transport.Handler, stop *bool) error {
	idle := 0
	last := time.Now()
	for !*stop {
		if tr.Poll(h) > 0 {
			idle = 0
			continue
		}
		if idle++; idle%(1<<20) == 0 {
			if time.Since(last) > time.Minute {
				return errors.New("no packet for a minute")
			}
			last = time.Now()
		}
	}
	return nil
}

// mustSend retries ErrWouldBlock, polling meanwhile (the handler may be nil-safe).
func mustSend(tr *Transport, e transport.Endpoint, h *transport.Header, p []byte, poll transport.Handler) error {
	for i := 0; ; i++ {
		err := e.Send(h, p)
		if !errors.Is(err, transport.ErrWouldBlock) {
			return err
		}
		if poll != nil {
			tr.Poll(poll)
		}
		if i > 1<<30 {
			return errors.New("ring full for ever")
		}
	}
}

func childEcho(tr *Transport) error {
	e, err := tr.Endpoint(0)
	if err != nil {
		return err
	}
	stop := false
	var serr error
	h := handlerFunc(func(h *transport.Header, p []byte) {
		if h.Kind == kStop {
			stop = true
			return
		}
		if err := mustSend(tr, e, h, p, nil); err != nil {
			serr = err
			stop = true
		}
	})
	if err := serve(tr, h, &stop); err != nil {
		return err
	}
	return serr
}

// childEchoTake answers each compact packet from rank 0 with its payload, as the short
// ways do: Take and SendCompact, the polls of p2p's pollHead between. An empty packet
// ends it.
func childEchoTake(tr *Transport) error {
	e, err := tr.Endpoint(0)
	if err != nil {
		return err
	}
	o := e.(*outbound)
	if err := sendCompact(o, 1, nil); err != nil { // rank 0 attaches this ring on it
		return err
	}
	in, err := takerOf(tr, 0)
	if err != nil {
		return err
	}
	buf := make([]byte, inlineMax)
	for {
		n, err := takeWait(in, buf)
		if err != nil || n == 0 {
			return err
		}
		if err := sendCompact(o, 1, buf[:n]); err != nil {
			return err
		}
	}
}

// takerOf is this rank's inbound ring from peer, once peer has claimed it (no packet
// is drained meanwhile), or an error after a minute without it.
func takerOf(tr *Transport, peer int) (*inbound, error) {
	start := time.Now()
	for {
		tr.attach()
		if p := tr.PeerPoll(peer); p != nil {
			return p.(*inbound), nil
		}
		if time.Since(start) > time.Minute {
			return nil, fmt.Errorf("rank %d never claimed its ring", peer)
		}
	}
}

// takeWait takes the next compact packet of the take benchmark into buf, polling as
// p2p's pollHead does; after a minute of silence it gives up (a peer that died sends
// nothing more).
func takeWait(in *inbound, buf []byte) (int, error) {
	var start time.Time
	for {
		switch n, _, k := in.Take(kData, int32(in.src), takeCtx, takeTag, false, buf); k {
		case 1:
			return n, nil
		case -1:
			return 0, errors.New("take: another packet at the head")
		}
		if !pollHead(in, 1<<16) {
			if start.IsZero() {
				start = time.Now()
			} else if time.Since(start) > time.Minute {
				return 0, fmt.Errorf("no packet from rank %d for a minute", in.src)
			}
		}
	}
}

// pollHead is p2p's pollHead on in: up to polls polls of its head, a pause after each
// miss; true if a packet came.
//
//go:noinline
func pollHead(in *inbound, polls int) bool {
	for ; polls > 0; polls-- {
		if in.Arrived() {
			return true
		}
		idle.Pause()
	}
	return false
}

// sendCompact sends payload as src in a compact cell, retrying a full ring.
func sendCompact(o *outbound, src int32, payload []byte) error {
	for {
		err := o.SendCompact(kData, src, takeCtx, takeTag, payload)
		if !errors.Is(err, transport.ErrWouldBlock) {
			return err
		}
	}
}

// The take benchmark's context and tag.
const takeCtx, takeTag = 7, 3

// childSink takes pipelined fragments (verifying the pattern when Flags is 1) and
// single-copy requests, and acknowledges syncs and gets.
func childSink(tr *Transport) error {
	e, err := tr.Endpoint(0)
	if err != nil {
		return err
	}
	buf := make([]byte, 8<<20)
	stop := false
	var serr error
	reply := func(kind uint8, id uint64) {
		if err := mustSend(tr, e, &transport.Header{Kind: kind, SendID: id}, nil, nil); err != nil {
			serr, stop = err, true
		}
	}
	h := handlerFunc(func(h *transport.Header, p []byte) {
		switch h.Kind {
		case kStop:
			stop = true
		case kFrag:
			copy(buf[h.Offset:], p)
			if h.Flags == 1 && h.Offset+uint64(len(p)) == h.Len {
				want := fill(make([]byte, h.Len), int(h.Tag))
				if !bytes.Equal(buf[:h.Len], want) {
					serr, stop = fmt.Errorf("message %d of %d bytes arrived corrupted", h.Tag, h.Len), true
					return
				}
				reply(kAck, h.SendID)
			}
		case kSync:
			reply(kAck, h.SendID)
		case kRTS:
			if err := tr.ReadFrom(0, buf[:h.Len], h.Addr); err != nil {
				serr, stop = err, true
				return
			}
			reply(kFin, h.SendID)
		}
	})
	if err := serve(tr, h, &stop); err != nil {
		return err
	}
	return serr
}

// childCMA offers a buffer to rank 0 for a single-copy read and waits for kFin.
func childCMA(tr *Transport) error {
	e, err := tr.Endpoint(0)
	if err != nil {
		return err
	}
	buf := fill(make([]byte, 5<<20+3), 11)
	if err := mustSend(tr, e, &transport.Header{Kind: kRTS, Len: uint64(len(buf)),
		Addr: uint64(uintptr(unsafe.Pointer(&buf[0])))}, nil, nil); err != nil {
		return err
	}
	stop := false
	err = serve(tr, handlerFunc(func(h *transport.Header, p []byte) { stop = h.Kind == kFin }), &stop)
	_ = buf[len(buf)-1] // keep buf alive until the read is done
	return err
}

// childAllocMem offers memory from Alloc to rank 0, as childCMA offers Go memory, and
// frees it after kFin.
func childAllocMem(tr *Transport) error {
	e, err := tr.Endpoint(0)
	if err != nil {
		return err
	}
	n := 5<<20 + 3
	p := Alloc(n, 0)
	if p == nil {
		return errors.New("Alloc served nothing")
	}
	fill(unsafe.Slice((*byte)(p), n), 11)
	if err := mustSend(tr, e, &transport.Header{Kind: kRTS, Len: uint64(n), Addr: uint64(uintptr(p))}, nil, nil); err != nil {
		return err
	}
	stop := false
	err = serve(tr, handlerFunc(func(h *transport.Header, p []byte) { stop = h.Kind == kFin }), &stop)
	if !Free(p) {
		return errors.New("Free did not know Alloc's memory")
	}
	return err
}

// childSendHang sends one packet to rank 0 and waits to be killed.
func childSendHang(tr *Transport) error {
	e, err := tr.Endpoint(0)
	if err != nil {
		return err
	}
	if err := mustSend(tr, e, &transport.Header{Kind: kData}, []byte("hello"), nil); err != nil {
		return err
	}
	time.Sleep(time.Minute) // the parent kills this process; the sleep only bounds a broken test
	return errors.New("not killed")
}

const a2aMsgs = 5000

// childAllToAll and rank 0 each send a2aMsgs numbered packets to every other rank and
// check that every sender's packets arrive complete and in order.
func childAllToAll(tr *Transport) error { return allToAll(tr) }

func allToAll(tr *Transport) error {
	size, me := tr.c.Size(), tr.rank
	eps := make([]transport.Endpoint, size)
	next := make([]int, size)
	var bad error
	stops := 0
	h := handlerFunc(func(h *transport.Header, p []byte) {
		if h.Kind == kStop {
			stops++
			return
		}
		if int(h.Tag) != next[h.Src] || len(p) != int(h.Tag%100) || (len(p) > 0 && p[0] != byte(h.Tag)) {
			bad = fmt.Errorf("from rank %d: packet %d (%d bytes), want %d", h.Src, h.Tag, len(p), next[h.Src])
		}
		next[h.Src]++
	})
	payload := make([]byte, 100)
	for i := 0; i < a2aMsgs; i++ {
		for d := 1; d < size; d++ {
			peer := (me + d) % size
			if eps[peer] == nil {
				e, err := tr.Endpoint(peer)
				if err != nil {
					return err
				}
				eps[peer] = e
			}
			payload[0] = byte(i)
			hd := transport.Header{Kind: kData, Src: int32(me), Tag: int32(i), Len: uint64(i % 100)}
			if err := mustSend(tr, eps[peer], &hd, payload[:i%100], h); err != nil {
				return err
			}
		}
		tr.Poll(h)
	}
	deadline := time.Now().Add(30 * time.Second)
	for done := false; !done && bad == nil; {
		tr.Poll(h)
		done = true
		for r := 0; r < size; r++ {
			done = done && (r == me || next[r] == a2aMsgs)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rank %d: timed out with counts %v", me, next)
		}
	}
	if bad != nil {
		return bad
	}
	// Stay until everyone got everything: nobody may Close under a sender. A second
	// round of one packet each says "done".
	for d := 1; d < size; d++ {
		hd := transport.Header{Kind: kStop, Src: int32(me), Tag: a2aMsgs}
		if err := mustSend(tr, eps[(me+d)%size], &hd, nil, nil); err != nil {
			return err
		}
	}
	for stops < size-1 {
		tr.Poll(h)
		if time.Now().After(deadline) {
			return fmt.Errorf("rank %d: timed out waiting for the others to finish", me)
		}
	}
	return nil
}

func TestAllToAllProcesses(t *testing.T) {
	j, tr := startJob(t, "alltoall", 4, "auto")
	if err := allToAll(tr); err != nil {
		t.Fatal(err)
	}
	j.wait(t)
}

func TestPipelineProcesses(t *testing.T) {
	j, tr := startJob(t, "sink", 2, "auto")
	e := endpoint(t, tr, 1)
	acks := 0
	h := handlerFunc(func(h *transport.Header, p []byte) {
		if h.Kind == kAck {
			acks++
		}
	})
	const size = 4<<20 + 100
	for m := 0; m < 3; m++ {
		msg := fill(make([]byte, size), m)
		frag := e.MaxPayload()
		for off := 0; off < size; off += frag {
			end := min(off+frag, size)
			hd := transport.Header{Kind: kFrag, Flags: 1, Tag: int32(m), Len: size, Offset: uint64(off)}
			if err := mustSend(tr, e, &hd, msg[off:end], h); err != nil {
				t.Fatal(err)
			}
		}
	}
	for deadline := time.Now().Add(20 * time.Second); acks < 3; {
		tr.Poll(h)
		if time.Now().After(deadline) {
			t.Fatalf("%d of 3 messages acknowledged", acks)
		}
	}
	mustSend(tr, e, &transport.Header{Kind: kStop}, nil, nil)
	j.wait(t)
}

// offered starts a job of two whose rank 1 has role, which offers rank 0 memory to
// read (kRTS), and returns rank 0's transport and the offer; it skips where
// single-copy reads are impossible.
func offered(t *testing.T, role string) (*job, *Transport, transport.Header) {
	t.Helper()
	if ok, why := probeCMA(); !ok {
		t.Skip(why)
	}
	j, tr := startJob(t, role, 2, "auto")
	var rts transport.Header
	got := false
	for deadline := time.Now().Add(20 * time.Second); !got; {
		tr.Poll(handlerFunc(func(h *transport.Header, p []byte) { rts, got = *h, true }))
		if time.Now().After(deadline) {
			t.Fatal("no request from rank 1")
		}
	}
	return j, tr, rts
}

func TestCMAProcesses(t *testing.T) {
	j, tr, rts := offered(t, "cma")
	dst := make([]byte, rts.Len)
	if err := tr.ReadFrom(1, dst, rts.Addr); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, fill(make([]byte, rts.Len), 11)) {
		t.Fatal("ReadFrom copied wrong bytes")
	}
	e := endpoint(t, tr, 1)
	// With an endpoint, whose probe read passed, reads find the peer without the
	// transport's lock (Transport.ready): the same bytes.
	if m := tr.ready.Load(); m == nil || (*m)[1] == nil {
		t.Fatal("rank 1 is not among the ready peers after its endpoint's probe")
	}
	clear(dst)
	if err := tr.ReadFrom(1, dst, rts.Addr); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, fill(make([]byte, rts.Len), 11)) {
		t.Fatal("ReadFrom through the ready peers copied wrong bytes")
	}
	if err := mustSend(tr, e, &transport.Header{Kind: kFin}, nil, nil); err != nil {
		t.Fatal(err)
	}
	j.wait(t)
}

// TestAllocMemProcesses reads memory another process got from Alloc: through a
// mapping of it (opened by /proc/<pid>/fd), not single-copy calls.
func TestAllocMemProcesses(t *testing.T) {
	j, tr, rts := offered(t, "allocmem")
	e := endpoint(t, tr, 1)
	dst := make([]byte, rts.Len)
	before := MappedBytes()
	if err := tr.ReadFrom(1, dst, rts.Addr); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, fill(make([]byte, rts.Len), 11)) {
		t.Fatal("ReadFrom copied wrong bytes")
	}
	if d := MappedBytes() - before; d != rts.Len {
		t.Fatalf("%d of %d bytes went through a mapping", d, rts.Len)
	}
	if err := mustSend(tr, e, &transport.Header{Kind: kFin}, nil, nil); err != nil {
		t.Fatal(err)
	}
	j.wait(t)
}

// TestPeerKilled kills a rank with SIGKILL and checks that the survivor's Send and
// Check report ErrPeerGone, and that nothing stays in /dev/shm (memfd), or that what the
// file fallback leaves is removed by RemoveLeftovers.
func TestPeerKilled(t *testing.T) {
	for _, mode := range []string{"memfd", "file"} {
		t.Run(mode, func(t *testing.T) {
			j, tr := startJob(t, "sendhang", 2, mode)
			got := false
			db := tr.Doorbell()
			for deadline := time.Now().Add(20 * time.Second); !got; {
				seq := db.Prepare()
				if tr.Poll(handlerFunc(func(h *transport.Header, p []byte) { got = string(p) == "hello" })) == 0 {
					db.Sleep(seq, 100*time.Millisecond)
				}
				db.Leave()
				if time.Now().After(deadline) {
					t.Fatal("no packet from rank 1")
				}
			}
			e := endpoint(t, tr, 1)
			if mode == "file" {
				// Rank 0's file went when its only peer attached; rank 1 has not polled
				// since rank 0 attached to it, so its file is still there.
				if left, _ := filepath.Glob(FilePrefix(j.job) + "*"); len(left) != 1 {
					t.Fatalf("file mode: want 1 file before the kill, found %v", left)
				}
			}
			j.kids[0].Process.Signal(syscall.SIGKILL)
			j.kids[0].Wait()
			var err error
			for i := 0; i < 1<<24; i++ {
				if err = e.Send(&transport.Header{Kind: kData}, []byte("are you there")); !errors.Is(err, transport.ErrWouldBlock) && err != nil {
					break
				}
			}
			if !errors.Is(err, transport.ErrPeerGone) {
				t.Fatalf("Send to a killed peer: %v, want ErrPeerGone", err)
			}
			if err := tr.Check(); !errors.Is(err, transport.ErrPeerGone) {
				t.Fatalf("Check: %v, want ErrPeerGone", err)
			}
			var pg *PeerGoneError
			if err := tr.CheckPeer(1); !errors.As(err, &pg) || pg.Peer() != 1 {
				t.Fatalf("CheckPeer(1): %v, want a PeerGoneError for rank 1", err)
			}
			tr.Close()
			left, _ := filepath.Glob(FilePrefix(j.job) + "*")
			if mode == "memfd" && len(left) != 0 {
				t.Fatalf("memfd mode left files: %v", left)
			}
			if mode == "file" {
				if len(left) != 1 {
					t.Fatalf("file mode: want the killed rank's file only, found %v", left)
				}
				if err := RemoveLeftovers(j.job); err != nil {
					t.Fatal(err)
				}
				if left, _ := filepath.Glob(FilePrefix(j.job) + "*"); len(left) != 0 {
					t.Fatalf("after RemoveLeftovers: %v", left)
				}
			}
		})
	}
}
