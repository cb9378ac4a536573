package tcp_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/transport"
	"github.com/mpigo/mpigo/internal/transport/tcp"
)

type handler struct{}

func (handler) Packet(h *transport.Header, payload []byte) {}

// The set-up a rank goes through: New, the fence, Start; then sends that retry on
// ErrWouldBlock while making progress.
func Example() {
	var client pm.Client // from the process manager
	t, err := tcp.New(client, tcp.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()
	if err := client.Fence(); err != nil { // publishes every rank's address and the secret
		log.Fatal(err)
	}
	if err := t.Start(); err != nil {
		log.Fatal(err)
	}
	e, err := t.Endpoint(1)
	if err != nil {
		log.Fatal(err)
	}
	h := transport.Header{Src: int32(client.Rank()), Tag: 7, Len: 5}
	for {
		err := e.Send(&h, []byte("hello"))
		if !errors.Is(err, transport.ErrWouldBlock) {
			break
		}
		t.Poll(handler{})
	}
}

// printer prints each packet's source (the receiver's index of its sender) and payload.
type printer struct{ n int }

func (p *printer) Packet(h *transport.Header, payload []byte) {
	fmt.Println(h.Src, string(payload))
	p.n++
}

// Two processes of different jobs (here, in one process) reach each other in open
// mode: each adds the other's card under an index of its own choosing.
func ExampleOpen() {
	a, err := tcp.Open(tcp.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	b, err := tcp.Open(tcp.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	// The cards travel by any means: over the jobs' own communicators, a port, a file.
	if err := a.Add(4, b.Card()); err != nil { // a knows b as peer 4
		log.Fatal(err)
	}
	if err := b.Add(9, a.Card()); err != nil { // b knows a as peer 9
		log.Fatal(err)
	}
	e, err := a.Endpoint(4)
	if err != nil {
		log.Fatal(err)
	}
	if err := e.Send(&transport.Header{Tag: 1}, []byte("hello from a")); err != nil {
		log.Fatal(err)
	}
	p := &printer{}
	for p.n == 0 {
		b.Poll(p)
	}
	a.Remove(4) // b sees the end of a's stream, and no failure
	// Output: 9 hello from a
}
