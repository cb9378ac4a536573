package p2p

import "testing"

// TestUnexpectedPoolBounded: once a flood of unexpected messages has been received,
// the receiver keeps at most poolClassBytes of buffers per size class and umsgKeep
// message records for reuse; the rest is left to the garbage collector. The bound is
// still enough for a steady stream: the class of the flood's largest messages is full.
func TestUnexpectedPoolBounded(t *testing.T) {
	net := newMemNet(2)
	es := net.engines(t, Options{})
	sizes := []int{8, 1000, 4096}
	const flood = 3 * 4000
	out := make([]byte, 4096)
	for i := range flood {
		out[0] = byte(i)
		if err := es[0].Send(Bytes(out[:sizes[i%3]]), 1, i%3, 0, Standard); err != nil {
			t.Fatal(err)
		}
	}
	// Messages between a pair arrive in order: once the last is in, all are unexpected.
	if err := es[0].Send(Bytes(out[:1]), 1, 99, 0, Standard); err != nil {
		t.Fatal(err)
	}
	if _, err := es[1].Recv(Bytes(out[:1]), 0, 99, 0); err != nil {
		t.Fatal(err)
	}
	n := 0
	for m := es[1].ctxq(0).unexp.head; m != nil; m = m.next {
		n++
	}
	if n != flood {
		t.Fatalf("%d messages wait unexpected, want %d", n, flood)
	}
	in := make([]byte, 4096)
	for i := range flood {
		st, err := es[1].Recv(Bytes(in), 0, i%3, 0)
		if err != nil || st.Count != int64(sizes[i%3]) || in[0] != byte(i) {
			t.Fatalf("message %d: %v, %d bytes, first byte %d; want %d bytes, first byte %d",
				i, err, st.Count, in[0], sizes[i%3], byte(i))
		}
	}
	p := &es[1].pool
	for c := range p.free {
		if kept := len(p.free[c]) << (c + poolMinShift); kept > poolClassBytes {
			t.Errorf("class of %d-byte buffers keeps %d bytes, want at most %d", 1<<(c+poolMinShift), kept, poolClassBytes)
		}
	}
	if c := poolClass(4096); len(p.free[c]) != poolKeep(c) {
		t.Errorf("class of 4096-byte buffers keeps %d buffers after the flood, want its bound %d", len(p.free[c]), poolKeep(c))
	}
	if got, max := p.kept(), len(sizes)*poolClassBytes; got > max {
		t.Errorf("pool keeps %d bytes, want at most %d", got, max)
	}
	if n := len(es[1].freeU); n > umsgKeep {
		t.Errorf("%d message records kept, want at most %d", n, umsgKeep)
	}
}
