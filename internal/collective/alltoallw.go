package collective

import (
	"sync"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// Alltoallw: a datatype per peer and displacements in bytes (MPI_Alltoallw). smem and
// rmem are the send and receive memory (inPlace: the blocks to send are in rmem, laid
// out by the receive side's arguments). Blocks of contiguous types move straight from
// and to the memory; others are packed into the schedule's scratch when the call
// starts and unpacked when it completes. The call is a pooled record (wOp) around its
// schedule, which holds the checked sides and the blocks, and which the nonblocking
// form hands to the progress of nonblocking collectives as its schedule: a warm call
// allocates nothing. The caller's slices of types are copied; its counts and
// displacements are read until the call completes. The arguments were checked above
// the device (internal/mpir): a slice per peer, the blocks of data of committed types
// inside their memory; a block of no data may have a nil type.
func Alltoallw(cc *core.Comm, op string, smem []byte, inPlace bool, scounts, sdispls []int, stypes []*datatype.Type, rmem []byte, rcounts, rdispls []int, rtypes []*datatype.Type, nb bool) (*core.Pending, error) {
	if err := cc.Check(op); err != nil {
		return nil, err
	}
	c := of(cc)
	x := wPool.Get().(*wOp)
	if err := x.build(c, op, smem, inPlace, scounts, sdispls, stypes, rmem, rcounts, rdispls, rtypes, nb); err != nil {
		x.Free()
		return nil, err
	}
	if nb {
		return startSched(op, x), nil
	}
	err := x.s.Run()
	if err == nil {
		err = x.finish()
	}
	x.Free()
	return nil, core.MapErr(op, err)
}

// WSide is one side (send or receive) of an Alltoallw, checked: per peer, the block's
// datatype and its packed size in bytes. Its slices are kept from one use to the next.
type WSide struct {
	mem    []byte
	counts []int
	displs []int
	types  []*datatype.Type
	bytes  []int64
}

// set fills w with one side's slices, one per peer of n, over mem.
func (w *WSide) set(name string, n int, mem []byte, counts, displs []int, types []*datatype.Type) error {
	w.mem, w.counts, w.displs = mem, counts, displs
	w.types, w.bytes = w.types[:0], w.bytes[:0]
	for j := 0; j < n; j++ {
		size, err := blockSize(counts[j], types[j])
		if err != nil {
			return core.TypeErr(name, err)
		}
		w.types, w.bytes = append(w.types, types[j]), append(w.bytes, size)
	}
	return nil
}

// reset drops w's references to memory and types, keeping its slices' room.
func (w *WSide) reset() {
	clear(w.types)
	*w = WSide{types: w.types[:0], bytes: w.bytes[:0]}
}

// blockSize is the packed bytes of count items of d (none for no items, whose type
// may be nil).
func blockSize(count int, d *datatype.Type) (int64, error) {
	if count <= 0 || d == nil {
		return 0, nil
	}
	return d.PackSize(int64(count))
}

// Block returns the bytes to move for peer j: the slice's own memory when its layout is
// contiguous (and direct is set), else a buffer of the packed size from scratch; packed
// reports which.
func (w *WSide) Block(scratch func(int) []byte, j int, direct bool) (b []byte, packed bool) {
	n := int(w.bytes[j])
	if n == 0 {
		return nil, false
	}
	if direct {
		if off, _, ok := w.types[j].ContiguousSpan(int64(w.counts[j])); ok {
			at := w.displs[j] + int(off)
			return w.mem[at : at+n], false
		}
	}
	return scratch(n), true
}

// Pack packs peer j's items into b, a packed block that Block returned.
func (w *WSide) Pack(name string, j int, b []byte) error {
	if _, err := w.types[j].PackAt(b, w.mem, int64(w.displs[j]), int64(w.counts[j])); err != nil {
		return core.TypeErr(name, err)
	}
	return nil
}

// Unpack unpacks b, a packed block received from peer j, into its place.
func (w *WSide) Unpack(name string, j int, b []byte) error {
	if _, err := w.types[j].UnpackAt(w.mem, int64(w.displs[j]), b, int64(w.counts[j])); err != nil {
		return core.TypeErr(name, err)
	}
	return nil
}

// wOp is one Alltoallw under way, a pooled record: its schedule, its checked sides,
// the blocks to send and receive and the peers whose blocks arrive in scratch. It is
// the schedule of its nonblocking form.
type wOp struct {
	s            *coll.Sched
	name         string
	in, sout     WSide
	out          *WSide // &sout, or &in in place
	sends, recvs [][]byte
	unpack       []int // peers whose blocks arrive in scratch space
	done         bool
	err          error
}

var wPool = sync.Pool{New: func() any { return new(wOp) }}

// build checks an Alltoallw's arguments and builds its schedule.
func (x *wOp) build(c *comm, name string, smem []byte, inPlace bool, scounts, sdispls []int, stypes []*datatype.Type, rmem []byte, rcounts, rdispls []int, rtypes []*datatype.Type, nb bool) error {
	x.name = name
	n, inter := c.size, c.remote != nil
	if inter {
		n = c.remote.Size()
	}
	in := &x.in
	if err := in.set(name, n, rmem, rcounts, rdispls, rtypes); err != nil {
		return err
	}
	x.out = in
	if !inPlace {
		x.out = &x.sout
		if err := x.out.set(name, n, smem, scounts, sdispls, stypes); err != nil {
			return err
		}
	}
	out := x.out
	var s *coll.Sched
	var err error
	if inter {
		s, err = c.beginInter(interCall{op: name, kind: KAlltoallw, elem: -1, out: -1, in: -1, nb: nb}, 1)
	} else {
		s, err = c.Begin(Call{Op: name, Kind: KAlltoallw, Root: NoRoot, Size: -1, Elem: 1, Nonblocking: nb}, 1)
	}
	if err != nil {
		return err
	}
	if c.check {
		if err := c.checkPairs(name, s, out.bytes, in.bytes); err != nil {
			return err // checkPairs freed s
		}
	}
	x.s = s
	for j := 0; j < n; j++ {
		// In place, every block to send is packed aside first: the receives overwrite
		// recv while sends may still read from it.
		b, packed := out.Block(s.Scratch, j, !inPlace)
		if packed {
			if err := out.Pack(name, j, b); err != nil {
				return err
			}
		}
		x.sends = append(x.sends, b)
		if b, packed = in.Block(s.Scratch, j, true); packed {
			x.unpack = append(x.unpack, j)
		}
		x.recvs = append(x.recvs, b)
	}
	if inter {
		s.InterAlltoallw(x.sends, x.recvs)
	} else {
		s.Alltoallw(x.sends, x.recvs)
	}
	return nil
}

// finish unpacks the blocks received in scratch space, once the schedule has run.
func (x *wOp) finish() error {
	for _, j := range x.unpack {
		if err := x.in.Unpack(x.name, j, x.recvs[j]); err != nil {
			return err
		}
	}
	return nil
}

// Progress advances x without waiting and reports whether it is done, as
// coll.Sched's, unpacking what arrived in scratch once the schedule has succeeded:
// the nonblocking form's schedule.
func (x *wOp) Progress() (bool, error) {
	if x.done {
		return true, x.err
	}
	done, err := x.s.Progress()
	if !done {
		return false, err
	}
	if err == nil {
		err = x.finish()
	}
	x.done, x.err = true, err
	return true, err
}

// Pending is the schedule's requests (see schedule).
func (x *wOp) Pending() []coll.Req { return x.s.Pending() }

// Free frees x's schedule, if built, and puts x back in its pool; x is done or has
// failed.
func (x *wOp) Free() {
	if x.s != nil {
		x.s.Free()
	}
	x.in.reset()
	x.sout.reset()
	clear(x.sends)
	clear(x.recvs)
	*x = wOp{in: x.in, sout: x.sout, sends: x.sends[:0], recvs: x.recvs[:0], unpack: x.unpack[:0]}
	wPool.Put(x)
}
