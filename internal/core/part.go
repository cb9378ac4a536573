package core

import (
	"context"
	"encoding/binary"
	"sync"

	"github.com/mpigo/mpigo/internal/p2p"
)

// Partitioned point-to-point (MPI 4.1 chapter 4): a persistent send whose buffer is
// cut into partitions that the program marks ready one by one (Pready), and a
// persistent receive whose partitions the program may look at as they arrive
// (Parrived). The two sides may cut the same message differently.
//
// Matching is MPI's: a sender's and a receiver's initialisations on one communicator
// with one (peer, tag) match in the order they were made. The sender's init sends a
// hello on the internal context (its tag, its channel number sid, its partitions and
// their size), and the receiver's table (partTable) pairs hellos with receive inits
// per (source, tag) in order, whichever comes first. Each sender partition then
// travels as a message of its own with tag tagPartData + sid<<partBits + i, straight
// from the sender's buffer into its place in the receiver's: the receiver knows the
// sender's cut from the hello and posts a receive per sender partition when a round
// starts. Rounds do not mix: messages of one tag from one sender are not overtaken.

const (
	partBits = 14
	// MaxPartitions bounds a partitioned send's partitions (its tags' room).
	MaxPartitions = 1 << partBits
	maxPartChans  = 1 << (28 - partBits) // live partitioned sends per peer
)

// partTable is a communicator's matching state.
type partTable struct {
	mu      sync.Mutex
	next    map[int]int           // per destination (world rank): the next channel number to try
	live    map[[2]int]bool       // (destination, sid) of live sends
	waiting map[[2]int][]*partOp  // (source, tag): receives not yet matched, in init order
	hellos  map[[2]int][]partInfo // (source, tag): hellos not yet claimed, in arrival order
}

type partInfo struct {
	sid, parts int
	psize      int64
}

func (c *Comm) parts() *partTable {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.part == nil {
		c.part = &partTable{next: map[int]int{}, live: map[[2]int]bool{},
			waiting: map[[2]int][]*partOp{}, hellos: map[[2]int][]partInfo{}}
	}
	return c.part
}

// partOp is one partitioned send or receive.
type partOp struct {
	c         *Comm
	op        string
	send      bool
	buf       p2p.Buf
	parts     int   // this side's partitions
	psize     int64 // this side's partition size in bytes
	peer, tag int   // the peer's rank in c (ProcNull: nothing moves)
	wpeer     int   // its world rank

	hdr   [32]byte
	hello p2p.Request

	mu      sync.Mutex
	active  bool
	freed   bool
	err     error
	ready   []bool // send: partitions marked ready
	nready  int
	matched bool     // receive: paired with a hello
	far     partInfo // receive: the sender's cut
	posted  bool     // receive: this round's receives are posted
	reqs    []p2p.Request
	done    []bool
	ndone   int
	box     Pending
}

// PartInit makes a partitioned send (send) or receive of mem, cut into parts
// partitions, with peer and tag (MPI_Psend_init, MPI_Precv_init). The request is
// inactive until Start.
func (c *Comm) PartInit(op string, send bool, buf p2p.Buf, parts, peer, tag int) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	what := "dest"
	if !send {
		what = "source"
	}
	w, err := c.Target(op, what, peer, tag, false)
	if err != nil {
		return nil, err
	}
	if parts < 0 || parts > MaxPartitions {
		return nil, Errorf(ClassArg, op, "partitions %d must be in [0, %d]", parts, MaxPartitions)
	}
	var psize int64
	switch {
	case parts == 0 && buf.Len() != 0:
		// MPI's buffer is partitions*count elements: with none, it holds nothing.
		return nil, Errorf(ClassCount, op, "0 partitions carry nothing, but the buffer has %d bytes", buf.Len())
	case parts > 0 && buf.Len()%int64(parts) != 0:
		return nil, Errorf(ClassCount, op, "the buffer's %d bytes do not cut into %d equal partitions", buf.Len(), parts)
	case parts > 0:
		psize = buf.Len() / int64(parts)
	}
	o := &partOp{c: c, op: op, send: send, buf: buf, parts: parts, psize: psize, peer: peer, tag: tag, wpeer: w}
	o.box.op = o
	if peer == ProcNull {
		return &o.box, nil
	}
	t := c.parts()
	if send {
		sid, err := t.openSend(op, w)
		if err != nil {
			return nil, err
		}
		o.far.sid = sid
		binary.LittleEndian.PutUint64(o.hdr[0:], uint64(int64(tag)))
		binary.LittleEndian.PutUint64(o.hdr[8:], uint64(sid))
		binary.LittleEndian.PutUint64(o.hdr[16:], uint64(parts))
		binary.LittleEndian.PutUint64(o.hdr[24:], uint64(o.psize))
		if o.hello, err = c.IsendInternal(o.hdr[:], peer, tagPartHello); err != nil {
			t.closeSend(w, sid)
			return nil, MapErr(op, err)
		}
		return &o.box, nil
	}
	t.mu.Lock()
	k := [2]int{w, tag}
	if hs := t.hellos[k]; len(hs) > 0 {
		o.matched, o.far = true, hs[0]
		t.hellos[k] = hs[1:]
	} else {
		t.waiting[k] = append(t.waiting[k], o)
	}
	t.mu.Unlock()
	return &o.box, nil
}

func (t *partTable) openSend(op string, w int) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for range maxPartChans {
		sid := t.next[w]
		t.next[w] = (sid + 1) % maxPartChans
		if !t.live[[2]int{w, sid}] {
			t.live[[2]int{w, sid}] = true
			return sid, nil
		}
	}
	return 0, Errorf(ClassOther, op, "%d partitioned sends to one peer are live: free some first", maxPartChans)
}

func (t *partTable) closeSend(w, sid int) {
	t.mu.Lock()
	delete(t.live, [2]int{w, sid})
	t.mu.Unlock()
}

// drain takes every hello that has come and pairs it with the first receive
// waiting for its (source, tag), or keeps it for the next such receive.
func (t *partTable) drain(c *Comm) error {
	for {
		m, st, ok, err := eng.Improbe(AnySource, tagPartHello, c.ctx+1)
		if err != nil || !ok {
			return err
		}
		var h [32]byte
		if _, err := eng.Mrecv(p2p.Bytes(h[:]), &m); err != nil {
			return err
		}
		info := partInfo{sid: int(binary.LittleEndian.Uint64(h[8:])), parts: int(binary.LittleEndian.Uint64(h[16:])),
			psize: int64(binary.LittleEndian.Uint64(h[24:]))}
		k := [2]int{st.Source, int(int64(binary.LittleEndian.Uint64(h[0:])))}
		t.mu.Lock()
		if ws := t.waiting[k]; len(ws) > 0 {
			o := ws[0]
			t.waiting[k] = ws[1:]
			o.mu.Lock()
			o.matched, o.far = true, info
			o.mu.Unlock()
		} else {
			t.hellos[k] = append(t.hellos[k], info)
		}
		t.mu.Unlock()
	}
}

// start begins a round (MPI_Start).
func (o *partOp) Start(op string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.freed:
		return Errorf(ClassRequest, op, "the partitioned request has been freed")
	case o.active:
		return Errorf(ClassRequest, op, "the partitioned request is active: complete it (Wait, Test) before starting it again")
	}
	o.active, o.err, o.posted = true, nil, false
	o.ready, o.nready, o.reqs, o.done, o.ndone = make([]bool, o.parts), 0, nil, nil, 0
	if o.send {
		o.reqs = make([]p2p.Request, o.parts)
	}
	return nil
}

func (o *partOp) IsActive() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.active
}

func (o *partOp) dataTag(i int) int { return tagPartData + o.far.sid<<partBits + i }

// Pready marks partitions lo..hi-1 of a partitioned send ready: each leaves at once.
func (p *Pending) Pready(op string, lo, hi int) error {
	o, err := partOf(op, p, true)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.active {
		return Errorf(ClassRequest, op, "the partitioned send is not active: Start it first")
	}
	if lo < 0 || hi > o.parts || lo > hi {
		return Errorf(ClassArg, op, "partitions [%d,%d) out of range [0,%d)", lo, hi, o.parts)
	}
	for i := lo; i < hi; i++ {
		if o.ready[i] {
			return Errorf(ClassArg, op, "partition %d is marked ready already in this round", i)
		}
	}
	for i := lo; i < hi; i++ {
		o.ready[i] = true
		o.nready++
		if o.peer == ProcNull {
			continue
		}
		q, err := eng.Isend(o.buf.Slice(int64(i)*o.psize, o.psize), o.wpeer, o.dataTag(i), o.c.ctx+1, p2p.Standard)
		if err != nil {
			return MapErr(op, err)
		}
		o.reqs[i] = q
	}
	return nil
}

// Parrived reports whether partition i of a partitioned receive has arrived.
func (p *Pending) Parrived(op string, i int) (bool, error) {
	o, err := partOf(op, p, false)
	if err != nil {
		return false, err
	}
	if err := o.progress(op); err != nil {
		return false, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if i < 0 || i >= o.parts {
		return false, Errorf(ClassArg, op, "partition %d out of range [0,%d)", i, o.parts)
	}
	if !o.active {
		return true, nil // an inactive request has arrived whole (MPI 4.1 §4.2.2)
	}
	if o.peer == ProcNull {
		return true, nil
	}
	if !o.posted {
		return false, o.err
	}
	if o.psize == 0 {
		// Empty partitions map onto no byte of the sender's: one has arrived
		// once the whole (empty) message has, never before the sender's round.
		for j := range o.done {
			o.testOne(j)
		}
		return o.ndone == len(o.done), o.err
	}
	first := int64(i) * o.psize / o.far.psize
	last := (int64(i+1)*o.psize - 1) / o.far.psize
	for j := first; j <= last; j++ {
		if !o.testOne(int(j)) {
			return false, o.err
		}
	}
	return true, o.err
}

func partOf(op string, p *Pending, send bool) (*partOp, error) {
	if p != nil {
		if o, ok := p.op.(*partOp); ok && o.send == send {
			return o, nil
		}
	}
	if send {
		return nil, Errorf(ClassRequest, op, "not a partitioned send (from PsendInit)")
	}
	return nil, Errorf(ClassRequest, op, "not a partitioned receive (from PrecvInit)")
}

// testOne reports whether the receive of sender partition j is done. The caller
// holds o.mu.
func (o *partOp) testOne(j int) bool {
	if o.done[j] {
		return true
	}
	var st p2p.Status
	ok, err := TestInto(&o.reqs[j], &st)
	if err != nil && o.err == nil {
		o.err = MapErr(o.op, err)
	}
	if ok {
		o.done[j] = true
		o.ndone++
	}
	return ok
}

// progress pairs a receive with its hello and, in an active round, posts the
// receives of the sender's partitions.
func (o *partOp) progress(op string) error {
	if o.send || o.peer == ProcNull {
		return nil
	}
	o.mu.Lock()
	matched := o.matched
	o.mu.Unlock()
	if !matched {
		if err := o.c.parts().drain(o.c); err != nil {
			return MapErr(op, err)
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.active || !o.matched || o.posted {
		return nil
	}
	if int64(o.far.parts)*o.far.psize != o.buf.Len() {
		o.err = Errorf(ClassTruncate, op, "the partitioned send from rank %d has %d partitions of %d bytes; the receive's buffer has %d bytes",
			o.peer, o.far.parts, o.far.psize, o.buf.Len())
		o.posted = true
		o.done, o.ndone = make([]bool, o.far.parts), o.far.parts
		return o.err
	}
	o.reqs, o.done = make([]p2p.Request, o.far.parts), make([]bool, o.far.parts)
	for j := range o.far.parts {
		q, err := eng.Irecv(o.buf.Slice(int64(j)*o.far.psize, o.far.psize), o.wpeer, o.dataTag(j), o.c.ctx+1)
		if err != nil {
			return MapErr(op, err)
		}
		o.reqs[j] = q
	}
	o.posted = true
	return nil
}

// Test: a send's round is complete once every partition was marked ready and has
// left; a receive's once every partition has arrived.
func (o *partOp) Test() (bool, error) {
	if err := o.progress(o.op); err != nil {
		return true, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.active || o.peer == ProcNull && (!o.send || o.nready == o.parts) {
		return true, o.err
	}
	if o.send {
		if o.nready < o.parts {
			return false, nil
		}
		if o.done == nil {
			o.done = make([]bool, o.parts)
		}
	} else if !o.posted {
		return false, nil
	}
	for j := range o.done {
		o.testOne(j)
	}
	return o.ndone == len(o.done), o.err
}

func (o *partOp) Wait() error {
	var err error
	Await(func() bool {
		var ok bool
		ok, err = o.Test()
		return ok
	})
	return err
}

func (o *partOp) WaitContext(ctx context.Context) error {
	var err error
	AwaitCtx(ctx, func() bool {
		if ctx.Err() != nil {
			err = ctx.Err()
			return true
		}
		var ok bool
		ok, err = o.Test()
		return ok
	})
	return err
}

// DoneCh is not used: WaitContext serves the waits.
func (o *partOp) DoneCh() <-chan struct{} { return nil }

// status: a receive's is its source, tag and whole length.
func (o *partOp) Status() (p2p.Status, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.send {
		return p2p.Status{Source: AnySource, Tag: AnyTag}, o.err
	}
	return p2p.Status{Source: o.wpeer, Tag: o.tag, Count: o.buf.Len()}, o.err
}

// release ends the round once a completion call has reported it.
func (o *partOp) Release() error {
	o.mu.Lock()
	o.active = false
	o.mu.Unlock()
	return nil
}

// free releases the request: its channel number, and a receive not yet matched.
func (o *partOp) Free() error {
	o.mu.Lock()
	o.freed = true
	o.mu.Unlock()
	if o.peer == ProcNull {
		return nil
	}
	t := o.c.parts()
	if o.send {
		var st p2p.Status
		err := WaitInto(&o.hello, &st)
		t.closeSend(o.wpeer, o.far.sid)
		return MapErr(o.op, err)
	}
	t.mu.Lock()
	k := [2]int{o.wpeer, o.tag}
	for i, w := range t.waiting[k] {
		if w == o {
			t.waiting[k] = append(t.waiting[k][:i:i], t.waiting[k][i+1:]...)
			break
		}
	}
	t.mu.Unlock()
	return nil
}
