package mpi_test

import (
	"fmt"
	"testing"
	"time"

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
	for _, tr := range []string{"self,shm,tcp", "self,tcp", "self,shm,tcp/nt"} {
		for _, proto := range []string{"auto", "eager", "pipeline", "get"} {
			if tr != "self,shm,tcp" && proto == "get" {
				continue // TCP has no single-copy path; nt is about eager copies
			}
			t.Run(fmt.Sprintf("%s/%s", tr, proto), func(t *testing.T) {
				set := map[string]string{"transports": tr, "p2p_protocol": proto}
				if tr == "self,shm,tcp/nt" {
					// Every shared-memory eager payload of 64 bytes or more by non-temporal stores.
					set["transports"], set["shm_nt_copy"], set["shm_nt_min"] = "self,shm,tcp", "on", "64"
				}
				mpitest.Job(t, mpitest.Options{N: 3, Settings: set}, exchangeMixed)
			})
		}
	}
}

// smallCollectives runs collectives whose blocking schedules send short messages
// (barrier, short allreduce, allgather and bcast), checking their results.
func smallCollectives(t *testing.T) {
	must(t, mpi.Init())
	w := mpi.World
	rank, size := w.Rank(), w.Size()
	for it := 0; it < 3; it++ {
		must(t, w.Barrier())
		sum := make([]int64, 4)
		must(t, mpi.Allreduce(w, []int64{int64(rank), 1, int64(it), -int64(rank)}, sum, mpi.Sum))
		want := []int64{int64(size * (size - 1) / 2), int64(size), int64(size * it), -int64(size * (size - 1) / 2)}
		for i := range sum {
			if sum[i] != want[i] {
				t.Fatalf("Allreduce: element %d is %d, want %d", i, sum[i], want[i])
			}
		}
		all := make([]int32, size)
		must(t, mpi.Allgather(w, []int32{int32(10*rank + it)}, all))
		for r, v := range all {
			if v != int32(10*r+it) {
				t.Fatalf("Allgather: slot %d is %d, want %d", r, v, 10*r+it)
			}
		}
		b := []byte{0, 0, 0}
		if rank == it%size {
			b = []byte{1, 2, byte(it)}
		}
		must(t, mpi.Bcast(w, b, it%size))
		if b[0] != 1 || b[1] != 2 || b[2] != byte(it) {
			t.Fatalf("Bcast from %d: got %v", it%size, b)
		}
	}
	must(t, mpi.Finalize())
}

// TestCollectivesUnderForcedRendezvous: with a rendezvous protocol forced for every
// size (or an eager limit below the collectives' short messages), a blocking send of a
// short message waits for its receiver, so the schedules must not use them where every
// rank sends before it receives. The node's shared-memory collectives are off, so that
// the point-to-point schedules run.
func TestCollectivesUnderForcedRendezvous(t *testing.T) {
	for _, set := range []map[string]string{
		{"p2p_protocol": "pipeline"},
		{"p2p_protocol": "get"},
		{"eager_limit": "1"},
		{"p2p_protocol": "pipeline", "transports": "self,tcp"},
	} {
		set["coll_shm"] = "off"
		t.Run(fmt.Sprint(set), func(t *testing.T) {
			mpitest.Job(t, mpitest.Options{N: 4, Settings: set, Timeout: 30 * time.Second}, smallCollectives)
		})
	}
}
