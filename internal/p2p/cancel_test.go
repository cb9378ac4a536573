package p2p

import (
	"bytes"
	"testing"
)

// TestCancelSend cancels sends whose first packet has left, by every protocol: an
// unmatched one is cancelled and never received (the next receive takes the message
// sent after it); one already matched completes normally, its data delivered; a
// standard eager one has completed when its packet left and is not cancelled; one
// withdrawn (Withdraw: not asked about) is delivered.
func TestCancelSend(t *testing.T) {
	for _, proto := range protocols {
		for _, mode := range []Mode{Standard, Synchronous} {
			t.Run(proto+"/"+[]string{"standard", "sync"}[min(int(mode), 1)], func(t *testing.T) {
				net := newMemNet(2)
				es := net.engines(t, Options{Protocol: proto})
				n := 64
				if proto != "eager" && proto != "auto" {
					n = 64 << 10
				}
				gone, kept := bytes.Repeat([]byte{'x'}, n), bytes.Repeat([]byte{'k'}, n)
				s, err := es[0].Isend(Bytes(gone), 1, 7, 0, mode)
				mustOK(t, err)
				drive(t, es, func() bool { return es[1].ctxq(0).ow.queued == 1 })
				mustOK(t, es[0].Cancel(&s))
				mustOK(t, es[0].Cancel(&s)) // a second mark changes nothing
				drive(t, es, func() bool { return s.r.done.Load() != 0 })
				st, err := es[0].Wait(&s)
				mustOK(t, err)
				eagerStd := mode == Standard && (proto == "eager" || proto == "auto")
				if st.Cancelled == eagerStd {
					t.Fatalf("cancelled %v, want %v (status %+v)", st.Cancelled, !eagerStd, st)
				}
				k, err := es[0].Isend(Bytes(kept), 1, 7, 0, Standard)
				mustOK(t, err)
				in := make([]byte, n)
				q, err := es[1].Irecv(Bytes(in), 0, 7, 0)
				mustOK(t, err)
				driveAll(t, es, []Request{q})
				_, err = es[1].Wait(&q)
				mustOK(t, err)
				want := kept
				if eagerStd {
					want = gone
				}
				if !bytes.Equal(in, want) {
					t.Fatalf("received %q..., want %q...", in[:1], want[:1])
				}
				if eagerStd {
					_, err = es[1].Recv(Bytes(in), 0, 7, 0)
					mustOK(t, err)
				}
				driveAll(t, es, []Request{k})
				_, err = es[0].Wait(&k)
				mustOK(t, err)
				if got := es[1].ctxq(0).ow.queued; got != 0 {
					t.Fatalf("%d messages left unexpected", got)
				}

				// Matched before the cancel arrives: completes normally.
				q, err = es[1].Irecv(Bytes(in), 0, 8, 0)
				mustOK(t, err)
				s, err = es[0].Isend(Bytes(gone), 1, 8, 0, mode)
				mustOK(t, err)
				drive(t, es, func() bool { return es[1].ctxq(0).ow.posted == 0 })
				mustOK(t, es[0].Cancel(&s))
				driveAll(t, es, []Request{s, q})
				if st, err = es[0].Wait(&s); err != nil || st.Cancelled {
					t.Fatalf("matched send: %+v %v", st, err)
				}
				if _, err = es[1].Wait(&q); err != nil || !bytes.Equal(in, gone) {
					t.Fatalf("matched receive: %v, data %q...", err, in[:1])
				}

				// Withdrawn, not asked about: delivered when a receive takes it.
				s, err = es[0].Isend(Bytes(gone), 1, 9, 0, mode)
				mustOK(t, err)
				drive(t, es, func() bool { return es[1].ctxq(0).ow.queued == 1 })
				mustOK(t, es[0].Withdraw(&s))
				clear(in)
				q, err = es[1].Irecv(Bytes(in), 0, 9, 0)
				mustOK(t, err)
				driveAll(t, es, []Request{s, q})
				if st, err = es[0].Wait(&s); err != nil || st.Cancelled {
					t.Fatalf("withdrawn send: %+v %v", st, err)
				}
				if _, err = es[1].Wait(&q); err != nil || !bytes.Equal(in, gone) {
					t.Fatalf("withdrawn send's receive: %v, data %q...", err, in[:1])
				}
			})
		}
	}
}
