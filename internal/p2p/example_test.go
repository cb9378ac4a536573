package p2p_test

import (
	"fmt"

	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/transport"
	"github.com/mpigo/mpigo/internal/transport/self"
)

// A one-rank job sends itself a message: the engine routes rank 0 to the self
// transport, matches by (context, source, tag) and copies the payload once.
func Example() {
	e, err := p2p.New(0, 1, []transport.Transport{self.New(0)}, p2p.Options{})
	if err != nil {
		panic(err)
	}
	defer e.Close()
	q, _ := e.Isend(p2p.Bytes([]byte("hello")), 0, 7, 0, p2p.Standard)
	buf := make([]byte, 16)
	st, _ := e.Recv(p2p.Bytes(buf), p2p.AnySource, p2p.AnyTag, 0)
	e.Wait(&q)
	fmt.Printf("%q from rank %d, tag %d\n", buf[:st.Count], st.Source, st.Tag)
	// Output: "hello" from rank 0, tag 7
}

// Select shows the protocol a transport's cost models give each message size.
func ExampleSelect() {
	models := []transport.Model{
		{Protocol: transport.Eager, MaxSize: 4096, Fixed: 250, Bandwidth: 6e9},
		{Protocol: transport.Pipeline, Fixed: 1000, Bandwidth: 12e9},
		{Protocol: transport.Get, Fixed: 1300, Bandwidth: 18e9},
	}
	t := p2p.Select(models, 64<<10, true, "auto", 0)
	t.Peer, t.Transport = 1, "shm"
	fmt.Print(t)
	// Output:
	// rank 1 via shm (max payload 64K, single copy yes):
	//            0 .. 4K         eager     250ns + n / 6.0 GB/s
	//         4097 .. 10800      pipeline  1µs + n / 12.0 GB/s
	//        10801 .. inf        get       1.3µs + n / 18.0 GB/s
}
