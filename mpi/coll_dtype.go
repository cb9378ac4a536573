package mpi

import "github.com/mpigo/mpigo/internal/mpir"

// Reductions over derived datatypes. MPI defines a reduction on a derived datatype
// element by element of its typemap, so a derived type whose basic elements are all of
// one predefined type reduces like a flat array of that type: each Buf is packed to a
// contiguous array of the base elements, the base type's kernel runs on it (the same
// collectives as Reduce and Allreduce), and the result is unpacked through the
// receive Buf's layout. Only the signature matters: the send and receive layouts may
// differ (a strided column in, a contiguous row out) as long as they hold the same
// number of base elements. The pair types of Maxloc and Minloc reduce as packed
// (value, index) records, and a user op over a Go type T sees the data laid out as []T.
// Every call below goes through one path (coll_dtype_path.go): check, lay out, run
// the slice form's device call, unpack.
//
// In place: InPlaceBuf as send where the slice form takes InPlace; the input is then
// in recv, described as the slice form describes it (for ReduceScatterBlockBuf and
// ReduceScatterBuf recv holds the whole input, and the result lands in its first
// items).

// ReduceBuf is Reduce over typed buffers (see Typed): every rank's send, combined with
// op element by element of the base type, lands in root's recv, which must hold as many
// base elements as send (recv is ignored elsewhere). With a predefined op the datatypes
// must be built from one predefined type (a vector of Float64, a struct of Int32
// fields...), or be a pair type with Maxloc or Minloc; a type mixing element types is
// refused with ErrType. With an op made by OpCreate over a Go type T, the buffers may
// hold any whole number of T's elements (Typed(s, n, TypeOf[T]()), or another layout of
// the same elements). On an intercommunicator root follows the
// Root / ProcNull convention of Reduce, and send is ignored in the root's group.
func ReduceBuf(c *Comm, send, recv Buf, op Op, root int) error {
	return reduceBuf(c, &send, &recv, op, root)
}

func reduceBuf(c *Comm, send, recv *Buf, op Op, root int) error {
	if c.special() {
		s, r := *send, *recv
		if done, err := c.aroundArgs("Reduce", &collArgs{bs: s, br: r, op: op, root: root}, aroundReduceBuf); done {
			return err
		}
	}
	return (&redCall{c: c, kind: kReduce, root: root}).blocking(send, recv, op)
}

// IreduceBuf starts a ReduceBuf; root's recv holds the result once the request
// completes.
func IreduceBuf(c *Comm, send, recv Buf, op Op, root int) (Request, error) {
	return (&redCall{m: mpir.Nonblocking, c: c, kind: kReduce, root: root}).start(&send, &recv, op)
}

// AllreduceBuf is Allreduce over typed buffers: every rank's recv gets the combination
// of every rank's send (on an intercommunicator, of the other group's), element by
// element of the base type. send and recv must hold the same number of base elements
// and be built from the same single predefined type, as for ReduceBuf.
func AllreduceBuf(c *Comm, send, recv Buf, op Op) error {
	return allreduceBuf(c, &send, &recv, op)
}

func allreduceBuf(c *Comm, send, recv *Buf, op Op) error {
	if c.special() {
		s, r := *send, *recv
		if done, err := c.aroundArgs("Allreduce", &collArgs{bs: s, br: r, op: op}, aroundAllreduceBuf); done {
			return err
		}
	}
	return (&redCall{c: c, kind: kAllreduce}).blocking(send, recv, op)
}

// IallreduceBuf starts an AllreduceBuf.
func IallreduceBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	return (&redCall{m: mpir.Nonblocking, c: c, kind: kAllreduce}).start(&send, &recv, op)
}

// ReduceScatterBlockBuf is ReduceScatterBlock over typed buffers: send holds Size()
// blocks of as many base elements as recv, they are combined with op across the
// ranks, and rank i's recv gets block i. On an intercommunicator the other group's
// sends are combined, as for ReduceScatterBlock.
func ReduceScatterBlockBuf(c *Comm, send, recv Buf, op Op) error {
	return reduceScatterBlockBuf(c, &send, &recv, op)
}

func reduceScatterBlockBuf(c *Comm, send, recv *Buf, op Op) error {
	if c.special() {
		s, r := *send, *recv
		if done, err := c.aroundArgs("ReduceScatterBlock", &collArgs{bs: s, br: r, op: op}, aroundReduceScatterBlockBuf); done {
			return err
		}
	}
	return (&redCall{c: c, kind: kReduceScatterBlock}).blocking(send, recv, op)
}

// IreduceScatterBlockBuf starts a ReduceScatterBlockBuf.
func IreduceScatterBlockBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	return (&redCall{m: mpir.Nonblocking, c: c, kind: kReduceScatterBlock}).start(&send, &recv, op)
}

// ReduceScatterBuf is ReduceScatter over typed buffers: counts are items of recv's
// datatype (MPI's recvcounts), so send holds the base elements of sum(counts) such
// items, and rank i's recv, counts[i] items, gets block i of the combination.
func ReduceScatterBuf(c *Comm, send, recv Buf, counts []int, op Op) error {
	return reduceScatterBuf(c, &send, &recv, counts, op)
}

func reduceScatterBuf(c *Comm, send, recv *Buf, counts []int, op Op) error {
	if c.special() {
		s, r := *send, *recv
		if done, err := c.aroundArgs("ReduceScatter", &collArgs{bs: s, br: r, counts: counts, op: op}, aroundReduceScatterBuf); done {
			return err
		}
	}
	return (&redCall{c: c, kind: kReduceScatter, counts: counts}).blocking(send, recv, op)
}

// IreduceScatterBuf starts a ReduceScatterBuf.
func IreduceScatterBuf(c *Comm, send, recv Buf, counts []int, op Op) (Request, error) {
	return (&redCall{m: mpir.Nonblocking, c: c, kind: kReduceScatter, counts: counts}).start(&send, &recv, op)
}

// ScanBuf is Scan over typed buffers: rank r's recv gets the combination of the sends
// of ranks 0..r, in rank order.
func ScanBuf(c *Comm, send, recv Buf, op Op) error {
	return scanBuf(c, &send, &recv, op)
}

func scanBuf(c *Comm, send, recv *Buf, op Op) error {
	if c.special() {
		s, r := *send, *recv
		if done, err := c.aroundArgs("Scan", &collArgs{bs: s, br: r, op: op}, aroundScanBuf); done {
			return err
		}
	}
	return (&redCall{c: c, kind: kScan}).blocking(send, recv, op)
}

// IscanBuf starts a ScanBuf.
func IscanBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	return (&redCall{m: mpir.Nonblocking, c: c, kind: kScan}).start(&send, &recv, op)
}

// ExscanBuf is Exscan over typed buffers: rank r's recv gets the combination of the
// sends of ranks 0..r-1; rank 0's recv is left as it was.
func ExscanBuf(c *Comm, send, recv Buf, op Op) error {
	return exscanBuf(c, &send, &recv, op)
}

func exscanBuf(c *Comm, send, recv *Buf, op Op) error {
	if c.special() {
		s, r := *send, *recv
		if done, err := c.aroundArgs("Exscan", &collArgs{bs: s, br: r, op: op}, aroundExscanBuf); done {
			return err
		}
	}
	return (&redCall{c: c, kind: kExscan}).blocking(send, recv, op)
}

// IexscanBuf starts an ExscanBuf.
func IexscanBuf(c *Comm, send, recv Buf, op Op) (Request, error) {
	return (&redCall{m: mpir.Nonblocking, c: c, kind: kExscan}).start(&send, &recv, op)
}

// ReduceLocalBuf sets inout = in ⊕ inout element by element of the base type
// (MPI_Reduce_local on typed buffers), with the rules of ReduceBuf for the datatypes
// and the op. It involves no other process, so its errors are returned, not passed to
// a communicator's handler, as ReduceLocal's are.
func ReduceLocalBuf(in, inout Buf, op Op) error {
	return (&redCall{kind: kLocal}).local(&in, &inout, op)
}

// The reducing Buf collectives' calls through a view (see Comm.aroundArgs).

func aroundReduceBuf(b *Comm, a *collArgs) error { return ReduceBuf(b, a.bs, a.br, a.op, a.root) }

func aroundAllreduceBuf(b *Comm, a *collArgs) error { return AllreduceBuf(b, a.bs, a.br, a.op) }

func aroundReduceScatterBlockBuf(b *Comm, a *collArgs) error {
	return ReduceScatterBlockBuf(b, a.bs, a.br, a.op)
}

func aroundReduceScatterBuf(b *Comm, a *collArgs) error {
	return ReduceScatterBuf(b, a.bs, a.br, a.counts, a.op)
}

func aroundScanBuf(b *Comm, a *collArgs) error { return ScanBuf(b, a.bs, a.br, a.op) }

func aroundExscanBuf(b *Comm, a *collArgs) error { return ExscanBuf(b, a.bs, a.br, a.op) }
