package window

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/rma"
)

// RBuf is an origin or result buffer of a one-sided operation: Count items of Type
// laid out from Mem[0] (MPI's buf, count, datatype).
type RBuf struct {
	Mem   []byte
	Count int64
	Type  *datatype.Type
}

// Target names where an operation acts: Disp units of the target's displacement unit
// from the start of rank Rank's window (in a dynamic window, an address Attach gave),
// Count items of Type there.
type Target struct {
	Rank  int
	Disp  int64
	Count int64
	Type  *datatype.Type
}

// prepared is an operation's target, checked: the peer, the byte offset of the
// target type's base in its memory (an address in a dynamic window), and the
// target's packed size.
type prepared struct {
	p     *winPeer
	off   int64
	bytes int64
}

// prepare finds target t, a rank of the window inside an access epoch with checked
// count and datatype (internal/mpir's checks), and checks that its bytes lie in its
// window (MPI_ERR_RMA_RANGE): what only the device knows. A dynamic window's target
// checks that where the memory is, as it applies the request.
func (w *Win) prepare(op string, t *Target) (prepared, error) {
	p := &w.peers[t.Rank]
	if t.Rank == w.rank && w.served {
		w.applied.Load() // what the progress goroutine applied here (see observe)
	}
	if toff, n, ok := contig(t.Type, t.Count); ok && w.flavor != FlavorDynamic {
		// The common case, without the datatype engine's general span computations.
		off := t.Disp * int64(p.dispUnit)
		if off+toff+n > p.size {
			return w.prepareSlow(op, t, p, n)
		}
		return prepared{p: p, off: off, bytes: n}, nil
	}
	n, err := t.Type.PackSize(t.Count)
	if err != nil {
		return prepared{}, core.TypeErr(op, err)
	}
	return w.prepareSlow(op, t, p, n)
}

// contig is ContiguousSpan with a short way for the basic predefined types.
func contig(dt *datatype.Type, count int64) (off, n int64, ok bool) {
	if dt.IsPredefined() && dt.Size() == dt.Extent() {
		return 0, count * dt.Size(), true
	}
	return dt.ContiguousSpan(count)
}

func (w *Win) prepareSlow(op string, t *Target, p *winPeer, n int64) (prepared, error) {
	if w.flavor == FlavorDynamic {
		return prepared{p: p, off: t.Disp, bytes: n}, nil
	}
	off := t.Disp * int64(p.dispUnit)
	if n > 0 {
		lo, hi, err := t.Type.Span(t.Count)
		if err != nil {
			return prepared{}, core.TypeErr(op, err)
		}
		if off+lo < 0 || off+hi > p.size {
			return prepared{}, core.Errorf(core.ClassRMARange, op, "target displacement %d (x disp unit %d) with %d items of %s reaches bytes [%d,%d) of rank %d's window, which has %d bytes",
				t.Disp, p.dispUnit, t.Count, t.Type.Name(), off+lo, off+hi, t.Rank, p.size)
		}
	}
	return prepared{p: p, off: off, bytes: n}, nil
}

// stream is b as a packed stream: its own bytes when contiguous, else packed into
// new memory.
func stream(b *RBuf) []byte {
	if off, n, ok := contig(b.Type, b.Count); ok {
		return b.Mem[off : off+n]
	}
	n, _ := b.Type.PackSize(b.Count)
	s := make([]byte, n)
	b.Type.Pack(s, b.Mem, b.Count)
	return s
}

// unstream stores the packed stream s into b.
func unstream(b *RBuf, s []byte) {
	if off, n, ok := contig(b.Type, b.Count); ok {
		copy(b.Mem[off:off+n], s)
		return
	}
	b.Type.Unpack(b.Mem, s, b.Count)
}

// pieces are the target's runs of memory, offsets from the window's base (or from
// the address, in a dynamic window). one is room for a contiguous target.
func pieces(t *Target, off int64, one *[1]rma.Piece) []rma.Piece {
	if o, n, ok := contig(t.Type, t.Count); ok {
		one[0] = rma.Piece{Off: off + o, Len: n}
		return one[:]
	}
	var ps []rma.Piece
	var buf [64]rma.Piece
	total, _ := t.Type.PackSize(t.Count)
	for from := int64(0); from < total; {
		k, next, err := t.Type.Iov(buf[:], t.Count, from)
		if err != nil || next == from {
			break
		}
		for _, p := range buf[:k] {
			ps = append(ps, rma.Piece{Off: off + p.Off, Len: p.Len})
		}
		from = next
	}
	return ps
}

// Put writes o to the target (MPI_Put).
func (w *Win) Put(op string, o *RBuf, t *Target) error {
	_, err := w.put(op, o, t, false)
	return err
}

// Rput is Put returning a request that completes when o may be reused.
func (w *Win) Rput(op string, o *RBuf, t *Target) (*core.Pending, error) {
	return w.put(op, o, t, true)
}

func (w *Win) put(op string, o *RBuf, t *Target, req bool) (*core.Pending, error) {
	pr, err := w.prepare(op, t)
	if err != nil || pr.bytes == 0 {
		return core.Completed(), err
	}
	if pr.p.direct {
		mem := pr.p.mem
		if toff, n, ok := contig(t.Type, t.Count); ok {
			dst := mem[pr.off+toff : pr.off+toff+n]
			if ooff, m, ok := contig(o.Type, o.Count); ok {
				w.copyDirect(dst, o.Mem[ooff:ooff+m])
			} else {
				o.Type.Pack(dst, o.Mem, o.Count)
			}
		} else {
			t.Type.UnpackAt(mem, pr.off, stream(o), t.Count)
		}
		prof.AddLink(&pr.p.to, int(pr.bytes))
		return core.Completed(), nil
	}
	if putSingly(pr.p, pr.bytes) {
		if done, err := w.putSingle(op, pr, o, t); done {
			return core.Completed(), err
		}
	}
	var one [1]rma.Piece
	x := w.ship(t.Rank, &rma.Header{Kind: rma.KPut}, pr.off, pieces(t, 0, &one), stream(o), false, req, nil, nil)
	return x.pending(), nil
}

// Get reads the target into o (MPI_Get).
func (w *Win) Get(op string, o *RBuf, t *Target) error {
	_, err := w.get(op, o, t, false)
	return err
}

// Rget is Get returning a request that completes when o holds the data.
func (w *Win) Rget(op string, o *RBuf, t *Target) (*core.Pending, error) {
	return w.get(op, o, t, true)
}

func (w *Win) get(op string, o *RBuf, t *Target, req bool) (*core.Pending, error) {
	pr, err := w.prepare(op, t)
	if err != nil || pr.bytes == 0 {
		return core.Completed(), err
	}
	if pr.p.direct {
		mem := pr.p.mem
		if toff, n, ok := contig(t.Type, t.Count); ok {
			unstream(o, mem[pr.off+toff:pr.off+toff+n])
		} else if ooff, m, ok := o.Type.ContiguousSpan(o.Count); ok {
			t.Type.PackAt(o.Mem[ooff:ooff+m], mem, pr.off, t.Count)
		} else {
			s := make([]byte, pr.bytes)
			t.Type.PackAt(s, mem, pr.off, t.Count)
			unstream(o, s)
		}
		prof.AddLink(&pr.p.from, int(pr.bytes))
		return core.Completed(), nil
	}
	if pr.p.single.Load() && singleFits(pr.p, pr.bytes) {
		if done, err := w.getSingle(op, pr, o, t, !req); done {
			return core.Completed(), err
		}
	}
	var one [1]rma.Piece
	into, fin := resultSink(o)
	x := w.ship(t.Rank, &rma.Header{Kind: rma.KGet}, pr.off, pieces(t, 0, &one), nil, true, req, into, fin)
	return x.pending(), nil
}

// Accumulate combines o into the target with rop, element-wise atomically
// (MPI_Accumulate).
func (w *Win) Accumulate(op string, o *RBuf, t *Target, rop rma.Op) error {
	_, err := w.acc(op, o, nil, t, rop, false)
	return err
}

// Raccumulate is Accumulate returning a request that completes when o may be reused.
func (w *Win) Raccumulate(op string, o *RBuf, t *Target, rop rma.Op) (*core.Pending, error) {
	return w.acc(op, o, nil, t, rop, true)
}

// GetAccumulate returns the target's values in r, then combines o into them
// (MPI_Get_accumulate); with NoOp it only reads, atomically, and o is ignored.
func (w *Win) GetAccumulate(op string, o, r *RBuf, t *Target, rop rma.Op) error {
	_, err := w.acc(op, o, r, t, rop, false)
	return err
}

// RgetAccumulate is GetAccumulate returning a request that completes when r holds
// the values.
func (w *Win) RgetAccumulate(op string, o, r *RBuf, t *Target, rop rma.Op) (*core.Pending, error) {
	return w.acc(op, o, r, t, rop, true)
}

func (w *Win) acc(op string, o, r *RBuf, t *Target, rop rma.Op, req bool) (*core.Pending, error) {
	pr, err := w.prepare(op, t)
	if err != nil || pr.bytes == 0 {
		return core.Completed(), err
	}
	if rop == rma.OpNoOp && r != nil {
		o = nil
	}
	k := t.Type.Kind()
	var data []byte
	if o != nil {
		data = stream(o)
	} else {
		data = make([]byte, pr.bytes) // NoOp reads; the kernel ignores it
	}
	var one [1]rma.Piece
	if pr.p.direct {
		ps := pieces(t, pr.off, &one)
		var old []byte
		if r != nil {
			old = resultStream(r)
		}
		if err := rma.Acc(pr.p.mem, ps, data, old, rop, k, pr.p.ctrl.acc(), nil); err != nil {
			return nil, core.Errorf(core.ClassOp, op, "%v", err)
		}
		if r != nil {
			finishResult(r, old)
			prof.AddLink(&pr.p.from, int(pr.bytes))
		}
		if o != nil {
			prof.AddLink(&pr.p.to, int(pr.bytes))
		}
		return core.Completed(), nil
	}
	h := &rma.Header{Kind: rma.KAcc, Op: rop, Elem: k}
	if r == nil {
		// The first short Accumulate since the target's last completion asks for an
		// answer and goes at once, as a Fetch_and_op does: a Flush after it then
		// waits for that answer, and needs no flush request of its own.
		ack := pr.bytes <= batchAlone && !w.run[t.Rank].Swap(true)
		return w.ship(t.Rank, h, pr.off, pieces(t, 0, &one), data, ack, req, nil, nil).pending(), nil
	}
	h.Kind = rma.KGetAcc
	into, fin := resultSink(r)
	return w.ship(t.Rank, h, pr.off, pieces(t, 0, &one), data, true, req, into, fin).pending(), nil
}

// resultSink is where a shipped operation's reply goes: b's own bytes when it is
// contiguous (no copy, no fin), else a packed stream that fin unpacks into b.
func resultSink(b *RBuf) ([]byte, func([]byte)) {
	if off, n, ok := contig(b.Type, b.Count); ok {
		return b.Mem[off : off+n], nil
	}
	n, _ := b.Type.PackSize(b.Count)
	rb := *b
	return make([]byte, n), func(s []byte) { unstream(&rb, s) }
}

// resultStream is where the old values go: r's own bytes when contiguous.
func resultStream(r *RBuf) []byte {
	if off, n, ok := contig(r.Type, r.Count); ok {
		return r.Mem[off : off+n]
	}
	n, _ := r.Type.PackSize(r.Count)
	return make([]byte, n)
}

func finishResult(r *RBuf, s []byte) {
	if _, _, ok := contig(r.Type, r.Count); !ok {
		r.Type.Unpack(r.Mem, s, r.Count)
	}
}

// FetchAndOp is GetAccumulate of one element of the predefined type dt
// (MPI_Fetch_and_op): o and r hold one element each (o nil with NoOp). With wait it
// returns with r filled (a shipped one waits for its reply), as the Go face, which
// returns the value, needs; without, r is filled by the operation's completion (a
// Flush, Unlock, ...), as MPI says, so that a run of them to a shipped target costs
// no round trip each.
func (w *Win) FetchAndOp(op string, o, r []byte, dt *datatype.Type, rank int, disp int64, rop rma.Op, wait bool) error {
	ob, rb := RBuf{Mem: o, Count: 1, Type: dt}, RBuf{Mem: r, Count: 1, Type: dt}
	t := Target{Rank: rank, Disp: disp, Count: 1, Type: dt}
	p, err := w.acc(op, &ob, &rb, &t, rop, wait) // waited on below: kept
	if err != nil || !wait {
		return err
	}
	return p.Wait()
}

// CompareAndSwap replaces the target element by o if it equals cmp and returns its
// old value in r (MPI_Compare_and_swap); dt is a predefined integer, bool or byte
// type, and each buffer holds one element. wait is FetchAndOp's.
func (w *Win) CompareAndSwap(op string, o, cmp, r []byte, dt *datatype.Type, rank int, disp int64, wait bool) error {
	t := Target{Rank: rank, Disp: disp, Count: 1, Type: dt}
	pr, err := w.prepare(op, &t)
	if err != nil {
		return err
	}
	n := int(dt.Size())
	if pr.p.direct {
		rma.CompareSwap(pr.p.mem, pr.off, cmp[:n], o[:n], r[:n], dt.Kind(), pr.p.ctrl.acc())
		pr.p.done(prof.None, n, prof.DirTo|prof.DirFrom)
		return nil
	}
	data := make([]byte, 2*n)
	copy(data, cmp[:n])
	copy(data[n:], o[:n])
	x := w.ship(rank, &rma.Header{Kind: rma.KCas, Elem: dt.Kind()}, pr.off, []rma.Piece{{Off: 0, Len: int64(n)}}, data, true, wait, r[:n], nil)
	if !wait {
		return nil
	}
	return x.complete()
}

// worldOf is the engine's name for a rank of the window.
func (w *Win) worldOf(r int) int { return w.comm.WorldRank(r) }
