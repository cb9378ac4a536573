package tcp_test

import (
	"errors"
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
