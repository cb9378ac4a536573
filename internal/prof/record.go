package prof

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/config"
)

var (
	setProfile = config.String("profile", "",
		"directory where each rank writes its profile (counters, matrix row, timeline of every MPI call); mpigo run --profile DIR sets it and draws the job's picture there; empty: off")
	setEvents = config.Int("profile_events", 1<<15,
		"timeline words (4 bytes; one per call, mostly) a rank keeps in memory before it appends half of them to its file").Range(1<<10, 1<<24)
)

// SettingProfile is the name of the profile setting, for the launcher.
const SettingProfile = "profile"

// Event is one call of the timeline, as ReadEvents gives it back.
type Event struct {
	Start, Dur int64 // ticks
	Bytes      int64
	Peer, Tag  int32 // Peer: a world rank, a wildcard or NoPeer; a collective's root as a rank of Comm
	Comm       uint32
	Call       Call
}

// The timeline's file (and its ring in memory, which is the file's bytes on a
// little-endian machine) is a sequence of little-endian 32-bit words. A record is one
// to eight words, its kind in the top four bits of its first. A call is one word in
// the common case, a repeat: its start as the ticks since the previous event's start
// and its duration, in 15 and 13 bits, its call, bytes and peer those of the event
// one or two before (a loop of sends, a ping-pong); its tag and communicator are
// those of the last state record, written only when they change. A call unlike the
// two before takes an event record (four words: dt, duration and bytes in 32 bits,
// peer in 16), one whose fields do not fit that either a full one (eight). At a word
// an event where the common record took 16 bytes, the ring holds four times the
// events and the rank's writer copies a quarter of the bytes to the file.
const (
	// WordSize is the size of a timeline word.
	WordSize = 4

	recRepeat1 = 1 // dt<<repDur | dur: the call, bytes and peer of the last event
	recRepeat2 = 2 // the same, of the event before the last
	recEvent   = 3 // call<<16 | uint16(peer); bytes; dt; dur
	recState   = 4 // tag; comm: the tag and communicator of the events that follow
	recFull    = 5 // call<<16; int32(peer); start (2 words); dur (2); bytes (2)
	recBase    = 6 // base (2 words): the ticks the first event's dt counts from (the file's first record)

	repDur = 13 // bits of a repeat's duration; its dt has the 15 above them

	kindShift = 28
	// noKey is the history's key for an event whose call, bytes and peer do not fit
	// one (a full record's): no repeat matches it.
	noKey = ^uint64(0)
)

// eventKey is an event's call, bytes and peer in one word (noKey when they do not
// fit an event record): what a repeat repeats.
func eventKey(call Call, n uint64, peer int32) uint64 {
	if n >= 1<<32 || int32(int16(peer)) != peer {
		return noKey
	}
	return n | uint64(uint16(peer))<<32 | uint64(call)<<48
}

// recordWords is the number of words of each record kind.
var recordWords = [16]int{recRepeat1: 1, recRepeat2: 1, recEvent: 4, recState: 3, recFull: 8, recBase: 3}

// ReadEvents decodes a timeline file's records. A torn last record (a rank killed
// mid-write) is dropped; words that are not records end the events with an error.
func ReadEvents(r io.Reader) ([]Event, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var (
		out       []Event
		b         [8 * WordSize]byte
		w         [8]uint64
		prev      int64
		tag, comm uint32
		h1, h2    = noKey, noKey // the keys of the last event and the one before
	)
	le := binary.LittleEndian
	for {
		if _, err := io.ReadFull(br, b[:WordSize]); err != nil {
			return out, nil
		}
		w[0] = uint64(le.Uint32(b[:]))
		kind := w[0] >> kindShift
		k := recordWords[kind]
		if k == 0 {
			return out, fmt.Errorf("timeline: record %d is of no kind (%#x)", len(out), kind)
		}
		if _, err := io.ReadFull(br, b[WordSize:k*WordSize]); err != nil {
			return out, nil
		}
		for i := 1; i < k; i++ {
			w[i] = uint64(le.Uint32(b[i*WordSize:]))
		}
		var (
			e   Event
			key uint64
		)
		switch kind {
		case recRepeat1, recRepeat2:
			key = h1
			if kind == recRepeat2 {
				key = h2
			}
			if key == noKey {
				return out, fmt.Errorf("timeline: record %d repeats no event", len(out))
			}
			e = Event{Start: prev + int64(w[0]&(1<<kindShift-1)>>repDur), Dur: int64(w[0] & (1<<repDur - 1)),
				Bytes: int64(uint32(key)), Peer: int32(int16(key >> 32)), Call: Call(key >> 48)}
		case recEvent:
			e = Event{Start: prev + int64(w[2]), Dur: int64(w[3]), Bytes: int64(w[1]),
				Peer: int32(int16(w[0])), Call: Call(w[0] >> 16 & 0xfff)}
			key = eventKey(e.Call, uint64(e.Bytes), e.Peer)
		case recFull:
			e = Event{Start: int64(w[2] | w[3]<<32), Dur: int64(w[4] | w[5]<<32), Bytes: int64(w[6] | w[7]<<32),
				Peer: int32(uint32(w[1])), Call: Call(w[0] >> 16 & 0xfff)}
			key = noKey
		case recState:
			tag, comm = uint32(w[1]), uint32(w[2])
			continue
		case recBase:
			prev = int64(w[1] | w[2]<<32)
			continue
		}
		e.Tag, e.Comm = int32(tag), comm
		out = append(out, e)
		prev = e.Start
		h1, h2 = key, h1
	}
}

// timeline is a ring of words in two halves: the recording goroutine appends to one
// while a writer goroutine writes the other to the file, so that the write (a system
// call and a copy) is off the calls' path and runs while the rank waits for messages.
// Flush (from any goroutine) writes what was appended to the current half since. A
// record never straddles the halves: one that does not fit hands the half over with
// its tail unused (and unwritten).
//
// The file's order is the records' order: one token (idle) passes between the writer
// and whoever writes the current half, so that no half is written before the one
// handed over earlier, and none is refilled before it is written.
type timeline struct {
	ev      []uint32
	half    int    // words per half
	base    int    // the half being filled: 0 or half
	head    uint64 // words appended to it (published: Flush reads up to it)
	flushed int    // of those, words written to the file
	f       *os.File
	buf     []byte        // encoding scratch on a big-endian machine
	full    chan []uint32 // halves to write, to the writer
	idle    chan struct{} // the token: no write is under way

	prev       int64  // the last event's start
	h1, h2     uint64 // the keys (eventKey) of the last event and the one before
	tag, ctx   uint32 // of the last state record
	stateValid bool
	// stComm is the communicator of the last event recorded, whose state (ctx, tag) is
	// the last state record's: commit's test that an event needs no state record.
	stComm *Comm
}

// start makes the ring of n words and starts its writer; base is the ticks the first
// event's start counts from.
func (t *timeline) start(f *os.File, n int, base int64) {
	n = max(n, 32)
	t.f, t.ev, t.half, t.base = f, make([]uint32, n), n/2, 0
	t.head, t.flushed, t.stateValid, t.stComm = 0, 0, false, noComm
	t.h1, t.h2 = noKey, noKey
	if !littleEndian {
		t.buf = make([]byte, 0, t.half*WordSize)
	}
	t.full, t.idle = make(chan []uint32), make(chan struct{}, 1)
	t.idle <- struct{}{}
	go func() {
		for ev := range t.full {
			t.writeWords(ev)
			t.idle <- struct{}{}
		}
	}()
	t.prev = base
	w := t.reserve(3)
	w[0], w[1], w[2] = recBase<<kindShift, uint32(base), uint32(uint64(base)>>32)
	t.commitWords(3)
}

// add records a call (exit's). At ThreadMultiple calls may overlap: mu orders them.
func (t *timeline) add(call Call, comm *Comm, peer uint64, start, end int64, n int) {
	if concurrent {
		mu.Lock()
		t.record(call, comm, peer, start, end, n)
		mu.Unlock()
		return
	}
	t.record(call, comm, peer, start, end, n)
}

// record is add's work: a state record when the tag or communicator changed, then
// the event's record (see WordSize).
func (t *timeline) record(call Call, comm *Comm, peer uint64, start, end int64, n int) {
	ctx := comm.context()
	tag := uint32(peer >> 32)
	if tag != t.tag || ctx != t.ctx || !t.stateValid {
		t.tag, t.ctx, t.stateValid = tag, ctx, true
		w := t.reserve(3)
		w[0], w[1], w[2] = recState<<kindShift, tag, ctx
		t.commitWords(3)
	}
	t.stComm = comm
	p := int32(uint32(peer))
	dt, dur := uint64(start-t.prev), uint64(end-start)
	key := eventKey(call, uint64(n), p)
	switch {
	case key != noKey && dt < 1<<(kindShift-repDur) && dur < 1<<repDur && (key == t.h1 || key == t.h2):
		w := t.reserve(1)
		w[0] = uint32(dt<<repDur|dur) | recRepeat1<<kindShift
		if key != t.h1 {
			w[0] = uint32(dt<<repDur|dur) | recRepeat2<<kindShift
		}
		t.commitWords(1)
	case key != noKey && dt|dur < 1<<32:
		w := t.reserve(4)
		w[0], w[1], w[2], w[3] = recEvent<<kindShift|uint32(call)<<16|uint32(uint16(p)), uint32(n), uint32(dt), uint32(dur)
		t.commitWords(4)
	default:
		key = noKey
		w := t.reserve(8)
		w[0], w[1] = recFull<<kindShift|uint32(call)<<16, uint32(p)
		w[2], w[3] = uint32(start), uint32(uint64(start)>>32)
		w[4], w[5] = uint32(dur), uint32(dur>>32)
		w[6], w[7] = uint32(n), uint32(uint64(n)>>32)
		t.commitWords(8)
	}
	t.prev = start
	t.h1, t.h2 = key, t.h1
}

// reserve returns room for a record of k words in the half being filled, handing the
// half over first when it has not that much left.
func (t *timeline) reserve(k int) []uint32 {
	h := int(t.head)
	if h+k > t.half {
		t.swapHalf()
		h = 0
	}
	return t.ev[t.base+h : t.base+h+k : t.base+h+k]
}

// commitWords publishes the k words reserve returned.
func (t *timeline) commitWords(k int) { publish(&t.head, t.head+uint64(k)) }

// swapHalf hands the filled part of the half to the writer (taking mu, unless the
// caller holds it at ThreadMultiple) and starts filling the other once its words are
// written.
func (t *timeline) swapHalf() {
	if !concurrent {
		mu.Lock()
		defer mu.Unlock()
	}
	<-t.idle
	full := t.ev[t.base+t.flushed : t.base+int(t.head)]
	t.base = t.half - t.base
	t.flushed = 0
	publish(&t.head, 0)
	t.full <- full
}

// write appends the words of the current half not yet written to the file, once the
// writer is done with the other half (mu held).
func (t *timeline) write() {
	if t.f == nil {
		return
	}
	<-t.idle
	h := int(atomic.LoadUint64(&t.head))
	if h > t.flushed {
		t.writeWords(t.ev[t.base+t.flushed : t.base+h])
		t.flushed = h
	}
	t.idle <- struct{}{}
}

// writeWords writes ev to the file (the idle token held).
func (t *timeline) writeWords(ev []uint32) {
	if len(ev) == 0 {
		return
	}
	var b []byte
	if littleEndian {
		b = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ev))), len(ev)*WordSize)
	} else {
		b = t.buf[:0]
		for _, w := range ev {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
		t.buf = b
	}
	t.f.Write(b) // a full disk loses events, never the job
}

// noComm is no communicator's pointer: stComm before the first event.
var noComm = new(Comm)

var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// Process facts recorded at Start.
var (
	rank, size int
	host       string
	dir        string
	start      pair
	started    atomic.Bool
)

// Start begins the rank's record once MPI is up: rank and size of the world, and
// whether calls may overlap (a program at ThreadMultiple). With the profile setting
// on, every call is timed and goes into the timeline.
func Start(r, n int, multi bool) error {
	mu.Lock()
	defer mu.Unlock()
	defer func() { stamping = timed && !concurrent }()
	rank, size, concurrent = r, n, multi
	if concurrent {
		gate = 0 // every call takes Enter's long path (atomic counts) but sharedCalls
		startShared()
	}
	host, _ = os.Hostname()
	start = pairNow()
	started.Store(true)
	dir = setProfile.Get()
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		dir = ""
		return fmt.Errorf("profile directory: %v", err)
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("rank-%d.events", r)))
	if err != nil {
		dir = ""
		return fmt.Errorf("profile: %v", err)
	}
	tl.start(f, int(setEvents.Get()), start.Ticks)
	timed, defGap = true, nextGap()
	gate = 0 // every call is timed: Enter's long path
	return nil
}

// Directory is the profile setting's value: where ranks write their profiles.
func Directory() string { return setProfile.Get() }

// CallTotals is one call's totals as a rank writes them.
type CallTotals struct {
	Call  string
	Kind  string
	N     uint64
	Bytes uint64
	Timed uint64
	Ns    float64 // time in the call (measured, or estimated from samples)
	Hist  []uint64
}

// Profile is what a rank writes at its end (rank-N.json).
type Profile struct {
	Rank, Size int
	Host       string
	Pid        int
	Reason     string    // "finalize", "abort", "error", "stopped" (the launcher asked)
	Start, End time.Time // wall clock of Start and of this write
	Wall       float64   // seconds from Start to this write
	MPI        float64   // seconds in MPI calls: CallTime, at most Wall
	// CallTime is the calls' times added up. It exceeds Wall where goroutines were
	// in MPI at once (ThreadMultiple): the rank's time in MPI is then the wall time
	// at most, which MPI says.
	CallTime float64
	Calls    []CallTotals
	// The rank's row of the communication matrix: bytes and messages it sent to each
	// world rank, every message the engine sent (point-to-point and collective) and
	// the flows of the node shared-memory collectives (see links.go), and of those the
	// collectives' (the engine's messages on the communicators' internal contexts, and
	// the node collectives' flows).
	SentBytes, SentMsgs []uint64
	CollBytes, CollMsgs []uint64
	// One-sided operations done directly on node memory, counted at this rank as
	// their origin (not messages, so not in SentBytes): bytes and operations from
	// this rank to each world rank (Put, Accumulate, and the origin's part of the
	// fetching ones), and from each world rank to this rank (Get, and the results
	// of the fetching ones). Shipped operations are in SentBytes as the messages
	// that carry them.
	RMABytes, RMAOps     []uint64 `json:",omitempty"`
	RMAInBytes, RMAInOps []uint64 `json:",omitempty"`
	// Clock converts the timeline's ticks: Unix ns = Unix0 + (ticks-Ticks0)*NsPerTick.
	Ticks0    int64
	Unix0     int64
	NsPerTick float64
}

// nsPerTick converts ticks, measured from Start to now.
func nsPerTick(now pair) float64 {
	if now.Ticks <= start.Ticks || now.Unix <= start.Unix {
		return 1
	}
	return float64(now.Unix-start.Unix) / float64(now.Ticks-start.Ticks)
}

// snapshot reads the counters (from any goroutine).
func snapshot(reason string) *Profile {
	now := pairNow()
	k := nsPerTick(now)
	p := &Profile{Rank: rank, Size: size, Host: host, Pid: os.Getpid(), Reason: reason,
		Start: time.Unix(0, start.Unix), End: time.Unix(0, now.Unix),
		Wall: float64(now.Unix-start.Unix) / 1e9, Ticks0: start.Ticks, Unix0: start.Unix, NsPerTick: k}
	// The calls' totals: this record's, and those kept outside Go.
	tot := make([]Counter, NumCalls)
	for i := range tot {
		c, t := &counts[i], &tot[i]
		t.Bytes = atomic.LoadUint64(&c.Bytes)
		t.Timed, t.Ticks = atomic.LoadUint64(&c.Timed), atomic.LoadUint64(&c.Ticks)
		t.Quick, t.QuickTicks = atomic.LoadUint64(&c.Quick), atomic.LoadUint64(&c.QuickTicks)
		t.Waited, t.WaitTicks = atomic.LoadUint64(&c.Waited), atomic.LoadUint64(&c.WaitTicks)
		for b := range t.Hist {
			t.Hist[b] = atomic.LoadUint64(&c.Hist[b])
			t.N += t.Hist[b]
		}
	}
	readTallies(tot)
	for i := Call(1); i < NumCalls; i++ {
		c := &tot[i]
		n := c.N
		if n == 0 {
			continue
		}
		t := CallTotals{Call: i.String(), Kind: i.Kind().String(), N: n, Bytes: c.Bytes,
			Timed: c.Timed, Hist: make([]uint64, HistBuckets)}
		t.Ns = c.Estimate() * k
		copy(t.Hist, c.Hist[:])
		p.CallTime += t.Ns / 1e9
		p.Calls = append(p.Calls, t)
	}
	p.MPI = min(p.CallTime, p.Wall)
	var cols [numColumns][]Link
	for i := range cols {
		cols[i] = make([]Link, size)
	}
	readMatrix(&cols)
	p.SentBytes, p.SentMsgs = split(cols[colSent])
	p.CollBytes, p.CollMsgs = split(cols[colColl])
	for w := range size {
		if cols[colRMATo][w].Ops+cols[colRMAFrom][w].Ops > 0 {
			p.RMABytes, p.RMAOps = split(cols[colRMATo])
			p.RMAInBytes, p.RMAInOps = split(cols[colRMAFrom])
			break
		}
	}
	return p
}

// split is links' bytes and operations.
func split(links []Link) (bytes, ops []uint64) {
	bytes, ops = make([]uint64, len(links)), make([]uint64, len(links))
	for i, l := range links {
		bytes[i], ops[i] = l.Bytes, l.Ops
	}
	return bytes, ops
}

// Flush writes the rank's profile (rank-N.json) and the timeline's events not yet
// written, when the profile is on. reason says why (see Profile.Reason). It may be
// called more than once and from any goroutine; the last call's file stands.
func Flush(reason string) error {
	if !started.Load() {
		return nil
	}
	mu.Lock()
	defer mu.Unlock()
	if dir == "" {
		return nil
	}
	tl.write()
	p := snapshot(reason)
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	name := filepath.Join(dir, fmt.Sprintf("rank-%d.json", rank))
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// Report is a rank's one-line account for mpigo run --report.
type Report struct {
	Rank     int
	Wall     float64 // seconds from Init to now
	MPI      float64 // seconds in MPI calls, at most Wall (Profile.MPI)
	CallTime float64 // the calls' times added up (Profile.CallTime)
	Calls    uint64
	Top      string  // the call with the most time
	TopS     float64 // its seconds
}

// Summary returns the rank's report so far.
func Summary() Report {
	if !started.Load() {
		return Report{Rank: -1}
	}
	p := snapshot("")
	r := Report{Rank: p.Rank, Wall: p.Wall, MPI: p.MPI, CallTime: p.CallTime}
	for _, c := range p.Calls {
		r.Calls += c.N
		if c.Ns/1e9 > r.TopS {
			r.Top, r.TopS = c.Call, c.Ns/1e9
		}
	}
	return r
}

// Where is the call a rank is in, as State reports it.
type Where struct {
	Rank     int
	Call     string // "" when not in MPI
	Comm     uint32 // the communicator's context id (0: the world)
	CommName string
	Size     int   // its size (of its local group)
	Group    []int // the world ranks of its (local) group; nil: the world's, in order
	Remote   []int // an intercommunicator's remote group
	Peer     int   // world rank; AnySource (-1), ProcNull (-2), NoPeer (-3), or a collective's root as a rank of the communicator
	Tag      int
	Bytes    int64
	// Freed: the communicator was freed while the call goes on (a wait on one of its
	// requests).
	Freed   bool    `json:",omitempty"`
	Blocked float64 // seconds since it entered the call or began to wait; -1 unknown
	// WaitsRecv: a completion call waits for a receive from Peer (a request's).
	WaitsRecv bool `json:",omitempty"`
	// Others names the processes of other jobs among Peer, Group and Remote, which
	// are indices past the world's ranks.
	Others []Proc `json:",omitempty"`
}

// State returns the call the rank is in now, read when two reads agree (the
// recording goroutine writes it with plain stores).
func State() Where {
	var a, b current
	for i := 0; i < 100; i++ {
		a = readCur()
		b = readCur()
		if a == b {
			break
		}
	}
	w := Where{Rank: rank, Peer: -1, Blocked: -1}
	call := Call(a.call & 0xff)
	if call == None || call >= NumCalls {
		return w
	}
	w.Call = call.String()
	w.Peer = int(int32(uint32(a.peer)))
	w.Tag = int(int32(uint32(a.peer >> 32)))
	w.Bytes = int64(a.bytes)
	w.WaitsRecv = a.call&waitsRecv != 0
	a.comm.describe(&w)
	if a.call&worldPeer == 0 && w.Peer >= 0 && call.Kind() != KindColl && call.Kind() != KindStart {
		// A rank of the communicator (of its remote group on an intercommunicator).
		switch {
		case w.Remote != nil && w.Peer < len(w.Remote):
			w.Peer = w.Remote[w.Peer]
		case w.Remote == nil && w.Group != nil && w.Peer < len(w.Group):
			w.Peer = w.Group[w.Peer]
		}
	}
	nameOthers(&w, call.Kind() != KindColl && call.Kind() != KindStart)
	if a.since != 0 && started.Load() {
		now := pairNow()
		w.Blocked = float64(now.Ticks-int64(a.since)) * nsPerTick(now) / 1e9
	}
	return w
}

func readCur() current {
	return current{call: atomic.LoadUint64(&cur.call), comm: loadCommAtomic(&cur.comm),
		peer: atomic.LoadUint64(&cur.peer), bytes: atomic.LoadUint64(&cur.bytes), since: atomic.LoadUint64(&cur.since)}
}

// Query answers the launcher's question, which it asks of a job it is about to stop:
// the rank writes its profile first (Flush), then says where it is (StateMessage). The
// launcher's connection calls it on its own goroutine (internal/core hands it over at
// start); like every snapshot it reads only the record's memory and the counts handed
// down to it, so it calls nothing of the layers below and waits for none of them.
func Query() []byte {
	if err := Flush("stopped"); err != nil {
		Warn(err)
	}
	return StateMessage()
}

// Warn says on the standard error that the record failed (a profile's file could not
// be written): the job goes on without it.
func Warn(err error) {
	fmt.Fprintf(os.Stderr, "mpigo: rank %d: %v (the job goes on without it)\n", rank, err)
}

// StateMessage is the rank's answer to the launcher's question (JSON of State and
// Summary).
func StateMessage() []byte {
	b, _ := json.Marshal(Answer{Where: State(), Report: Summary()})
	return b
}

// Answer is StateMessage's content.
type Answer struct {
	Where  Where
	Report Report
}

// ReportMessage is the rank's report at Finalize (JSON of Summary).
func ReportMessage() []byte {
	b, _ := json.Marshal(Summary())
	return b
}

var lastErrorFlush atomic.Int64

// OnError is called by the facade's error seam for every error a call returns: a
// program often exits on one (a failed peer), so a profiled rank writes its profile
// then, at most once every errorFlushGap (a program that meets errors in a loop does
// not write at every one).
func OnError() {
	if !timed {
		return
	}
	Settle()
	now := time.Now().UnixNano()
	if last := lastErrorFlush.Load(); now-last < int64(errorFlushGap) || !lastErrorFlush.CompareAndSwap(last, now) {
		return
	}
	Flush("error")
}

const errorFlushGap = 100 * time.Millisecond
