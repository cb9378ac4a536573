package p2p

import (
	"bytes"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/transport"
)

// adaptiveEngines are two engines over shared memory whose receiver chooses between
// the protocols (single copy exists between them); the test is skipped where not.
func adaptiveEngines(t *testing.T) []*Engine {
	t.Helper()
	es := shmEngines(t, 2, Options{Spin: 200, Yield: 20})
	tab, err := es[1].Protocols(0) // the receiver's route to the sender: single copy
	if err != nil {
		t.Fatal(err)
	}
	if !tab.SingleCopy || !es[1].adaptive {
		t.Skip("no single copy between the ranks: nothing to choose")
	}
	return es
}

// TestShmAdaptive: large messages over shared memory in auto mode are offered for get
// and the receiver chooses; over enough of them it tries both protocols, and every
// message arrives whole, including into a smaller (truncating) buffer.
func TestShmAdaptive(t *testing.T) {
	es := adaptiveEngines(t)
	sizes := []int{adaptMin, 100000, 1 << 20}
	const rounds = 3 * adaptProbe
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range rounds {
			for j, n := range sizes {
				if err := es[0].Send(Bytes(pattern(i+j, n)), 1, j, 0, Standard); err != nil {
					t.Error(err)
					return
				}
			}
		}
		// A truncating receive of an offered message, either way.
		for i := range 2 * adaptProbe {
			if err := es[0].Send(Bytes(pattern(i, 1<<20)), 1, 9, 0, Standard); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range rounds {
		for j, n := range sizes {
			buf := make([]byte, n)
			st, err := es[1].Recv(Bytes(buf), 0, j, 0)
			if err != nil {
				t.Fatal(err)
			}
			if st.Count != int64(n) || !bytes.Equal(buf, pattern(i+j, n)) {
				t.Fatalf("round %d, %d bytes: count %d, data ok %v", i, n, st.Count, bytes.Equal(buf, pattern(i+j, n)))
			}
		}
	}
	for i := range 2 * adaptProbe {
		buf := make([]byte, 300000)
		st, err := es[1].Recv(Bytes(buf), 0, 9, 0)
		if !errors.Is(err, ErrTruncate) || st.Count != int64(len(buf)) || !bytes.Equal(buf, pattern(i, 1<<20)[:len(buf)]) {
			t.Fatalf("truncating receive %d: %v, count %d", i, err, st.Count)
		}
	}
	wg.Wait()
	es[1].mu.Lock()
	defer es[1].mu.Unlock()
	a := &es[1].peers[0].adapt
	if a.inflight != 0 {
		t.Errorf("%d adaptive receives still counted in flight", a.inflight)
	}
	for _, n := range sizes {
		c := a.class[sizeClass(int64(n))]
		if c.alone.nsPerKB[0] == 0 || c.alone.nsPerKB[1] == 0 {
			t.Errorf("%d bytes: not both protocols timed: %v ns/KiB (pipeline, get)", n, c.alone.nsPerKB)
		}
	}
}

// TestShmAdaptiveStream: windows of large messages in flight together form streams,
// whose protocol the receiver chooses by timing intervals between completions. A
// change of protocol inside a window holds the later receives back until the earlier
// ones have completed; every message must still arrive whole and in place, the held
// list must end empty, and both protocols must have been timed in a stream.
func TestShmAdaptiveStream(t *testing.T) {
	es := adaptiveEngines(t)
	const (
		window  = 40 // more than streamBlock, so that a window changes protocol
		windows = 12
		size    = 64 << 10
	)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		qs := make([]Request, window)
		for w := range windows {
			for i := range qs {
				var err error
				if qs[i], err = es[0].Isend(Bytes(pattern(w*window+i, size)), 1, 3, 0, Standard); err != nil {
					t.Error(err)
					return
				}
			}
			if err := es[0].Waitall(qs, nil); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	qs := make([]Request, window)
	bufs := make([][]byte, window)
	for i := range bufs {
		bufs[i] = make([]byte, size)
	}
	sts := make([]Status, window)
	for w := range windows {
		for i := range qs {
			clear(bufs[i])
			var err error
			if qs[i], err = es[1].Irecv(Bytes(bufs[i]), 0, 3, 0); err != nil {
				t.Fatal(err)
			}
		}
		if err := es[1].Waitall(qs, sts); err != nil {
			t.Fatal(err)
		}
		for i := range qs {
			if sts[i].Count != size || !bytes.Equal(bufs[i], pattern(w*window+i, size)) {
				t.Fatalf("window %d, message %d: count %d, data ok %v", w, i, sts[i].Count, bytes.Equal(bufs[i], pattern(w*window+i, size)))
			}
		}
	}
	wg.Wait()
	es[1].mu.Lock()
	defer es[1].mu.Unlock()
	a := &es[1].peers[0].adapt
	if a.inflight != 0 || a.running != [2]int{} || a.held.head != nil {
		t.Errorf("after the streams: %d in flight, %v running, held list empty %v", a.inflight, a.running, a.held.head == nil)
	}
	if s := a.class[sizeClass(size)].stream; s.samples[0] < streamFirst || s.samples[1] < streamFirst {
		t.Errorf("stream intervals timed (pipeline, get): %v, want at least %d each", s.samples, streamFirst)
	}
}

// TestSplitGet: once a single-copy read from a peer has worked, a large get is split:
// the receiver reads the first half and the sender writes the second. The data must
// arrive whole (also into a truncating receive, which asks only for its prefix), and
// when the sender may not write, the receiver reads that half itself.
func TestSplitGet(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		net := newMemNet(2)
		net.noPut = refuse
		es := net.engines(t, Options{Protocol: "get"})
		sizes := []int{100000, 100000, 1 << 20, splitMin, splitMin - 1}
		for i, n := range sizes {
			want := pattern(i, n)
			got := make([]byte, n)
			sq, err := es[0].Isend(Bytes(want), 1, 5, 0, Standard)
			mustOK(t, err)
			rq, err := es[1].Irecv(Bytes(got), 0, 5, 0)
			mustOK(t, err)
			drive(t, es, func() bool { return sq.r.done.Load() != 0 && rq.r.done.Load() != 0 })
			mustOK(t, es[0].Waitall([]Request{sq}, nil))
			var st [1]Status
			mustOK(t, es[1].Waitall([]Request{rq}, st[:]))
			if st[0].Count != int64(n) || !bytes.Equal(got, want) {
				t.Fatalf("refused %v, message %d (%d bytes): count %d, data ok %v", refuse, i, n, st[0].Count, bytes.Equal(got, want))
			}
		}
		// A truncating receive: the split covers only the prefix it takes.
		want := pattern(9, 300000)
		got := make([]byte, 200000)
		sq, err := es[0].Isend(Bytes(want), 1, 6, 0, Standard)
		mustOK(t, err)
		rq, err := es[1].Irecv(Bytes(got), 0, 6, 0)
		mustOK(t, err)
		drive(t, es, func() bool { return sq.r.done.Load() != 0 && rq.r.done.Load() != 0 })
		mustOK(t, es[0].Waitall([]Request{sq}, nil))
		st, err := es[1].Wait(&rq)
		if !errors.Is(err, ErrTruncate) || st.Count != int64(len(got)) || !bytes.Equal(got, want[:len(got)]) {
			t.Fatalf("refused %v, truncating receive: %v, count %d, data ok %v", refuse, err, st.Count, bytes.Equal(got, want[:len(got)]))
		}
		// The first get is whole (nothing known of the peer yet), the next three large
		// ones and the truncating one are split; the one below splitMin is not.
		if puts, done := net.kinds[kindPut].Load(), net.kinds[kindPutDone].Load(); puts != 4 || done != 4 {
			t.Errorf("refused %v: %d put and %d putdone packets, want 4 and 4", refuse, puts, done)
		}
	}
}

// TestStreamEstimate: a stream's first segment of a protocol, slowed by cold pages,
// must not decide the choice: the models' protocol that lost it is timed again and
// the better of its two believed; a faster segment later is believed half way, and one
// slowed by a preempted rank moves the estimate by a quarter at most four times it.
func TestStreamEstimate(t *testing.T) {
	var s estimate
	s.segment(1, 300) // get, cold
	s.segment(0, 60)  // pipeline
	if !s.retry(transport.Get) || s.retry(transport.Pipeline) {
		t.Fatalf("get, preferred by the models, lost its first segment: retry %v, want it timed again (and pipeline not: %v)",
			s.retry(transport.Get), s.retry(transport.Pipeline))
	}
	s.segment(1, 33)
	if s.retry(transport.Get) {
		t.Fatal("get timed twice: retry still asked")
	}
	s.segment(0, 62)
	if best, _ := s.best(); best != transport.Get || s.nsPerKB[1] != 33 || s.nsPerKB[0] != 60 {
		t.Fatalf("after the first segments (pipeline, get) %v ns/KiB: best %v, want get at 33 and pipeline at 60", s.nsPerKB, best)
	}
	s.segment(1, 1000) // preempted: bounded at 4 x 33, a quarter of the way
	if want := 33 + (4*33-33)/4.0; s.nsPerKB[1] != want {
		t.Errorf("after a slow segment: get %v ns/KiB, want %v", s.nsPerKB[1], want)
	}
	s.segment(1, 33)
	if want := 33 + (4*33-33)/4.0 - (4*33-33)/8.0; s.nsPerKB[1] != want {
		t.Errorf("after a fast segment: get %v ns/KiB, want %v (half way back)", s.nsPerKB[1], want)
	}
}

// TestExchangeSplit: a get is not split while the receiver's own large send to the
// same peer is under way (an exchange, as MPI_Sendrecv makes), below exchangeSplitMin;
// from it, and where the receiver sends nothing back, it is. Every message arrives whole.
func TestExchangeSplit(t *testing.T) {
	for _, c := range []struct {
		n     int
		both  bool // each rank sends to the other
		split bool
	}{{100000, true, false}, {100000, false, true}, {exchangeSplitMin, true, true}} {
		net := newMemNet(2)
		es := net.engines(t, Options{Protocol: "get"})
		// A first get from each peer, never split (nothing known of the peer yet).
		for from := range 2 {
			sq, err := es[from].Isend(Bytes(pattern(from, splitMin)), 1-from, 1, 0, Standard)
			mustOK(t, err)
			rq, err := es[1-from].Irecv(Bytes(make([]byte, splitMin)), from, 1, 0)
			mustOK(t, err)
			drive(t, es, func() bool { return sq.r.done.Load() != 0 && rq.r.done.Load() != 0 })
			mustOK(t, es[from].Waitall([]Request{sq}, nil))
			mustOK(t, es[1-from].Waitall([]Request{rq}, nil))
		}
		before := net.kinds[kindPut].Load()
		var sqs, rqs []Request
		got := [2][]byte{make([]byte, c.n), make([]byte, c.n)}
		for from := range 2 {
			if from == 1 && !c.both {
				break
			}
			sq, err := es[from].Isend(Bytes(pattern(from+7, c.n)), 1-from, 2, 0, Standard)
			mustOK(t, err)
			rq, err := es[1-from].Irecv(Bytes(got[1-from]), from, 2, 0)
			mustOK(t, err)
			sqs, rqs = append(sqs, sq), append(rqs, rq)
		}
		drive(t, es, func() bool {
			for _, q := range append(append([]Request(nil), sqs...), rqs...) {
				if q.r.done.Load() == 0 {
					return false
				}
			}
			return true
		})
		for i := range sqs {
			from := i
			mustOK(t, es[from].Waitall([]Request{sqs[i]}, nil))
			mustOK(t, es[1-from].Waitall([]Request{rqs[i]}, nil))
			if !bytes.Equal(got[1-from], pattern(from+7, c.n)) {
				t.Fatalf("%d bytes, exchange %v: rank %d's message arrived wrong", c.n, c.both, from)
			}
		}
		if puts := net.kinds[kindPut].Load() - before; (puts > 0) != c.split {
			t.Errorf("%d bytes, exchange %v: %d put packets, want split %v", c.n, c.both, puts, c.split)
		}
	}
}

// TestExchangeAdapts: in an exchange (each rank's large send to the other under way
// while it receives the other's) the receiver starts from the exchange table's
// protocol and tries the other, timing both in the exchange's own estimates, never
// in the one-way ones; every message arrives whole.
func TestExchangeAdapts(t *testing.T) {
	es := adaptiveEngines(t)
	const n, rounds = 100000, 2*adaptFirst + 4
	var wg sync.WaitGroup
	for me := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]byte, n)
			for i := range rounds {
				sq, err := es[me].Isend(Bytes(pattern(10*i+me, n)), 1-me, 3, 0, Standard)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := es[me].Recv(Bytes(got), 1-me, 3, 0); err != nil {
					t.Error(err)
					return
				}
				if _, err := es[me].Wait(&sq); err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(got, pattern(10*i+1-me, n)) {
					t.Errorf("rank %d, exchange %d: the message arrived wrong", me, i)
					return
				}
			}
		}()
	}
	wg.Wait()
	for me := range 2 {
		if s := es[1-me].TransportStats("shm"); s.Pipeline < adaptFirst || s.Get < adaptFirst || s.Pipeline+s.Get != rounds {
			t.Errorf("rank %d's receives: %d streamed, %d read; want %d in all, at least %d of each", me, s.Pipeline, s.Get, rounds, adaptFirst)
		}
		es[me].mu.Lock()
		c := es[me].peers[1-me].adapt.class[sizeClass(n)]
		es[me].mu.Unlock()
		if c.alone.samples != [2]uint32{} {
			t.Errorf("rank %d: exchanges timed as one-way transfers: %v samples", me, c.alone.samples)
		}
		if !c.exch.ready(adaptFirst) {
			t.Errorf("rank %d: exchange samples %v, want %d of each", me, c.exch.samples, adaptFirst)
		}
	}
}

// TestChooseByEstimate: a timed receive takes the models' choice first, then both
// protocols in turn until each has adaptFirst samples, then the faster, trying the
// other only once in probeEvery decisions.
func TestChooseByEstimate(t *testing.T) {
	var s estimate
	if p := s.choose(transport.Pipeline, 1); p != transport.Pipeline {
		t.Errorf("no samples: %v, want the models' pipeline", p)
	}
	s.samples = [2]uint32{1, 0}
	if p := s.choose(transport.Pipeline, 2); p != transport.Get {
		t.Errorf("one pipeline sample: %v, want a get next", p)
	}
	s.samples = [2]uint32{adaptFirst, adaptFirst}
	s.nsPerKB = [2]float64{250, 100} // the get 2.5 times faster, as in an exchange on the Intel guest
	every := probeEvery(adaptProbe, 2.5)
	gets := 0
	for n := uint32(1); n <= 4*every; n++ {
		if s.choose(transport.Pipeline, n) == transport.Get {
			gets++
		}
	}
	if want := int(4*every) - 4; gets != want {
		t.Errorf("the get faster: %d of %d decisions took it, want %d", gets, 4*every, want)
	}
}

// TestExchangeTable: in an exchange the pipeline's copies do not overlap, so its cost
// is the one-packet model's at every size, and a get wins from where its fixed cost
// is paid back: with shm's models on a host that copies at 40 GB/s and reads at 30
// GB/s after 1.6 us more, the pipeline up to 96 KB, the get beyond.
func TestExchangeTable(t *testing.T) {
	const copyBW, maxPayload = 40e9, 64 << 10
	ms := []transport.Model{
		{Protocol: transport.Eager, MaxSize: 16 << 10, Fixed: 250 * time.Nanosecond, Bandwidth: copyBW / 2},
		{Protocol: transport.Pipeline, MaxSize: maxPayload, Fixed: 600 * time.Nanosecond, Bandwidth: copyBW / 2},
		{Protocol: transport.Pipeline, MinSize: maxPayload + 1, Fixed: 2 * time.Microsecond, Bandwidth: 0.8 * copyBW},
		{Protocol: transport.Get, Fixed: 2200 * time.Nanosecond, Bandwidth: 30e9},
	}
	x := exchangeModels(ms)
	if len(x) != 3 || x[1].Protocol != transport.Pipeline || x[1].MinSize != 0 || x[1].MaxSize != 0 {
		t.Fatalf("exchange models %+v: want eager, one pipeline model of every size, get", x)
	}
	one, ex := Select(ms, maxPayload, true, "auto", 16<<10), Select(x, maxPayload, true, "auto", 16<<10)
	for _, c := range []struct {
		n       int64
		one, ex transport.Protocol
	}{
		{8 << 10, transport.Eager, transport.Eager},
		{32 << 10, transport.Pipeline, transport.Pipeline},
		{64 << 10, transport.Pipeline, transport.Pipeline},
		{100 << 10, transport.Pipeline, transport.Get},
		{256 << 10, transport.Pipeline, transport.Get},
		{4 << 20, transport.Pipeline, transport.Get},
	} {
		if p := one.lookup(c.n); p != c.one {
			t.Errorf("%d bytes one way: %v, want %v", c.n, p, c.one)
		}
		if p := ex.lookup(c.n); p != c.ex {
			t.Errorf("%d bytes in an exchange: %v, want %v", c.n, p, c.ex)
		}
	}
}
