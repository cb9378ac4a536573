package topo_test

import (
	"fmt"
	"os"

	"github.com/mpigo/mpigo/internal/topo"
)

// Two ranks compare the CPUs they may run on, as each learns the other's in the
// wire-up, to choose how to exchange large messages.
func ExampleTopology_Locality() {
	// A two-socket machine with two hardware threads per core (a test fixture; a
	// rank would use topo.Machine()).
	m := topo.LoadFS(os.DirFS("testdata/twosocket"))
	fmt.Println(m.Summary())

	mine := m.CoreFor(0)
	wire, _ := mine.MarshalBinary() // what travels under pm.KeyTopo
	var peer topo.CPUSet
	peer.UnmarshalBinary(wire)
	fmt.Println(mine, len(wire), "bytes:", m.Locality(mine, peer))

	fmt.Println(m.Locality(m.CoreFor(0), m.CoreFor(1)))
	fmt.Println(m.Locality(m.CoreFor(0), m.CoreFor(2)))
	// Output:
	// 8 CPUs, 4 cores, 2 sockets, 2 NUMA nodes
	// 0,4 5 bytes: same-core
	// same-l3
	// other-socket
}
