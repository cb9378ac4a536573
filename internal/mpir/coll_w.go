package mpir

import (
	"strconv"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/prof"
)

// The forms whose blocks each have a count, a displacement and a datatype of their
// own: Alltoallw (MPI 4.1 section 6.8) and the neighbourhood collectives (section
// 8.6), whose every form the device runs as blocks. A block of no data (count 0, or
// a datatype of size 0) is never placed: neither its displacement nor its datatype
// is looked at, so a program may pass MPI_DATATYPE_NULL there, as MPICH's
// alltoallw_zeros and mpi4py's tests do.

// WSide is one side of an Alltoallw as a face converted it: its memory, and per
// process of the other side a block's count, its displacement in bytes from the
// memory's start, and its datatype (nil where the face did not convert one: a block
// of no data, see WTypes). Err is what the face's conversion of the side found wrong.
type WSide struct {
	Mem    []byte
	Counts []int
	Displs []int
	Types  []*datatype.Type
	Err    error
}

// WArgs are an Alltoallw's arguments: its two sides, whether the send side is
// MPI_IN_PLACE (then only the receive side's arguments are significant, and the
// blocks to send are in its memory), and as CollArgs's, Err and Info.
type WArgs struct {
	Send, Recv WSide
	InPlace    bool
	Err        error
	Info       *Info
}

// WTypes fills out with the datatypes of a side's n blocks: conv(j) for each block
// that holds data (counts[j] > 0), nil for the others, whose datatypes are never
// looked at. The first conversion that fails gives the error, naming its block (what:
// the argument, "sendtypes" or "recvtypes"). counts shorter than n (a missing array)
// converts nothing: the checks name it.
func WTypes(op, what string, n int, counts []int, conv func(j int) (*datatype.Type, error), out []*datatype.Type) ([]*datatype.Type, error) {
	if len(counts) < n {
		return out, nil
	}
	for j := 0; j < n; j++ {
		var t *datatype.Type
		if counts[j] > 0 {
			var err error
			if t, err = conv(j); err != nil {
				return out, core.Wrap(core.ClassType, op, "", blockErr{what, j, err})
			}
		}
		out = append(out, t)
	}
	return out, nil
}

type blockErr struct {
	what string
	j    int
	err  error
}

func (e blockErr) Error() string { return e.what + "[" + strconv.Itoa(e.j) + "]: " + trimOp(e.err) }
func (e blockErr) Unwrap() error { return e.err }

// trimOp is err's words without the call's name, which the wrapping error gives.
func trimOp(err error) string {
	if e, ok := err.(*core.Error); ok && e.Msg != "" && e.Err == nil {
		return e.Msg
	}
	return err.Error()
}

// WSpan is SideSpan of an Alltoallw's side: the bytes its blocks of data reach from
// its buffer's address.
func WSpan(s *WSide) (lo, hi int64, err error) {
	ns := NSide{Counts: s.Counts, Displs: s.Displs, Types: s.Types, Unit: 1}
	return SideSpan(&ns, len(s.Counts))
}

// checkWSide checks one side of a w form (w: "s" or "r") against n processes of the
// other side: an array of each, every count not negative, and every block of data of
// a committed datatype and inside the memory. It returns the bytes of this process's
// own block (its block to or from itself on an intracommunicator; -1 where it has
// none).
func checkWSide(op, w string, n int, s *WSide, own int) (int64, error) {
	if s.Counts == nil && n > 0 || s.Displs == nil && n > 0 || s.Types == nil && n > 0 {
		return 0, core.Errorf(core.ClassArg, op, "%scounts, %sdispls or %stypes is missing (NULL)", w, w, w)
	}
	if len(s.Counts) != n || len(s.Displs) != n || len(s.Types) != n {
		return 0, core.Errorf(core.ClassArg, op, "len(%scounts) %d, len(%sdispls) %d and len(%stypes) %d must each be %d, one per process",
			w, len(s.Counts), w, len(s.Displs), w, len(s.Types), n)
	}
	var mine int64
	for j := 0; j < n; j++ {
		size, err := checkBlock(op, w, j, s.Mem, s.Counts[j], s.Displs[j], int64(s.Displs[j]), s.Types[j])
		if err != nil {
			return 0, err
		}
		if j == own {
			mine = size
		}
	}
	return mine, nil
}

// checkBlock checks block j of a side (w: "s" or "r"): count items of t at byte at
// of mem (its displacement argument displ, for messages). It returns the block's
// bytes.
func checkBlock(op, w string, j int, mem []byte, count, displ int, at int64, t *datatype.Type) (int64, error) {
	switch {
	case count < 0:
		return 0, core.Errorf(core.ClassCount, op, "%scounts[%d] %d is negative", w, j, count)
	case count == 0:
		return 0, nil // no data: neither its datatype nor its displacement is looked at
	case t == nil:
		return 0, core.Errorf(core.ClassType, op, "%stypes[%d] is no datatype", w, j)
	case t.IsFreed():
		return 0, core.Errorf(core.ClassType, op, "%stypes[%d]: datatype %s has been freed", w, j, t.Name())
	case !t.IsCommitted():
		return 0, NotCommitted(op, w+"types["+strconv.Itoa(j)+"]: datatype", t.Name())
	}
	size, err := t.PackSize(int64(count))
	if err != nil || size == 0 {
		return 0, core.TypeErr(op, err)
	}
	lo, hi, err := t.Span(int64(count))
	if err != nil {
		return 0, core.TypeErr(op, err)
	}
	if at+lo < 0 || at+hi > int64(len(mem)) {
		return 0, core.Errorf(core.ClassBuffer, op, "block %d: %scounts[%d] %d items of %s at %sdispls[%d] %d span bytes [%d,%d), outside %sbuf's %d bytes",
			j, w, j, count, t.Name(), w, j, displ, at+lo, at+hi, bufName(w), len(mem))
	}
	return size, nil
}

// Alltoallw is MPI_Alltoallw (section 6.8) in p's mode: block j of the send side goes
// to process j (of the remote group on an intercommunicator), which receives it as
// its block of this process. Every argument is significant everywhere, but in place
// (intracommunicators only) the send side's, which are the receive side's. A block
// sent and the block received for it must have the same type signature: a process's
// block to itself is checked here, the others' by the exchange (and coll_check).
func Alltoallw(p *Coll, c *core.Comm, a *WArgs) (*core.Pending, error) {
	err := c.Check(p.Op)
	x := wCall{p: p, c: c}
	n := 0
	if err == nil {
		x.v = viewOf(c)
		if a.InPlace {
			a.Send = WSide{} // its arguments are the receive side's
		}
		n = wBytes(a)
	}
	t := collEnter(p.Call, c, prof.NoPeer, n)
	var pd *core.Pending
	if err == nil {
		pd, err = x.run(a)
	}
	collExit(p.Call, t, n)
	return pd, err
}

// wCall is one Alltoallw under way, passed by value as collCall is.
type wCall struct {
	p *Coll
	c *core.Comm
	v view
}

// wBytes is the record's bytes: the send side's blocks, the receive side's in place.
func wBytes(a *WArgs) int {
	s := &a.Send
	if a.InPlace {
		s = &a.Recv
	}
	n := 0
	for j, k := range s.Counts {
		if k > 0 && j < len(s.Types) && s.Types[j] != nil {
			n += k * int(s.Types[j].Size())
		}
	}
	return n
}

func (x wCall) run(a *WArgs) (*core.Pending, error) {
	base := x.p.reserve(x.c)
	if err := x.settle(a); err != nil {
		x.abstain()
		return nil, err
	}
	switch x.p.Mode {
	case Blocking:
		_, err := wDev(x.p.Op, x.c, a, false)
		return nil, err
	case Nonblocking:
		return wDev(x.p.Op, x.c, a, true)
	}
	if err := checkInfo(x.p.Op, a.Info); err != nil {
		return nil, err
	}
	held := *a
	held.Info = nil
	op, c := x.p.Op, x.c
	return persistent(op, c, base, func() (*core.Pending, error) { return wDev(op, c, &held, true) })
}

// wDev is the device's Alltoallw on checked arguments.
func wDev(op string, c *core.Comm, a *WArgs, nb bool) (*core.Pending, error) {
	s, r := &a.Send, &a.Recv
	return collective.Alltoallw(c, op, s.Mem, a.InPlace, s.Counts, s.Displs, s.Types, r.Mem, r.Counts, r.Displs, r.Types, nb)
}

func (x wCall) settle(a *WArgs) error {
	op, n := x.p.Op, x.v.peers()
	switch {
	case a.Err != nil:
		return a.Err
	case a.InPlace && x.v.inter:
		return inPlaceErr(op, CollAlltoallw, roleAll, true, true, false)
	case a.Recv.Err != nil:
		return a.Recv.Err
	case !a.InPlace && a.Send.Err != nil:
		return a.Send.Err
	}
	own := -1
	if !x.v.inter {
		own = x.v.rank
	}
	rs, err := checkWSide(op, "r", n, &a.Recv, own)
	if err != nil {
		return err
	}
	ss := rs
	if !a.InPlace {
		if ss, err = checkWSide(op, "s", n, &a.Send, own); err != nil {
			return err
		}
	}
	if r := x.v.rank; !x.v.inter && ss != rs {
		return core.Errorf(core.ClassCount, op, "process %d sends %d bytes to itself (scounts[%d]) but receives %d (rcounts[%d]); they must match",
			r, ss, r, rs, r)
	}
	return nil
}

// abstain is collCall's: the exchange with every block empty.
func (x wCall) abstain() {
	if x.p.Mode == Persistent {
		return
	}
	n := x.v.peers()
	zeros := make([]int, n)
	e := WArgs{Send: WSide{Counts: zeros, Displs: zeros, Types: make([]*datatype.Type, n)}}
	e.Recv = e.Send
	p, err := wDev(x.p.Op, x.c, &e, x.p.Mode == Nonblocking)
	if err == nil && p != nil {
		p.Free()
	}
}

// NArgs are a neighbourhood collective's arguments as a face converted them: its two
// sides in the device's form (a count, a displacement and a datatype per neighbour;
// see NSide), whether either buffer is MPI_IN_PLACE (which these collectives do not
// take), what the face's conversion of each side found wrong, and as CollArgs's, Err
// and Info.
type NArgs struct {
	Send, Recv               NSide
	SendInPlace, RecvInPlace bool
	SendErr, RecvErr, Err    error
	Info                     *Info
}

// Neighbor is the neighbourhood collective p (section 8.6) on c, whose process
// topology t gives the neighbours: the receive side's block i comes from source i,
// the send side's block j goes to destination j, in the topology's order; a
// core.ProcNull neighbour's block is neither sent nor touched. Every argument is
// significant on every process; a communicator without a topology is refused
// (MPI_ERR_TOPOLOGY), alike everywhere.
func Neighbor(p *Coll, c *core.Comm, t *Topology, a *NArgs) (*core.Pending, error) {
	var srcs, dsts []int
	var cart bool
	err := c.Check(p.Op)
	if err == nil {
		srcs, dsts, cart, err = Neighbors(p.Op, c, t)
	}
	n := 0
	if err == nil && a.SendErr == nil && !a.SendInPlace {
		n = sideBytes(&a.Send, len(dsts))
	}
	tm := collEnter(p.Call, c, prof.NoPeer, n)
	var pd *core.Pending
	if err == nil {
		x := nbrCall{p: p, c: c, srcs: srcs, dsts: dsts, cart: cart}
		pd, err = x.run(a)
	}
	collExit(p.Call, tm, n)
	return pd, err
}

// nbrCall is one neighbourhood collective under way: its neighbours.
type nbrCall struct {
	p          *Coll
	c          *core.Comm
	srcs, dsts []int
	cart       bool
}

func (x *nbrCall) dev(a *NArgs, nb bool) (*core.Pending, error) {
	return collective.Neighbor(x.c, x.p.Op, x.srcs, x.dsts, x.cart, &a.Send, &a.Recv, nb)
}

func (x *nbrCall) run(a *NArgs) (*core.Pending, error) {
	p := x.p
	base := p.reserve(x.c)
	if err := settleNeighbor(p, a, len(x.srcs), len(x.dsts)); err != nil {
		if p.Mode != Persistent { // abstain: every block empty
			e := NArgs{Send: emptySide(len(x.dsts)), Recv: emptySide(len(x.srcs))}
			if pd, err := x.dev(&e, p.Mode == Nonblocking); err == nil && pd != nil {
				pd.Free()
			}
		}
		return nil, err
	}
	switch p.Mode {
	case Blocking:
		_, err := x.dev(a, false)
		return nil, err
	case Nonblocking:
		return x.dev(a, true)
	}
	if err := checkInfo(p.Op, a.Info); err != nil {
		return nil, err
	}
	held, y := *a, *x
	held.Info = nil
	return persistent(p.Op, x.c, base, func() (*core.Pending, error) { return y.dev(&held, true) })
}

// emptySide is a side of n blocks of no data.
func emptySide(n int) NSide {
	zeros := make([]int, n)
	return NSide{Counts: zeros, Displs: zeros, Unit: 1}
}

// sideBytes is the bytes of a side's n blocks, for the record: one block where every
// neighbour gets the same (an Allgather's send side).
func sideBytes(s *NSide, n int) int {
	if s.Counts == nil && s.Stride == 0 {
		n = min(n, 1)
	}
	bytes := 0
	for k := 0; k < n; k++ {
		count, t := s.Count, s.Type
		if s.Counts != nil && k < len(s.Counts) {
			count = s.Counts[k]
		}
		if s.Types != nil {
			t = nil
			if k < len(s.Types) {
				t = s.Types[k]
			}
		}
		switch {
		case count <= 0:
		case t != nil:
			bytes += count * int(t.Size())
		case s.Types == nil:
			bytes += count * s.Unit
		}
	}
	return bytes
}

// settleNeighbor checks a neighbourhood collective's sides against its in- and
// out-degree.
func settleNeighbor(p *Coll, a *NArgs, in, out int) error {
	op := p.Op
	switch {
	case a.Err != nil:
		return a.Err
	case a.SendErr != nil:
		return a.SendErr
	case a.RecvErr != nil:
		return a.RecvErr
	case a.SendInPlace || a.RecvInPlace:
		return core.Errorf(core.ClassBuffer, op, "the %s buffer is in place (MPI_IN_PLACE), which the neighbourhood collectives do not take", sideName(a.SendInPlace))
	}
	if err := checkNSide(op, "s", out, &a.Send); err != nil {
		return err
	}
	return checkNSide(op, "r", in, &a.Recv)
}

// checkNSide checks a neighbourhood side (w: "s" or "r") of n blocks: its arrays
// present for n neighbours, every count not negative, every block of data inside the
// memory, and of a committed datatype on a typed side.
func checkNSide(op, w string, n int, s *NSide) error {
	if s.Counts != nil && len(s.Counts) < n || s.Displs != nil && len(s.Displs) < n || s.Types != nil && len(s.Types) < n {
		if n > 0 && (len(s.Counts) == 0 && s.Counts != nil || len(s.Displs) == 0 && s.Displs != nil || len(s.Types) == 0 && s.Types != nil) {
			return core.Errorf(core.ClassArg, op, "%scounts, %sdispls or %stypes is missing (NULL) for %d neighbours", w, w, w, n)
		}
		return core.Errorf(core.ClassArg, op, "%d %scounts, %d %sdispls and %d %stypes for %d neighbours",
			len(s.Counts), w, len(s.Displs), w, len(s.Types), w, n)
	}
	typed := s.Types != nil || s.Type != nil
	for k := 0; k < n; k++ {
		count, d, t := s.Count, k*s.Stride, s.Type
		if s.Counts != nil {
			count = s.Counts[k]
		}
		if s.Displs != nil {
			d = s.Displs[k]
		}
		if s.Types != nil {
			t = s.Types[k]
		}
		if typed {
			if _, err := checkBlock(op, w, k, s.Mem, count, d, int64(s.Origin+d*s.Unit), t); err != nil {
				return err
			}
			continue
		}
		at := s.Origin + d*s.Unit
		switch {
		case count < 0:
			return core.Errorf(core.ClassCount, op, "%scounts[%d] %d is negative", w, k, count)
		case count > 0 && (at < 0 || at+count*s.Unit > len(s.Mem)):
			return core.Errorf(core.ClassCount, op, "%s block %d: %d elements at displacement %d outside the buffer of %d elements",
				sideName(w == "s"), k, count, d, len(s.Mem)/max(s.Unit, 1))
		}
	}
	return nil
}

// SideSpan is the bytes [lo, hi) that a neighbourhood side's n blocks reach from its
// displacements' origin (Mem and Origin aside), blocks of no data counting for
// nothing: for a face that makes the side's memory to fit them (C's, whose buffer may
// be MPI_BOTTOM with absolute displacements). Arrays shorter than n (missing) give
// nothing: the checks name them.
func SideSpan(s *NSide, n int) (lo, hi int64, err error) {
	if s.Counts != nil && len(s.Counts) < n || s.Displs != nil && len(s.Displs) < n || s.Types != nil && len(s.Types) < n {
		return 0, 0, nil
	}
	first := true
	for k := 0; k < n; k++ {
		count, d, t := s.Count, k*s.Stride, s.Type
		if s.Counts != nil {
			count = s.Counts[k]
		}
		if s.Displs != nil {
			d = s.Displs[k]
		}
		if s.Types != nil {
			t = s.Types[k]
		}
		if count <= 0 || t == nil || t.Size() == 0 {
			continue
		}
		l, h, err := t.Span(int64(count))
		if err != nil {
			return 0, 0, err
		}
		at := int64(d) * int64(s.Unit)
		if l, h = l+at, h+at; first || l < lo {
			lo = l
		}
		if first || h > hi {
			hi = h
		}
		first = false
	}
	return lo, hi, nil
}

// bufName is the stem of side w's buffer argument ("s": sendbuf, "r": recvbuf).
func bufName(w string) string {
	if w == "s" {
		return "send"
	}
	return "recv"
}
