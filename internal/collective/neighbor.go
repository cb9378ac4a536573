package collective

import (
	"sync"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// The neighbourhood collectives' exchange (MPI 4.1 §7.6), for every form of them: a
// receive per source and a send per destination of a process topology's neighbour
// lists, all posted at once on the communicator's internal context, each block
// described by a count, a displacement and a datatype. Blocks of contiguous layout
// move straight from and to the caller's memory; the others are packed into pooled
// scratch before they are sent and unpacked from it once every message has arrived
// (never a ProcNull source's, whose block stays as it was). The exchange is a pooled
// record (nbrOp) that the blocking call runs and releases and the nonblocking one
// hands to the progress of nonblocking collectives as its schedule, so that a warm
// call of any form, blocking or not, allocates nothing.

// NSide is one side (send or receive) of a neighbourhood exchange over n neighbours:
// neighbour k's block is count(k) items of type(k) from byte Origin+displ(k)*Unit of
// Mem,
// where count(k) is Counts[k] (Count when Counts is nil), displ(k) Displs[k]
// (k*Stride when Displs is nil) and type(k) Types[k] (Type when Types is nil). With
// neither Types nor Type, an item is Unit bytes, contiguous: a slice form's element,
// whose blocks the caller has checked already. Every side's arguments were checked
// above the device (internal/mpir), a typed side's slices one entry per neighbour; a
// block of no items may have a nil type.
type NSide struct {
	Mem    []byte
	Origin int
	Counts []int
	Count  int
	Displs []int
	Stride int
	Unit   int
	Types  []*datatype.Type
	Type   *datatype.Type
}

func (s *NSide) typed() bool { return s.Types != nil || s.Type != nil }

// block is neighbour k's count, byte displacement and type (nil: untyped).
func (s *NSide) block(k int) (count, at int, t *datatype.Type) {
	count, d := s.Count, k*s.Stride
	if s.Counts != nil {
		count = s.Counts[k]
	}
	if s.Displs != nil {
		d = s.Displs[k]
	}
	t = s.Type
	if s.Types != nil {
		t = s.Types[k]
	}
	return count, s.Origin + d*s.Unit, t
}

// scratch is the bytes a typed side's n blocks need in scratch (those of a layout
// that is not contiguous).
func (s *NSide) scratch(op string, n int) (int, error) {
	if !s.typed() {
		return 0, nil
	}
	scratch := 0
	for k := 0; k < n; k++ {
		count, _, t := s.block(k)
		size, err := blockSize(count, t)
		if err != nil {
			return 0, core.TypeErr(op, err)
		}
		if size == 0 {
			continue
		}
		if _, _, ok := t.ContiguousSpan(int64(count)); !ok {
			scratch += int(size)
		}
	}
	return scratch, nil
}

// bytes returns neighbour k's block: the memory itself when its layout is
// contiguous, else the next size bytes of scratch (*rest, which it advances), and
// whether it is packed there.
func (s *NSide) bytes(k int, rest *[]byte) (b []byte, packed bool, err error) {
	count, at, t := s.block(k)
	if !s.typed() {
		return s.Mem[at : at+count*s.Unit], false, nil
	}
	size, err := blockSize(count, t)
	if err != nil || size == 0 {
		return nil, false, err
	}
	if off, _, ok := t.ContiguousSpan(int64(count)); ok {
		from := at + int(off)
		return s.Mem[from : from+int(size)], false, nil
	}
	b, *rest = (*rest)[:size:size], (*rest)[size:]
	return b, true, nil
}

// Neighbor runs the neighbourhood exchange op on c, or with nb starts it and returns
// its Pending: the receive side's block i from srcs[i], the send side's block j to
// dsts[j], ProcNull neighbours skipped. On a Cartesian grid (cart) each message's tag
// names the receiver's slot, so that in a dimension of size 1 or 2 (where the -1 and
// +1 neighbours are the same rank) each block lands in its place.
func Neighbor(cc *core.Comm, op string, srcs, dsts []int, cart bool, send, recv *NSide, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	sn, err := send.scratch(op, len(dsts))
	if err != nil {
		return nil, err
	}
	rn, err := recv.scratch(op, len(srcs))
	if err != nil {
		return nil, err
	}
	if err := c.DryStop(); err != nil {
		return nil, err // a persistent Init's check of its arguments passed
	}
	x := nbrPool.Get().(*nbrOp)
	if err := x.post(c, srcs, dsts, cart, send, recv, sn+rn); err != nil {
		x.Free()
		return nil, core.MapErr(op, err)
	}
	if nb {
		return startSched(op, x), nil
	}
	err = x.run()
	x.Free()
	return nil, core.MapErr(op, err)
}

// nbrOp is one neighbourhood exchange under way, a pooled record: its requests and
// the blocks to unpack at the end. It is the schedule of its nonblocking form.
type nbrOp struct {
	// k completes the requests (its Wait and Test): a receive's Req carries its
	// block's length, as the schedules' do, so that a message shorter or longer than
	// the block (neighbours that disagree on a count: erroneous) is an error naming
	// the sender, MPI_ERR_COUNT or MPI_ERR_TRUNCATE, not old bytes left in place.
	k       *core.Conn
	reqs    []coll.Req
	unpack  []nbrBlock
	scratch *[]byte
	err     error
	done    bool
}

// nbrBlock is a block received into scratch: b, to unpack as n items of t at byte at
// of mem.
type nbrBlock struct {
	t     *datatype.Type
	mem   []byte
	at, n int64
	b     []byte
}

var nbrPool = sync.Pool{New: func() any { return new(nbrOp) }}

// post packs what goes through scratch (of need bytes in all) and posts every
// receive, then every send. On failure it cancels and waits for what it posted.
func (x *nbrOp) post(c *comm, srcs, dsts []int, cart bool, send, recv *NSide, need int) error {
	var rest []byte
	if need > 0 {
		x.scratch = coll.GetScratch(need)
		rest = *x.scratch
	}
	x.k = c.Local()
	for i, s := range srcs {
		if s == core.ProcNull {
			if recv.typed() { // its block takes no scratch: skip its share
				if _, _, err := recv.bytes(i, &rest); err != nil {
					return x.cancel(err)
				}
			}
			continue
		}
		b, packed, err := recv.bytes(i, &rest)
		if err != nil {
			return x.cancel(err)
		}
		if packed {
			count, at, t := recv.block(i)
			x.unpack = append(x.unpack, nbrBlock{t: t, mem: recv.Mem, at: int64(at), n: int64(count), b: b})
		}
		tag := core.TagNeighbor
		if cart {
			tag += i
		}
		q, err := x.k.Irecv(b, s, tag) // its Req carries the block's length
		if err != nil {
			return x.cancel(err)
		}
		x.reqs = append(x.reqs, q)
	}
	for j, d := range dsts {
		b, packed, err := send.bytes(j, &rest)
		if err != nil {
			return x.cancel(err)
		}
		if d == core.ProcNull {
			continue
		}
		if packed {
			count, at, t := send.block(j)
			if _, err := t.PackAt(b, send.Mem, int64(at), int64(count)); err != nil {
				return x.cancel(err)
			}
		}
		tag := core.TagNeighbor
		if cart {
			tag += j ^ 1 // our +1 neighbour receives us as its -1 neighbour, and back
		}
		q, err := x.k.Isend(b, d, tag)
		if err != nil {
			return x.cancel(err)
		}
		x.reqs = append(x.reqs, q)
	}
	return nil
}

// cancel cancels the requests x has posted and waits for them: err ends the call.
func (x *nbrOp) cancel(err error) error {
	for i := range x.reqs {
		x.k.Cancel(&x.reqs[i])
	}
	x.reqs = x.reqs[:0]
	return err
}

// run waits for every message, then unpacks: the blocking form.
func (x *nbrOp) run() error {
	var first error
	for i := range x.reqs {
		if err := x.k.Wait(&x.reqs[i]); err != nil && first == nil {
			first = err
		}
	}
	x.reqs = x.reqs[:0]
	if first != nil {
		return first
	}
	return x.finish()
}

// finish unpacks the blocks received into scratch.
func (x *nbrOp) finish() error {
	for _, u := range x.unpack {
		if _, err := u.t.UnpackAt(u.mem, u.at, u.b, u.n); err != nil {
			return err
		}
	}
	return nil
}

// Progress advances x without waiting and reports whether it is done, as
// coll.Sched's: the nonblocking form's schedule.
func (x *nbrOp) Progress() (bool, error) {
	if x.done {
		return true, x.err
	}
	for i := range x.reqs {
		ok, err := x.k.Test(&x.reqs[i])
		if err != nil {
			// Wait for the rest, so that no buffer is in use once x reports.
			for k := i + 1; k < len(x.reqs); k++ {
				x.k.Wait(&x.reqs[k])
			}
			x.reqs = x.reqs[:0]
			x.done, x.err = true, err
			return true, err
		}
		if !ok {
			// The completed ones are null: drop them, moving the rest down.
			n := copy(x.reqs, x.reqs[i:])
			clear(x.reqs[n:])
			x.reqs = x.reqs[:n]
			return false, nil
		}
	}
	x.reqs = x.reqs[:0]
	x.done, x.err = true, x.finish()
	return true, x.err
}

// Pending is the requests x waits for (the progress goroutine's Waitany takes them
// and stores them back, completed ones null).
func (x *nbrOp) Pending() []coll.Req { return x.reqs }

// Free releases x's scratch and puts x back in its pool; x is done or has failed.
func (x *nbrOp) Free() {
	if x.scratch != nil {
		coll.PutScratch(x.scratch)
	}
	clear(x.reqs)
	clear(x.unpack)
	*x = nbrOp{reqs: x.reqs[:0], unpack: x.unpack[:0]}
	nbrPool.Put(x)
}
