package mpi_test

import (
	"fmt"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// exchangeMixed has every pair of ranks exchange messages of mixed sizes in both
// directions with Isend/Irecv and checks every byte and the order.
func exchangeMixed(t *testing.T) {
	must(t, mpi.Init())
	rank, size := mpi.World.Rank(), mpi.World.Size()
	sizes := []int{0, 1, 8, 100, 4096, 4097, 65536, 300000, 2 << 20}
	for peer := 0; peer < size; peer++ {
		if peer == rank {
			continue
		}
		var reqs []mpi.Request
		ins := make([][]byte, len(sizes))
		for i, n := range sizes {
			out := make([]byte, n)
			for k := range out {
				out[k] = byte(rank*31 + i*7 + k)
			}
			ins[i] = make([]byte, n)
			r, err := mpi.Irecv(mpi.World, ins[i], peer, 3)
			must(t, err)
			s, err := mpi.Isend(mpi.World, out, peer, 3)
			must(t, err)
			reqs = append(reqs, r, s)
		}
		sts := make([]mpi.Status, len(reqs))
		must(t, mpi.Waitall(reqs, sts))
		for i, n := range sizes {
			if int(sts[2*i].Bytes()) != n {
				t.Fatalf("from %d message %d: %d bytes, want %d", peer, i, sts[2*i].Bytes(), n)
			}
			for k := 0; k < n; k++ {
				if ins[i][k] != byte(peer*31+i*7+k) {
					t.Fatalf("from %d message %d byte %d wrong", peer, i, k)
				}
			}
		}
	}
	must(t, mpi.World.Barrier())
	must(t, mpi.Finalize())
}

func TestEveryTransportAndProtocol(t *testing.T) {
	for _, tr := range []string{"self,shm,tcp", "self,tcp"} {
		for _, proto := range []string{"auto", "eager", "pipeline", "get"} {
			if tr == "self,tcp" && proto == "get" {
				continue // TCP has no single-copy path
			}
			t.Run(fmt.Sprintf("%s/%s", tr, proto), func(t *testing.T) {
				res := mpitest.Launch(t, mpitest.Options{N: 3, Settings: map[string]string{
					"transports": tr, "p2p_protocol": proto}}, exchangeMixed)
				if mpitest.IsRank(t) {
					return
				}
				if res.Code != 0 {
					t.Fatalf("exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
				}
			})
		}
	}
}
