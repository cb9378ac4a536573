package core

import (
	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/datatype"
)

// Alltoallw: a datatype per peer and displacements in bytes (MPI_Alltoallw). smem and
// rmem are the send and receive memory (inPlace: the blocks to send are in rmem, laid
// out by the receive side's arguments). Blocks of contiguous types move straight from
// and to the memory; others are packed into the schedule's scratch when the call
// starts and unpacked when it completes.
func (c *Comm) Alltoallw(op string, smem []byte, inPlace bool, scounts, sdispls []int, stypes []*datatype.Type, rmem []byte, rcounts, rdispls []int, rtypes []*datatype.Type, nb bool) (*Pending, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	s, fin, err := c.alltoallwSched(op, smem, inPlace, scounts, sdispls, stypes, rmem, rcounts, rdispls, rtypes, nb)
	return finish(op, nb, fin, s, err)
}

// WSide is one side (send or receive) of an Alltoallw, checked: per peer, the block's
// datatype and its packed size in bytes.
type WSide struct {
	mem    []byte
	counts []int
	displs []int
	types  []*datatype.Type
	bytes  []int
}

// CheckW checks one side's slices against n peers and a buffer of len(mem) bytes.
// w is "s" or "r", as in the argument names.
func CheckW(name, w string, n int, mem []byte, counts, displs []int, types []*datatype.Type) (WSide, error) {
	if len(counts) != n || len(displs) != n || len(types) != n {
		return WSide{}, Errorf(ClassArg, name, "len(%scounts) %d, len(%sdispls) %d and len(%stypes) %d must each be %d, one per peer",
			w, len(counts), w, len(displs), w, len(types), n)
	}
	side := WSide{mem: mem, counts: counts, displs: displs, types: make([]*datatype.Type, n), bytes: make([]int, n)}
	for j := 0; j < n; j++ {
		size, err := checkBlock(name, w, j, mem, counts[j], displs[j], types[j])
		if err != nil {
			return WSide{}, err
		}
		side.types[j], side.bytes[j] = types[j], size
	}
	return side, nil
}

// checkBlock checks block j of one side (w, "s" or "r"): count items of d at byte
// displ of mem. It returns the block's packed size in bytes.
func checkBlock(name, w string, j int, mem []byte, count, displ int, d *datatype.Type) (int, error) {
	if count < 0 {
		return 0, Errorf(ClassCount, name, "%scounts[%d] %d is negative", w, j, count)
	}
	if d == nil {
		return 0, Errorf(ClassType, name, "%stypes[%d] is a nil datatype", w, j)
	}
	if !d.IsCommitted() {
		return 0, Errorf(ClassType, name, "%stypes[%d]: datatype %s is not committed (call Commit)", w, j, d.Name())
	}
	if _, err := d.Pack(nil, nil, 0); err != nil { // a freed type: refuse it now, not mid-call
		return 0, Errorf(ClassType, name, "%stypes[%d]: %v", w, j, err)
	}
	size, err := d.PackSize(int64(count))
	if err != nil {
		return 0, TypeErr(name, err)
	}
	if size == 0 {
		return 0, nil // no data: the displacement is never used
	}
	lo, hi, err := d.Span(int64(count))
	if err != nil {
		return 0, TypeErr(name, err)
	}
	at := int64(displ)
	if at+lo < 0 || at+hi > int64(len(mem)) {
		buf := "send"
		if w == "r" {
			buf = "recv"
		}
		return 0, Errorf(ClassBuffer, name, "block %d: %scounts[%d] %d items of %s at %sdispls[%d] %d span bytes [%d,%d), outside %s's %d bytes",
			j, w, j, count, d.Name(), w, j, displ, at+lo, at+hi, buf, len(mem))
	}
	return int(size), nil
}

// Block returns the bytes to move for peer j: the slice's own memory when its layout is
// contiguous (and direct is set), else a buffer of the packed size from scratch; packed
// reports which.
func (w *WSide) Block(scratch func(int) []byte, j int, direct bool) (b []byte, packed bool) {
	n := w.bytes[j]
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
		return TypeErr(name, err)
	}
	return nil
}

// Unpack unpacks b, a packed block received from peer j, into its place.
func (w *WSide) Unpack(name string, j int, b []byte) error {
	if _, err := w.types[j].UnpackAt(w.mem, int64(w.displs[j]), b, int64(w.counts[j])); err != nil {
		return TypeErr(name, err)
	}
	return nil
}

// alltoallwSched checks an Alltoallw's arguments and builds its schedule; fin unpacks the
// blocks received in scratch space once the schedule has run.
func (c *Comm) alltoallwSched(name string, smem []byte, inPlace bool, scounts, sdispls []int, stypes []*datatype.Type, rmem []byte, rcounts, rdispls []int, rtypes []*datatype.Type, nb bool) (*coll.Sched, func() error, error) {
	n, inter := c.size, c.remote != nil
	if inter {
		n = c.remote.Size()
	}
	in, err := CheckW(name, "r", n, rmem, rcounts, rdispls, rtypes)
	if err != nil {
		return nil, nil, err
	}
	var out WSide
	switch {
	case inPlace && inter:
		return nil, nil, Errorf(ClassBuffer, name, "send is InPlace, which intercommunicator collectives do not take")
	case inPlace:
		out = in
	default:
		if out, err = CheckW(name, "s", n, smem, scounts, sdispls, stypes); err != nil {
			return nil, nil, err
		}
	}
	if r := c.rank; !inter && out.bytes[r] != in.bytes[r] {
		return nil, nil, Errorf(ClassCount, name, "rank %d sends %d bytes to itself (scounts[%d] of %s) but receives %d (rcounts[%d] of %s); they must match",
			r, out.bytes[r], r, out.types[r].Name(), in.bytes[r], r, in.types[r].Name())
	}
	var s *coll.Sched
	if inter {
		s, err = c.beginInter(interCall{op: name, kind: KAlltoallw, elem: -1, out: -1, in: -1, nb: nb}, 1)
	} else {
		s, err = c.Begin(Call{Op: name, Kind: KAlltoallw, Root: NoRoot, Size: -1, Elem: 1, Nonblocking: nb}, 1)
	}
	if err != nil {
		return nil, nil, err
	}
	if c.coll.check {
		if err := c.checkPairs(name, s, ints64(out.bytes), ints64(in.bytes)); err != nil {
			return nil, nil, err
		}
	}
	sends, recvs := make([][]byte, n), make([][]byte, n)
	var unpack []int // peers whose blocks arrive in scratch space
	for j := 0; j < n; j++ {
		// In place, every block to send is packed aside first: the receives overwrite
		// recv while sends may still read from it.
		b, packed := out.Block(s.Scratch, j, !inPlace)
		if packed {
			if err := out.Pack(name, j, b); err != nil {
				s.Free()
				return nil, nil, err
			}
		}
		sends[j] = b
		if recvs[j], packed = in.Block(s.Scratch, j, true); packed {
			unpack = append(unpack, j)
		}
	}
	if inter {
		s.InterAlltoallw(sends, recvs)
	} else {
		s.Alltoallw(sends, recvs)
	}
	fin := func() error {
		for _, j := range unpack {
			if err := in.Unpack(name, j, recvs[j]); err != nil {
				return err
			}
		}
		return nil
	}
	return s, fin, nil
}

func ints64(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}
