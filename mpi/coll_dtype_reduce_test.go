package mpi_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/mpigo/mpigo/mpi"
)

// The reduction collectives on typed buffers, each checked against the same reduction
// done serially, compared as bytes of the receive buffer's whole memory (so the gaps
// of a layout must stay as they were). Three families of data: a Go struct through
// TypeOf with a non-commutative user op, a strided vector of float64 with Sum, and
// Float64Int32 pairs with Minloc.

// aff is the affine map x -> A*x + B, with a tag; the struct has trailing padding.
type aff struct {
	A   float64
	B   int32
	Tag int16
}

// affCompose is in ⊕ inout: apply in's map, then inout's; keep in's tag (the lower
// ranks'). Associative, not commutative.
func affCompose(in, inout aff) aff {
	return aff{A: inout.A * in.A, B: int32(inout.A)*in.B + inout.B, Tag: in.Tag}
}

var affOp = mpi.OpCreate(func(inout, in []aff) {
	for i := range inout {
		inout[i] = affCompose(in[i], inout[i])
	}
}, false)

// pair is a Float64Int32 value with its index.
type pair struct {
	V float64
	I int32
}

func minloc(in, inout pair) pair {
	if in.V < inout.V || in.V == inout.V && in.I < inout.I {
		return in
	}
	return inout
}

// layoutOf places logical elements in memory and describes n of them as a Buf.
type layoutOf[E any] struct {
	size func(n int) int // bytes of memory for n elements
	put  func(mem []byte, i int, v E)
	buf  func(t *testing.T, mem []byte, n int) mpi.Buf
}

// redFam is one family of test data: element i of each rank's input, the op and its
// serial form, and the layouts of the send and receive buffers.
type redFam[E any] struct {
	name       string
	op         mpi.Op
	gen        func(rank, i int) E
	comb       func(in, inout E) E
	send, recv layoutOf[E]
}

// aligned returns n bytes of memory aligned for any element.
func aligned(n int) []byte {
	w := make([]uint64, (n+7)/8+1)
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n)
}

// filled is memory for n elements of l, every byte 0xA5.
func (l layoutOf[E]) filled(n int) []byte {
	m := aligned(l.size(n))
	for i := range m {
		m[i] = 0xA5
	}
	return m
}

// of lays out xs in l over a filled memory.
func (l layoutOf[E]) of(xs []E) []byte {
	m := l.filled(len(xs))
	for i, x := range xs {
		l.put(m, i, x)
	}
	return m
}

// input is rank's first n elements.
func (f redFam[E]) input(rank, n int) []E {
	xs := make([]E, n)
	for i := range xs {
		xs[i] = f.gen(rank, i)
	}
	return xs
}

// fold combines the inputs of ranks, in their order, element by element: elements
// lo..lo+n-1.
func (f redFam[E]) fold(ranks []int, lo, n int) []E {
	out := make([]E, n)
	for i := range out {
		acc := f.gen(ranks[0], lo+i)
		for _, r := range ranks[1:] {
			acc = f.comb(acc, f.gen(r, lo+i))
		}
		out[i] = acc
	}
	return out
}

func upTo(n int) []int {
	rs := make([]int, n)
	for i := range rs {
		rs[i] = i
	}
	return rs
}

func putF64(m []byte, at int, v float64) { binary.NativeEndian.PutUint64(m[at:], math.Float64bits(v)) }
func putI32(m []byte, at int, v int32)   { binary.NativeEndian.PutUint32(m[at:], uint32(v)) }
func putI16(m []byte, at int, v int16)   { binary.NativeEndian.PutUint16(m[at:], uint16(v)) }

// committed returns dt committed, for t: committed(mpi.TypeVector(...))(t).
func committed(dt *mpi.Datatype, err error) func(t *testing.T) *mpi.Datatype {
	return func(t *testing.T) *mpi.Datatype {
		t.Helper()
		must(t, err)
		must(t, dt.Commit())
		return dt
	}
}

// affFam: send as items of TypeOf[aff] (the op's own layout), receive into a wider
// record whose fields are at other offsets, with a field between them.
func affFam(t *testing.T) redFam[aff] {
	at := committed(mpi.TypeOf[aff]())(t)
	wide, err := mpi.TypeStruct([]int{1, 1, 1}, []int{16, 24, 0}, []*mpi.Datatype{mpi.Float64, mpi.Int32, mpi.Int16})
	must(t, err)
	wide = committed(mpi.TypeResized(wide, 0, 32))(t)
	return redFam[aff]{
		name: "struct", op: affOp, comb: affCompose,
		gen: func(rank, i int) aff {
			return aff{A: float64([]int{1, 2, -1}[(rank+i)%3]), B: int32(10*rank + i), Tag: int16(100*rank + i)}
		},
		send: layoutOf[aff]{
			size: func(n int) int { return 16 * n },
			put:  func(m []byte, i int, v aff) { putF64(m, 16*i, v.A); putI32(m, 16*i+8, v.B); putI16(m, 16*i+12, v.Tag) },
			buf:  func(t *testing.T, m []byte, n int) mpi.Buf { return mpi.Typed(m, n, at) },
		},
		recv: layoutOf[aff]{
			size: func(n int) int { return 32 * n },
			put:  func(m []byte, i int, v aff) { putF64(m, 32*i+16, v.A); putI32(m, 32*i+24, v.B); putI16(m, 32*i, v.Tag) },
			buf:  func(t *testing.T, m []byte, n int) mpi.Buf { return mpi.Typed(m, n, wide) },
		},
	}
}

// vecFam: send as one item of a vector of float64 at a stride of 3, receive into
// items of one float64 each at a stride of 2.
func vecFam(t *testing.T) redFam[float64] {
	every2 := committed(mpi.TypeResized(mpi.Float64, 0, 16))(t)
	return redFam[float64]{
		name: "vector", op: mpi.Sum, comb: func(in, inout float64) float64 { return in + inout },
		gen: func(rank, i int) float64 { return float64(100*rank + i) },
		send: layoutOf[float64]{
			size: func(n int) int { return 24 * n },
			put:  func(m []byte, i int, v float64) { putF64(m, 24*i, v) },
			buf: func(t *testing.T, m []byte, n int) mpi.Buf {
				return mpi.Typed(m, 1, committed(mpi.TypeVector(n, 1, 3, mpi.Float64))(t))
			},
		},
		recv: layoutOf[float64]{
			size: func(n int) int { return 16 * n },
			put:  func(m []byte, i int, v float64) { putF64(m, 16*i, v) },
			buf:  func(t *testing.T, m []byte, n int) mpi.Buf { return mpi.Typed(m, n, every2) },
		},
	}
}

// pairFam: Minloc on Float64Int32, sent as the pair type's items, received into
// items spaced twice as far apart.
func pairFam(t *testing.T) redFam[pair] {
	ext, err := mpi.Float64Int32.Extent()
	must(t, err)
	e := int(ext)
	spaced := committed(mpi.TypeResized(mpi.Float64Int32, 0, 2*e))(t)
	lay := func(stride int, dt *mpi.Datatype) layoutOf[pair] {
		return layoutOf[pair]{
			size: func(n int) int { return stride * n },
			put:  func(m []byte, i int, v pair) { putF64(m, stride*i, v.V); putI32(m, stride*i+8, v.I) },
			buf:  func(t *testing.T, m []byte, n int) mpi.Buf { return mpi.Typed(m, n, dt) },
		}
	}
	return redFam[pair]{
		name: "pairs", op: mpi.Minloc, comb: minloc,
		gen:  func(rank, i int) pair { return pair{V: float64((7*rank + 3*i) % 5), I: int32(rank + 10*(i%3))} },
		send: lay(e, mpi.Float64Int32),
		recv: lay(2*e, spaced),
	}
}

// sameBytes fails t unless got and want are equal.
func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Errorf("%s: %d bytes differ from the serial result, first at byte %d", what, len(got), i)
	}
}

// samePacked fails t unless the first n items of recv layout l in got and want pack
// alike (the items an in-place reduce-scatter defines).
func samePacked[E any](t *testing.T, what string, l layoutOf[E], got, want []byte, n int) {
	t.Helper()
	pack := func(m []byte) []byte {
		out := make([]byte, l.size(n)+64)
		pos := 0
		must(t, mpi.Pack(l.buf(t, m, n), out, &pos))
		return out[:pos]
	}
	sameBytes(t, what, pack(got), pack(want))
}

// call runs a blocking form, or the nonblocking one and waits.
func call(nb bool, blocking func() error, start func() (mpi.Request, error)) error {
	if !nb {
		return blocking()
	}
	req, err := start()
	if err != nil {
		return err
	}
	_, err = req.Wait()
	return err
}

// rsCountsOf is the ReduceScatter counts of the tests: rank k gets k+1 items.
func rsCountsOf(n int) (counts []int, total int) {
	counts = make([]int, n)
	for k := range counts {
		counts[k] = k + 1
		total += k + 1
	}
	return counts, total
}

// checkReductions runs every reduction on c (an intracommunicator) with family f,
// blocking or not, and in place, against the serial results.
func checkReductions[E any](t *testing.T, c *mpi.Comm, f redFam[E], nb bool) {
	const m = 3
	r, n := c.Rank(), c.Size()
	tag := f.name
	if nb {
		tag += " (nonblocking)"
	}
	sendOf := func(k int) ([]byte, mpi.Buf) { s := f.send.of(f.input(r, k)); return s, f.send.buf(t, s, k) }
	recvOf := func(k int) ([]byte, mpi.Buf) { g := f.recv.filled(k); return g, f.recv.buf(t, g, k) }
	// in-place input: this rank's k elements in recv's layout.
	inRecv := func(k int) ([]byte, mpi.Buf) { g := f.recv.of(f.input(r, k)); return g, f.recv.buf(t, g, k) }
	all := upTo(n)

	// Allreduce, Scan, Exscan, Reduce: m elements.
	_, sb := sendOf(m)
	got, rb := recvOf(m)
	must(t, call(nb, func() error { return mpi.AllreduceBuf(c, sb, rb, f.op) },
		func() (mpi.Request, error) { return mpi.IallreduceBuf(c, sb, rb, f.op) }))
	sameBytes(t, tag+": AllreduceBuf", got, f.recv.of(f.fold(all, 0, m)))

	got, rb = recvOf(m)
	must(t, call(nb, func() error { return mpi.ReduceBuf(c, sb, rb, f.op, 1) },
		func() (mpi.Request, error) { return mpi.IreduceBuf(c, sb, rb, f.op, 1) }))
	want := f.recv.filled(m) // recv is not used off the root
	if r == 1 {
		want = f.recv.of(f.fold(all, 0, m))
	}
	sameBytes(t, tag+": ReduceBuf", got, want)

	got, rb = recvOf(m)
	must(t, call(nb, func() error { return mpi.ScanBuf(c, sb, rb, f.op) },
		func() (mpi.Request, error) { return mpi.IscanBuf(c, sb, rb, f.op) }))
	sameBytes(t, tag+": ScanBuf", got, f.recv.of(f.fold(all[:r+1], 0, m)))

	got, rb = recvOf(m)
	must(t, call(nb, func() error { return mpi.ExscanBuf(c, sb, rb, f.op) },
		func() (mpi.Request, error) { return mpi.IexscanBuf(c, sb, rb, f.op) }))
	want = f.recv.filled(m) // rank 0's recv is left as it was
	if r > 0 {
		want = f.recv.of(f.fold(all[:r], 0, m))
	}
	sameBytes(t, tag+": ExscanBuf", got, want)

	// ReduceScatterBlock: n blocks of m; ReduceScatter: rank k gets k+1 items.
	_, sb = sendOf(n * m)
	got, rb = recvOf(m)
	must(t, call(nb, func() error { return mpi.ReduceScatterBlockBuf(c, sb, rb, f.op) },
		func() (mpi.Request, error) { return mpi.IreduceScatterBlockBuf(c, sb, rb, f.op) }))
	sameBytes(t, tag+": ReduceScatterBlockBuf", got, f.recv.of(f.fold(all, r*m, m)))

	counts, total := rsCountsOf(n)
	lo := r * (r + 1) / 2
	_, sb = sendOf(total)
	got, rb = recvOf(counts[r])
	must(t, call(nb, func() error { return mpi.ReduceScatterBuf(c, sb, rb, counts, f.op) },
		func() (mpi.Request, error) { return mpi.IreduceScatterBuf(c, sb, rb, counts, f.op) }))
	sameBytes(t, tag+": ReduceScatterBuf", got, f.recv.of(f.fold(all, lo, counts[r])))

	// In place: the input is in recv.
	ip := mpi.InPlaceBuf
	got, rb = inRecv(m)
	must(t, call(nb, func() error { return mpi.AllreduceBuf(c, ip, rb, f.op) },
		func() (mpi.Request, error) { return mpi.IallreduceBuf(c, ip, rb, f.op) }))
	sameBytes(t, tag+": AllreduceBuf in place", got, f.recv.of(f.fold(all, 0, m)))

	_, sb = sendOf(m)
	got, rb = inRecv(m)
	send := sb
	if r == 2 {
		send = ip
	}
	must(t, call(nb, func() error { return mpi.ReduceBuf(c, send, rb, f.op, 2) },
		func() (mpi.Request, error) { return mpi.IreduceBuf(c, send, rb, f.op, 2) }))
	want = f.recv.of(f.input(r, m))
	if r == 2 {
		want = f.recv.of(f.fold(all, 0, m))
	}
	sameBytes(t, tag+": ReduceBuf in place at the root", got, want)

	got, rb = inRecv(m)
	must(t, call(nb, func() error { return mpi.ScanBuf(c, ip, rb, f.op) },
		func() (mpi.Request, error) { return mpi.IscanBuf(c, ip, rb, f.op) }))
	sameBytes(t, tag+": ScanBuf in place", got, f.recv.of(f.fold(all[:r+1], 0, m)))

	got, rb = inRecv(m)
	must(t, call(nb, func() error { return mpi.ExscanBuf(c, ip, rb, f.op) },
		func() (mpi.Request, error) { return mpi.IexscanBuf(c, ip, rb, f.op) }))
	want = f.recv.of(f.input(r, m))
	if r > 0 {
		want = f.recv.of(f.fold(all[:r], 0, m))
	}
	sameBytes(t, tag+": ExscanBuf in place", got, want)

	got, rb = inRecv(n * m)
	must(t, call(nb, func() error { return mpi.ReduceScatterBlockBuf(c, ip, rb, f.op) },
		func() (mpi.Request, error) { return mpi.IreduceScatterBlockBuf(c, ip, rb, f.op) }))
	samePacked(t, tag+": ReduceScatterBlockBuf in place", f.recv, got, f.recv.of(f.fold(all, r*m, m)), m)

	got, rb = inRecv(total)
	must(t, call(nb, func() error { return mpi.ReduceScatterBuf(c, ip, rb, counts, f.op) },
		func() (mpi.Request, error) { return mpi.IreduceScatterBuf(c, ip, rb, counts, f.op) }))
	samePacked(t, tag+": ReduceScatterBuf in place", f.recv, got, f.recv.of(f.fold(all, lo, counts[r])), counts[r])
}

// checkReduceLocal checks ReduceLocalBuf: inout = in ⊕ inout, with in this rank's
// input and inout the next rank's.
func checkReduceLocal[E any](t *testing.T, f redFam[E], r int) {
	const m = 5
	in := f.send.of(f.input(r, m))
	inout := f.recv.of(f.input(r+1, m))
	must(t, mpi.ReduceLocalBuf(f.send.buf(t, in, m), f.recv.buf(t, inout, m), f.op))
	want := make([]E, m)
	for i := range want {
		want[i] = f.comb(f.gen(r, i), f.gen(r+1, i))
	}
	sameBytes(t, f.name+": ReduceLocalBuf", inout, f.recv.of(want))
}

func TestReductionsBuf(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		for _, nb := range []bool{false, true} {
			checkReductions(t, mpi.World, affFam(t), nb)
			checkReductions(t, mpi.World, vecFam(t), nb)
			checkReductions(t, mpi.World, pairFam(t), nb)
		}
		checkReduceLocal(t, affFam(t), rank)
		checkReduceLocal(t, vecFam(t), rank)
		checkReduceLocal(t, pairFam(t), rank)
	})
}

// TestIallreduceBufTest completes a nonblocking typed reduction by polling Test: the
// result is in recv's layout once Test reports completion.
func TestIallreduceBufTest(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		f := vecFam(t)
		s := f.send.of(f.input(rank, 4))
		got := f.recv.filled(4)
		req, err := mpi.IallreduceBuf(mpi.World, f.send.buf(t, s, 4), f.recv.buf(t, got, 4), mpi.Sum)
		must(t, err)
		for {
			_, ok, err := req.Test()
			must(t, err)
			if ok {
				break
			}
		}
		sameBytes(t, "IallreduceBuf by Test", got, f.recv.of(f.fold(upTo(size), 0, 4)))
	})
}

// checkInterRS runs ReduceScatterBlockBuf and ReduceScatterBuf (and their I forms) on
// an intercommunicator: this group gets the other group's 12 elements combined in
// rank order. Each process's input is that of rank 10*side+r of the family.
func checkInterRS[E any](t *testing.T, ic *mpi.Comm, side int, f redFam[E]) {
	const total = 12
	r, n, m := ic.Rank(), ic.Size(), ic.RemoteSize()
	other := make([]int, m)
	for j := range other {
		other[j] = 10*(1-side) + j
	}
	s := f.send.of(f.input(10*side+r, total))
	sb := f.send.buf(t, s, total)
	for _, nb := range []bool{false, true} {
		b := total / n
		got := f.recv.filled(b)
		rb := f.recv.buf(t, got, b)
		must(t, call(nb, func() error { return mpi.ReduceScatterBlockBuf(ic, sb, rb, f.op) },
			func() (mpi.Request, error) { return mpi.IreduceScatterBlockBuf(ic, sb, rb, f.op) }))
		sameBytes(t, f.name+": inter ReduceScatterBlockBuf", got, f.recv.of(f.fold(other, r*b, b)))

		counts := make([]int, n)
		lo := 0
		for k := range counts {
			counts[k] = total / n
			if k == n-1 {
				counts[k] = total - (n-1)*(total/n) - 1
			}
			if k == 0 {
				counts[k]++
			}
			if k < r {
				lo += counts[k]
			}
		}
		got = f.recv.filled(counts[r])
		rb = f.recv.buf(t, got, counts[r])
		must(t, call(nb, func() error { return mpi.ReduceScatterBuf(ic, sb, rb, counts, f.op) },
			func() (mpi.Request, error) { return mpi.IreduceScatterBuf(ic, sb, rb, counts, f.op) }))
		sameBytes(t, f.name+": inter ReduceScatterBuf", got, f.recv.of(f.fold(other, lo, counts[r])))
	}
	err := mpi.ReduceScatterBlockBuf(ic, mpi.InPlaceBuf, f.recv.buf(t, f.recv.filled(total), total), f.op)
	if !errors.Is(err, mpi.ErrBuffer) {
		t.Errorf("%s: inter ReduceScatterBlockBuf in place: %v, want ErrBuffer", f.name, err)
	}
}

func TestReduceScatterBufInter(t *testing.T) {
	interJob(t, func(t *testing.T, ic *mpi.Comm, side int) {
		checkInterRS(t, ic, side, affFam(t))
		checkInterRS(t, ic, side, vecFam(t))
		checkInterRS(t, ic, side, pairFam(t))
		checkInterReduce(t, ic, side, affFam(t))
		checkInterReduce(t, ic, side, pairFam(t))
	})
}

// checkInterReduce runs IreduceBuf into B's rank 1 (the other processes of B pass
// ProcNull) and IallreduceBuf on an intercommunicator, and checks that ScanBuf and
// ExscanBuf are refused there, as Scan and Exscan are.
func checkInterReduce[E any](t *testing.T, ic *mpi.Comm, side int, f redFam[E]) {
	const m = 4
	r, n := ic.Rank(), ic.RemoteSize()
	other := make([]int, n)
	for j := range other {
		other[j] = 10*(1-side) + j
	}
	s := f.send.of(f.input(10*side+r, m))
	sb := f.send.buf(t, s, m)
	got := f.recv.filled(m)
	rb := f.recv.buf(t, got, m)
	req, err := mpi.IallreduceBuf(ic, sb, rb, f.op)
	must(t, err)
	_, err = req.Wait()
	must(t, err)
	sameBytes(t, f.name+": inter IallreduceBuf", got, f.recv.of(f.fold(other, 0, m)))

	root, want := 1, f.recv.filled(m)
	switch {
	case side == 1 && r == 1:
		root, want = mpi.Root, f.recv.of(f.fold(other, 0, m))
	case side == 1:
		root = mpi.ProcNull
	}
	got = f.recv.filled(m)
	req, err = mpi.IreduceBuf(ic, sb, f.recv.buf(t, got, m), f.op, root)
	must(t, err)
	_, err = req.Wait()
	must(t, err)
	sameBytes(t, f.name+": inter IreduceBuf", got, want)

	if err := mpi.ScanBuf(ic, sb, rb, f.op); !errors.Is(err, mpi.ErrComm) {
		t.Errorf("%s: ScanBuf on an intercommunicator: %v, want ErrComm", f.name, err)
	}
	if _, err := mpi.IexscanBuf(ic, sb, rb, f.op); !errors.Is(err, mpi.ErrComm) {
		t.Errorf("%s: IexscanBuf on an intercommunicator: %v, want ErrComm", f.name, err)
	}
}

// TestReductionsBufRefusals: the errors MPI names, alike on every rank, and the ranks
// still in step afterwards.
func TestReductionsBufRefusals(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		expect := func(what string, err, class error, words string) {
			t.Helper()
			if !errors.Is(err, class) || !strings.Contains(err.Error(), words) {
				t.Errorf("%s: %v, want %v naming %q", what, err, class, words)
			}
		}
		f := make([]float64, 8)
		f8 := mpi.Typed(f, 8, mpi.Float64)
		f4 := mpi.Typed(f, 4, mpi.Float64)
		type mixed struct {
			I int32
			F float64
		}
		mt := committed(mpi.TypeOf[mixed]())(t)
		mb := mpi.Typed(make([]mixed, 2), 2, mt)
		expect("mixed kinds, ScanBuf", mpi.ScanBuf(w, mb, mb, mpi.Sum), mpi.ErrType, "mixes element types")
		expect("mixed kinds, ReduceScatterBlockBuf", mpi.ReduceScatterBlockBuf(w, mb, mb, mpi.Max), mpi.ErrType, "mixes element types")
		expect("mixed kinds, ReduceLocalBuf", mpi.ReduceLocalBuf(mb, mb, mpi.Sum), mpi.ErrType, "mixes element types")
		_, err := mpi.IexscanBuf(w, mb, mb, mpi.Sum)
		expect("mixed kinds, IexscanBuf", err, mpi.ErrType, "mixes element types")
		expect("float64 into int64", mpi.ScanBuf(w, f4, mpi.Typed(make([]int64, 4), 4, mpi.Int64), mpi.Sum), mpi.ErrType, "same predefined type")

		col, err := mpi.TypeVector(2, 1, 2, mpi.Float64) // not committed
		must(t, err)
		expect("uncommitted, ExscanBuf", mpi.ExscanBuf(w, mpi.Typed(f, 1, col), f4, mpi.Sum), mpi.ErrType, "not committed")
		_, err = mpi.IreduceScatterBuf(w, f8, mpi.Typed(f, 1, col), []int{1, 1}, mpi.Sum)
		expect("uncommitted, IreduceScatterBuf", err, mpi.ErrType, "not committed")

		expect("ScanBuf 8 into 4", mpi.ScanBuf(w, f8, f4, mpi.Sum), mpi.ErrCount, "len(send) 8 != len(recv) 4")
		expect("ReduceLocalBuf 8 into 4", mpi.ReduceLocalBuf(f8, f4, mpi.Sum), mpi.ErrCount, "as many")
		expect("ReduceScatterBlockBuf 8 into 3", mpi.ReduceScatterBlockBuf(w, f8, mpi.Typed(f, 3, mpi.Float64), mpi.Sum), mpi.ErrCount, "size")
		expect("ReduceScatterBuf counts", mpi.ReduceScatterBuf(w, f8, f4, []int{4, 4, 0}, mpi.Sum), mpi.ErrCount, "len(counts)")
		expect("ReduceScatterBuf recv", mpi.ReduceScatterBuf(w, f8, f4, []int{2, 6}, mpi.Sum), mpi.ErrCount, "counts[")
		expect("ReduceScatterBuf negative", mpi.ReduceScatterBuf(w, f8, f4, []int{-1, 9}, mpi.Sum), mpi.ErrCount, "negative")
		_, err = mpi.IallreduceBuf(w, f8, mpi.Typed(f, 7, mpi.Float64), mpi.Sum)
		expect("IallreduceBuf 8 into 7", err, mpi.ErrCount, "len(send) 8 != len(recv) 7")

		expect("Band on float64", mpi.ScanBuf(w, f4, f4, mpi.Band), mpi.ErrOp, "Band")
		expect("Sum on pairs", mpi.ReduceLocalBuf(mpi.Typed(f, 2, mpi.Float64Int32), mpi.Typed(f[4:], 2, mpi.Float64Int32), mpi.Sum), mpi.ErrOp, "MPI_MAXLOC")
		expect("affine op on 24 bytes", mpi.ScanBuf(w, mpi.Typed(f, 3, mpi.Float64), mpi.Typed(f[3:], 3, mpi.Float64), affOp), mpi.ErrType, "whole number")

		expect("ReduceLocalBuf in place", mpi.ReduceLocalBuf(mpi.InPlaceBuf, f4, mpi.Sum), mpi.ErrBuffer, "InPlaceBuf")
		expect("InPlaceBuf as recv", mpi.ScanBuf(w, f4, mpi.InPlaceBuf, mpi.Sum), mpi.ErrBuffer, "InPlaceBuf")
		expect("ReduceBuf root out of range", mpi.ReduceBuf(w, f4, f4, mpi.Sum, size), mpi.ErrRoot, "")
		_, err = mpi.IreduceBuf(w, f4, f4, mpi.Sum, -3)
		expect("IreduceBuf root out of range", err, mpi.ErrRoot, "")
		dt := committed(mpi.TypeContiguous(2, mpi.Float64))(t)
		must(t, dt.Free())
		expect("freed datatype", mpi.ReduceLocalBuf(f4, mpi.Typed(f, 2, dt), mpi.Sum), mpi.ErrType, "freed")
		expect("send past its slice", mpi.AllreduceBuf(w, mpi.Typed(f[:3], 4, mpi.Float64), f4, mpi.Sum), mpi.ErrBuffer, "span bytes")
		expect("strided recv past its slice", mpi.ScanBuf(w, f4, mpi.Typed(f[1:], 2, committed(mpi.TypeVector(2, 1, 4, mpi.Float64))(t)), mpi.Sum), mpi.ErrBuffer, "span bytes")
		var nilComm *mpi.Comm
		expect("nil communicator", mpi.ScanBuf(nilComm, f4, f4, mpi.Sum), mpi.ErrComm, "")
		_, err = mpi.IreduceScatterBlockBuf(nilComm, f4, f4, mpi.Sum)
		expect("nil communicator, I form", err, mpi.ErrComm, "")

		// Still in step.
		for i := range f {
			f[i] = float64(rank + i)
		}
		out := make([]float64, 4)
		must(t, mpi.ScanBuf(w, mpi.Typed(f, 2, committed(mpi.TypeVector(2, 1, 2, mpi.Float64))(t)), mpi.Typed(out, 4, mpi.Float64), mpi.Sum))
		if rank == 1 && (out[0] != 1 || out[1] != 5 || out[2] != 7 || out[3] != 11) { // f[0], f[2], f[3], f[5] of ranks 0 and 1
			t.Errorf("ScanBuf after the refusals: %v", out)
		}
	})
}
