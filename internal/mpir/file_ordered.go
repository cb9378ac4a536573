package mpir

import (
	"encoding/binary"
	"math"
	"runtime"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
)

// An ordered write takes one of two short ways, chosen at open by whether the
// node has a core for each of its members (orderedPlaced):
//
// Placed (placedOrdered), where it has: every member sends its header (its error's
// class, its record's length) to member 0, the shared pointer's holder; member 0,
// once it has every header (every member is in the call, so the independent
// accesses each made before it have moved the pointer), reads the pointer, moves it
// past every record and broadcasts each member's place; every member writes its own
// record there, from its own memory and in its own view, at once with the others;
// an agreement over the node's collectives ends the call. No record is copied and
// none is too long or laid out so that the way does not apply; the members' writes
// and their own work before and after run on their own cores, where the joined way
// has member 1's part wait for member 0's and the reverse.
//
// Joined (joinOrdered), where the node has more members than cores, so that the
// members' writes could not run at once anyway and one synchronisation fewer counts
// more: every member sends its record, behind its header, to member 0, which reads
// the pointer, writes the records back to back in rank order with one pwritev,
// moves the pointer past them and broadcasts the outcome (a member's bad arguments,
// or its own failed write, with the error's class). The file system's lock on the
// file (the inode's, on tmpfs and ext4) is then taken once per call, and the call
// is a message to member 0 and a broadcast.
//
// The general way (ordered) stays for collective buffering forced by romio_cb_write
// "enable", and on the joined side for a view that is not contiguous (the records'
// file runs are then not one span) or a record longer than joinMax (member 0 would
// hold every member's record at once; beyond a few tens of KiB each member's own
// write of its record costs less than copying it to member 0, and the lock is held
// for the copy either way). Which way a call takes, member 0 learns from the
// headers and says in its broadcast, so that every member takes it.

// orderedPlaced reports whether ordered writes on a file of this process take the
// placed way: its node has no more ranks than cores.
func orderedPlaced() bool { return core.LocalSize() <= runtime.NumCPU() }

// The fields of a member's header in a joined ordered write.
const (
	joinClass = iota // its error's class, 0 for none
	joinLen          // its record's bytes, which follow; -1: it cannot join
	joinFields
	joinHdr = 8 * joinFields
)

// The outcome member 0 broadcasts: how the call goes on, and for a failure the
// first member that failed and its class (for the placed way, each member's place
// follows, in view bytes, from word joinOutFields on).
const (
	joinDone    = iota // written: every member moved its record (placed: go on and write)
	joinGeneral        // the short way does not apply: every member takes ordered's way
	joinFailed         // a member's arguments or member 0's write (placed: the pointer) failed
	joinOutFields
)

// joinMax is the longest record of a member that a joined ordered write takes, on
// a file of size members: 64 KiB, less where member 0 would hold more than 4 MiB of
// records, but at least 4 KiB.
func joinMax(size int) int64 {
	return max(4<<10, min(64<<10, (4<<20)/int64(size)))
}

// joinOrdered does this member's part of an ordered write placed as p (local: the
// error of its arguments) as one write by member 0, where it applies. done says
// whether it did: if not, every member goes on by ordered's general way, with
// nothing moved and the pointer where it was.
func (f *File) joinOrdered(op string, _ Access, p plan, local error) (n int64, done bool, err error) {
	var hdr [joinFields]int64
	switch {
	case local != nil:
		hdr[joinClass] = int64(core.ClassOf(local))
	case p.n > joinMax(f.comm.Size()) || !p.v.Contiguous():
		hdr[joinLen] = -1
	default:
		hdr[joinLen] = p.n
	}
	out := f.outBuf(joinOutFields)
	var own error // member 0's failure, which it reports as its own
	if f.comm.Rank() == spOwner {
		own = f.joinWrite(op, p, hdr, local, out)
	} else if err := f.joinSend(hdr, p); err != nil {
		return 0, true, core.MapErr(op, err)
	}
	if done, err := f.joinOutcome(op, out, local, own); !done || err != nil {
		return 0, done, err
	}
	return p.n, true, nil
}

// joinOutcome broadcasts member 0's outcome out and reads it: done is false where
// every member takes the general way; err is the call's failure (local: this
// member's arguments', own: member 0's own).
func (f *File) joinOutcome(op string, out []byte, local, own error) (done bool, err error) {
	if err := collective.Bcast(f.comm, op, &collective.Vec{B: out, Esz: 8}, spOwner); err != nil {
		return true, core.MapErr(op, err)
	}
	switch word(out, 0) {
	case joinGeneral:
		return false, nil
	case joinFailed:
		switch r := word(out, 1); {
		case local != nil:
			return true, local
		case own != nil:
			return true, own
		default:
			return true, core.Errorf(core.ErrorClass(word(out, 2)), op,
				"rank %d of the file's group could not access the file (its error says why), so the call failed on every rank", r)
		}
	}
	return true, nil
}

// outBuf is k words of the file's buffer for member 0's outcome, zeroed.
func (f *File) outBuf(k int) []byte {
	if cap(f.jout) < 8*k {
		f.jout = make([]byte, 8*k)
	}
	b := f.jout[:8*k]
	clear(b)
	return b
}

// placedOrdered does this member's part of an ordered write placed as p (local:
// the error of its arguments) by the placed way (see above). done says whether it
// did: if not, every member goes on by ordered's general way, with nothing moved
// and the pointer where it was.
func (f *File) placedOrdered(op string, a Access, p plan, local error) (n int64, done bool, err error) {
	var hdr [joinFields]int64
	if local != nil {
		hdr[joinClass] = int64(core.ClassOf(local))
	} else {
		hdr[joinLen] = p.n
	}
	out := f.outBuf(joinOutFields + f.comm.Size())
	var own error
	if f.comm.Rank() == spOwner {
		own = f.placeAll(op, p, hdr, local, out)
	} else {
		var msg [joinHdr]byte
		for i, v := range hdr {
			binary.LittleEndian.PutUint64(msg[8*i:], uint64(v))
		}
		if err := f.comm.Local().Send(msg[:], spOwner, core.TagFileOrdered); err != nil {
			return 0, true, core.MapErr(op, err)
		}
	}
	if done, err := f.joinOutcome(op, out, local, own); !done || err != nil {
		return 0, done, err
	}
	p.pos = int64(word(out, joinOutFields+f.comm.Rank()))
	if p.n > 0 {
		n, err = f.run(op, a, &p)
	}
	return n, true, f.agreeNode(op, err)
}

// placeAll is member 0's part of the placed way: it receives every member's header
// and, where the way applies and no member failed, moves the pointer past every
// record and fills out with each member's place. It returns its own failure.
func (f *File) placeAll(op string, p plan, hdr [joinFields]int64, local error, out []byte) error {
	put := func(i int, v int64) { binary.LittleEndian.PutUint64(out[8*i:], uint64(v)) }
	failed, class := int64(-1), int64(0)
	if local != nil {
		failed, class = 0, hdr[joinClass]
	}
	total := hdr[joinLen]
	var msg [joinHdr]byte
	for r := 1; r < f.comm.Size(); r++ {
		if err := f.comm.Local().Recv(msg[:], r, core.TagFileOrdered); err != nil {
			return core.MapErr(op, err)
		}
		if c := int64(word(msg[:], joinClass)); c != 0 {
			if failed < 0 {
				failed, class = int64(r), c
			}
			continue
		}
		// Its place, after the records before it (each below 2^62: no overflow).
		put(joinOutFields+r, total)
		total = min(total+int64(word(msg[:], joinLen)), math.MaxInt64/2)
	}
	switch {
	case failed >= 0:
		put(0, joinFailed)
		put(1, failed)
		put(2, class)
		return nil
	case f.collMode(true) == cbEnable:
		put(0, joinGeneral)
		return nil
	}
	var base int64
	var err error
	if total > 0 {
		// Read, then set: no member can move the pointer while every member is in
		// the call.
		if base, err = f.spOp(op, 0, OpNoOp); err == nil && !p.v.Fits(base, total) {
			err = core.Errorf(core.ClassArg, op, "the ordered access at the shared file pointer (%d bytes of the view) would pass the largest file offset", base)
		}
		if err == nil {
			_, err = f.spOp(op, base+total, OpReplace)
		}
	}
	if err != nil {
		put(0, joinFailed)
		put(1, spOwner)
		put(2, int64(core.ClassOf(err)))
		return err
	}
	for r := range f.comm.Size() {
		put(joinOutFields+r, base+int64(word(out, joinOutFields+r)))
	}
	return nil
}

// agreeNode ends a collective access as agree does (without the arguments' hash),
// by an allreduce of one word over the file's communicator: through the node's
// shared-memory collectives on one node, where agree's internal schedule takes
// several times the instructions.
func (f *File) agreeNode(op string, local error) error {
	var b [8]byte
	w := uint64(math.MaxUint64)
	if local != nil {
		w = uint64(f.comm.Rank())<<32 | uint64(core.ClassOf(local))
	}
	binary.LittleEndian.PutUint64(b[:], w)
	v := collective.Vec{B: b[:], Esz: 8}
	if err := collective.Allreduce(f.comm, op, &v, &v, &agreeNodeRed); err != nil {
		return core.MapErr(op, err)
	}
	switch w = binary.LittleEndian.Uint64(b[:]); {
	case local != nil:
		return local
	case w != math.MaxUint64:
		return core.Errorf(core.ErrorClass(w&math.MaxUint32), op,
			"rank %d of the file's group could not access the file (its error says why), so the call failed on every rank", w>>32)
	}
	return nil
}

// agreeNodeRed is agreeNode's reduction: the lowest word, the lowest failed member
// with its class. Its code, for coll_check, is no predefined operation's.
var agreeNodeRed = collective.Red{K: collective.ReduceOp{Fn: minWords, Commute: true}, Name: "the file's agreement", Code: 1 << 40}

// minWords keeps the lower of acc's and in's 8-byte words.
func minWords(acc, in []byte) {
	for i := 0; i+8 <= len(acc); i += 8 {
		binary.LittleEndian.PutUint64(acc[i:], min(binary.LittleEndian.Uint64(acc[i:]), binary.LittleEndian.Uint64(in[i:])))
	}
}

// joinSend sends a member's header and record to member 0: in one message where
// the record is short (joinInline), else the record in a message of its own, so that
// a record of up to the transport's eager limit (4 KiB in node shared memory) goes
// without the rendezvous a longer message takes. The record is sent from the
// program's memory where that is contiguous.
func (f *File) joinSend(hdr [joinFields]int64, p plan) error {
	n := max(hdr[joinLen], 0)
	inline := n <= joinInline
	k := int64(joinHdr)
	if inline {
		k += n
	}
	msg := f.joinBuf(k)
	for i, v := range hdr {
		binary.LittleEndian.PutUint64(msg[8*i:], uint64(v))
	}
	if inline {
		p.mem.PackAt(msg[joinHdr:], 0)
		return f.comm.Local().Send(msg, spOwner, core.TagFileOrdered)
	}
	if err := f.comm.Local().Send(msg, spOwner, core.TagFileOrdered); err != nil {
		return err
	}
	return f.comm.Local().Send(f.record(p), spOwner, core.TagFileOrdered)
}

// joinInline is the longest record that travels in its header's message.
const joinInline = 1024

// joinBuf is k bytes of the file's buffer for a member's message, which the next
// call in the lane reuses.
func (f *File) joinBuf(k int64) []byte {
	if int64(cap(f.jbuf)) < k {
		f.jbuf = make([]byte, k)
	}
	return f.jbuf[:k]
}

// record is this member's record in the file's representation: the program's
// memory where it is contiguous, else packed into the file's buffer.
func (f *File) record(p plan) []byte {
	if b, ok := p.mem.Contig(); ok {
		return b
	}
	b := f.joinBuf(p.n)
	p.mem.PackAt(b, 0)
	return b
}

// joinWrite is member 0's part: it receives every member's header and record and,
// where the one write applies, writes them, moves the pointer and fills out with
// the outcome. It returns its own failure (its write's, or placing the records').
func (f *File) joinWrite(op string, p plan, hdr [joinFields]int64, local error, out []byte) error {
	size := f.comm.Size()
	if len(f.jslots) < size {
		f.jslots = make([][]byte, size)
	}
	parts := f.jparts[:0]
	defer func() {
		clear(parts) // the slots' and the program's memory: nothing held past the call
		f.jparts = parts[:0]
	}()
	failed, class := int64(-1), int64(0)
	if local != nil {
		failed, class = 0, hdr[joinClass]
	}
	general := hdr[joinLen] < 0 || f.collMode(true) == cbEnable
	total := max(hdr[joinLen], 0)
	if !general && local == nil && p.n > 0 {
		parts = append(parts, f.record(p))
	}
	for r := 1; r < size; r++ {
		// The messages fit the slots that earlier calls grew; a longer one comes in
		// new memory, which the slot then keeps.
		slot := f.jslots[r]
		msg, err := f.comm.Local().RecvFit(slot[:cap(slot)], r, core.TagFileOrdered)
		if err != nil {
			return core.MapErr(op, err)
		}
		if cap(msg) > cap(slot) {
			slot = msg[:cap(msg)]
		}
		c, k := int64(word(msg, joinClass)), int64(word(msg, joinLen))
		if k > joinInline { // the record follows in a message of its own
			if int64(cap(slot)) < joinHdr+k {
				slot = make([]byte, joinHdr+k)
			}
			if err := f.comm.Local().Recv(slot[joinHdr:joinHdr+k], r, core.TagFileOrdered); err != nil {
				return core.MapErr(op, err)
			}
		}
		f.jslots[r] = slot
		switch {
		case c != 0:
			if failed < 0 {
				failed, class = int64(r), c
			}
		case k < 0:
			general = true
		default:
			parts = append(parts, slot[joinHdr:joinHdr+k])
			total += k
		}
	}
	put := func(i int, v int64) { binary.LittleEndian.PutUint64(out[8*i:], uint64(v)) }
	switch {
	case failed >= 0:
		put(0, joinFailed)
		put(1, failed)
		put(2, class)
		return nil
	case general:
		put(0, joinGeneral)
		return nil
	}
	err := f.joinPut(op, p, parts, total)
	if err != nil {
		put(0, joinFailed)
		put(1, spOwner)
		put(2, int64(core.ClassOf(err)))
	}
	return err
}

// joinPut writes the records (parts, total bytes) at the shared pointer, read once
// every member is in the call, and moves the pointer past them, the write failed
// or not, as the general way does.
func (f *File) joinPut(op string, p plan, parts [][]byte, total int64) error {
	if total == 0 {
		return nil
	}
	base, err := f.spOp(op, 0, OpNoOp)
	if err != nil {
		return err
	}
	if !p.v.Fits(base, total) {
		return core.Errorf(core.ClassArg, op, "the ordered access at the shared file pointer (%d bytes of the view) would pass the largest file offset", base)
	}
	off := p.v.FileOff(base)
	if p.tun.Atomic {
		if err := f.os.Lock(off, total, true); err != nil {
			return ioErr(op, err)
		}
	}
	_, err = f.os.WriteParts(parts, off)
	if p.tun.Atomic {
		f.os.Unlock(off, total)
	}
	if _, perr := f.spOp(op, base+total, OpReplace); err == nil {
		return ioErr(op, perr)
	}
	return ioErr(op, err)
}

// collMode is the romio_cb_read (or, write, romio_cb_write) setting.
func (f *File) collMode(write bool) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if write {
		return f.cb.write
	}
	return f.cb.read
}
