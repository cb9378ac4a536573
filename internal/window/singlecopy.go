package window

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/rma"
	"github.com/mpigo/mpigo/internal/transport"
)

// Created windows' targets on this node, by single copy. A window made over memory
// the program gave (WinCreate) lies in no region the node's ranks share, and unless
// every rank's is memory of MPI_Alloc_mem's, which its node peers map (then the
// window is direct: win.go, mapPeers), its operations are shipped to the target's
// progress goroutine, which must get its rank's core to apply them: while that rank
// computes, or waits in a call of another kind, each request waits for the
// scheduler. Where the node's transport
// reads and writes other processes' memory (cross-memory attach), a Put or Get whose
// target is contiguous, up to singleMax, is instead a process_vm_writev or
// process_vm_readv at the target's memory, whose address every rank published at
// creation: the target takes no part, as MPI's passive target asks. Everything else
// still ships: accumulates (element-wise atomic, so applied by the target),
// non-contiguous targets, longer transfers, the synchronisation.
//
// Why this keeps MPI's rules: the calls that open access to a shipped target wait for
// it (Lock and LockAll for the grant, Start for the post), so the copy lands inside
// the target's epoch; a copy is complete when its call returns, so Flush, Unlock,
// Complete and Fence, which complete the shipped operations, complete it too, and a
// Flush after copies alone sends nothing (nothing was shipped). An origin's
// operations to one target take effect in the order of its calls, as shipped ones
// do: a copy first writes or sends what is waiting in the target's batch, and waits
// for shipped requests to be applied (before), which costs a round trip only where
// shipped and copied operations mix. A call that fails (the peer refused the access,
// or left) clears the target's single way for good and ships the operation, whose
// path reports what is wrong.

// singleMax is the longest Put or Get that goes by single copy, unless the target's
// memory is mapped here (winPeer.mapped). A longer one ships:
// its data moves as a large point-to-point message, which the two ranks copy
// together (the engine's split get), where this rank's one system call copies alone
// (docs/BENCHMARKS.md, IMB-RMA: where the two ways cross).
const singleMax = 128 << 10

// chooseSingle marks the created window's targets on this node (nodes: each rank's)
// that Put and Get reach by single copy.
func (w *Win) chooseSingle(nodes []int) {
	sc, ok := core.NodeTransport().(transport.NodeCopier)
	if !ok {
		return
	}
	if can, _ := sc.CMA(); !can {
		return
	}
	w.sc = sc
	mapper, _ := sc.(transport.Mapper)
	me := nodes[w.rank]
	for r := range w.peers {
		if p := &w.peers[r]; r != w.rank && !p.direct && nodes[r] == me && p.addr != 0 {
			p.single.Store(true)
			p.mapped = mapper != nil && p.size > 0 && mapper.Mapped(p.world, p.addr, int(p.size))
		}
	}
}

// putSingly says whether a contiguous Put of n bytes to p goes by single copy at
// once: where p takes single copies, one too long to join the target's batch when
// shipped (batched), or any length to a target mapped here, and short enough for the
// single way (singleFits). Every Put to such a target up to singleMax thus goes one
// of the two ways, never shipped alone.
func putSingly(p *winPeer, n int64) bool {
	return p.single.Load() && (p.mapped || !batched(n, 1)) && singleFits(p, n)
}

// singleFits says whether a Put or Get of n bytes to p may go by single copy by its
// length: up to singleMapped through a mapping, else up to singleMax.
func singleFits(p *winPeer, n int64) bool { return n <= singleMax || p.mapped && n <= singleMapped }

// singleMapped is singleMax where the target's memory is mapped here: one core's
// memmove beats the shipped message's two-core copy up to about this length (a
// Put or Get alone; while many are in flight, further).
const singleMapped = 256 << 10

// Small Puts join the target's batch as they do for a shipped target, so that a run
// of them costs one system call: when the batch would go (full, or at a Flush, or
// before a request that must follow them), a batch of contiguous Puts alone is
// written by one vectored call (writeBatchLocked); one with anything else is
// shipped whole, as before. A Put too long for a batch takes putSingle at once, and
// so does every contiguous Put to a target mapped here: its memmove through the
// mapping costs less than writing it into the batch and copying it again from there.

// writeBatchLocked writes batch b of target t by single copy, if it holds only
// Puts of their data inline (done); w.mu is held.
func (w *Win) writeBatchLocked(t int, b []byte) (done bool) {
	p := &w.peers[t]
	srcs, addrs := w.vsrc[:0], w.vaddr[:0]
	for rest := b; len(rest) > 0; {
		req, next, err := rma.Split(rest)
		if err != nil {
			return false
		}
		h, ps, data, err := rma.Decode(req)
		if err != nil || h.Kind != rma.KPut || h.Flags&rma.SplitData != 0 {
			return false
		}
		for _, pc := range ps {
			if pc.Len > int64(len(data)) {
				return false
			}
			srcs = append(srcs, data[:pc.Len])
			addrs = append(addrs, p.addr+uint64(h.Base+pc.Off))
			data = data[pc.Len:]
		}
		rest = next
	}
	w.vsrc, w.vaddr = srcs[:0], addrs[:0]
	if err := w.sc.WriteVec(p.world, srcs, addrs); err != nil {
		p.single.Store(false)
		return false
	}
	n := 0
	for _, s := range srcs {
		n += len(s)
	}
	prof.AddLink(&p.to, n)
	return true
}

// before makes the operations this rank issued to target t before the one about to
// be copied take effect first, as the shipped requests of one origin do: its batch
// is written or sent now, and a shipped request not yet known applied is flushed.
func (w *Win) before(op string, t int) error {
	w.mu.Lock()
	if len(w.batch[t]) > 0 {
		w.sendBatchLocked(t)
	}
	wait := w.dirty[t] || len(w.out[t]) > 0
	w.mu.Unlock()
	if wait {
		return w.flushShipped(op, t)
	}
	return nil
}

// singleAt is where a Put or Get of t, prepared as pr, lies in the target's process,
// and its length, when it may go by single copy (ok); err is before's.
func (w *Win) singleAt(op string, pr prepared, t *Target) (addr uint64, n int64, ok bool, err error) {
	toff, n, ok := contig(t.Type, t.Count)
	if !ok {
		return 0, 0, false, nil
	}
	if err := w.before(op, t.Rank); err != nil {
		return 0, 0, true, err
	}
	return pr.p.addr + uint64(pr.off+toff), n, true, nil
}

// putSingle writes o to the target by single copy, if it can (done; err is the
// call's).
func (w *Win) putSingle(op string, pr prepared, o *RBuf, t *Target) (done bool, err error) {
	w.readGets(t.Rank)
	addr, n, ok, err := w.singleAt(op, pr, t)
	if !ok || err != nil {
		return ok, err
	}
	p := pr.p
	if err := w.sc.WriteTo(p.world, stream(o)[:n], addr); err != nil {
		p.single.Store(false)
		return false, nil
	}
	prof.AddLink(&p.to, int(n))
	return true, nil
}

// getSingle reads the target into o by single copy, if it can (done; err is the
// call's). With later, a short Get into o's own contiguous bytes is only noted, to be
// read with the others at once (readGets).
func (w *Win) getSingle(op string, pr prepared, o *RBuf, t *Target, later bool) (done bool, err error) {
	addr, n, ok, err := w.singleAt(op, pr, t)
	if !ok || err != nil {
		return ok, err
	}
	p := pr.p
	ooff, m, inPlace := contig(o.Type, o.Count)
	inPlace = inPlace && m == n
	if later && inPlace && n <= batchAlone {
		w.mu.Lock()
		g := append(w.gets[t.Rank], laterGet{dst: o.Mem[ooff : ooff+m], off: int64(addr - p.addr)})
		w.gets[t.Rank] = g
		full := len(g) >= laterMax
		w.mu.Unlock()
		prof.AddLink(&p.from, int(n))
		if full {
			w.readGets(t.Rank)
		}
		return true, nil
	}
	var dst []byte
	if inPlace {
		dst = o.Mem[ooff : ooff+m]
	} else {
		dst = make([]byte, n)
	}
	if err := w.sc.ReadFrom(p.world, dst, addr); err != nil {
		p.single.Store(false)
		return false, nil
	}
	if !inPlace {
		unstream(o, dst)
	}
	prof.AddLink(&p.from, int(n))
	return true, nil
}

// Gets wait to be read, as Puts wait in the batch to be written: a Get's result is
// MPI's only once the operation is complete (a Flush, Flush_local, Unlock, Complete
// or Fence), so the short contiguous Gets of an epoch are noted and read together by
// one vectored process_vm_readv when the target's operations must complete
// (finishOut), or before any other operation to the target is issued (ship, call,
// putSingle), so that they read what the calls before them left and nothing after.
// Gets among themselves need no order: they only read. Request-based Gets (Rget)
// read at once, since their requests complete alone. Even a lone Get waits: the
// Flush after it reads it by one call as the Get would have, and two of them (a Put
// and a Get to each of two targets, or both to one) then cost one call, not two.

// laterGet is a Get noted to be read: into dst from off bytes past the target's base.
type laterGet struct {
	dst []byte
	off int64
}

// laterMax is the most Gets noted per target: one vectored call's (IOV_MAX).
const laterMax = 1024

// readGets reads t's noted Gets, if any. If the read fails (the peer refused, or
// left), the target's single way is cleared and the Gets are shipped, whose path
// reports what is wrong at the operations' completion.
func (w *Win) readGets(t int) {
	w.mu.Lock()
	failed := w.readGetsLocked(t)
	w.mu.Unlock()
	w.shipGets(t, failed)
}

// shipGets ships Gets a read failed to do (w.mu not held).
func (w *Win) shipGets(t int, failed []laterGet) {
	for _, g := range failed {
		one := [1]rma.Piece{{Len: int64(len(g.dst))}}
		w.ship(t, &rma.Header{Kind: rma.KGet}, g.off, one[:], nil, true, false, g.dst, nil)
	}
}

// readGetsLocked is readGets' read (w.mu held); it returns the Gets to ship.
func (w *Win) readGetsLocked(t int) []laterGet {
	gs := w.gets[t]
	if len(gs) == 0 {
		return nil
	}
	p := &w.peers[t]
	dsts, addrs := w.vsrc[:0], w.vaddr[:0]
	for _, g := range gs {
		dsts = append(dsts, g.dst)
		addrs = append(addrs, p.addr+uint64(g.off))
	}
	err := w.sc.ReadVec(p.world, dsts, addrs)
	clear(dsts)
	w.vsrc, w.vaddr = dsts[:0], addrs[:0]
	if err != nil {
		p.single.Store(false)
		failed := append([]laterGet(nil), gs...)
		clear(gs)
		w.gets[t] = gs[:0]
		return failed
	}
	clear(gs) // the caller's buffers are not kept
	w.gets[t] = gs[:0]
	return nil
}
