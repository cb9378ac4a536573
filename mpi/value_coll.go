package mpi

import (
	"fmt"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
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
//
// On an intercommunicator they have the typed collectives' meaning, and the same
// shapes carry them: values go from one group to the other. With a root, the root
// passes Root, the other ranks of its group ProcNull (they take no part and get zero
// values), and the other group the root's rank; GatherValues and ScatterValues index
// the remote group's ranks, and AllgatherValues and AlltoallValues give and take
// RemoteSize() values. ReduceValue gives the root the reduction of the remote
// group's values and AllreduceValue each group that of the other's, in rank order:
// their values are gathered (GatherValues, AllgatherValues) and combined where they
// arrive.
//
// Each is recorded as one call (the collectives it is made of are unrecorded), with
// the encoded bytes of this rank's part: the values it contributes (GatherValues,
// AllgatherValues, AlltoallValues, ScatterValues' root), the value it gets where it
// contributes none (BcastValue, as Bcast counts its buffer at every rank;
// ScatterValues' other ranks), or, for the reductions, whose partial results are
// encoded on the way, the partial results it sends and receives.

// valueColl checks that c can run value collective op.
func (c *Comm) valueColl(op string) error {
	if err := c.check(op); err != nil {
		return err
	}
	return c.fail(op, c.collStopped(op))
}

// peers is the number of ranks a value collective on c gathers from or scatters to:
// c's size, or an intercommunicator's remote size; own is the index of this rank's
// own value among them (-1 on an intercommunicator).
func (c *Comm) peers() (n, own int) {
	if c.IsInter() {
		return c.RemoteSize(), -1
	}
	return c.Size(), c.Rank()
}

// rootRole says what root makes of this rank in a rooted value collective: the root,
// or (on an intercommunicator) a rank of the root's group that takes no part.
func (c *Comm) rootRole(root int) (isRoot, idle bool) {
	if c.IsInter() {
		return root == Root, root == ProcNull
	}
	return c.Rank() == root, false
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
	t := c.enter(prof.BcastValue, root, 0)
	got, n, err := bcastValue("BcastValue", c, v, root, nil)
	prof.Exit(prof.BcastValue, t, n)
	return got, err
}

// bcastValue is BcastValue unrecorded; n is the bytes of the value. A root with
// rootErr set sends nothing and every rank returns an error (AllreduceValue's failed
// reduction).
func bcastValue[T any](op string, c *Comm, v T, root int, rootErr error) (_ T, n int, _ error) {
	var z T
	if err := c.valueColl(op); err != nil {
		return z, 0, err
	}
	if c.IsInter() {
		return bcastInter(op, c, v, root)
	}
	isRoot := c.Rank() == root
	// head: the length (-1: root failed) and the number of out-of-band slices.
	var head [2]int64
	var e *vcodec.Enc
	var eerr error
	if isRoot && rootErr != nil {
		head[0], eerr = -1, rootErr
	} else if isRoot {
		var n int64
		_, e, n, eerr = encodeLen(op, &v, true)
		head[0] = n
		if e != nil {
			defer putEnc(e)
			head[1] = int64(len(e.OOB))
		}
	}
	if err := bcast(c, head[:], root); err != nil {
		return z, 0, err
	}
	if head[0] < 0 {
		if isRoot {
			return z, 0, c.fail(op, eerr)
		}
		return z, 0, c.fail(op, errorf(ClassRoot, op, "the root has no value to send (its call says why)"))
	}
	sizes := make([]int64, head[1])
	var buf []byte
	if isRoot {
		for i, b := range e.OOB {
			sizes[i] = int64(len(b))
		}
		buf = e.Buf
	} else {
		buf = make([]byte, head[0])
	}
	if len(sizes) > 0 {
		if err := bcast(c, sizes, root); err != nil {
			return z, 0, err
		}
	}
	n = valueBytes(head[0], sizes)
	if err := bcast(c, buf, root); err != nil {
		return z, n, err
	}
	derr, err := bcastOOB(op, c, &v, e, buf, sizes, root, isRoot, !isRoot)
	if err != nil {
		return z, n, err
	}
	if derr != nil {
		return z, n, c.fail(op, derr)
	}
	return v, n, nil
}

// valueBytes is the bytes of a value whose message is n bytes long and whose
// out-of-band slices have sizes.
func valueBytes(n int64, sizes []int64) int {
	for _, s := range sizes {
		n += s
	}
	return int(n)
}

// bcastOOB is BcastValue's end: a process that receives the value (receive) decodes
// it from the message buf, then every process makes one Bcast per out-of-band slice
// of sizes from root: the root's own (e.OOB), the receivers' into the decoded
// value's memory (a slice that does not fit, or a value that did not decode, into
// scratch, to take part). derr is the decoding's error, err the Bcasts'.
func bcastOOB[T any](op string, c *Comm, v *T, e *vcodec.Enc, buf []byte, sizes []int64, root int, isRoot, receive bool) (derr, err error) {
	oob := make([][]byte, len(sizes))
	switch {
	case isRoot:
		copy(oob, e.OOB)
	case receive:
		cd, _ := codecOf[T](op)
		var d vcodec.Dec
		*v, derr = decode[T](op, cd, buf, &d)
		copy(oob, d.OOB)
		for i := range oob {
			if derr != nil || len(oob[i]) != int(sizes[i]) {
				oob[i] = make([]byte, sizes[i]) // to take part; the value is lost
			}
		}
	}
	for i := range oob {
		if err := bcast(c, oob[i], root); err != nil {
			return derr, err
		}
	}
	return derr, nil
}

// bcastInter is BcastValue on an intercommunicator. Its collectives are numbered by
// the intercommunicator's sequence, which every process advances, the ones of the
// root's group that take no part too: so every process makes the same calls. The
// remote group learns the root's head (the length, -1 when the root failed, and the
// number of out-of-band slices) from the first Bcast; the root's group, whose members
// other than the root do not know which member it is, from a maximum over the group.
// Then, as on an intracommunicator, the slices' sizes, the message and each slice in
// a Bcast of its own: a large slice travels from its own memory, not copied into the
// message.
func bcastInter[T any](op string, c *Comm, v T, root int) (_ T, n int, _ error) {
	var z T
	isRoot, idle := c.rootRole(root)
	var head [2]int64
	var e *vcodec.Enc
	var eerr error
	if isRoot {
		_, e, head[0], eerr = encodeLen(op, &v, true)
		if e != nil {
			defer putEnc(e)
			head[1] = int64(len(e.OOB))
		}
	}
	if isRoot || idle {
		// Words of length+2 (so that -1, a failed root, is above the idle members'
		// zero) and the number of slices, combined by maximum.
		w := [2]int64{head[0] + 2, head[1]}
		if !isRoot {
			w = [2]int64{}
		}
		b := unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 16)
		err := c.d.InternalAllreduce(op, b, 8, func(acc, in []byte) {
			a := unsafe.Slice((*int64)(unsafe.Pointer(&acc[0])), len(acc)/8)
			x := unsafe.Slice((*int64)(unsafe.Pointer(&in[0])), len(in)/8)
			for i := range a {
				a[i] = max(a[i], x[i])
			}
		}, core.TagValueHead)
		if err != nil {
			return z, 0, c.fail(op, err)
		}
		head = [2]int64{w[0] - 2, w[1]}
	}
	if err := bcast(c, head[:], root); err != nil {
		return z, 0, err
	}
	if head[0] < 0 {
		switch {
		case idle:
			return z, 0, nil
		case isRoot:
			return v, 0, c.fail(op, eerr)
		}
		return z, 0, c.fail(op, errorf(ClassRoot, op, "the root has no value to send (its call says why)"))
	}
	sizes := make([]int64, head[1])
	var buf []byte
	switch {
	case isRoot:
		for i, b := range e.OOB {
			sizes[i] = int64(len(b))
		}
		buf = e.Buf
	case !idle:
		buf = make([]byte, head[0])
	}
	if len(sizes) > 0 {
		if err := bcast(c, sizes, root); err != nil {
			return z, 0, err
		}
	}
	if !idle {
		n = valueBytes(head[0], sizes)
	}
	if err := bcast(c, buf, root); err != nil {
		return z, n, err
	}
	derr, err := bcastOOB(op, c, &v, e, buf, sizes, root, isRoot, !isRoot && !idle)
	if err != nil {
		return z, n, err
	}
	switch {
	case idle:
		return z, 0, nil
	case derr != nil:
		return z, n, c.fail(op, derr)
	}
	return v, n, nil
}

// GatherValues collects every rank's v at root, rank i's at index i (root's own is
// v itself); it returns nil on the other ranks.
func GatherValues[T any](c *Comm, v T, root int) ([]T, error) {
	t := c.enter(prof.GatherValues, root, 0)
	out, n, err := gatherValues(c, v, root)
	prof.Exit(prof.GatherValues, t, n)
	return out, err
}

// gatherValues is GatherValues unrecorded; nbytes is the bytes of this rank's value.
func gatherValues[T any](c *Comm, v T, root int) (_ []T, nbytes int, _ error) {
	const op = "GatherValues"
	if err := c.valueColl(op); err != nil {
		return nil, 0, err
	}
	isRoot, idle := c.rootRole(root)
	if idle { // the intercommunicator's collective sequence counts these calls too
		if err := gather(c, []int64(nil), nil, root); err != nil {
			return nil, 0, err
		}
		return nil, 0, gatherv(c, []byte(nil), nil, nil, nil, root)
	}
	cd, e, n, eerr := encodeLen(op, &v, false)
	if e != nil {
		defer putEnc(e)
	}
	nbytes = int(max(n, 0))
	size, own := c.peers()
	var lens []int64
	if isRoot {
		lens = make([]int64, size)
	}
	if err := gather(c, []int64{n}, lens, root); err != nil {
		return nil, nbytes, err
	}
	var buf []byte
	var counts, displs []int
	if isRoot {
		var total int
		counts, displs, total = valueLayout(lens)
		buf = make([]byte, total)
	}
	if err := gatherv(c, bytesOf(e), buf, counts, displs, root); err != nil {
		return nil, nbytes, err
	}
	if eerr != nil && (!isRoot || own >= 0) { // an intercommunicator's root sends nothing
		return nil, nbytes, c.fail(op, eerr)
	}
	if !isRoot {
		return nil, nbytes, nil
	}
	out, err := decodeBlocks(op, cd, buf, lens, own, v)
	return out, nbytes, c.fail(op, err)
}

// ScatterValues sends vs[i] of root's vs (Size() values) to rank i and returns this
// rank's (root's is vs[root] itself); vs is ignored on the other ranks.
func ScatterValues[T any](c *Comm, vs []T, root int) (T, error) {
	t := c.enter(prof.ScatterValues, root, 0)
	v, n, err := scatterValues(c, vs, root)
	prof.Exit(prof.ScatterValues, t, n)
	return v, err
}

// scatterValues is ScatterValues unrecorded; nbytes is the bytes of the values the
// root sends, or of the value another rank gets.
func scatterValues[T any](c *Comm, vs []T, root int) (_ T, nbytes int, _ error) {
	const op = "ScatterValues"
	var z T
	if err := c.valueColl(op); err != nil {
		return z, 0, err
	}
	isRoot, idle := c.rootRole(root)
	if idle { // the intercommunicator's collective sequence counts these calls too
		if err := scatter(c, []int64(nil), nil, root); err != nil {
			return z, 0, err
		}
		return z, 0, scatterv(c, []byte(nil), nil, nil, nil, root)
	}
	size, own := c.peers()
	cd, err := codecOf[T](op)
	if err != nil {
		return z, 0, c.fail(op, err)
	}
	var lens []int64
	var send []byte
	var counts, displs []int
	var rerr error
	if isRoot {
		lens = make([]int64, size)
		if len(vs) != size {
			rerr = errorf(ClassCount, op, "len(vs) %d, want %d (Size(), or RemoteSize() on an intercommunicator)", len(vs), size)
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
	if err := scatter(c, lens, my, root); err != nil {
		return z, 0, err
	}
	if isRoot {
		for _, n := range lens {
			nbytes += int(max(n, 0))
		}
	} else {
		nbytes = int(max(my[0], 0))
	}
	// On an intracommunicator every rank knows of a failure now and stops; on an
	// intercommunicator the idle ranks cannot, so the Scatterv is made regardless
	// (empty).
	failed := (isRoot && rerr != nil) || my[0] < 0
	if failed && own >= 0 {
		if isRoot {
			return z, 0, c.fail(op, rerr)
		}
		return z, 0, c.fail(op, errorf(ClassRoot, op, "the root's values could not be encoded (its call says why)"))
	}
	var recv []byte
	if !isRoot && my[0] > 0 {
		recv = make([]byte, my[0])
	} else if isRoot && own >= 0 {
		recv = make([]byte, my[0])
	}
	if failed && isRoot {
		counts = make([]int, size)
		displs = make([]int, size)
	}
	if err := scatterv(c, send, counts, displs, recv, root); err != nil {
		return z, nbytes, err
	}
	if failed {
		if isRoot {
			return z, 0, c.fail(op, rerr)
		}
		return z, 0, c.fail(op, errorf(ClassRoot, op, "the root's values could not be encoded (its call says why)"))
	}
	if isRoot {
		if own < 0 {
			return z, nbytes, nil // an intercommunicator's root keeps none of its values
		}
		return vs[own], nbytes, nil
	}
	var d vcodec.Dec
	v, err := decode[T](op, cd, recv, &d)
	return v, nbytes, c.fail(op, err)
}

// AllgatherValues collects every rank's v at every rank, rank i's at index i (this
// rank's own is v itself).
func AllgatherValues[T any](c *Comm, v T) ([]T, error) {
	t := c.enter(prof.AllgatherValues, prof.NoPeer, 0)
	out, n, err := allgatherValues(c, v)
	prof.Exit(prof.AllgatherValues, t, n)
	return out, err
}

// allgatherValues is AllgatherValues unrecorded; nbytes is the bytes of this rank's
// value.
func allgatherValues[T any](c *Comm, v T) (_ []T, nbytes int, _ error) {
	const op = "AllgatherValues"
	if err := c.valueColl(op); err != nil {
		return nil, 0, err
	}
	cd, e, n, eerr := encodeLen(op, &v, false)
	if e != nil {
		defer putEnc(e)
	}
	nbytes = int(max(n, 0))
	size, own := c.peers()
	lens := make([]int64, size)
	if err := allgather(c, []int64{n}, lens); err != nil {
		return nil, nbytes, err
	}
	counts, displs, total := valueLayout(lens)
	buf := make([]byte, total)
	if err := allgatherv(c, bytesOf(e), buf, counts, displs); err != nil {
		return nil, nbytes, err
	}
	if eerr != nil {
		return nil, nbytes, c.fail(op, eerr)
	}
	out, err := decodeBlocks(op, cd, buf, lens, own, v)
	return out, nbytes, c.fail(op, err)
}

// AlltoallValues sends vs[j] (Size() values) to rank j and returns the values every
// rank sent this one, rank i's at index i (this rank's own is vs[rank] itself).
func AlltoallValues[T any](c *Comm, vs []T) ([]T, error) {
	t := c.enter(prof.AlltoallValues, prof.NoPeer, 0)
	out, n, err := alltoallValues(c, vs)
	prof.Exit(prof.AlltoallValues, t, n)
	return out, err
}

// alltoallValues is AlltoallValues unrecorded; nbytes is the bytes of the values
// this rank sends.
func alltoallValues[T any](c *Comm, vs []T) (_ []T, nbytes int, _ error) {
	const op = "AlltoallValues"
	if err := c.valueColl(op); err != nil {
		return nil, 0, err
	}
	size, own := c.peers()
	cd, err := codecOf[T](op)
	if err != nil {
		return nil, 0, c.fail(op, err)
	}
	slens := make([]int64, size)
	var rerr error
	if len(vs) != size {
		rerr = errorf(ClassCount, op, "len(vs) %d, want %d (Size(), or RemoteSize() on an intercommunicator)", len(vs), size)
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
	for _, n := range slens {
		nbytes += int(max(n, 0))
	}
	rlens := make([]int64, size)
	if err := alltoall(c, slens, rlens); err != nil {
		return nil, nbytes, err
	}
	scounts, sdispls, stotal := valueLayout(slens)
	send := make([]byte, stotal)
	for j, p := range parts {
		copy(send[sdispls[j]:], p)
	}
	rcounts, rdispls, rtotal := valueLayout(rlens)
	recv := make([]byte, rtotal)
	if err := alltoallv(c, send, scounts, sdispls, recv, rcounts, rdispls); err != nil {
		return nil, nbytes, err
	}
	if rerr != nil {
		return nil, nbytes, c.fail(op, rerr)
	}
	var mine T
	if own >= 0 {
		mine = vs[own]
	}
	out, err := decodeBlocks(op, cd, recv, rlens, own, mine)
	return out, nbytes, c.fail(op, err)
}

// ReduceValue combines every rank's v with op, in rank order (op need not commute;
// it must associate), and returns the result at root (T's zero value elsewhere). The
// values travel up a binomial tree: each rank combines what its subtree sends it.
func ReduceValue[T any](c *Comm, v T, op func(a, b T) T, root int) (T, error) {
	t := c.enter(prof.ReduceValue, root, 0)
	r, n, err := reduceValue(c, v, op, root)
	prof.Exit(prof.ReduceValue, t, n)
	return r, err
}

// reduceValue is ReduceValue unrecorded; nbytes is the bytes of the partial results
// this rank sent and received (on an intercommunicator, of its value).
func reduceValue[T any](c *Comm, v T, op func(a, b T) T, root int) (_ T, nbytes int, _ error) {
	const name = "ReduceValue"
	var z T
	if err := c.valueColl(name); err != nil {
		return z, 0, err
	}
	if op == nil {
		return z, 0, c.fail(name, errorf(ClassOp, name, "nil operation"))
	}
	if c.IsInter() {
		return reduceInter(c, v, op, root)
	}
	me, size := c.Rank(), c.Size()
	if root < 0 || root >= size {
		return z, 0, c.fail(name, errorf(ClassRoot, name, "root %d out of range [0,%d)", root, size))
	}
	cd, err := codecOf[T](name)
	if err != nil {
		return z, 0, c.fail(name, err)
	}
	acc, ok := v, true // ok: acc holds the combination of the subtree so far
	var first error
	for mask := 1; mask < size; mask <<= 1 {
		if me&mask != 0 {
			n, err := sendReduced(name, c, &acc, ok, me-mask)
			nbytes += n
			if err != nil {
				return z, nbytes, c.fail(name, err)
			}
			ok = false
			break
		}
		if me+mask < size {
			got, n, gok, err := recvReduced[T](name, c, cd, me+mask)
			nbytes += n
			if err != nil {
				return z, nbytes, c.fail(name, err)
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
			n, err := sendReduced(name, c, &acc, ok && first == nil, root)
			nbytes += n
			if err != nil {
				return z, nbytes, c.fail(name, err)
			}
			return z, nbytes, nil
		case root:
			got, n, gok, err := recvReduced[T](name, c, cd, 0)
			nbytes += n
			if err != nil {
				return z, nbytes, c.fail(name, err)
			}
			if !gok {
				return z, nbytes, c.fail(name, errorf(ClassOther, name, "a rank's value could not be encoded or decoded (its call says why)"))
			}
			return got, nbytes, nil
		}
	}
	if me != root {
		return z, nbytes, nil
	}
	if first != nil || !ok {
		return z, nbytes, c.fail(name, first)
	}
	return acc, nbytes, nil
}

// reduceInter is ReduceValue on an intercommunicator: the remote group's values
// gathered at the root and combined there in rank order.
func reduceInter[T any](c *Comm, v T, op func(a, b T) T, root int) (T, int, error) {
	var z T
	vs, n, err := gatherValues(c, v, root)
	if err != nil || root != Root {
		return z, n, err
	}
	return combine(vs, op), n, nil
}

// combine folds vs with op in order (vs is not empty: groups are not).
func combine[T any](vs []T, op func(a, b T) T) T {
	acc := vs[0]
	for _, x := range vs[1:] {
		acc = op(acc, x)
	}
	return acc
}

// sendReduced sends a partial result up the tree on the internal context, and
// returns its bytes; an empty message says that it failed (!ok, or v cannot be
// encoded: then the error after the message has gone).
func sendReduced[T any](op string, c *Comm, v *T, ok bool, to int) (int, error) {
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
		return 0, mapErr(op, err)
	}
	if err := c.collWait(op, &q, false); err != nil {
		return 0, err
	}
	return len(msg), eerr
}

// recvReduced receives a partial result from a child, and its bytes; ok false when
// it failed.
func recvReduced[T any](op string, c *Comm, cd *vcodec.Codec, from int) (T, int, bool, error) {
	var z T
	var msg []byte
	q, err := c.d.IrecvAllocInternal(&msg, from, core.TagValueReduce)
	if err != nil {
		return z, 0, false, mapErr(op, err)
	}
	if err := c.collWait(op, &q, true); err != nil {
		return z, 0, false, err
	}
	if len(msg) == 0 {
		return z, 0, false, nil
	}
	var d vcodec.Dec
	v, err := decode[T](op, cd, msg, &d)
	return v, len(msg), err == nil, nil
}

// collWait waits for a value collective's message under c's context; when the
// context ends first it gives the message up (cancelling a receive) and stops c's
// collectives, as coll does.
func (c *Comm) collWait(op string, q *core.Request, recv bool) error {
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
	t := c.enter(prof.AllreduceValue, prof.NoPeer, 0)
	r, n, err := allreduceValue(c, v, op)
	prof.Exit(prof.AllreduceValue, t, n)
	return r, err
}

// allreduceValue is AllreduceValue unrecorded; nbytes is the bytes of the reduction's
// partial results and of the broadcast result (on an intercommunicator, of this
// rank's value).
func allreduceValue[T any](c *Comm, v T, op func(a, b T) T) (_ T, nbytes int, _ error) {
	const name = "AllreduceValue"
	var z T
	if err := c.valueColl(name); err != nil {
		return z, 0, err
	}
	if op == nil {
		return z, 0, c.fail(name, errorf(ClassOp, name, "nil operation"))
	}
	if c.IsInter() {
		// Each group gets the reduction of the other's values.
		vs, n, err := allgatherValues(c, v)
		if err != nil {
			return z, n, err
		}
		return combine(vs, op), n, nil
	}
	r, n, err := reduceValue(c, v, op, 0)
	if isCtx(c.ctx, err) || c.collStopped(name) != nil {
		return z, n, err
	}
	// Every rank takes part in the broadcast, also one whose part failed, so that
	// none waits; rank 0 sends its failure instead of a value.
	var rootErr error
	if c.Rank() == 0 {
		rootErr = err
	}
	got, bn, berr := bcastValue(name, c, r, 0, rootErr)
	if err != nil {
		return z, n + bn, err
	}
	return got, n + bn, berr
}
