package collective

import (
	"github.com/mpigo/mpigo/internal/coll"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// Collectives on buffers described by datatypes (a Vec with a Type). The builders
// take contiguous elements, so an entry point first lays each typed buffer out: a
// contiguous type is its own memory, sliced, with the type's size as the element
// size; another type gets pooled scratch of its packed items, packed from the user's
// memory where the buffer holds input on this process, and unpacked back once the
// collective has succeeded where it holds output. The counts and displacements of
// the v forms count items, so they index the scratch as they index the layout, and
// only their blocks are packed and unpacked. A nonblocking call unpacks when its
// request completes.

// role is what a buffer is on this process in one call.
type role struct {
	v       *Vec
	in, out bool
}

// blocks are the v forms' blocks of the buffer of the role of the same index (nil
// counts: all Count items). They are kept apart from the roles so that the roles'
// Vecs, the callers' own variables, do not escape with them.
type blocks struct{ counts, displs []int }

// output is a typed buffer to unpack once the call has succeeded: all of its items
// (bd), or the blocks counts and displs of them.
type output struct {
	bd             datatype.Bound
	packed         []byte
	counts, displs []int
}

// staged is the typed buffers of one call, laid out: at most two (send and
// receive), held in arrays so that a blocking call allocates nothing for them.
type staged struct {
	op      string
	outs    [2]output
	nouts   int
	scratch [2]*[]byte
	nscr    int
}

// typed reports whether any buffer of rs needs laying out.
func typed(rs ...role) bool {
	for _, r := range rs {
		if r.v.Type != nil && !r.v.InPlace {
			return true
		}
	}
	return false
}

// stage lays out every typed buffer of rs in place (each rs[i].v is replaced by its
// contiguous form), rs[i]'s blocks being bl[i].
func (st *staged) stage(op string, rs []role, bl *[2]blocks) error {
	st.op = op
	for i, r := range rs {
		if r.v.Type == nil || r.v.InPlace {
			continue
		}
		if err := st.lay(r.v, r.in, r.out, bl[i].counts, bl[i].displs); err != nil {
			st.release()
			return err
		}
	}
	return nil
}

// lay lays out v, an input (in) or output (out) of the call; counts and displs are
// the v forms' blocks. They come apart from v so that v, often the caller's own
// variable, does not escape.
func (st *staged) lay(v *Vec, in, out bool, counts, displs []int) error {
	items := v.Count
	if counts != nil {
		items = blocksEnd(counts, displs)
	}
	var bd datatype.Bound
	if err := bindVec(st.op, v, items, &bd); err != nil {
		return err
	}
	size := int(v.Type.Size())
	if c, ok := bd.Contiguous(); ok {
		*v = Vec{B: c, Esz: size}
		return nil
	}
	p := coll.GetScratch(items * size)
	st.scratch[st.nscr] = p
	st.nscr++
	packed := *p
	if in {
		if err := st.pack(&bd, packed, counts, displs); err != nil {
			return core.TypeErr(st.op, err)
		}
	}
	if out {
		st.outs[st.nouts] = output{bd: bd, packed: packed, counts: counts, displs: displs}
		st.nouts++
	}
	*v = Vec{B: packed, Esz: size}
	return nil
}

// bindVec binds items of v's datatype over v's memory in *bd. The arguments were
// checked above the device (the type committed, the count not negative, the items
// inside the memory: internal/mpir); an error here is the datatype engine's own.
func bindVec(op string, v *Vec, items int, bd *datatype.Bound) error {
	var err error
	*bd, err = v.Type.Bind(v.B, int64(items))
	return core.TypeErr(op, err)
}

// pack packs the blocks of bd's items (all of them for nil counts) into packed.
func (st *staged) pack(bd *datatype.Bound, packed []byte, counts, displs []int) error {
	if counts == nil {
		return bd.Pack(packed)
	}
	t, mem, size := bd.Type(), bd.Mem(), int(bd.Type().Size())
	return eachBlock(0, counts, displs, func(at, n int) error {
		_, err := t.PackAt(packed[at*size:], mem, int64(at)*t.Extent(), int64(n))
		return err
	})
}

// done ends a blocking call: on success it unpacks the outputs; it releases the
// scratch either way.
func (st *staged) done(err error) error {
	if err == nil {
		err = st.unpack()
	}
	st.release()
	return err
}

func (st *staged) unpack() error {
	for i := range st.outs[:st.nouts] {
		if err := st.outs[i].unpack(); err != nil {
			return core.TypeErr(st.op, err)
		}
	}
	return nil
}

// unpack unpacks o's blocks into its buffer.
func (o *output) unpack() error {
	if o.counts == nil {
		return o.bd.Unpack(o.packed)
	}
	t, mem, size := o.bd.Type(), o.bd.Mem(), int(o.bd.Type().Size())
	return eachBlock(0, o.counts, o.displs, func(at, n int) error {
		_, err := t.UnpackAt(mem, int64(at)*t.Extent(), o.packed[at*size:], int64(n))
		return err
	})
}

func (st *staged) release() {
	for _, p := range st.scratch[:st.nscr] {
		coll.PutScratch(p)
	}
	st.nscr, st.nouts = 0, 0
}

// finish ends a call of either form: a blocking one (p nil) now, a nonblocking one
// when its request completes.
func (st *staged) finish(p *core.Pending, err error) (*core.Pending, error) {
	if err != nil || p == nil {
		return nil, st.done(err)
	}
	h := new(staged) // the request's own: a blocking call's stays on the stack
	*h = *st
	return core.ThenFinish(p, h), nil
}

// Finish is done: a staging is the Finisher of its nonblocking call's request.
func (st *staged) Finish(err error) error { return st.done(err) }

// eachBlock calls f with each block (first item, items): the counts and
// displacements, or all items.
func eachBlock(items int, counts, displs []int, f func(at, n int) error) error {
	if counts == nil {
		return f(0, items)
	}
	for i, n := range counts {
		if n > 0 {
			if err := f(displs[i], n); err != nil {
				return err
			}
		}
	}
	return nil
}

// blocksEnd is the item just past the last block.
func blocksEnd(counts, displs []int) int {
	end := 0
	for i := range counts {
		if i < len(displs) && counts[i] > 0 {
			end = max(end, displs[i]+counts[i])
		}
	}
	return end
}

// bytesOfVec makes a laid-out buffer plain bytes: collectives on datatypes compare
// and move type signatures, which are bytes of packed items, so a process may
// describe its side with another type of the same signature (3 int32s against one
// contiguous type of 3 int32s).
func bytesOfVec(v *Vec) {
	if !v.InPlace {
		v.Esz = 1
	}
}

// scaled is counts (or displacements) in items of size bytes, as bytes.
func scaled(v []int, size int) []int {
	if v == nil {
		return nil
	}
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = x * size
	}
	return out
}

// typeSize is v's item size, for scaling its counts (0 when v is not typed).
func typeSize(v Vec) int {
	if v.Type == nil {
		return 0
	}
	return int(v.Type.Size())
}

// rootOf reports whether this process is a rooted collective's root and whether it
// exchanges data at all (the root's group's other processes on an intercommunicator
// do not).
func (c *comm) rootOf(root int) (isRoot, takesPart bool) {
	if c.remote != nil {
		return root == Root, root == Root || root >= 0
	}
	return c.rank == root, true
}

// typedColl runs call on the laid-out buffers of rs (with blocks bl) and finishes
// the call.
func typedColl(op string, rs []role, bl *[2]blocks, call func() (*core.Pending, error)) (*core.Pending, error) {
	var st staged
	if err := st.stage(op, rs, bl); err != nil {
		return nil, err
	}
	for _, r := range rs {
		bytesOfVec(r.v)
	}
	p, err := call()
	if x := collOf(p); err == nil && x != nil {
		x.attach(&st, nil) // the record carries the staging: nothing allocated
		return p, nil
	}
	return st.finish(p, err)
}

// bcastStaged is a blocking Bcast of a typed buffer, the path of every short one:
// a single buffer, so it is laid out here rather than through typedColl's roles.
// The root packs it into scratch, the others unpack the scratch once it has come.
func (c *comm) bcastStaged(op string, buf *Vec, root int) error {
	isRoot, part := c.rootOf(root)
	var bd datatype.Bound
	if err := bindVec(op, buf, buf.Count, &bd); err != nil {
		return err
	}
	if mem, ok := bd.Contiguous(); ok {
		v := Vec{B: mem, Esz: 1}
		return c.bcast(op, &v, root)
	}
	p := coll.GetScratch(int(bd.Size()))
	v := Vec{B: *p, Esz: 1}
	err := c.bcastPacked(op, &v, root, &bd, isRoot, part && !isRoot)
	coll.PutScratch(p)
	return err
}

// bcastPacked broadcasts bd packed in v: packed into it first at the root (in),
// unpacked from it after where it is output (out).
func (c *comm) bcastPacked(op string, v *Vec, root int, bd *datatype.Bound, in, out bool) error {
	if in {
		if err := bd.Pack(v.B); err != nil {
			return core.TypeErr(op, err)
		}
	}
	if err := c.bcast(op, v, root); err != nil || !out {
		return err
	}
	if err := bd.Unpack(v.B); err != nil {
		return core.TypeErr(op, err)
	}
	return nil
}

func (c *comm) bcastTyped(op string, buf Vec, root int, nb bool) (*core.Pending, error) {
	isRoot, part := c.rootOf(root)
	rs := []role{{v: &buf, in: isRoot, out: part && !isRoot}}
	return typedColl(op, rs, &[2]blocks{}, func() (*core.Pending, error) {
		if nb {
			s, err := c.sched.bcast(c, op, buf, root, true)
			return finish(op, true, s, err)
		}
		return nil, c.bcast(op, &buf, root)
	})
}

func (c *comm) gatherTyped(op string, send, recv Vec, counts, displs []int, root int, v, nb bool) (*core.Pending, error) {
	isRoot, part := c.rootOf(root)
	rs := []role{{v: &send, in: part && !(isRoot && send.InPlace)}, {v: &recv, in: isRoot && send.InPlace, out: isRoot}}
	var bl [2]blocks
	if v {
		bl[1] = blocks{counts, displs}
		if sz := typeSize(recv); sz > 0 {
			counts, displs = scaled(counts, sz), scaled(displs, sz)
		}
	}
	return typedColl(op, rs, &bl, func() (*core.Pending, error) {
		return c.gatherRun(op, send, recv, counts, displs, root, v, nb)
	})
}

func (c *comm) scatterTyped(op string, send Vec, counts, displs []int, recv Vec, root int, v, nb bool) (*core.Pending, error) {
	isRoot, part := c.rootOf(root)
	rs := []role{{v: &send, in: isRoot}, {v: &recv, out: part && !(isRoot && recv.InPlace)}}
	var bl [2]blocks
	if v {
		bl[0] = blocks{counts, displs}
		if sz := typeSize(send); sz > 0 {
			counts, displs = scaled(counts, sz), scaled(displs, sz)
		}
	}
	return typedColl(op, rs, &bl, func() (*core.Pending, error) {
		if !v {
			return c.scatterRun(op, send, recv, root, nb)
		}
		return c.scattervRun(op, send, counts, displs, recv, root, nb)
	})
}

func (c *comm) allgatherTyped(op string, send, recv Vec, counts, displs []int, v, nb bool) (*core.Pending, error) {
	rs := []role{{v: &send, in: true}, {v: &recv, in: send.InPlace, out: true}}
	var bl [2]blocks
	if v {
		bl[1] = blocks{counts, displs}
		if sz := typeSize(recv); sz > 0 {
			counts, displs = scaled(counts, sz), scaled(displs, sz)
		}
	}
	return typedColl(op, rs, &bl, func() (*core.Pending, error) {
		return c.allgatherRun(op, send, recv, counts, displs, v, nb)
	})
}

func (c *comm) alltoallTyped(op string, send Vec, scounts, sdispls []int, recv Vec, rcounts, rdispls []int, v, nb bool) (*core.Pending, error) {
	rs := []role{{v: &send, in: true}, {v: &recv, in: send.InPlace, out: true}}
	var bl [2]blocks
	if v {
		bl[0], bl[1] = blocks{scounts, sdispls}, blocks{rcounts, rdispls}
		if sz := typeSize(send); sz > 0 {
			scounts, sdispls = scaled(scounts, sz), scaled(sdispls, sz)
		}
		if sz := typeSize(recv); sz > 0 {
			rcounts, rdispls = scaled(rcounts, sz), scaled(rdispls, sz)
		}
	}
	return typedColl(op, rs, &bl, func() (*core.Pending, error) {
		if !v {
			return c.alltoallRun(op, send, recv, nb)
		}
		return c.alltoallvRun(op, send, scounts, sdispls, recv, rcounts, rdispls, nb)
	})
}

// Scratch returns pooled memory of n bytes (aligned for any element type) for the
// facade's staging of typed buffers around a call; ReleaseScratch gives it back.
func Scratch(n int) *[]byte { return coll.GetScratch(n) }

// ReleaseScratch returns memory from Scratch to its pool.
func ReleaseScratch(p *[]byte) { coll.PutScratch(p) }
