package wireup

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/mpigo/mpigo/internal/pm"
)

// blockLayout puts ppn consecutive ranks on each node.
func blockLayout(n, ppn int) *Layout {
	l := &Layout{NodeOf: make([]int32, n)}
	for r := range l.NodeOf {
		l.NodeOf[r] = int32(r / ppn)
	}
	for i := 0; i < (n+ppn-1)/ppn; i++ {
		l.Hosts = append(l.Hosts, fmt.Sprintf("node%03d", i))
	}
	return l
}

func TestNodeMapRoundTrip(t *testing.T) {
	for _, l := range []*Layout{blockLayout(1, 1), blockLayout(7, 2), blockLayout(1024, 16),
		{NodeOf: []int32{0, 1, 0, 1, 1}, Hosts: []string{"a", "b"}}} {
		enc := l.EncodeNodeMap()
		got, err := ParseLayout(enc, joinHosts(l.Hosts))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got.NodeOf) != fmt.Sprint(l.NodeOf) {
			t.Errorf("%q: got %v want %v", enc, got.NodeOf, l.NodeOf)
		}
	}
	if enc := blockLayout(1024, 16).EncodeNodeMap(); len(enc) > 64*8 {
		t.Errorf("node map of 1024 ranks in 64 nodes takes %d bytes", len(enc))
	}
	for _, bad := range []string{"", "0*0", "x*1", "5*1", "0*-1", "0"} {
		if _, err := ParseLayout(bad, "a"); err == nil {
			t.Errorf("ParseLayout(%q) accepted", bad)
		}
	}
}

func joinHosts(h []string) string {
	var b bytes.Buffer
	for i, s := range h {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s)
	}
	return b.String()
}

// fence runs one fence through a root collector, with or without per-node agents, and
// returns the result as each rank decodes it.
func fence(t testing.TB, l *Layout, agents bool, puts func(r int) []put) *Table {
	var msg []byte
	if !agents {
		spans := make([]Span, l.Size())
		for r := range spans {
			spans[r] = l.RankSpan(r)
		}
		root := NewCollector(l, spans)
		for r := range spans {
			done, err := root.Add(r, encodePuts(puts(r)))
			if err != nil {
				t.Fatal(err)
			}
			if done != (r == len(spans)-1) {
				t.Fatalf("done=%v after %d of %d", done, r+1, len(spans))
			}
		}
		msg = root.Result()
	} else {
		nodes := l.NodeSpans()
		root := NewCollector(l, nodes)
		for n, ns := range nodes {
			local := NodeLayout(len(ns.Ranks), l.Hosts[n])
			var ranks []Span
			for i := range ns.Ranks {
				ranks = append(ranks, local.RankSpan(i))
			}
			agent := NewCollector(local, ranks)
			for i, r := range ns.Ranks {
				if _, err := agent.Add(i, encodePuts(puts(int(r)))); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := root.Add(n, agent.Up(local.All())); err != nil {
				t.Fatal(err)
			}
		}
		msg = root.Result()
	}
	tab, err := decodeDown(msg, l.All(), l.Size(), l.NumNodes())
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func samplePuts(r int) []put {
	ps := []put{
		{pm.KeyPID, pm.Proc, []byte(fmt.Sprintf("pid%d", 1000+r))},
		{pm.KeyNodeTopo, pm.Node, []byte(fmt.Sprintf("topo-of-node-%d", r/4))},
		{pm.KeySecret, pm.Job, []byte("s3cret")},
	}
	if r%3 != 0 { // not every rank puts every key
		ps = append(ps, put{pm.KeyTCP, pm.Proc, []byte("same-value")})
	}
	if r == 2 { // a later put of the same key replaces the earlier one
		ps = append(ps, put{pm.KeyPID, pm.Proc, []byte("pid-replaced")})
	}
	return ps
}

func TestFenceResult(t *testing.T) {
	for _, agents := range []bool{false, true} {
		l := blockLayout(10, 4)
		tab := fence(t, l, agents, samplePuts)
		for r := 0; r < l.Size(); r++ {
			want := fmt.Sprintf("pid%d", 1000+r)
			if r == 2 {
				want = "pid-replaced"
			}
			if v, ok := tab.Get(pm.KeyPID, pm.Proc, r); !ok || string(v) != want {
				t.Errorf("agents=%v rank %d pid %q %v, want %q", agents, r, v, ok, want)
			}
			v, ok := tab.Get(pm.KeyTCP, pm.Proc, r)
			if (r%3 != 0) != ok || (ok && string(v) != "same-value") {
				t.Errorf("agents=%v rank %d tcp %q %v", agents, r, v, ok)
			}
		}
		for n := 0; n < l.NumNodes(); n++ {
			if v, ok := tab.Get(pm.KeyNodeTopo, pm.Node, n); !ok || string(v) != fmt.Sprintf("topo-of-node-%d", n) {
				t.Errorf("node %d topo %q %v", n, v, ok)
			}
		}
		if v, ok := tab.Get(pm.KeySecret, pm.Job, 0); !ok || string(v) != "s3cret" {
			t.Errorf("job secret %q %v", v, ok)
		}
	}
}

func TestDownMessageIsContainerOrderedAndDeduplicated(t *testing.T) {
	l := blockLayout(1000, 10)
	same := func(r int) []put { return []put{{pm.KeyTCP, pm.Proc, []byte("identical-value-for-all")}} }
	spans := make([]Span, l.Size())
	for r := range spans {
		spans[r] = l.RankSpan(r)
	}
	root := NewCollector(l, spans)
	for r := range spans {
		root.Add(r, encodePuts(same(r)))
	}
	msg := root.Result()
	// One value and 999 one-byte repeats, no rank numbers: about 1 KB, not 1000 x 23.
	if len(msg) > 1100 {
		t.Errorf("down message of 1000 equal values is %d bytes", len(msg))
	}
}

func TestCorruptMessagesAreErrors(t *testing.T) {
	l := blockLayout(4, 2)
	good := encodePuts(samplePuts(1))
	for cut := 0; cut < len(good); cut++ {
		c := NewCollector(l, []Span{l.RankSpan(1)})
		if _, err := c.Add(0, good[:cut]); err == nil {
			t.Errorf("a contribution cut at %d of %d bytes was accepted", cut, len(good))
		}
	}
	c := NewCollector(l, []Span{l.RankSpan(1)})
	if _, err := c.Add(0, good); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Add(0, good); err == nil {
		t.Error("a child entering the fence twice was accepted")
	}
	if _, err := c.Add(5, good); err == nil {
		t.Error("an unknown child was accepted")
	}
	if _, err := decodeDown(nil, l.All(), 4, 2); err == nil {
		t.Error("an empty fence result was accepted")
	}
}

// TestClientOverSockets runs the real client against a collector serving socket pairs,
// as the launcher does, with ranks fencing from goroutines.
func TestClientOverSockets(t *testing.T) {
	const n = 6
	l := blockLayout(n, 3)
	spans := make([]Span, n)
	for r := range spans {
		spans[r] = l.RankSpan(r)
	}
	coll := NewCollector(l, spans)
	var mu sync.Mutex
	servers := make([]net.Conn, n)
	clients := make([]*Client, n)
	for r := 0; r < n; r++ {
		a, b := net.Pipe()
		servers[r] = a
		clients[r] = NewClient(b, r, l, "job")
	}
	for r := 0; r < n; r++ {
		go func(r int) {
			var buf []byte
			for {
				typ, body, err := ReadFrame(servers[r], buf)
				if err != nil {
					return
				}
				buf = body[:0]
				if typ != MsgFenceUp {
					continue
				}
				mu.Lock()
				done, err := coll.Add(r, body)
				if err != nil {
					t.Error(err)
				}
				var res []byte
				if done {
					res = coll.Result()
				}
				mu.Unlock()
				for _, s := range servers {
					if res != nil {
						go WriteFrame(s, MsgFenceDn, res)
					}
				}
			}
		}(r)
	}
	var wg sync.WaitGroup
	for round := 0; round < 3; round++ {
		for r := 0; r < n; r++ {
			wg.Add(1)
			go func(r int) {
				defer wg.Done()
				c := clients[r]
				c.Put(pm.Proc, pm.KeyShm, []byte(fmt.Sprintf("r%d-round%d", r, round)))
				if c.LocalRank() == 0 {
					c.Put(pm.Node, pm.KeyNodeTopo, []byte(fmt.Sprintf("node%d", c.NodeOf(r))))
				}
				if err := c.Fence(); err != nil {
					t.Error(err)
					return
				}
				for q := 0; q < n; q++ {
					if v, ok := c.Get(pm.Proc, pm.KeyShm, q); !ok || string(v) != fmt.Sprintf("r%d-round%d", q, round) {
						t.Errorf("rank %d round %d: value of rank %d is %q", r, round, q, v)
					}
					if v, ok := c.Get(pm.Node, pm.KeyNodeTopo, q); !ok || string(v) != fmt.Sprintf("node%d", q/3) {
						t.Errorf("rank %d: node value for rank %d is %q", r, q, v)
					}
				}
			}(r)
		}
		wg.Wait()
	}
	for _, s := range servers {
		s.Close()
	}
}

func TestFrameRejectsGarbage(t *testing.T) {
	for _, in := range [][]byte{{0, 0, 0, 0}, {255, 255, 255, 255, 1}, {5, 0, 0, 0, 1}} {
		if _, _, err := ReadFrame(bytes.NewReader(in), nil); err == nil || err == io.EOF {
			t.Errorf("ReadFrame(%v) = %v", in, err)
		}
	}
}

// TestClientShared: the launcher's MsgShared reaches the function given to OnShared,
// in order, on the client's reader; a fence goes on around it.
func TestClientShared(t *testing.T) {
	l := blockLayout(1, 1)
	srv, cli := net.Pipe()
	defer srv.Close()
	c := NewClient(cli, 0, l, "job")
	heard := make(chan bool, 4)
	c.OnShared(func(on bool) { heard <- on })
	go func() {
		for _, b := range []byte{1, 0, 1} {
			if err := WriteFrame(srv, MsgShared, []byte{b}); err != nil {
				t.Error(err)
			}
		}
	}()
	for i, want := range []bool{true, false, true} {
		if got := <-heard; got != want {
			t.Fatalf("message %d: heard %v, want %v", i, got, want)
		}
	}
}
