package prof

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/internal/group"
)

func TestBucket(t *testing.T) {
	for _, c := range []struct{ n, b int }{{0, 0}, {1, 1}, {2, 2}, {3, 2}, {8, 4}, {1023, 10}, {1024, 11}, {1 << 62, 63}, {-1, 64}} {
		if got := Bucket(c.n); got != c.b {
			t.Errorf("Bucket(%d) = %d, want %d", c.n, got, c.b)
		}
	}
}

// The gaps between sampled calls stay in range and are not all alike.
func TestNextGap(t *testing.T) {
	seen := map[uint32]bool{}
	for i := 0; i < 10000; i++ {
		g := nextGap()
		if g < 1 || g > 2*SampleEvery-1 {
			t.Fatalf("gap %d out of range", g)
		}
		seen[g] = true
	}
	if len(seen) < SampleEvery {
		t.Errorf("only %d distinct gaps", len(seen))
	}
}

// Counting a call allocates nothing.
func TestEnterExitAllocs(t *testing.T) {
	if a := testing.AllocsPerRun(1000, func() { Exit(Send, Enter(Send, nil, 1, 0, 8), 8) }); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
}

func TestCallNames(t *testing.T) {
	for c := Call(0); c < NumCalls; c++ {
		if c.String() == "" || CallNamed(c.String()) != c {
			t.Errorf("call %d: name %q does not round-trip", c, c.String())
		}
	}
}

// call runs one short call as the facade's hot calls do: the short path, else Enter.
func call(c Call, n int, inside func()) {
	var t int64
	if !Try(c, nil, 1, 5, n) {
		t = Enter(c, nil, 1, 5, n)
	}
	if inside != nil {
		inside()
	}
	if !TryExit(c, t, n) {
		Exit(c, t, n)
	}
}

// Every call is counted once, with its bytes and size class; about one in
// SampleEvery is timed; a call made inside another is not counted; State sees the
// call under way and nothing after it.
func TestCountsAndSamples(t *testing.T) {
	if err := Start(0, 2, false); err != nil {
		t.Fatal(err)
	}
	before := counts[Ssend]
	const ncalls = 3200
	for i := 0; i < ncalls; i++ {
		call(Ssend, 8, func() { call(Recv, 1, nil) })
	}
	c := counts[Ssend]
	if nCalls(&c)-nCalls(&before) != ncalls || c.Bytes-before.Bytes != 8*ncalls || c.Hist[4]-before.Hist[4] != ncalls {
		t.Errorf("Ssend: %d calls, %d bytes, %d in bucket 4; want %d, %d, %d", nCalls(&c)-nCalls(&before), c.Bytes-before.Bytes, c.Hist[4]-before.Hist[4], ncalls, 8*ncalls, ncalls)
	}
	if timed := c.Timed - before.Timed; timed < ncalls/(2*SampleEvery) || timed > 4*ncalls/SampleEvery {
		t.Errorf("%d of %d calls timed, want about 1 in %d", timed, ncalls, SampleEvery)
	}
	if n := nCalls(&counts[Recv]); n != 0 {
		t.Errorf("the nested Recv was counted %d times", n)
	}
	var in Where
	call(Send, 3, func() { in = State() })
	if in.Call != "Send" || in.Peer != 1 || in.Tag != 5 || in.Bytes != 3 {
		t.Errorf("State inside Send = %+v", in)
	}
	if w := State(); w.Call != "" {
		t.Errorf("State after the call = %+v, want none", w)
	}
}

// nCalls is c's count as a snapshot takes it: the sum of its histogram.
func nCalls(c *Counter) (n uint64) {
	for _, h := range c.Hist {
		n += h
	}
	return n
}

// The cost of recording one short call: the always-on counters (short path, with the
// sampled calls' clock reads), a collective's at ThreadMultiple (the processors'
// tallies), and with the timeline on (every call timed, an event in the ring, the
// ring written to a file when full).
func BenchmarkCall(b *testing.B) {
	b.Run("counters", func(b *testing.B) {
		Start(0, 2, false)
		for i := 0; i < b.N; i++ {
			call(Send, 8, nil)
		}
	})
	b.Run("collective-multiple", func(b *testing.B) {
		Start(0, 2, true)
		defer Start(0, 2, false)
		for i := 0; i < b.N; i++ {
			call(Bcast, 8, nil)
		}
	})
	b.Run("timeline", func(b *testing.B) {
		Start(0, 2, false)
		f, err := os.Create(filepath.Join(b.TempDir(), "events"))
		if err != nil {
			b.Fatal(err)
		}
		// What Start does with the profile setting on.
		tl.start(f, int(setEvents.Get()), Now())
		timed, stamping, gate = true, true, 0
		defer func() {
			mu.Lock()
			tl.write()
			mu.Unlock()
			f.Close()
			tl.f, timed, stamping, gate = nil, false, false, 1
		}()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			call(Send, 8, nil)
		}
	})
}

var sink int

// With the timeline on, small sends start deferred and have no time of their own
// unless they wait; one in about SampleEvery is timed from its entry, and their
// count's time is the samples' mean for the others (Estimate), not nothing.
func TestDeferredSamples(t *testing.T) {
	Start(0, 2, false)
	f, err := os.Create(filepath.Join(t.TempDir(), "events"))
	if err != nil {
		t.Fatal(err)
	}
	tl.start(f, int(setEvents.Get()), Now())
	timed, stamping, gate, defGap = true, true, 0, nextGap()
	defer func() {
		mu.Lock()
		tl.write()
		mu.Unlock()
		f.Close()
		tl.f, timed, stamping, gate = nil, false, false, 1
	}()
	before := counts[Send]
	const ncalls = 6400
	for i := 0; i < ncalls; i++ {
		var t int64
		if !Try(Send, nil, 1, 5, 8) {
			if t = TryDeferred(Send, nil, 1, 5, 8); t == 0 {
				t = Enter(Send, nil, 1, 5, 8)
			}
		}
		for k := 0; k < 100; k++ { // some work, so that a call takes time
			sink += k
		}
		if !TryExit(Send, t, 8) {
			Exit(Send, t, 8)
		}
	}
	Settle()
	c := counts[Send]
	timedN, quick := c.Timed-before.Timed, c.Quick-before.Quick
	if n := nCalls(&c) - nCalls(&before); n != ncalls {
		t.Errorf("%d sends counted, want %d", n, ncalls)
	}
	if timedN < ncalls/(2*SampleEvery) || timedN > 4*ncalls/SampleEvery || quick != timedN {
		t.Errorf("%d of %d small sends timed (%d of them quick), want about 1 in %d, all quick", timedN, ncalls, quick, SampleEvery)
	}
	if c.Waited != before.Waited {
		t.Errorf("%d sends counted as waiting, none waited", c.Waited-before.Waited)
	}
	mean := float64(c.QuickTicks-before.QuickTicks) / float64(quick)
	d := c
	d.Timed, d.Ticks, d.Quick, d.QuickTicks = timedN, c.Ticks-before.Ticks, quick, c.QuickTicks-before.QuickTicks
	d.N, d.Waited = ncalls, 0
	if est := d.Estimate(); mean <= 0 || est < 0.99*mean*ncalls || est > 1.01*mean*ncalls {
		t.Errorf("estimated %.0f ticks for %d sends whose samples took %.1f each", est, ncalls, mean)
	}
}

// A call left by a panic (Unwind) does not leave the record believing the rank is
// still in it: the calls that follow are counted.
func TestUnwind(t *testing.T) {
	Start(0, 2, false)
	func() {
		defer func() { recover() }()
		call(Rsend, 1, func() {
			defer Unwind()
			panic("a user's error handler")
		})
	}()
	if w := State(); w.Call != "" {
		t.Fatalf("after the panic the rank is still in %s", w.Call)
	}
	before := nCalls(&counts[Bsend])
	call(Bsend, 1, nil)
	if nCalls(&counts[Bsend]) != before+1 {
		t.Errorf("the call after the panic was not counted")
	}
}

// The ring's halves go to the file in order, through the writer goroutine, and a
// write of the current half takes the rest: every event once, as it was recorded,
// whether it repeats an event before it (one word), needs an event record or a full
// one, and under every tag and communicator it was recorded with. A ping-pong's
// events and a loop of sends are one word each.
func TestTimelineRing(t *testing.T) {
	name := filepath.Join(t.TempDir(), "events")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	var r timeline
	r.start(f, 32, 1000)
	var want []Event
	add := func(e Event) {
		want = append(want, e)
		r.add(e.Call, nil, uint64(uint32(e.Peer))|uint64(uint32(e.Tag))<<32, e.Start, e.Start+e.Dur, int(e.Bytes))
	}
	for i := 0; i < 41; i++ {
		e := Event{Start: int64(1000 + 10*i), Dur: int64(5 + i), Bytes: int64(i), Peer: int32(i % 3), Tag: int32(i / 10), Call: Send}
		switch i {
		case 7:
			e.Bytes = 5 << 32 // too large for an event record
		case 8:
			e.Peer = 1 << 20 // too
		case 9:
			e.Dur = 1 << 40 // too
		case 10:
			e.Start = 10 // before the previous one
		case 11:
			e.Peer, e.Tag = NoPeer, -2
		}
		add(e)
	}
	mu.Lock()
	r.write()
	mu.Unlock()
	before, _ := f.Seek(0, io.SeekCurrent)
	// A ping-pong (sends and receives alternate: each like the event two before),
	// a loop of sends (each like the last), then repeats whose times do not fit one
	// word and a send like neither of the two before.
	at := int64(5000)
	const pp, loop = 60, 20
	for i := 0; i < pp+loop; i++ {
		e := Event{Start: at, Dur: 300, Bytes: 8, Peer: 1, Tag: 4, Call: Send}
		if i < pp && i%2 == 1 {
			e.Call, e.Dur = Recv, 2000
		}
		add(e)
		at += 700
	}
	add(Event{Start: at, Dur: 1 << repDur, Bytes: 8, Peer: 1, Tag: 4, Call: Send})
	add(Event{Start: at + 1<<(kindShift-repDur), Dur: 3, Bytes: 8, Peer: 1, Tag: 4, Call: Send})
	add(Event{Start: at + 1<<20, Dur: 3, Bytes: 8, Peer: 2, Tag: 4, Call: Send})
	mu.Lock()
	r.write()
	mu.Unlock()
	after, _ := f.Seek(0, io.SeekCurrent)
	f.Close()
	f, err = os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadEvents(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// Two event records start the ping-pong (the tag is the last one's, no state
	// record), three end the series; the rest, the loop's first send included (like
	// the event two before it), one word each.
	if words := (after - before) / WordSize; words != 2*4+3*4+int64(pp+loop-2) {
		t.Errorf("%d words for %d ping-pong and %d loop events and 3 that do not repeat", words, pp, loop)
	}
}

// The matrix: a snapshot adds every registered count into its columns by world rank,
// the live sets' as they are now and the retired ones' as they were at Retire, and
// the tallies kept outside the record into the per-call totals; a set's memory is
// not read once it is retired; AddLink allocates nothing.
func TestMatrixTaps(t *testing.T) {
	if err := Start(0, 3, false); err != nil {
		t.Fatal(err)
	}
	var live Link
	if a := testing.AllocsPerRun(100, func() { AddLink(&live, 8) }); a != 0 {
		t.Errorf("AddLink: %v allocations", a)
	}
	live = Link{}
	// An engine's: all sent to rank 1, and the collectives' part.
	sent, coll := Link{Bytes: 10, Ops: 1}, Link{Bytes: 5, Ops: 1}
	eng := Watch([]Tap{{&sent, 1, Sent}, {&coll, 1, Sent | Coll}})
	defer eng.Retire()
	// A window's: live, and one retired (its memory reused after, as a freed
	// window's may be), and one target not a world rank.
	to, from := Link{Bytes: 100, Ops: 2}, Link{Bytes: 7, Ops: 1}
	gone := Watch([]Tap{{&to, 1, RMATo}, {&from, 1, RMAFrom}, {&Link{Bytes: 1, Ops: 1}, 5, RMATo}, {&Link{Bytes: 1, Ops: 1}, -1, RMATo}})
	gone.Retire()
	to, from = Link{Bytes: 1 << 40}, Link{Bytes: 1 << 40}
	gone.Retire() // twice: nothing
	var nilTaps *Taps
	nilTaps.Retire()
	win := Watch([]Tap{{&live, 2, RMATo}})
	defer win.Retire()
	AddLink(&live, 8)
	AddLink(&live, 16)
	// C's: calls counted in memory the record does not own, one of them a sample its
	// owner timed.
	ts := make([]Tally, 2)
	ts[0].Bytes, ts[0].Hist[Bucket(8)] = 24, 3
	ts[0].Timed, ts[0].Ticks = 1, 1000
	ts[1].Hist[0] = 2
	WatchTallies([]Call{Put, WinFlush}, ts)
	before := map[Call]Counter{Put: counts[Put], WinFlush: counts[WinFlush]}

	p := snapshot("")
	if len(p.SentBytes) != 3 || p.SentBytes[1] != 15 || p.SentMsgs[1] != 2 || p.CollBytes[1] != 5 || p.CollMsgs[1] != 1 || p.SentBytes[0]+p.SentBytes[2] != 0 {
		t.Errorf("SentBytes %v SentMsgs %v CollBytes %v CollMsgs %v; want 15 bytes, 2 messages to rank 1, of them 5 and 1 collective", p.SentBytes, p.SentMsgs, p.CollBytes, p.CollMsgs)
	}
	if len(p.RMABytes) != 3 || p.RMABytes[1] != 100 || p.RMAOps[1] != 2 || p.RMABytes[2] != 24 || p.RMAOps[2] != 2 || p.RMABytes[0] != 0 {
		t.Errorf("RMABytes %v, RMAOps %v; want [0 100 24], [0 2 2]", p.RMABytes, p.RMAOps)
	}
	if p.RMAInBytes[1] != 7 || p.RMAInOps[1] != 1 || p.RMAInBytes[2] != 0 {
		t.Errorf("RMAInBytes %v, RMAInOps %v; want 7 bytes in one operation from rank 1", p.RMAInBytes, p.RMAInOps)
	}
	want := map[Call][2]uint64{Put: {3, 24}, WinFlush: {2, 0}}
	for _, c := range p.Calls {
		call := CallNamed(c.Call)
		if w, ok := want[call]; ok {
			b := before[call]
			if c.N != nCalls(&b)+w[0] || c.Bytes != b.Bytes+w[1] {
				t.Errorf("%s: %d calls, %d bytes; want the tally's %d and %d added", c.Call, c.N, c.Bytes, w[0], w[1])
			}
			if call == Put && (c.Timed != b.Timed+1 || c.Ns <= 0) {
				t.Errorf("Put: %d timed, %g ns; want the tally's sample added (%d timed before), and a time", c.Timed, c.Ns, b.Timed)
			}
			delete(want, call)
		}
	}
	if len(want) != 0 {
		t.Errorf("calls missing from the snapshot: %v (got %v)", want, p.Calls)
	}
	matrix.Lock()
	matrix.tallies = nil // the test's memory: later snapshots must not read it
	matrix.Unlock()
}

// A communicator is described by what it was registered with and named since: State
// gives its context id, name, size and groups' world ranks, translates a peer of the
// communicator (of the remote group, for an intercommunicator) to a world rank, and
// says when it was freed under the call. The timeline records its context id.
func TestCommDescriptor(t *testing.T) {
	if err := Start(0, 8, false); err != nil {
		t.Fatal(err)
	}
	world, err := group.World(8)
	if err != nil {
		t.Fatal(err)
	}
	local, _ := world.Incl([]int{6, 2, 4})
	remote, _ := world.Incl([]int{7, 1})
	var intra, inter, dup Comm
	intra.Register(10, 3, local, nil, "")
	inter.Register(12, 3, local, remote, "bridge")
	dup.Register(14, 8, nil, nil, "dup")
	intra.SetName("odd ones")
	in := func(c *Comm, peer int) (w Where) {
		t0 := EnterTimed(Ssend, c, peer, 9, 4)
		w = State()
		Exit(Ssend, t0, 4)
		return w
	}
	for _, c := range []struct {
		c      *Comm
		peer   int
		want   Where
		worldP int
	}{
		{&intra, 1, Where{Comm: 10, CommName: "odd ones", Size: 3, Group: []int{6, 2, 4}}, 2},
		{&inter, 1, Where{Comm: 12, CommName: "bridge", Size: 3, Group: []int{6, 2, 4}, Remote: []int{7, 1}}, 1},
		{&dup, 5, Where{Comm: 14, CommName: "dup", Size: 8}, 5},
		{nil, 3, Where{CommName: "MPI_COMM_WORLD", Size: 8}, 3},
	} {
		w := in(c.c, c.peer)
		if w.Comm != c.want.Comm || w.CommName != c.want.CommName || w.Size != c.want.Size ||
			!slices.Equal(w.Group, c.want.Group) || !slices.Equal(w.Remote, c.want.Remote) || w.Peer != c.worldP || w.Freed {
			t.Errorf("State on %+v: %+v; want %+v, peer %d", c.c, w, c.want, c.worldP)
		}
	}
	intra.Retire()
	if w := in(&intra, 0); !w.Freed || w.CommName != "odd ones" {
		t.Errorf("State on a freed communicator: %+v, want Freed", w)
	}

	name := filepath.Join(t.TempDir(), "events")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	var r timeline
	r.start(f, 64, 0)
	for i, c := range []*Comm{&inter, &inter, nil, &dup} {
		r.add(Send, c, 1, int64(10*i), int64(10*i+5), 8)
	}
	mu.Lock()
	r.write()
	mu.Unlock()
	f.Close()
	f, _ = os.Open(name)
	defer f.Close()
	ev, err := ReadEvents(f)
	if err != nil || len(ev) != 4 {
		t.Fatalf("%d events (%v), want 4", len(ev), err)
	}
	for i, want := range []uint32{12, 12, 0, 14} {
		if ev[i].Comm != want {
			t.Errorf("event %d on context %d, want %d", i, ev[i].Comm, want)
		}
	}
}

// LiveTotals reads one call's counters as they are.
func TestLiveTotals(t *testing.T) {
	n0, b0, _ := LiveTotals(Barrier)
	Done(Barrier, 0)
	Done(Barrier, 10)
	n, b, s := LiveTotals(Barrier)
	if n != n0+2 || b != b0+10 || s < 0 {
		t.Errorf("after two calls of 0 and 10 bytes: %d calls, %d bytes, %g s (before: %d, %d)", n, b, s, n0, b0)
	}
	if n, _, _ := LiveTotals(None); n != 0 {
		t.Errorf("None counts %d", n)
	}
	if got := Calls(); len(got) != int(NumCalls)-1 || got[0] != Init {
		t.Errorf("Calls: %d, first %v", len(got), got[0])
	}
}

// TestTallySamples: a tally's samples count as timed calls, and only those that did
// not wait as quick ones, whose mean the calls not timed are estimated by.
func TestTallySamples(t *testing.T) {
	var c Counter
	(&Tally{Timed: 2, Ticks: 30, Blocked: 1, BlockedTicks: 500}).addSamples(&c)
	if want := (Counter{Timed: 3, Ticks: 530, Quick: 2, QuickTicks: 30}); c != want {
		t.Errorf("addSamples gave %+v, want %+v", c, want)
	}
	c.N = 13 // ten calls not timed, estimated at the quick mean of 15 ticks
	if e := c.Estimate(); e != 680 {
		t.Errorf("Estimate %g, want 680", e)
	}
}
