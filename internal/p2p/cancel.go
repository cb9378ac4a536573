package p2p

import "github.com/mpigo/mpigo/internal/transport"

// Cancel marks a pending request for cancellation (MPI_Cancel, MPI 4.1 §3.8.4). It is
// local: it returns at once, and the request is then completed (Wait, Test, Free) as
// usual, with Status.Cancelled where the cancellation succeeded.
//
//   - A receive that has not matched is taken off its queue and completes at once,
//     cancelled.
//   - A send still queued behind earlier sends to its peer never left: the same.
//   - A send whose first packet has left but which the receiver cannot have taken
//     without answering (a synchronous eager message, which waits for its ack, or a
//     request to send, which waits for cts or fin) asks the receiver: a cancel packet
//     names the message, and the receiver takes it off its unexpected queue if it is
//     still there, answering cancelled (the send then completes cancelled: no part of
//     the message is ever received) or not (it had matched, and the send completes as
//     it would have). The Wait after Cancel so depends on the receiver's engine making
//     progress, as every completion of a rendezvous does.
//   - Anything else has completed or is too far along (its data on the way to a
//     matched receive) and completes normally: a standard eager send completes when
//     its packet leaves, so it is never cancelled.
//
// Either the cancellation succeeds or the operation completes, never both.
func (e *Engine) Cancel(q *Request) error { return e.cancel(q, true) }

// Withdraw is Cancel without asking a receiver: a send whose message has left
// completes normally, its message delivered when a receive takes it. It is for
// mpigo's own calls that give up on a send and promise that much (a context view's
// send whose context ended, a neighbourhood collective's error path).
func (e *Engine) Withdraw(q *Request) error { return e.cancel(q, false) }

func (e *Engine) cancel(q *Request, ask bool) error {
	r := q.r
	if r == nil {
		return nil
	}
	if q.Stale() {
		return usedUp("Cancel")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !r.started || r.done.Load() != 0 {
		return nil
	}
	switch {
	case (r.kind == recvReq && !r.matched && r.list != nil) ||
		(r.kind == sendReq && r.list != nil && r.list == &e.peers[r.peer].sendq):
		r.list.remove(r)
		e.cancelled(r)
	case ask && r.kind == sendReq && r.list == nil && !r.cancelling && (r.proto != transport.Eager || r.mode == Synchronous):
		r.cancelling = true
		e.queueCtrlHdr(r.peer, transport.Header{Kind: kindCancel, Context: r.ctx, SendID: r.cookie()})
	}
	return nil
}

// cancelled completes r, off every list, as cancelled.
func (e *Engine) cancelled(r *request) {
	r.st = Status{Source: int(r.peer), Tag: int(r.tag), Cancelled: true}
	e.complete(r)
}

// onCancel: the sender of a message asks to cancel it. It goes if it still waits
// unmatched; the answer says whether it went.
func (e *Engine) onCancel(hd *transport.Header) {
	var flags uint8
	if m := e.unmatched(e.ctxq(hd.Context), hd.Src, hd.SendID); m != nil {
		e.take(e.ctxq(hd.Context), m)
		e.freeUmsg(m)
		flags = flagCancelled
	}
	e.queueCtrlHdr(hd.Src, transport.Header{Kind: kindCancelled, Flags: flags, SendID: hd.SendID})
}

// unmatched finds the message from src named sendID among q's unexpected ones. A
// message that carries no name (a standard eager one: 0) is never found.
func (e *Engine) unmatched(q *ctxq, src int32, sendID uint64) *umsg {
	if sendID == 0 || int(src) >= len(q.uSrc) {
		return nil
	}
	for m := q.uSrc[src].head; m != nil; m = m.snext {
		if m.sendID == sendID {
			return m
		}
	}
	return nil
}

// onCancelled: the receiver's answer to a cancel. Only a removed message needs
// anything done: no ack, cts or fin will come for it. Otherwise the send completes by
// the packets that do come (the ack or fin was sent before this answer).
func (e *Engine) onCancelled(hd *transport.Header) {
	if hd.Flags&flagCancelled == 0 {
		return
	}
	r := e.lookup(hd.SendID, sendReq)
	if r == nil || !r.cancelling {
		return
	}
	if r.list != nil {
		r.list.remove(r)
	}
	e.cancelled(r)
}
