package mpi

import (
	"fmt"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/vcodec"
)

// Value collectives. Each first exchanges the encoded lengths with the typed
// collective of the same shape, then the encoded bytes with its v form (blocks at
// displacements rounded up to 8 bytes, so that decoded slices can share the
// received buffer), and decodes: at most one copy by the encoding, none by the
// receiving side. BcastValue also broadcasts the large slices of the value straight
// from the root's memory into the ones the others allocate. A rank whose value cannot
// be encoded sends the length -1, so every rank returns an error instead of waiting.
// Through a view (WithContext) they honour its context as the typed collectives do.
// They are defined on intracommunicators.

// valueColl checks that c can run value collective op.
func (c *Comm) valueColl(op string) error {
	if err := c.check(op); err != nil {
		return err
	}
	if c.IsInter() {
		return c.fail(op, errorf(ClassComm, op, "value collectives are defined on intracommunicators; %s is an intercommunicator", c.Name()))
	}
	return c.fail(op, c.collStopped(op))
}

// encodeLen encodes v for a collective: its message, and its length or -1 (with the
// error) when it cannot be encoded.
func encodeLen[T any](op string, v *T, oob bool) (*vcodec.Codec, *vcodec.Enc, int64, error) {
	cd, e, err := encode(op, v, oob)
	if err != nil {
		if cd == nil {
			cd, _ = codecOf[T](op)
		}
		return cd, nil, -1, err
	}
	return cd, e, int64(len(e.Buf)), nil
}

func bytesOf(e *vcodec.Enc) []byte {
	if e == nil {
		return nil
	}
	return e.Buf
}

// valueLayout turns lengths into counts and displacements rounded up to 8 bytes, and the
// total; a length of -1 counts 0.
func valueLayout(lens []int64) (counts, displs []int, total int) {
	counts, displs = make([]int, len(lens)), make([]int, len(lens))
	for i, n := range lens {
		total = (total + 7) &^ 7
		displs[i] = total
		if n > 0 {
			counts[i] = int(n)
			total += int(n)
		}
	}
	return counts, displs, total
}

// decodeBlocks decodes block i of buf for each i but skip (which gets own); the
// first failure is the error, naming the rank.
func decodeBlocks[T any](op string, cd *vcodec.Codec, buf []byte, lens []int64, skip int, own T) ([]T, error) {
	counts, displs, _ := valueLayout(lens)
	out := make([]T, len(lens))
	var first error
	var d vcodec.Dec
	for i := range lens {
		if i == skip {
			out[i] = own
			continue
		}
		if lens[i] < 0 {
			if first == nil {
				first = errorf(ClassOther, op, "rank %d's value could not be encoded (its call says why)", i)
			}
			continue
		}
		v, err := decode[T](op, cd, buf[displs[i]:displs[i]+counts[i]], &d)
		if err != nil && first == nil {
			first = fmt.Errorf("rank %d's value: %w", i, err)
		}
		out[i] = v
	}
	return out, first
}

// BcastValue sends root's v to every rank of c and returns it (the others' v are
// ignored; root gets its own v back).
func BcastValue[T any](c *Comm, v T, root int) (T, error) {
	defer prof.Exit(prof.BcastValue, c.enter(prof.BcastValue, root, 0), 0)
	return bcastValue("BcastValue", c, v, root, nil)
}

// bcastValue is BcastValue; a root with rootErr set sends nothing and every rank
// returns an error (AllreduceValue's failed reduction).
func bcastValue[T any](op string, c *Comm, v T, root int, rootErr error) (T, error) {
	var z T
	if err := c.valueColl(op); err != nil {
		return z, err
	}
	me := c.Rank()
	// head: the length (-1: root failed) and the number of out-of-band slices.
	var head [2]int64
	var e *vcodec.Enc
	var eerr error
	if me == root && rootErr != nil {
		head[0], eerr = -1, rootErr
	} else if me == root {
		var n int64
		_, e, n, eerr = encodeLen(op, &v, true)
		head[0] = n
		if e != nil {
			defer putEnc(e)
			head[1] = int64(len(e.OOB))
		}
	}
	if err := Bcast(c, head[:], root); err != nil {
		return z, err
	}
	if head[0] < 0 {
		if me == root {
			return z, c.fail(op, eerr)
		}
		return z, c.fail(op, errorf(ClassRoot, op, "the root has no value to send (its call says why)"))
	}
	sizes := make([]int64, head[1])
	var buf []byte
	if me == root {
		for i, b := range e.OOB {
			sizes[i] = int64(len(b))
		}
		buf = e.Buf
	} else {
		buf = make([]byte, head[0])
	}
	if len(sizes) > 0 {
		if err := Bcast(c, sizes, root); err != nil {
			return z, err
		}
	}
	if err := Bcast(c, buf, root); err != nil {
		return z, err
	}
	oob := make([][]byte, len(sizes))
	var derr error
	if me == root {
		copy(oob, e.OOB)
	} else {
		cd, _ := codecOf[T](op)
		var d vcodec.Dec
		v, derr = decode[T](op, cd, buf, &d)
		copy(oob, d.OOB)
		for i := range oob {
			if derr != nil || len(oob[i]) != int(sizes[i]) {
				oob[i] = make([]byte, sizes[i]) // to take part; the value is lost
			}
		}
	}
	for i := range oob {
		if err := Bcast(c, oob[i], root); err != nil {
			return z, err
		}
	}
	if derr != nil {
		return z, c.fail(op, derr)
	}
	return v, nil
}

// GatherValues collects every rank's v at root, rank i's at index i (root's own is
// v itself); it returns nil on the other ranks.
func GatherValues[T any](c *Comm, v T, root int) ([]T, error) {
	defer prof.Exit(prof.GatherValues, c.enter(prof.GatherValues, root, 0), 0)
	const op = "GatherValues"
	if err := c.valueColl(op); err != nil {
		return nil, err
	}
	cd, e, n, eerr := encodeLen(op, &v, false)
	if e != nil {
		defer putEnc(e)
	}
	me, size := c.Rank(), c.Size()
	var lens []int64
	if me == root {
		lens = make([]int64, size)
	}
	if err := Gather(c, []int64{n}, lens, root); err != nil {
		return nil, err
	}
	var buf []byte
	var counts, displs []int
	if me == root {
		var total int
		counts, displs, total = valueLayout(lens)
		buf = make([]byte, total)
	}
	if err := Gatherv(c, bytesOf(e), buf, counts, displs, root); err != nil {
		return nil, err
	}
	if eerr != nil {
		return nil, c.fail(op, eerr)
	}
	if me != root {
		return nil, nil
	}
	out, err := decodeBlocks(op, cd, buf, lens, root, v)
	return out, c.fail(op, err)
}

// ScatterValues sends vs[i] of root's vs (Size() values) to rank i and returns this
// rank's (root's is vs[root] itself); vs is ignored on the other ranks.
func ScatterValues[T any](c *Comm, vs []T, root int) (T, error) {
	defer prof.Exit(prof.ScatterValues, c.enter(prof.ScatterValues, root, 0), 0)
	const op = "ScatterValues"
	var z T
	if err := c.valueColl(op); err != nil {
		return z, err
	}
	me, size := c.Rank(), c.Size()
	cd, err := codecOf[T](op)
	if err != nil {
		return z, c.fail(op, err)
	}
	var lens []int64
	var send []byte
	var counts, displs []int
	var rerr error
	if me == root {
		lens = make([]int64, size)
		if len(vs) != size {
			rerr = errorf(ClassCount, op, "len(vs) %d, want Size() %d", len(vs), size)
		}
		var parts [][]byte
		for i := 0; i < size && rerr == nil; i++ {
			_, e, n, err := encodeLen(op, &vs[i], false)
			if err != nil {
				rerr = err
				break
			}
			parts = append(parts, append([]byte(nil), e.Buf...))
			putEnc(e)
			lens[i] = n
		}
		if rerr != nil {
			for i := range lens {
				lens[i] = -1
			}
		} else {
			var total int
			counts, displs, total = valueLayout(lens)
			send = make([]byte, total)
			for i, p := range parts {
				copy(send[displs[i]:], p)
			}
		}
	}
	my := make([]int64, 1)
	if err := Scatter(c, lens, my, root); err != nil {
		return z, err
	}
	if my[0] < 0 {
		if me == root {
			return z, c.fail(op, rerr)
		}
		return z, c.fail(op, errorf(ClassRoot, op, "the root's values could not be encoded (its call says why)"))
	}
	recv := make([]byte, my[0])
	if err := Scatterv(c, send, counts, displs, recv, root); err != nil {
		return z, err
	}
	if me == root {
		return vs[root], nil
	}
	var d vcodec.Dec
	v, err := decode[T](op, cd, recv, &d)
	return v, c.fail(op, err)
}

// AllgatherValues collects every rank's v at every rank, rank i's at index i (this
// rank's own is v itself).
func AllgatherValues[T any](c *Comm, v T) ([]T, error) {
	defer prof.Exit(prof.AllgatherValues, c.enter(prof.AllgatherValues, prof.NoPeer, 0), 0)
	const op = "AllgatherValues"
	if err := c.valueColl(op); err != nil {
		return nil, err
	}
	cd, e, n, eerr := encodeLen(op, &v, false)
	if e != nil {
		defer putEnc(e)
	}
	lens := make([]int64, c.Size())
	if err := Allgather(c, []int64{n}, lens); err != nil {
		return nil, err
	}
	counts, displs, total := valueLayout(lens)
	buf := make([]byte, total)
	if err := Allgatherv(c, bytesOf(e), buf, counts, displs); err != nil {
		return nil, err
	}
	if eerr != nil {
		return nil, c.fail(op, eerr)
	}
	out, err := decodeBlocks(op, cd, buf, lens, c.Rank(), v)
	return out, c.fail(op, err)
}

// AlltoallValues sends vs[j] (Size() values) to rank j and returns the values every
// rank sent this one, rank i's at index i (this rank's own is vs[rank] itself).
func AlltoallValues[T any](c *Comm, vs []T) ([]T, error) {
	defer prof.Exit(prof.AlltoallValues, c.enter(prof.AlltoallValues, prof.NoPeer, 0), 0)
	const op = "AlltoallValues"
	if err := c.valueColl(op); err != nil {
		return nil, err
	}
	me, size := c.Rank(), c.Size()
	cd, err := codecOf[T](op)
	if err != nil {
		return nil, c.fail(op, err)
	}
	slens := make([]int64, size)
	var rerr error
	if len(vs) != size {
		rerr = errorf(ClassCount, op, "len(vs) %d, want Size() %d", len(vs), size)
	}
	parts := make([][]byte, size)
	for j := 0; j < size; j++ {
		slens[j] = -1
		if rerr != nil {
			continue
		}
		_, e, n, err := encodeLen(op, &vs[j], false)
		if err != nil {
			rerr = err
			continue
		}
		parts[j] = append([]byte(nil), e.Buf...)
		putEnc(e)
		slens[j] = n
	}
	if rerr != nil {
		for j := range slens {
			slens[j] = -1
		}
	}
	rlens := make([]int64, size)
	if err := Alltoall(c, slens, rlens); err != nil {
		return nil, err
	}
	scounts, sdispls, stotal := valueLayout(slens)
	send := make([]byte, stotal)
	for j, p := range parts {
		copy(send[sdispls[j]:], p)
	}
	rcounts, rdispls, rtotal := valueLayout(rlens)
	recv := make([]byte, rtotal)
	if err := Alltoallv(c, send, scounts, sdispls, recv, rcounts, rdispls); err != nil {
		return nil, err
	}
	if rerr != nil {
		return nil, c.fail(op, rerr)
	}
	out, err := decodeBlocks(op, cd, recv, rlens, me, vs[me])
	return out, c.fail(op, err)
}

// ReduceValue combines every rank's v with op, in rank order (op need not commute;
// it must associate), and returns the result at root (T's zero value elsewhere). The
// values travel up a binomial tree: each rank combines what its subtree sends it.
func ReduceValue[T any](c *Comm, v T, op func(a, b T) T, root int) (T, error) {
	defer prof.Exit(prof.ReduceValue, c.enter(prof.ReduceValue, root, 0), 0)
	const name = "ReduceValue"
	var z T
	if err := c.valueColl(name); err != nil {
		return z, err
	}
	if op == nil {
		return z, c.fail(name, errorf(ClassOp, name, "nil operation"))
	}
	me, size := c.Rank(), c.Size()
	if root < 0 || root >= size {
		return z, c.fail(name, errorf(ClassRoot, name, "root %d out of range [0,%d)", root, size))
	}
	cd, err := codecOf[T](name)
	if err != nil {
		return z, c.fail(name, err)
	}
	acc, ok := v, true // ok: acc holds the combination of the subtree so far
	var first error
	for mask := 1; mask < size; mask <<= 1 {
		if me&mask != 0 {
			if err := sendReduced(name, c, &acc, ok, me-mask); err != nil {
				return z, c.fail(name, err)
			}
			ok = false
			break
		}
		if me+mask < size {
			got, gok, err := recvReduced[T](name, c, cd, me+mask)
			if err != nil {
				return z, c.fail(name, err)
			}
			if !gok {
				ok = false
				if first == nil {
					first = errorf(ClassOther, name, "a value of ranks %d.. could not be encoded or decoded (their calls say why)", me+mask)
				}
				continue
			}
			if ok {
				acc = op(acc, got)
			}
		}
	}
	if root != 0 {
		switch me {
		case 0:
			if err := sendReduced(name, c, &acc, ok && first == nil, root); err != nil {
				return z, c.fail(name, err)
			}
			return z, nil
		case root:
			got, gok, err := recvReduced[T](name, c, cd, 0)
			if err != nil {
				return z, c.fail(name, err)
			}
			if !gok {
				return z, c.fail(name, errorf(ClassOther, name, "a rank's value could not be encoded or decoded (its call says why)"))
			}
			return got, nil
		}
	}
	if me != root {
		return z, nil
	}
	if first != nil || !ok {
		return z, c.fail(name, first)
	}
	return acc, nil
}

// sendReduced sends a partial result up the tree on the internal context; an empty
// message says that it failed (!ok, or v cannot be encoded: then the error after the
// message has gone).
func sendReduced[T any](op string, c *Comm, v *T, ok bool, to int) error {
	var msg []byte
	var eerr error
	if ok {
		var e *vcodec.Enc
		_, e, eerr = encode(op, v, false)
		if eerr == nil {
			msg = e.Buf
			defer putEnc(e)
		}
	}
	q, err := c.d.IsendInternal(msg, to, core.TagValueReduce)
	if err != nil {
		return mapErr(op, err)
	}
	if err := c.collWait(op, &q, false); err != nil {
		return err
	}
	return eerr
}

// recvReduced receives a partial result from a child; ok false when it failed.
func recvReduced[T any](op string, c *Comm, cd *vcodec.Codec, from int) (T, bool, error) {
	var z T
	var msg []byte
	q, err := c.d.IrecvAllocInternal(&msg, from, core.TagValueReduce)
	if err != nil {
		return z, false, mapErr(op, err)
	}
	if err := c.collWait(op, &q, true); err != nil {
		return z, false, err
	}
	if len(msg) == 0 {
		return z, false, nil
	}
	var d vcodec.Dec
	v, err := decode[T](op, cd, msg, &d)
	return v, err == nil, nil
}

// collWait waits for a value collective's message under c's context; when the
// context ends first it gives the message up (cancelling a receive) and stops c's
// collectives, as coll does.
func (c *Comm) collWait(op string, q *p2p.Request, recv bool) error {
	_, err := core.WaitCtx(c.ctx, q)
	if !isCtx(c.ctx, err) {
		return mapErr(op, err)
	}
	if recv {
		core.Cancel(q)
	}
	core.FreeRequest(q)
	c.stopColl(op, err)
	return ctxErr(op, err, "given up when its context ended; the other ranks may still be in it, so %s can run no more collectives", c.Name())
}

// AllreduceValue is ReduceValue whose result every rank gets: a reduction to rank 0
// and a BcastValue.
func AllreduceValue[T any](c *Comm, v T, op func(a, b T) T) (T, error) {
	defer prof.Exit(prof.AllreduceValue, c.enter(prof.AllreduceValue, prof.NoPeer, 0), 0)
	const name = "AllreduceValue"
	var z T
	if err := c.valueColl(name); err != nil {
		return z, err
	}
	r, err := ReduceValue(c, v, op, 0)
	if isCtx(c.ctx, err) || c.collStopped(name) != nil {
		return z, err
	}
	// Every rank takes part in the broadcast, also one whose part failed, so that
	// none waits; rank 0 sends its failure instead of a value.
	var rootErr error
	if c.Rank() == 0 {
		rootErr = err
	}
	got, berr := bcastValue(name, c, r, 0, rootErr)
	if err != nil {
		return z, err
	}
	return got, berr
}
