package mpi

import (
	"reflect"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
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
	if c.special() {
		a := collArgs{sraw: rawOf(send), rraw: rawOf(recv), counts: scounts, displs: sdispls, stypes: stypes, rcounts: rcounts, rdispls: rdispls, rtypes: rtypes, gen: aroundAlltoallw[S, R]{}}
		if done, err := c.aroundArgs("Alltoallw", &a, callGen); done {
			return err
		}
	}
	_, err := alltoallw(mpir.Blocking, c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	return c.fail("Alltoallw", err)
}

// aroundAlltoallw is Alltoallw through a view (see genCall).
type aroundAlltoallw[S, R any] struct{}

func (aroundAlltoallw[S, R]) call(b *Comm, a *collArgs) error {
	return Alltoallw(b, sliceOf[S](a.sraw), a.counts, a.displs, a.stypes, sliceOf[R](a.rraw), a.rcounts, a.rdispls, a.rtypes)
}

// Ialltoallw starts an Alltoallw. Until the request completes, send and recv belong
// to MPI: the received blocks of non-contiguous types reach recv when it completes.
func Ialltoallw[S, R any](c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) (Request, error) {
	p, err := alltoallw(mpir.Nonblocking, c, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes)
	return c.start("Ialltoallw", p, err)
}

// alltoallw runs Alltoallw in mode m.
func alltoallw[S, R any](m mpir.Mode, c *Comm, send []S, scounts, sdispls []int, stypes []*Datatype, recv []R, rcounts, rdispls []int, rtypes []*Datatype) (*core.Pending, error) {
	p := collOf(mpir.CollAlltoallw, m)
	a := mpir.WArgs{InPlace: isInPlaceAny(send)}
	a.Recv.Mem, a.Recv.Err = rawBytes(p.Op, "recv", recv)
	a.Recv.Counts, a.Recv.Displs = rcounts, rdispls
	if !a.InPlace {
		a.Send.Mem, a.Send.Err = rawBytes(p.Op, "send", send)
		a.Send.Counts, a.Send.Displs = scounts, sdispls
	}
	if m == mpir.Persistent { // the request keeps its types
		a.Send.Types, a.Recv.Types = typesOrNil(nil, stypes), typesOrNil(nil, rtypes)
		return mpir.Alltoallw(p, c.dev(), &a)
	}
	// The device's types (nil for a nil one), in pooled lists: the device copies them.
	sl, rl := typeLists.Get().(*[]*datatype.Type), typeLists.Get().(*[]*datatype.Type)
	a.Send.Types, a.Recv.Types = typesOrNil(*sl, stypes), typesOrNil(*rl, rtypes)
	pd, err := mpir.Alltoallw(p, c.dev(), &a)
	*sl, *rl = a.Send.Types[:0], a.Recv.Types[:0]
	clear((*sl)[:cap(*sl)])
	clear((*rl)[:cap(*rl)])
	typeLists.Put(sl)
	typeLists.Put(rl)
	return pd, err
}

// typesOrNil is typesInto(out[:0], ds), nil for a nil ds (a missing list).
func typesOrNil(out []*datatype.Type, ds []*Datatype) []*datatype.Type {
	if ds == nil {
		return nil
	}
	return typesInto(out[:0], ds)
}

// isInPlaceAny is isInPlace for a slice of any element type.
func isInPlaceAny[T any](b []T) bool {
	return cap(b) == 0 && unsafe.Pointer(unsafe.SliceData(b)) == unsafe.Pointer(&inPlaceMem)
}

// rawBytes is the memory of s, whose elements must hold no pointers.
func rawBytes[T any](name, arg string, s []T) ([]byte, error) {
	var z T
	if _, err := datatype.Of(reflect.TypeFor[T]()); err != nil {
		return nil, errorf(ClassBuffer, name, "%s: elements of type %v cannot be sent as raw memory: %v", arg, reflect.TypeFor[T](), err)
	}
	if len(s) == 0 {
		return nil, nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(z)), nil
}
