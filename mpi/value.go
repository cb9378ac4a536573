package mpi

import (
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/vcodec"
)

// The encoding path: values of any Go type as messages, beside the buffer path of
// typed slices and datatypes. A value call encodes its value (internal/vcodec: plans
// compiled once per type; memory without pointers as its bytes), and the message
// carries its own length and type, so a receiver names no buffer and no size: the
// engine allocates the message's bytes when it matches (p2p's IrecvAlloc), and the
// decoded value shares them (strings and pointer-free slices are not copied out).
//
// Large pointer-free slices in a value (at least valueOOBMin bytes: []float64,
// []byte, slices of plain structs) are not encoded: point-to-point sends them as
// messages of their own straight from the value's memory, on the communicator's
// internal context with tags that the value's message names, and the receiver
// receives them straight into the slices it allocates while decoding; BcastValue
// broadcasts them the same way. So a large value is copied by the transport alone,
// at any size.
//
// Values of the wrong type are refused on receipt, naming both types (class
// ErrType); types that cannot be sent (channels, functions, interfaces) are refused
// by the sender, naming the field. Both ends must be the same program on machines of
// one architecture, as MPI's homogeneous case.
//
// The record (internal/prof) counts each value call once, as itself, with the
// encoded bytes it moved (out-of-band slices included): the sends, receives and
// waits it is made of are unrecorded, at every thread level (the recorder cannot tell
// a call made inside another from one on another goroutine at ThreadMultiple, and
// would count both). IrecvValue's bytes are not known when it is called: it counts
// none, as a receive's Wait does.

// valueOOBMin is the size from which a pointer-free slice travels out of band: above
// it a rendezvous of its own costs less than copying it into the message and out.
const valueOOBMin = 32 << 10

// oobSeq numbers the out-of-band slices this process sends (their tags).
var oobSeq atomic.Uint32

var encPool = sync.Pool{New: func() any { return new(vcodec.Enc) }}

// codecOf is T's codec, or an error of class ErrType naming the field that cannot be
// sent.
func codecOf[T any](op string) (*vcodec.Codec, error) {
	cd, err := vcodec.For(reflect.TypeFor[T]())
	if err != nil {
		return nil, &Error{Class: ClassType, Op: op, Err: err}
	}
	return cd, nil
}

// encode encodes v into a pooled encoder (oob: with out-of-band slices), numbering
// the out-of-band slices.
func encode[T any](op string, v *T, oob bool) (*vcodec.Codec, *vcodec.Enc, error) {
	cd, err := codecOf[T](op)
	if err != nil {
		return nil, nil, err
	}
	e := encPool.Get().(*vcodec.Enc)
	e.OOBMin = 0
	if oob {
		e.OOBMin = valueOOBMin
	}
	if err := cd.Encode(e, unsafe.Pointer(v)); err != nil {
		putEnc(e)
		return nil, nil, &Error{Class: ClassType, Op: op, Err: err}
	}
	if n := uint32(len(e.OOB)); n > 0 {
		vcodec.SetSeq(e.Buf, oobSeq.Add(n)-n)
	}
	return cd, e, nil
}

// putEnc gives an encoder back, unless its buffer grew very large (it would stay).
func putEnc(e *vcodec.Enc) {
	clear(e.OOB)
	if cap(e.Buf) > 1<<20 {
		e.Buf = nil
	}
	encPool.Put(e)
}

func oobTag(seq uint32, i int) int { return core.TagValueOOB + int((seq+uint32(i))&core.TagValueMask) }

// decode decodes msg into a new T.
func decode[T any](op string, cd *vcodec.Codec, msg []byte, d *vcodec.Dec) (T, error) {
	var v T
	return v, decodeInto(op, cd, msg, d, &v)
}

// decodeInto decodes msg into *v.
func decodeInto[T any](op string, cd *vcodec.Codec, msg []byte, d *vcodec.Dec, v *T) error {
	if err := cd.Decode(d, msg, unsafe.Pointer(v)); err != nil {
		return valueErr(op, err)
	}
	return nil
}

// valueErr gives a decoding error its class: ErrType for a value of another type.
func valueErr(op string, err error) error {
	var me *vcodec.MismatchError
	if errors.As(err, &me) {
		return &Error{Class: ClassType, Op: op, Err: err}
	}
	return &Error{Class: ClassOther, Op: op, Err: err}
}

// SendValue sends v, a value of any type (see the encoding path above), to rank dest
// of c with tag. RecvValue, IrecvValue or SendrecvValue receives it. It returns when
// v may change: at once for a small value; once the receiver has taken them for the
// large slices of a large one.
func SendValue[T any](c *Comm, v T, dest, tag int) error {
	if cd := plainOf[T](); cd != nil && cd.PlainLen() <= smallValue {
		// A small plain value: its bytes stored in the scratch message (8 is T's
		// alignment or more), with no pointer to v leaving this frame.
		bp := takeScratch(sendPool, sendOwn)
		*(*T)(unsafe.Pointer(&bp[8])) = v
		return sendPlain(cd, c, bp, dest, tag)
	}
	t := c.enterShort(prof.SendValue, dest, tag, 0)
	n, err := sendValueEnc("SendValue", c, v, dest, tag)
	prof.Exit(prof.SendValue, t, n)
	return err
}

// plainOf is T's codec when T is plain (no pointers: a value is its bytes), else nil.
// It is the fast paths' test: vcodec.For's cache, no allocation, no map.
func plainOf[T any]() *vcodec.Codec {
	// The key is *T's type descriptor, the type word of a nil *T in an interface: a
	// constant of T's dictionary, where reflect.TypeFor[T] converts a T.
	var p any = (*T)(nil)
	k := (*[2]uintptr)(unsafe.Pointer(&p))[0]
	cd := vcodec.CachedPtr(k)
	if cd == nil {
		cd = plainSlow(k, reflect.TypeFor[T]())
	}
	if cd != nil && cd.Plain() {
		return cd
	}
	return nil
}

// plainSlow is plainOf when the type is not in vcodec's cache: nil for a type that
// cannot be sent, whose error the general path reports.
func plainSlow(k uintptr, t reflect.Type) *vcodec.Codec {
	cd, _ := vcodec.ForPtrKey(k, t)
	return cd
}

// Each side has a scratch buffer for small plain messages. Below ThreadMultiple the
// program promises that calls never overlap, so one buffer per side serves every
// call as it is, with no instruction to take it; at ThreadMultiple a call takes one
// from a sync.Pool (a per-P slot: no locked instruction, where an atomic swap and
// store of one shared buffer took two, and measured slower).
var (
	// sendOwnFor is the codec whose word and trailer sendOwn holds: a value of the
	// same type overwrites only the bytes between them.
	sendOwnFor         *vcodec.Codec
	sendOwn, recvOwn   = new([smallValue]byte), new([smallValue]byte)
	sendPool, recvPool = newScratchPool(), newScratchPool()
)

func newScratchPool() *sync.Pool {
	return &sync.Pool{New: func() any { return new([smallValue]byte) }}
}

func takeScratch(pool *sync.Pool, own *[smallValue]byte) *[smallValue]byte {
	if core.ThreadLevel() < core.ThreadMultiple {
		return own
	}
	return pool.Get().(*[smallValue]byte)
}

func putScratch(pool *sync.Pool, own, b *[smallValue]byte) {
	if b != own {
		pool.Put(b)
	}
}

// The sends of SendValue: the plain message, recorded as SendValue; the encoded one,
// unrecorded inside the SendValue that records itself.
var (
	procSendValue    = &mpir.Proc{Call: prof.SendValue, Op: "SendValue", Mode: core.ModeStandard}
	procSendValueEnc = &mpir.Proc{Call: prof.None, Op: "SendValue", Mode: core.ModeStandard}
)

// sendPlain sends the plain message in bp, whose value's bytes are in place, adding
// its word and trailer; recorded as SendValue. It gives bp back as the send scratch.
func sendPlain(cd *vcodec.Codec, c *Comm, bp *[smallValue]byte, dest, tag int) error {
	msg := bp[:cd.PlainLen()]
	if bp != sendOwn || sendOwnFor != cd {
		cd.PutPlain(msg)
		if bp == sendOwn {
			sendOwnFor = cd
		}
	}
	err := send(procSendValue, c, core.Bytes(msg), dest, tag)
	putScratch(sendPool, sendOwn, bp)
	return err
}

// sendValueEnc is SendValue through the encoder (v, its own copy, goes to the heap:
// the plain path above must not pay for that), unrecorded; n is the bytes encoded.
func sendValueEnc[T any](op string, c *Comm, v T, dest, tag int) (n int, err error) {
	_, e, err := encode(op, &v, true)
	if err != nil {
		return 0, c.fail(op, err)
	}
	defer putEnc(e)
	n = encBytes(e)
	if len(e.OOB) == 0 {
		return n, send(procSendValueEnc, c, core.Bytes(e.Buf), dest, tag)
	}
	qs, err := isendParts(op, c, e, dest, tag)
	if err != nil {
		return n, c.fail(op, err)
	}
	return n, c.fail(op, c.endSends(op, qs))
}

// encBytes is the bytes of an encoded value: its message and out-of-band slices.
func encBytes(e *vcodec.Enc) int {
	n := len(e.Buf)
	for _, b := range e.OOB {
		n += len(b)
	}
	return n
}

// isendParts starts the sends of an encoded value and of its out-of-band slices.
func isendParts(op string, c *Comm, e *vcodec.Enc, dest, tag int) ([]core.Request, error) {
	q, err := c.dev().Isend(op, core.Bytes(e.Buf), dest, tag, core.ModeStandard, false)
	if err != nil || dest == ProcNull {
		return []core.Request{q}, err
	}
	qs := make([]core.Request, 1, 1+len(e.OOB))
	qs[0] = q
	seq, _, _ := vcodec.OOB(e.Buf)
	for i, b := range e.OOB {
		q, err := c.d.IsendInternal(b, dest, oobTag(seq, i))
		if err != nil {
			c.endSends(op, qs)
			return nil, mapErr(op, err)
		}
		qs = append(qs, q)
	}
	return qs, nil
}

// endSends waits for the sends of one value under c's context: the message, then
// its out-of-band slices. Once the message has left, its slices must follow (its
// receiver will wait for them), so they are never cancelled, only left to complete
// when the receiver takes them; if the message was cancelled, so are they.
func (c *Comm) endSends(op string, qs []core.Request) error {
	cancelled, first := mpir.EndSend(op, c.view(), &qs[0], true)
	for i := 1; i < len(qs); i++ {
		switch {
		case cancelled:
			core.Cancel(&qs[i])
			core.FreeRequest(&qs[i])
		case first != nil:
			core.FreeRequest(&qs[i])
		default:
			_, first = mpir.EndSend(op, c.view(), &qs[i], false)
		}
	}
	return first
}

// RecvValue receives a value of type T, sent by SendValue (or its kin) from rank src
// of c (or AnySource) with tag (or AnyTag). A message holding another type is an
// error of class ErrType naming both types (the message is consumed). From ProcNull
// it returns T's zero value at once.
func RecvValue[T any](c *Comm, src, tag int) (T, Status, error) {
	var v T
	if cd := plainOf[T](); cd != nil && c != nil && c.ctx == nil {
		var st Status
		bp := takeScratch(recvPool, recvOwn)
		msg, err := recvPlain(&st, "RecvValue", cd, c, bp, src, tag)
		if msg != nil {
			v = *(*T)(unsafe.Pointer(unsafe.SliceData(msg[8:]))) // 8-aligned: in bp or new memory
		}
		putScratch(recvPool, recvOwn, bp)
		return v, st, err
	}
	t := c.enterShort(prof.RecvValue, src, tag, 0)
	var st Status
	var err error
	if c != nil && c.ctx == nil {
		v, st, err = recvValueAlloc[T]("RecvValue", c, src, tag)
	} else {
		var r *ValueRequest[T]
		if r, err = irecvValue[T]("RecvValue", c, src, tag); err == nil {
			v, st, err = r.wait()
		}
	}
	prof.Exit(prof.RecvValue, t, int(st.bytes))
	return v, st, err
}

// smallValue: a plain message up to this long is built and received in a scratch
// buffer rather than new memory (decoding a plain value copies it out).
const smallValue = 256

// recvPlain is the blocking RecvValue of a plain type on a communicator without a
// context: one receive of the message into bp (new memory if it is longer), its word
// and length checked; recorded as RecvValue and answered field by field into *st, as
// Recv is. It returns the message, whose value's bytes are msg[8:], or nil. A
// message of another type is consumed (and the out-of-band slices it names drained)
// and reported.
func recvPlain(st *Status, op string, cd *vcodec.Codec, c *Comm, bp *[smallValue]byte, src, tag int) ([]byte, error) {
	d := c.dev()
	var pt int64
	if !prof.Try(prof.RecvValue, d.Prof(), src, tag, 0) {
		pt = prof.Enter(prof.RecvValue, d.Prof(), src, tag, 0)
	}
	var (
		msg  []byte
		from int
		err  error
	)
	if d.DirectRecv(src, tag) {
		msg, from, st.Tag, err = d.RecvAllocDirect(bp[:], src, tag)
		st.Source = from
	} else {
		var ps core.Status
		msg, ps, err = d.RecvAlloc(op, bp[:], src, tag)
		from = ps.Source
		*st = c.status(ps)
	}
	st.bytes = int64(len(msg))
	if !prof.TryExit(prof.RecvValue, pt, len(msg)) {
		prof.Exit(prof.RecvValue, pt, len(msg))
	}
	if err == nil && from != ProcNull && !cd.PlainMsg(msg) {
		// Not this type's message under this name: another name for its structure, or
		// another type (consumed: the out-of-band slices it names are drained).
		if _, perr := cd.PlainBytes(msg); perr != nil {
			err = valueErr(op, perr)
			if seq, n, _ := vcodec.OOB(msg); n > 0 {
				c.drainOOB(seq, int(n), from)
			}
		}
	}
	if err != nil {
		err = mapErr(op, err)
		st.Err = err
		return nil, c.fail(op, err)
	}
	if from == ProcNull {
		return nil, nil
	}
	return msg, nil
}

// drainOOB receives and discards the n out-of-band slices (from seq) that a message
// from world rank src named, so that their sender is not left waiting: each is
// received truncated, which ends it.
func (c *Comm) drainOOB(seq uint32, n int, src int) {
	for i := range n {
		if q, err := c.d.IrecvInternal(nil, c.d.CommRank(src), oobTag(seq, i)); err == nil {
			core.FreeRequest(&q)
		}
	}
}

// recvValueAlloc is the blocking RecvValue of a type that is not plain on a
// communicator without a context: the message into new memory, then its out-of-band
// slices.
func recvValueAlloc[T any](op string, c *Comm, src, tag int) (T, Status, error) {
	cd, err := codecOf[T](op)
	if err != nil {
		var z T
		return z, Status{}, c.fail(op, err)
	}
	r := &ValueRequest[T]{op: op, c: c, recv: true, cd: cd, qs: make([]core.Request, 1)}
	if r.msg, r.st, err = c.dev().RecvAlloc(op, nil, src, tag); err != nil || r.st.Source == ProcNull {
		return r.v, r.status(), c.fail(op, err)
	}
	r.stage()
	r.finish(true)
	return r.v, r.status(), r.err
}

// RecvValueInto is RecvValue that decodes into *v: every part of *v is overwritten,
// and v's large pointer-free slices (those that travel out of band) are received into
// their own memory where their capacity suffices, so a loop that receives into the
// same value allocates no large slices (their previous contents, and every slice that
// shares them, are overwritten). A message of another type leaves *v as it was.
func RecvValueInto[T any](c *Comm, v *T, src, tag int) (Status, error) {
	t := c.enterShort(prof.RecvValue, src, tag, 0)
	st, err := recvValueInto(c, v, src, tag)
	prof.Exit(prof.RecvValue, t, int(st.bytes))
	return st, err
}

// recvValueInto is RecvValueInto unrecorded.
func recvValueInto[T any](c *Comm, v *T, src, tag int) (Status, error) {
	const op = "RecvValueInto"
	if v == nil {
		return Status{}, c.fail(op, errorf(ClassArg, op, "nil value pointer"))
	}
	r, err := irecvValue[T](op, c, src, tag)
	if err != nil {
		return Status{}, err
	}
	r.into = v
	_, st, err := r.wait()
	return st, err
}

// ValueRequest is a nonblocking value operation (IsendValue, IrecvValue): Wait or
// Test completes it and gives the value received (T's zero value for a send).
type ValueRequest[T any] struct {
	op   string
	c    *Comm
	recv bool
	qs   []core.Request // the message, then its out-of-band slices (once posted)
	enc  *vcodec.Enc    // a send's encoding, until it completes

	cd     *vcodec.Codec
	msg    []byte // a receive's message, allocated by the engine
	st     core.Status
	v      T
	into   *T    // RecvValueInto's value, decoded into instead of v
	err    error // decoding's
	staged bool  // the message is in and decoded; out-of-band receives posted
	done   bool
	bytes  int64
}

// IsendValue starts sending v, as SendValue. v is encoded at once (later changes to
// it are not sent) except its large pointer-free slices, which must not change until
// the request completes.
func IsendValue[T any](c *Comm, v T, dest, tag int) (*ValueRequest[T], error) {
	t := c.enterP2P(prof.IsendValue, dest, tag, 0)
	r, err := isendValue("IsendValue", c, v, dest, tag)
	n := 0
	if r != nil {
		n = encBytes(r.enc)
	}
	prof.Exit(prof.IsendValue, t, n)
	return r, err
}

// isendValue is IsendValue unrecorded, its errors op's (SendrecvValue's send).
func isendValue[T any](op string, c *Comm, v T, dest, tag int) (*ValueRequest[T], error) {
	_, e, err := encode(op, &v, true)
	if err != nil {
		return nil, c.fail(op, err)
	}
	qs, err := isendParts(op, c, e, dest, tag)
	if err != nil {
		putEnc(e)
		return nil, c.fail(op, err)
	}
	return &ValueRequest[T]{op: op, c: c, qs: qs, enc: e}, nil
}

// IrecvValue starts receiving a value, as RecvValue.
func IrecvValue[T any](c *Comm, src, tag int) (*ValueRequest[T], error) {
	defer prof.Exit(prof.IrecvValue, c.enterP2P(prof.IrecvValue, src, tag, 0), 0)
	return irecvValue[T]("IrecvValue", c, src, tag)
}

func irecvValue[T any](op string, c *Comm, src, tag int) (*ValueRequest[T], error) {
	cd, err := codecOf[T](op)
	if err != nil {
		return nil, c.fail(op, err)
	}
	r := &ValueRequest[T]{op: op, c: c, recv: true, cd: cd, qs: make([]core.Request, 1)}
	r.qs[0], err = c.dev().IrecvAlloc(op, &r.msg, src, tag)
	if err != nil {
		return nil, c.fail(op, err)
	}
	return r, nil
}

// Wait waits for r to complete and returns the value received (T's zero value for a
// send) and its status; through a view made by WithContext, it gives up when the
// context ends (see WithContext: a receive is cancelled then). It is recorded as a
// Wait.
func (r *ValueRequest[T]) Wait() (T, Status, error) {
	if r == nil {
		var z T
		return z, emptyStatus, errorf(ClassRequest, "Wait", "nil value request")
	}
	t := r.enterWait(prof.Wait)
	v, st, err := r.wait()
	prof.Exit(prof.Wait, t, 0)
	return v, st, err
}

// wait is Wait unrecorded, for the value calls made of a request.
func (r *ValueRequest[T]) wait() (T, Status, error) {
	if !r.done {
		r.finish(true)
	}
	return r.v, r.status(), r.err
}

// enterWait is prof.EnterWait for a completion call on r: its message's peer (a
// world rank) and tag.
func (r *ValueRequest[T]) enterWait(call prof.Call) int64 {
	if r.done {
		return prof.EnterWait(call, r.c.pc(), prof.NoPeer, -2, r.recv)
	}
	peer, tag, recv := r.qs[0].Target()
	return prof.EnterWait(call, r.c.pc(), peer, tag, recv)
}

// Test reports whether r has completed, and its value and status if so. It is
// recorded as a Test.
func (r *ValueRequest[T]) Test() (T, Status, bool, error) {
	if r == nil {
		var z T
		return z, emptyStatus, false, errorf(ClassRequest, "Test", "nil value request")
	}
	t := r.enterWait(prof.Test)
	if !r.done {
		r.finish(false)
	}
	prof.Exit(prof.Test, t, 0)
	if !r.done {
		var z T
		return z, Status{}, false, nil
	}
	return r.v, r.status(), true, r.err
}

// Cancel asks that a receive whose message has not arrived be cancelled (Wait then
// reports Cancelled in its status); a send, or a receive too late, completes as usual.
func (r *ValueRequest[T]) Cancel() error {
	if r == nil || r.done || r.staged || !r.recv {
		return nil
	}
	return r.c.fail("Cancel", mapErr("Cancel", core.Cancel(&r.qs[0])))
}

func (r *ValueRequest[T]) status() Status {
	st := r.c.status(r.st)
	st.bytes = r.bytes
	if r.err != nil {
		st.Err = r.err
	}
	return st
}

// finish advances r (wait: until it completes).
func (r *ValueRequest[T]) finish(wait bool) {
	if !r.recv {
		if !wait && !r.testAll() {
			return
		}
		r.err = r.c.fail(r.op, r.c.endSends(r.op, r.qs))
		r.st = core.Status{Source: AnySource, Tag: AnyTag}
		r.bytes = int64(encBytes(r.enc))
		putEnc(r.enc)
		r.enc, r.done = nil, true
		return
	}
	if !r.staged {
		if !wait && !r.peek(0) {
			return
		}
		if err := mpir.EndRecv(r.op, r.c.view(), &r.qs[0], &r.st); err != nil || r.st.Cancelled || r.st.Source == ProcNull {
			r.err, r.done = r.c.fail(r.op, err), true
			return
		}
		r.stage()
	}
	if len(r.qs) > 1 {
		if !wait && !r.testAll() {
			return
		}
		for i := 1; i < len(r.qs); i++ {
			// No context here: the sender is committed to these, which are on their way.
			st, err := core.WaitCtx(nil, &r.qs[i])
			if err != nil && r.err == nil {
				r.err = mapErr(r.op, err)
			}
			r.bytes += st.Count
		}
		r.qs = r.qs[:1]
	}
	if r.err != nil {
		var z T
		r.v = z
		r.err = r.c.fail(r.op, r.err)
	}
	r.done = true
}

// stage decodes the message and posts the receives of its out-of-band slices (into
// the value's memory; or, when the value could not be decoded, to be discarded, so
// the sender is not left waiting).
func (r *ValueRequest[T]) stage() {
	r.staged = true
	r.bytes = int64(len(r.msg))
	d := new(vcodec.Dec)
	target := r.into
	if target == nil {
		target = &r.v
	}
	r.err = decodeInto(r.op, r.cd, r.msg, d, target)
	seq, n, _ := vcodec.OOB(r.msg)
	dst := d.OOB
	if r.err != nil || len(dst) != int(n) {
		dst = make([][]byte, n) // empty: each is received truncated, which ends it
	}
	for i := range dst {
		q, err := r.c.d.IrecvInternal(dst[i], r.c.d.CommRank(r.st.Source), oobTag(seq, i))
		if err != nil {
			if r.err == nil {
				r.err = mapErr(r.op, err)
			}
			continue
		}
		r.qs = append(r.qs, q)
	}
	if r.err == nil && len(dst) != int(n) {
		r.err = errorf(ClassOther, r.op, "the message names %d out-of-band slices, its value %d", n, len(dst))
	}
	if r.err != nil {
		for i := 1; i < len(r.qs); i++ { // discard what arrives; the truncation is expected
			core.FreeRequest(&r.qs[i])
		}
		r.qs = r.qs[:1]
	}
}

// peek reports whether request i has completed, leaving it to be waited on.
func (r *ValueRequest[T]) peek(i int) bool {
	var st core.Status
	ok, _ := core.PeekInto(&r.qs[i], &st)
	return ok
}

func (r *ValueRequest[T]) testAll() bool {
	for i := range r.qs {
		if !r.peek(i) {
			return false
		}
	}
	return true
}

// SendrecvValue sends v to dest and receives a value of type R from src, at once,
// so that ranks exchanging values do not deadlock. It is recorded with the bytes it
// sent, as Sendrecv is.
func SendrecvValue[S, R any](c *Comm, v S, dest, sendtag, src, recvtag int) (R, Status, error) {
	t := c.enterP2P(prof.SendrecvValue, dest, sendtag, 0)
	got, st, n, err := sendrecvValue[S, R](c, v, dest, sendtag, src, recvtag)
	prof.Exit(prof.SendrecvValue, t, n)
	return got, st, err
}

// sendrecvValue is SendrecvValue unrecorded; n is the bytes sent.
func sendrecvValue[S, R any](c *Comm, v S, dest, sendtag, src, recvtag int) (got R, st Status, n int, err error) {
	const op = "SendrecvValue"
	rr, err := irecvValue[R](op, c, src, recvtag)
	if err != nil {
		return got, Status{}, 0, err
	}
	sr, err := isendValue(op, c, v, dest, sendtag)
	if err != nil {
		rr.Cancel()
		rr.wait()
		return got, Status{}, 0, err
	}
	n = encBytes(sr.enc)
	got, st, err = rr.wait()
	if _, _, serr := sr.wait(); serr != nil && err == nil {
		err = serr
	}
	return got, st, n, err
}
