package mpir

import (
	"encoding/binary"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
)

// A write_ordered whose records are small and whose view is contiguous is one write
// (joinOrdered): every member sends its record, behind a header (its error's class,
// its length), to member 0, the shared pointer's holder, which reads the pointer,
// writes the records back to back in rank order with one pwritev (on a file in
// memory, by copies into its mapping: putJoined), moves the pointer past them and
// broadcasts the outcome (a member's bad arguments, or its own failed write, with
// the error's class). The file system's lock on the file (the inode's, on tmpfs and
// ext4) is then taken once per call instead of once per member, one member after
// the other, or not at all; and the call is a message to member 0 and a broadcast,
// where the general way (ordered) is a gather of the sizes, the members' writes and
// an agreement.
//
// The general way stays where the one write does not apply, which member 0 learns
// from the headers and says in the broadcast, so that every member then takes it:
// a view that is not contiguous (the records' file runs are then not one span), a
// record longer than joinMax (member 0 would hold every member's record at once;
// beyond a few tens of KiB each member's own write of its record costs less than
// copying it to member 0, and the lock is held for the copy either way), and
// collective buffering forced by romio_cb_write "enable".

// The fields of a member's header in a joined ordered write.
const (
	joinClass = iota // its error's class, 0 for none
	joinLen          // its record's bytes, which follow; -1: it cannot join
	joinFields
	joinHdr = 8 * joinFields
)

// The outcome member 0 broadcasts: how the call goes on, and for a failure the
// first member that failed and its class.
const (
	joinDone    = iota // written: every member moved its record
	joinGeneral        // the one write does not apply: every member takes ordered's way
	joinFailed         // a member's arguments or member 0's write failed
	joinPlace          // on the board, a file in memory: the pointer moved, each member writes its own record (bdPlace)
)

// joinOutFields is the number of words of the outcome.
const joinOutFields = 3

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
func (f *File) joinOrdered(op string, p plan, local error, posted bool) (n int64, done bool, err error) {
	var hdr [joinFields]int64
	switch {
	case local != nil:
		hdr[joinClass] = int64(core.ClassOf(local))
	case p.n > joinMax(f.comm.Size()) || !p.v.Contiguous():
		hdr[joinLen] = -1
	default:
		hdr[joinLen] = p.n
	}
	b := f.boardFor(op)
	var seq uint64 // the call's number on the board
	if b != nil {
		seq = b.next(f.comm.Rank(), posted)
	}
	out := f.jout[:]
	clear(out)
	var own error // member 0's failure, which it reports as its own
	switch {
	case f.comm.Rank() == spOwner:
		own = f.joinWrite(op, b, seq, p, hdr, local, out)
		if b != nil {
			copy(b.mem[bdOut+8:], out)
			b.publish(bdOut, seq)
		}
	case b != nil:
		if !posted {
			b.post(f.comm.Rank(), seq, hdr, p)
		}
		if err := b.wait(spOwner, bdOut, seq); err != nil {
			return 0, true, core.MapErr(op, err)
		}
		copy(out, b.mem[bdOut+8:])
	default:
		if err := f.joinSend(hdr, p); err != nil {
			return 0, true, core.MapErr(op, err)
		}
	}
	if b == nil {
		if err := collective.Bcast(f.comm, op, &collective.Vec{B: out, Esz: 8}, spOwner); err != nil {
			return 0, true, core.MapErr(op, err)
		}
	}
	switch word(out, 0) {
	case joinGeneral:
		return 0, false, nil
	case joinPlace: // only on the board
		return f.placeOwn(op, b, f.record(p))
	case joinFailed:
		switch r := word(out, 1); {
		case local != nil:
			return 0, true, local
		case own != nil:
			return 0, true, own
		default:
			return 0, true, core.Errorf(core.ErrorClass(word(out, 2)), op,
				"rank %d of the file's group could not access the file (its error says why), so the call failed on every rank", r)
		}
	}
	return p.n, true, nil
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

// joinFrom is member r's header (its error's class, its record's length) and record,
// from the board b or, b nil, from r's messages.
func (f *File) joinFrom(op string, b *board, seq uint64, r int) (c, k int64, rec []byte, err error) {
	if b != nil {
		h := hdrOff(r)
		if err := b.wait(r, h, seq); err != nil {
			return 0, 0, nil, core.MapErr(op, err)
		}
		c, k = int64(*b.word(h + 8)), int64(*b.word(h + 16))
		if c == 0 && k > 0 {
			rec = b.record(r, k)
		}
		return c, k, rec, nil
	}
	// The messages fit the slots that earlier calls grew; a longer one comes in new
	// memory, which the slot then keeps.
	slot := f.jslots[r]
	msg, err := f.comm.Local().RecvFit(slot[:cap(slot)], r, core.TagFileOrdered)
	if err != nil {
		return 0, 0, nil, core.MapErr(op, err)
	}
	if cap(msg) > cap(slot) {
		slot = msg[:cap(msg)]
	}
	c, k = int64(word(msg, joinClass)), int64(word(msg, joinLen))
	if k > joinInline { // the record follows in a message of its own
		if int64(cap(slot)) < joinHdr+k {
			slot = make([]byte, joinHdr+k)
		}
		if err := f.comm.Local().Recv(slot[joinHdr:joinHdr+k], r, core.TagFileOrdered); err != nil {
			return 0, 0, nil, core.MapErr(op, err)
		}
	}
	f.jslots[r] = slot
	if c == 0 && k > 0 {
		rec = slot[joinHdr : joinHdr+k]
	}
	return c, k, rec, nil
}

// post is member r's part on the board: its record, then its header.
func (b *board) post(r int, seq uint64, hdr [joinFields]int64, p plan) {
	if n := hdr[joinLen]; n > 0 && hdr[joinClass] == 0 {
		p.mem.PackAt(b.record(r, n), 0)
	}
	h := hdrOff(r)
	*b.word(h + 8) = uint64(hdr[joinClass])
	*b.word(h + 16) = uint64(hdr[joinLen])
	b.publish(h, seq)
}

// joinWrite is member 0's part: it receives every member's header and record and,
// where the one write applies, writes them, moves the pointer and fills out with
// the outcome. It returns its own failure (its write's, or placing the records').
func (f *File) joinWrite(op string, b *board, seq uint64, p plan, hdr [joinFields]int64, local error, out []byte) error {
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
	put := func(i int, v int64) { binary.LittleEndian.PutUint64(out[8*i:], uint64(v)) }
	for r := 1; r < size; r++ {
		c, k, rec, err := f.joinFrom(op, b, seq, r)
		if err != nil {
			put(0, joinFailed)
			put(1, spOwner)
			put(2, int64(core.ClassOf(err)))
			return err
		}
		switch {
		case c != 0:
			if failed < 0 {
				failed, class = int64(r), c
			}
		case k < 0:
			general = true
		default:
			parts = append(parts, rec)
			total += k
		}
	}
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
	f.wrote()
	if p.tun.Atomic {
		_, err = f.os.WriteParts(parts, off)
		f.os.Unlock(off, total)
	} else {
		_, err = f.putJoined(parts, off)
	}
	if _, perr := f.spOp(op, base+total, OpReplace); err == nil {
		return ioErr(op, perr)
	}
	return ioErr(op, err)
}

// putJoined writes the joined records (parts) back to back from file byte off,
// outside atomic mode: on a file in memory by copies into its mapping, where the
// records land before the file's end (mpio.WritePartsMapped: no system call and no
// inode lock, which a pwritev of a few KiB spends most of its time in), else by one
// pwritev.
func (f *File) putJoined(parts [][]byte, off int64) (int64, error) {
	if f.os.CanMap() {
		return f.os.WritePartsMapped(parts, off)
	}
	return f.os.WriteParts(parts, off)
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
