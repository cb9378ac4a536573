package mpir

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpio"
)

// Collective data access (the _all calls) by two-phase I/O, over internal/mpio's plan
// (mpio/plan.go): the members first gather each one's span of the file, error class
// and (from member 0, for the hints the standard requires to be the same everywhere)
// the collective-buffering settings. That gather is also the call's agreement on its
// arguments: a member's bad argument fails every member's call, with its class,
// before any moves data. Then the members decide alike:
//
//   - Independently, each member its own access, then an agreement on the errors:
//     where collective buffering is off (romio_cb_write or romio_cb_read "disable"),
//     in atomic mode (each access then locks its span), and, "automatic", where the
//     members' spans do not interleave (each one's accesses are already its own
//     large contiguous requests).
//   - Two-phase: cb_nodes aggregators, one per node first, each own a domain of the
//     spans' union, cut on striping_unit; every member tells each aggregator which
//     file runs it has in its domain (one alltoallv of their offsets and lengths);
//     then, window of cb_buffer_size by window, the members' data travels to the
//     aggregators (a write), which write the union of a window's pieces as a few
//     large runs, holes left alone, or the aggregators read that union and send each
//     member its pieces (a read). Messages travel on the file's own communicator,
//     so through shared memory on a node. An aggregator's failed system call fails
//     the call on every member (the agreement that ends it); the rounds still run, so
//     that nobody waits for a message that will not come.
//
// A read reports the bytes of each member's data before the first run the file does
// not wholly hold (the file's size when the call began), as an independent read
// does, and leaves the memory past them as it was.

// The collective-buffering settings of a hint: romio_cb_read or romio_cb_write.
const (
	cbAuto = iota
	cbEnable
	cbDisable
)

// cbSettings are the hints of collective buffering, as numbers.
type cbSettings struct {
	read, write int64 // cbMode of romio_cb_read, romio_cb_write
	nodes       int64 // cb_nodes
	buf         int64 // cb_buffer_size
	align       int64 // striping_unit
}

func cbMode(v string) int64 {
	switch v {
	case "enable":
		return cbEnable
	case "disable":
		return cbDisable
	}
	return cbAuto
}

// The fields of a member's record in the gather.
const (
	recClass = iota
	recLo
	recHi
	recLen
	recMode // member 0's is used: the hints below must be the same everywhere
	recNodes
	recBuf
	recAlign
	recAtomic
	recMemory // the file is in memory (member 0's)
	recFields
)

// collAccess does this member's part of a collective access placed as p (local: the
// error of its arguments, then p is the zero plan) and returns the bytes it moved.
func (f *File) collAccess(op string, a Access, p plan, local error) (int64, error) {
	var runs []mpio.Run
	var rec [recFields]int64
	if local != nil {
		rec[recClass] = int64(core.ClassOf(local))
	} else {
		c := p.v.Cursor(p.pos, p.n)
		for r, ok := c.Next(); ok; r, ok = c.Next() {
			if len(runs) == 0 {
				rec[recLo], rec[recHi] = r.Off, r.End()
			}
			rec[recLo], rec[recHi] = min(rec[recLo], r.Off), max(rec[recHi], r.End())
			runs = append(runs, r)
		}
		rec[recLen] = p.n
	}
	f.mu.Lock()
	cb := f.cb
	f.mu.Unlock()
	rec[recMode] = cb.read
	if a.Write {
		rec[recMode] = cb.write
	}
	rec[recNodes], rec[recBuf], rec[recAlign] = cb.nodes, cb.buf, cb.align
	if p.tun.Atomic {
		rec[recAtomic] = 1
	}
	if f.os.InMemory() {
		rec[recMemory] = 1
	}
	all, err := f.gatherInts(op, rec[:])
	if err != nil {
		return 0, err
	}
	if err := firstFailed(op, all, local, f.comm.Rank()); err != nil {
		return 0, err
	}
	if !twoPhase(all, a.Write, f.nodes > 1) {
		// Each member's access moves only its own data, so its error is whole where
		// it is returned; the others learn of it at the file's next Sync or Close
		// rather than wait here for the slowest member (a wait that would keep a
		// member's fsync from starting while another member still writes).
		var n int64
		if p.n > 0 {
			n, err = f.own(op, a, &p, len(runs))
		}
		if err != nil {
			f.owed = err
		}
		return n, err
	}
	x := newExchange(f, a, p, runs, all)
	n, err := x.run(op)
	if err := f.agree(op, err, 0, "access the file"); err != nil {
		// An aggregator's failure leaves this member's pieces in other windows written
		// (or read) or not, which this member cannot tell: it claims none, rather
		// than report data as moved that may not have been.
		return 0, err
	}
	return n, nil
}

// own does this member's own part of a collective access (runs: its file runs). A
// write to a file in memory copies into the file's shared mapping (mpio.WriteMapped)
// where it has a few runs or many bytes: the members' writes then run at once, where
// the system's writes of one file in memory take its lock one after another; a single
// short run costs fewer system calls written.
func (f *File) own(op string, a Access, p *plan, runs int) (int64, error) {
	if !a.Write || p.tun.Atomic || !f.os.CanMap() || (runs < mapRuns && p.n < mapBytes) {
		return f.run(op, a, p)
	}
	f.wrote()
	n, err := mpio.WriteMapped(f.os, p.v, p.pos, p.mem)
	return n, ioErr(op, err)
}

// A member's own write goes through the file's mapping with at least mapRuns runs or
// mapBytes bytes.
const (
	mapRuns  = 4
	mapBytes = 64 << 10
)

// firstFailed is the call's error where a member's arguments were bad: this
// member's own, or one naming the lowest member that failed, with its class.
func firstFailed(op string, all []int64, local error, me int) error {
	if local != nil {
		return local
	}
	for r := 0; r*recFields < len(all); r++ {
		if c := all[r*recFields+recClass]; c != 0 {
			return core.Errorf(core.ErrorClass(c), op,
				"rank %d of the file's group could not access the file (its error says why), so the call failed on every rank", r)
		}
	}
	return nil
}

// twoPhase decides, alike on every member, whether the access goes through the
// aggregators. "automatic" sends an access there where the members' spans interleave
// and it crosses nodes, or is a write to a file on disk: on one node every member's
// reads are sieved from the same page cache, and a file in memory takes many small
// writes as fast as the copies two-phase I/O would add (docs/BENCHMARKS.md, I/O).
func twoPhase(all []int64, write, multiNode bool) bool {
	switch {
	case all[recMode] == cbDisable, all[recAtomic] != 0:
		return false
	case all[recMode] == cbEnable:
		return true
	case !multiNode && (!write || all[recMemory] != 0):
		return false
	}
	// Automatic: where the spans of the members with data interleave.
	var spans []mpio.Run
	for r := 0; r*recFields < len(all); r++ {
		if rec := all[r*recFields:]; rec[recLen] > 0 {
			spans = append(spans, mpio.Run{Off: rec[recLo], Len: rec[recHi] - rec[recLo]})
		}
	}
	slices.SortFunc(spans, func(a, b mpio.Run) int { return cmp.Compare(a.Off, b.Off) })
	end := int64(math.MinInt64)
	for _, s := range spans {
		if s.Off < end {
			return true
		}
		end = max(end, s.End())
	}
	return false
}

// exchange is one member's part of a two-phase access.
type exchange struct {
	f     *File
	a     Access
	p     plan
	me    int
	size  int
	aggs  []int          // the aggregators' ranks
	doms  []mpio.Run     // their domains
	mine  [][]mpio.Piece // this member's pieces per domain
	agg   int            // this member's index among the aggregators, -1 if it is none
	their [][]mpio.Piece // an aggregator's: each member's pieces in its domain
	buf   int64          // cb_buffer_size
	eof   int64          // a read's: the stream bytes before the first run past the end

	// The rounds' alltoallv arguments, kept from one round to the next.
	sc, sd, rc, rd []int
	send, recv     []byte
	parts          []part   // an aggregator's window as parts (partsOf)
	bufs           [][]byte // a run of them, for writeParts
	heads, ats     []int    // partsOf's merge: each member's next piece, and its data's offset
}

func newExchange(f *File, a Access, p plan, runs []mpio.Run, all []int64) *exchange {
	x := &exchange{f: f, a: a, p: p, me: f.comm.Rank(), size: f.comm.Size(), agg: -1, buf: max(all[recBuf], 1)}
	x.sc, x.sd, x.rc, x.rd = x.counts()
	nodes := make([]int, x.size)
	lo, hi := int64(math.MaxInt64), int64(0)
	for r := range x.size {
		nodes[r] = f.comm.NodeOfRank(r)
		if rec := all[r*recFields:]; rec[recLen] > 0 {
			lo, hi = min(lo, rec[recLo]), max(hi, rec[recHi])
		}
	}
	x.aggs = mpio.Aggregators(nodes, int(all[recNodes]))
	x.doms = mpio.Domains(lo, hi, len(x.aggs), all[recAlign])
	x.mine = mpio.Split(runs, x.doms)
	for i, r := range x.aggs {
		if r == x.me {
			x.agg = i
		}
	}
	return x
}

// run does the exchange and this member's part of the I/O, and returns the bytes of
// its data moved. Its error is an aggregator's failed system call, after which the
// rounds go on without I/O, so that every member's messages still meet; a failed
// exchange ends it at once.
func (x *exchange) run(op string) (int64, error) {
	if err := x.tellAggregators(op); err != nil {
		return 0, err
	}
	moved := x.p.n
	if !x.a.Write {
		size, err := x.f.os.Size()
		if err != nil {
			return 0, ioErr(op, err)
		}
		x.eof = x.readable(size)
		moved = x.eof
	}
	sc := takeScratch()
	defer sc.put()
	x.send, x.recv, x.parts, x.bufs = sc.send[:0], sc.recv[:0], sc.parts[:0], sc.bufs[:0]
	defer func() {
		// The parts point into the program's memory, which the kept set must not hold.
		clear(x.parts[:cap(x.parts)])
		clear(x.bufs[:cap(x.bufs)])
		sc.send, sc.recv, sc.parts, sc.bufs = x.send, x.recv, x.parts, x.bufs
	}()
	var win []byte
	if x.agg >= 0 {
		win = sc.grow(&sc.win, min(x.buf, x.doms[x.agg].Len))
	}
	var ioerr error
	for k := range mpio.Rounds(x.doms, x.buf) {
		var fileErr, err error
		if x.a.Write {
			fileErr, err = x.writeRound(op, k, win, ioerr != nil)
		} else {
			fileErr, err = x.readRound(op, k, win, ioerr != nil)
		}
		if err != nil {
			return 0, err
		}
		if ioerr == nil {
			ioerr = fileErr
		}
	}
	return moved, ioerr
}

// readable is how many bytes of this member's data lie before the end of a file of
// size bytes: the runs up to the first one the file does not wholly hold.
func (x *exchange) readable(size int64) int64 {
	var n int64
	c := x.p.v.Cursor(x.p.pos, x.p.n)
	for r, ok := c.Next(); ok; r, ok = c.Next() {
		if r.End() <= size {
			n += r.Len
			continue
		}
		return n + max(0, size-r.Off)
	}
	return n
}

// tellAggregators sends each aggregator the offsets and lengths of this member's
// pieces in its domain; an aggregator keeps every member's (their).
func (x *exchange) tellAggregators(op string) error {
	counts := make([]byte, 8*x.size)
	for a, r := range x.aggs {
		binary.LittleEndian.PutUint64(counts[8*r:], uint64(len(x.mine[a])))
	}
	got := make([]byte, 8*x.size)
	if _, err := collective.Alltoall(x.f.comm, op, collective.Vec{B: counts, Esz: 8}, collective.Vec{B: got, Esz: 8}, false); err != nil {
		return core.MapErr(op, err)
	}
	sc, sd, rc, rd := x.counts()
	var send []byte
	for r := range x.size {
		sd[r] = len(send)
		if a := x.aggOf(r); a >= 0 {
			for _, p := range x.mine[a] {
				send = binary.LittleEndian.AppendUint64(send, uint64(p.Off))
				send = binary.LittleEndian.AppendUint64(send, uint64(p.Len))
			}
		}
		sc[r] = len(send) - sd[r]
	}
	total := 0
	for r := range x.size {
		rd[r] = total
		rc[r] = 16 * int(binary.LittleEndian.Uint64(got[8*r:]))
		total += rc[r]
	}
	recv := make([]byte, total)
	if _, err := collective.Alltoallv(x.f.comm, op, collective.Vec{B: send, Esz: 1}, sc, sd, collective.Vec{B: recv, Esz: 1}, rc, rd, false); err != nil {
		return core.MapErr(op, err)
	}
	if x.agg >= 0 {
		x.their = make([][]mpio.Piece, x.size)
		for r := range x.size {
			b := recv[rd[r] : rd[r]+rc[r]]
			for len(b) >= 16 {
				off, n := int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
				x.their[r] = append(x.their[r], mpio.Piece{Off: off, Len: n})
				b = b[16:]
			}
		}
	}
	return nil
}

func (x *exchange) counts() (sc, sd, rc, rd []int) {
	return make([]int, x.size), make([]int, x.size), make([]int, x.size), make([]int, x.size)
}

// aggOf is the aggregator index of rank r, -1 if r aggregates nothing.
func (x *exchange) aggOf(r int) int {
	for a, q := range x.aggs {
		if q == r {
			return a
		}
	}
	return -1
}

// window is round k's window of aggregator a's domain.
func (x *exchange) window(a, k int) mpio.Run {
	d := x.doms[a]
	lo := d.Off + int64(k)*x.buf
	return mpio.Run{Off: lo, Len: max(0, min(lo+x.buf, d.End())-lo)}
}

// writeRound sends this member's pieces of round k to the aggregators, and an
// aggregator writes the union of what it gets (skip: an earlier round failed, so it
// takes part in the exchange only).
func (x *exchange) writeRound(op string, k int, win []byte, skip bool) (fileErr, err error) {
	sc, sd, rc, rd := x.reset()
	mine := x.windows(x.mine, k, false)
	for a, r := range x.aggs {
		if r != x.me { // an aggregator's own pieces go straight to its window
			sc[r] = piecesLen(mine[a])
		}
	}
	send, ok := x.inPlace(mine, sd, x.p.n)
	if !ok {
		send = x.lay(&x.send, sc, sd)
		for a, r := range x.aggs {
			at := int64(sd[r])
			for _, p := range mine[a] {
				if r != x.me {
					x.p.mem.PackAt(send[at:at+p.Len], p.Stream)
					at += p.Len
				}
			}
		}
	}
	var their [][]mpio.Piece
	if x.agg >= 0 {
		their = x.windows(x.their, k, true)
		for r := range x.size {
			if r != x.me {
				rc[r] = piecesLen(their[r])
			}
		}
	}
	recv := x.lay(&x.recv, rc, rd)
	if _, err := collective.Alltoallv(x.f.comm, op, collective.Vec{B: send, Esz: 1}, sc, sd, collective.Vec{B: recv, Esz: 1}, rc, rd, false); err != nil {
		return nil, core.MapErr(op, err)
	}
	if x.agg < 0 || skip {
		return nil, nil
	}
	w := x.window(x.agg, k)
	if x.partsOf(their, mine[x.agg], recv, rd, win, w) {
		x.f.wrote()
		return x.writeParts(op), nil
	}
	for _, p := range mine[x.agg] { // their[x.me] without the stream positions
		x.p.mem.PackAt(win[p.Off-w.Off:p.End()-w.Off], p.Stream)
	}
	for r := range x.size {
		if r == x.me {
			continue
		}
		at := int64(rd[r])
		for _, p := range their[r] {
			copy(win[p.Off-w.Off:p.End()-w.Off], recv[at:at+p.Len])
			at += p.Len
		}
	}
	x.f.wrote()
	for _, run := range mpio.Cover(their) {
		if _, err := x.f.os.WriteAt(win[run.Off-w.Off:run.End()-w.Off], run.Off); err != nil {
			return ioErr(op, err), nil
		}
	}
	return nil, nil
}

// A window's part: Len bytes at file offset Off, whose data is b.
type part struct {
	off int64
	b   []byte
}

// partMin is the mean length of a window's pieces from which an aggregator writes
// them where they arrived (writeParts) rather than copied into its window first:
// each part costs the kernel an iovec, which for shorter pieces costs more than the
// copy it saves.
const partMin = 1 << 10

// partsOf lays out round k's window w of an aggregator as parts in file order
// (x.parts): each member's pieces (their) where the exchange received them (recv at
// rd), the aggregator's own (mine, their[x.me] with stream positions) in its memory
// where that is contiguous, else packed into win. It reports false where the pieces
// are short (partMin), or out of file order or overlapping (a view that goes back; a
// write the standard leaves undefined, which the window resolves as ever).
func (x *exchange) partsOf(their [][]mpio.Piece, mine []mpio.Piece, recv []byte, rd []int, win []byte, w mpio.Run) bool {
	n, total := 0, int64(0)
	for _, ps := range their {
		n += len(ps)
		total += int64(piecesLen(ps))
	}
	if n == 0 || total < int64(n)*partMin {
		return false
	}
	x.heads = append(x.heads[:0], make([]int, x.size)...)
	x.ats = append(x.ats[:0], rd...)
	contig, direct := x.p.mem.Contig()
	x.parts = x.parts[:0]
	end := int64(math.MinInt64)
	for {
		r := x.lowestHead(their)
		if r < 0 {
			return true
		}
		p := their[r][x.heads[r]]
		if p.Off < end {
			return false
		}
		var b []byte
		switch {
		case r != x.me:
			b = recv[x.ats[r] : x.ats[r]+int(p.Len)]
			x.ats[r] += int(p.Len)
		case direct:
			q := mine[x.heads[r]]
			b = contig[q.Stream : q.Stream+q.Len]
		default:
			q := mine[x.heads[r]]
			b = win[q.Off-w.Off : q.End()-w.Off]
			x.p.mem.PackAt(b, q.Stream)
		}
		x.heads[r]++
		x.parts = append(x.parts, part{p.Off, b})
		end = p.End()
	}
}

// lowestHead is the member whose next piece in their (from x.heads) has the lowest
// offset, -1 once every member's are taken: a merge of the members' lists, each in
// file order where the view is.
func (x *exchange) lowestHead(their [][]mpio.Piece) int {
	best, off := -1, int64(0)
	for r, ps := range their {
		if h := x.heads[r]; h < len(ps) && (best < 0 || ps[h].Off < off) {
			best, off = r, ps[h].Off
		}
	}
	return best
}

// writeParts writes x.parts, each run of touching parts by one vectored write, and
// returns the error of the first that fails.
func (x *exchange) writeParts(op string) error {
	for i := 0; i < len(x.parts); {
		j, end := i+1, x.parts[i].off+int64(len(x.parts[i].b))
		x.bufs = append(x.bufs[:0], x.parts[i].b)
		for ; j < len(x.parts) && x.parts[j].off == end; j++ {
			x.bufs = append(x.bufs, x.parts[j].b)
			end += int64(len(x.parts[j].b))
		}
		if _, err := x.f.os.WriteParts(x.bufs, x.parts[i].off); err != nil {
			return ioErr(op, err)
		}
		i = j
	}
	return nil
}

// readRound has an aggregator read the union of round k's pieces and send each member
// its own, which the member unpacks where they go (those past the end of the file
// left out).
func (x *exchange) readRound(op string, k int, win []byte, skip bool) (fileErr, err error) {
	sc, sd, rc, rd := x.reset()
	var send []byte
	var ioerr error
	if x.agg >= 0 {
		w := x.window(x.agg, k)
		their := x.windows(x.their, k, true)
		if !skip {
			for _, run := range mpio.Cover(their) {
				b := win[run.Off-w.Off : run.End()-w.Off]
				n, err := x.f.os.ReadAt(b, run.Off)
				clear(b[n:]) // past the end of the file
				if err != nil && ioerr == nil {
					ioerr = ioErr(op, err)
				}
			}
		}
		for r := range x.size {
			if r != x.me { // an aggregator's own pieces come straight from its window
				sc[r] = piecesLen(their[r])
			}
		}
		send = x.lay(&x.send, sc, sd)
		for r := range x.size {
			at := int64(sd[r])
			for _, p := range their[r] {
				if r != x.me {
					at += int64(copy(send[at:at+p.Len], win[p.Off-w.Off:p.End()-w.Off]))
				}
			}
		}
	}
	mine := x.windows(x.mine, k, false)
	if x.agg >= 0 && !skip {
		w := x.window(x.agg, k)
		for _, p := range mine[x.agg] { // their[x.me] without the stream positions
			x.unpack(win[p.Off-w.Off:p.End()-w.Off], p)
		}
	}
	for a, r := range x.aggs {
		if r != x.me {
			rc[r] = piecesLen(mine[a])
		}
	}
	recv, direct := x.inPlace(mine, rd, x.eof)
	if !direct {
		recv = x.lay(&x.recv, rc, rd)
	}
	if _, err := collective.Alltoallv(x.f.comm, op, collective.Vec{B: send, Esz: 1}, sc, sd, collective.Vec{B: recv, Esz: 1}, rc, rd, false); err != nil {
		return nil, core.MapErr(op, err)
	}
	for a, r := range x.aggs {
		if r == x.me || direct {
			continue
		}
		at := int64(rd[r])
		for _, p := range mine[a] {
			x.unpack(recv[at:at+p.Len], p)
			at += p.Len
		}
	}
	return ioerr, nil
}

// inPlace is the exchange's buffer on this member's side where it can be the
// member's own memory: a contiguous buffer in which the member's pieces for each
// other aggregator (mine, this round's) are one range of the stream, every one
// before the stream's byte upto (a read's: the end of the file); displs are then
// set to those ranges. ok is false where the pieces must be packed (unpacked).
func (x *exchange) inPlace(mine [][]mpio.Piece, displs []int, upto int64) (b []byte, ok bool) {
	b, ok = x.p.mem.Contig()
	if !ok {
		return nil, false
	}
	for a, r := range x.aggs {
		ps := mine[a]
		if r == x.me || len(ps) == 0 {
			continue
		}
		at := ps[0].Stream
		for _, p := range ps {
			if p.Stream != at {
				return nil, false
			}
			at += p.Len
		}
		if at > upto {
			return nil, false
		}
		displs[r] = int(ps[0].Stream)
	}
	return b, true
}

// unpack puts piece p's bytes b where they go in this member's memory, but for
// those past the end of the file.
func (x *exchange) unpack(b []byte, p mpio.Piece) {
	if n := min(p.Len, x.eof-p.Stream); n > 0 {
		x.p.mem.UnpackAt(b[:n], p.Stream)
	}
}

// reset clears the exchange's count and displacement lists for a round.
func (x *exchange) reset() (sc, sd, rc, rd []int) {
	clear(x.sc)
	clear(x.sd)
	clear(x.rc)
	clear(x.rd)
	return x.sc, x.sd, x.rc, x.rd
}

// lay sets the displacements of counts, back to back, and returns a buffer of their
// total from *buf, grown if need be (kept for the rounds that follow).
func (x *exchange) lay(buf *[]byte, counts, displs []int) []byte {
	total := 0
	for r, c := range counts {
		displs[r] = total
		total += c
	}
	if cap(*buf) < total {
		*buf = make([]byte, total)
	}
	return (*buf)[:total]
}

// windows is round k's window of each list of pieces: of this member's per domain
// (their false), or, for an aggregator, of each member's in its domain.
func (x *exchange) windows(lists [][]mpio.Piece, k int, their bool) [][]mpio.Piece {
	out := make([][]mpio.Piece, len(lists))
	for i, ps := range lists {
		a := i
		if their {
			a = x.agg
		}
		out[i] = mpio.Window(ps, x.doms[a], x.buf, k)
	}
	return out
}

func piecesLen(ps []mpio.Piece) int {
	n := int64(0)
	for _, p := range ps {
		n += p.Len
	}
	return int(n)
}

// nodesOf is the number of nodes c's members span.
func nodesOf(c *core.Comm) int {
	seen := map[int]bool{}
	for r := range c.Size() {
		seen[c.NodeOfRank(r)] = true
	}
	return len(seen)
}

// scratch is a two-phase access's buffers (an aggregator's window and parts, the
// exchange's send and receive buffers), kept from one access to the next: an access of tens of
// MiB would otherwise take fresh memory each time, which the system zeroes page by
// page, and leave as much to the collector. One set is kept per process (a
// concurrent access of another file takes a set of its own, which then replaces it),
// while the process has a file open: the last close drops it.
type scratch struct {
	win, send, recv []byte
	parts           []part
	bufs            [][]byte
}

var (
	scratchKept atomic.Pointer[scratch]
	filesOpen   atomic.Int64
)

func fileOpened() { filesOpen.Add(1) }

// fileClosed drops the kept scratch with the last open file: no access can be under
// way then, since Close waits for its file's.
func fileClosed() {
	if filesOpen.Add(-1) == 0 {
		scratchKept.Store(nil)
	}
}

// TwoPhaseBuffersKept reports whether this process keeps a two-phase access's
// buffers for the next one.
func TwoPhaseBuffersKept() bool { return scratchKept.Load() != nil }

func takeScratch() *scratch {
	if s := scratchKept.Swap(nil); s != nil {
		return s
	}
	return new(scratch)
}

func (s *scratch) put() { scratchKept.Store(s) }

// grow returns (*b)[:n], made larger first if need be.
func (s *scratch) grow(b *[]byte, n int64) []byte {
	if int64(cap(*b)) < n {
		*b = make([]byte, n)
	}
	return (*b)[:n]
}
