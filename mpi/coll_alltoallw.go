package mpi

import (
	"reflect"
	"unsafe"

	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/datatype"
)

// Alltoallw is Alltoallv with a datatype per peer and displacements in bytes
// (MPI_Alltoallw, MPI 3.0 section 5.8): scounts[j] items of stypes[j], laid out from
// byte sdispls[j] of send, go to rank j, which receives them as rcounts[i] items of
// rtypes[i] laid out from byte rdispls[i] of its recv (i being this rank). On an
// intercommunicator j and i range over the remote group, and each group receives the
// other's blocks.
//
// The six slices have one entry per peer (Size(), or RemoteSize() on an
// intercommunicator). send and recv may be slices of any element type without
// pointers (bytes, numbers, structs of them); displacements count bytes from their
// first element, as MPI's count from the buffer's address. The datatypes must be
// committed, every block must lie inside its slice, and a block sent and the block
// received for it must have the same type signature (the same sequence of basic
// elements; only their layouts may differ). Blocks of contiguous types move straight
// from and to the slices; others are packed into scratch space when the call starts
// and unpacked when it completes.
//
// In place (intracommunicators only): send is InPlace[byte]() (or InPlace of any
// element type); scounts, sdispls and stypes are then ignored (pass nil), and the
// blocks to send are in recv, laid out by rcounts, rdispls and rtypes, where the
// received ones replace them: the block for rank j and the one from it share a layout,
// so their signatures must match. A Go programmer may find Alltoallv simpler when the
// blocks are of one element type; Alltoallw is for blocks of different datatypes per
// peer, such as a strided column to one rank and a struct to another.
func Alltoallw[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) error {
	const name = "Alltoallw"
	s, fin, err := alltoallwArgs(name, c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, false)
	if err != nil {
		return err
	}
	err = s.Run()
	if err == nil {
		err = fin()
	}
	s.Free()
	return mapErr(name, err)
}

// Ialltoallw starts an Alltoallw. Until the request completes, send and recv belong
// to MPI: the received blocks of non-contiguous types reach recv when it completes.
func Ialltoallw[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) (Request, error) {
	const name = "Ialltoallw"
	s, fin, err := alltoallwArgs(name, c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, true)
	return startCollFin(c, name, s, fin, err)
}

// isInPlaceAny is isInPlace for a slice of any element type.
func isInPlaceAny[T any](b []T) bool {
	return cap(b) == 0 && unsafe.Pointer(unsafe.SliceData(b)) == unsafe.Pointer(&inPlaceMem)
}

// rawBytes is the memory of s, whose elements must hold no pointers.
func rawBytes[T any](name, arg string, s []T) ([]byte, error) {
	var z T
	if t := reflect.TypeOf(z); t != nil {
		if _, err := datatype.Of(t); err != nil {
			return nil, errorf(ClassBuffer, name, "%s: elements of type %T cannot be sent as raw memory: %v", arg, z, err)
		}
	}
	if len(s) == 0 {
		return nil, nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(z)), nil
}

// wSide is one side (send or receive) of an Alltoallw, checked: per peer, the block's
// datatype and its packed size in bytes.
type wSide struct {
	mem    []byte
	counts []int
	displs []int
	types  []*datatype.Type
	bytes  []int
}

// checkW checks one side's slices against n peers and a buffer of len(mem) bytes.
// w is "s" or "r", as in the argument names.
func checkW(name, w string, n int, mem []byte, counts, displs []int, types []*Datatype) (wSide, error) {
	if len(counts) != n || len(displs) != n || len(types) != n {
		return wSide{}, errorf(ClassArg, name, "len(%scounts) %d, len(%sdispls) %d and len(%stypes) %d must each be %d, one per peer",
			w, len(counts), w, len(displs), w, len(types), n)
	}
	side := wSide{mem: mem, counts: counts, displs: displs, types: make([]*datatype.Type, n), bytes: make([]int, n)}
	for j := 0; j < n; j++ {
		if counts[j] < 0 {
			return wSide{}, errorf(ClassCount, name, "%scounts[%d] %d is negative", w, j, counts[j])
		}
		d := types[j]
		if d == nil || d.t == nil {
			return wSide{}, errorf(ClassType, name, "%stypes[%d] is a nil datatype", w, j)
		}
		if !d.t.IsCommitted() {
			return wSide{}, errorf(ClassType, name, "%stypes[%d]: datatype %s is not committed (call Commit)", w, j, d.t.Name())
		}
		if _, err := d.t.Pack(nil, nil, 0); err != nil { // a freed type: refuse it now, not mid-call
			return wSide{}, errorf(ClassType, name, "%stypes[%d]: %v", w, j, err)
		}
		size, err := d.t.PackSize(int64(counts[j]))
		if err != nil {
			return wSide{}, typeErr(name, err)
		}
		side.types[j], side.bytes[j] = d.t, int(size)
		if size == 0 {
			continue // no data: the displacement is never used
		}
		lo, hi, err := d.t.Span(int64(counts[j]))
		if err != nil {
			return wSide{}, typeErr(name, err)
		}
		at := int64(displs[j])
		if at+lo < 0 || at+hi > int64(len(mem)) {
			buf := "send"
			if w == "r" {
				buf = "recv"
			}
			return wSide{}, errorf(ClassBuffer, name, "block %d: %scounts[%d] %d items of %s at %sdispls[%d] %d span bytes [%d,%d), outside %s's %d bytes",
				j, w, j, counts[j], d.t.Name(), w, j, displs[j], at+lo, at+hi, buf, len(mem))
		}
	}
	return side, nil
}

// block returns the bytes to move for peer j: the slice's own memory when its layout is
// contiguous (and direct is set), else a buffer of the packed size from scratch; packed
// reports which.
func (w *wSide) block(scratch func(int) []byte, j int, direct bool) (b []byte, packed bool) {
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

// pack packs peer j's items into b, a packed block that block returned.
func (w *wSide) pack(name string, j int, b []byte) error {
	if _, err := w.types[j].PackAt(b, w.mem, int64(w.displs[j]), int64(w.counts[j])); err != nil {
		return typeErr(name, err)
	}
	return nil
}

// unpack unpacks b, a packed block received from peer j, into its place.
func (w *wSide) unpack(name string, j int, b []byte) error {
	if _, err := w.types[j].UnpackAt(w.mem, int64(w.displs[j]), b, int64(w.counts[j])); err != nil {
		return typeErr(name, err)
	}
	return nil
}

// alltoallwArgs checks an Alltoallw's arguments and builds its schedule; fin unpacks the
// blocks received in scratch space once the schedule has run.
func alltoallwArgs[S, R any](name string, c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype, nb bool) (*coll.Sched, func() error, error) {
	if c == nil {
		_, err := begin(c, call{op: name}, 1)
		return nil, nil, err
	}
	if err := c.usable(name); err != nil {
		return nil, nil, err
	}
	n, inter := c.size, c.remote != nil
	if inter {
		n = c.remote.Size()
	}
	rmem, err := rawBytes(name, "recv", recv)
	if err != nil {
		return nil, nil, err
	}
	in, err := checkW(name, "r", n, rmem, rcounts, rdispls, rtypes)
	if err != nil {
		return nil, nil, err
	}
	inPlace := isInPlaceAny(send)
	var out wSide
	switch {
	case inPlace && inter:
		return nil, nil, errorf(ClassBuffer, name, "send is InPlace, which intercommunicator collectives do not take")
	case inPlace:
		out = in
	default:
		smem, err := rawBytes(name, "send", send)
		if err != nil {
			return nil, nil, err
		}
		if out, err = checkW(name, "s", n, smem, scounts, sdispls, stypes); err != nil {
			return nil, nil, err
		}
	}
	if r := c.rank; !inter && out.bytes[r] != in.bytes[r] {
		return nil, nil, errorf(ClassCount, name, "rank %d sends %d bytes to itself (scounts[%d] of %s) but receives %d (rcounts[%d] of %s); they must match",
			r, out.bytes[r], r, out.types[r].Name(), in.bytes[r], r, in.types[r].Name())
	}
	var s *coll.Sched
	if inter {
		s, err = beginInter(c, interCall{op: name, kind: kAlltoallw, elem: -1, out: -1, in: -1, nb: nb}, 1)
	} else {
		s, err = begin(c, call{op: name, kind: kAlltoallw, root: noRoot, size: -1, elem: 1, nonblocking: nb}, 1)
	}
	if err != nil {
		return nil, nil, err
	}
	if coll.Checking() {
		if err := checkPairs(name, c, s, ints64(out.bytes), ints64(in.bytes)); err != nil {
			return nil, nil, err
		}
	}
	sends, recvs := make([][]byte, n), make([][]byte, n)
	var unpack []int // peers whose blocks arrive in scratch space
	for j := 0; j < n; j++ {
		// In place, every block to send is packed aside first: the receives overwrite
		// recv while sends may still read from it.
		b, packed := out.block(s.Scratch, j, !inPlace)
		if packed {
			if err := out.pack(name, j, b); err != nil {
				s.Free()
				return nil, nil, err
			}
		}
		sends[j] = b
		if recvs[j], packed = in.block(s.Scratch, j, true); packed {
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
			if err := in.unpack(name, j, recvs[j]); err != nil {
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
