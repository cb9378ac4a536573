package self

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/mpigo/mpigo/internal/transport"
)

type collect struct {
	kinds []uint8
	data  [][]byte
}

func (c *collect) Packet(h *transport.Header, p []byte) {
	c.kinds = append(c.kinds, h.Kind)
	c.data = append(c.data, append([]byte(nil), p...))
}

func TestSelf(t *testing.T) {
	tr := New(3)
	if !tr.Reaches(3) || tr.Reaches(2) {
		t.Fatal("Reaches: want exactly rank 3")
	}
	if _, err := tr.Endpoint(2); err == nil {
		t.Fatal("Endpoint(2) of rank 3 succeeded")
	}
	ep, err := tr.Endpoint(3)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range [][]byte{nil, []byte("a"), bytes.Repeat([]byte("b"), 1000)} {
		if err := ep.Send(&transport.Header{Kind: uint8(i)}, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := ep.Send(&transport.Header{}, make([]byte, MaxPayload+1)); err == nil {
		t.Fatal("Send over MaxPayload succeeded")
	}
	var c collect
	if n := tr.Poll(&c); n != 3 || tr.Poll(&c) != 0 {
		t.Fatalf("Poll handed over %d packets, want 3 then none", n)
	}
	if c.kinds[0] != 0 || c.kinds[2] != 2 || string(c.data[1]) != "a" || len(c.data[2]) != 1000 {
		t.Fatalf("packets out of order or wrong: %v", c.kinds)
	}
	src := []byte("single copy")
	dst := make([]byte, len(src))
	if err := tr.ReadFrom(3, dst, uint64(uintptr(unsafe.Pointer(&src[0])))); err != nil || !bytes.Equal(dst, src) {
		t.Fatalf("ReadFrom: %v %q", err, dst)
	}
	if len(ep.Models()) == 0 || ep.MaxPayload() != MaxPayload || tr.Name() != "self" {
		t.Fatal("endpoint description")
	}
}

func TestNoAllocs(t *testing.T) {
	tr := New(0)
	ep, _ := tr.Endpoint(0)
	h, p := &transport.Header{}, make([]byte, 64)
	var c nop
	round := func() {
		ep.Send(h, p)
		tr.Poll(c)
	}
	round()
	if a := testing.AllocsPerRun(1000, round); a != 0 {
		t.Fatalf("%.1f allocations per packet, want 0", a)
	}
}

type nop struct{}

func (nop) Packet(*transport.Header, []byte) {}
