// Spawn measures dynamic processes by the method of ../shared/anchors/spawn.c, whose
// header is the contract: run on one rank, it spawns copies of itself. Keys:
// spawn1_cycle and spawn4_cycle (ms, the median of 10 times the scale, at least 3):
// CommSpawn of 1 or 4 children from Self, IntercommMerge, one Allreduce over the
// merged communicator, Free of it and Disconnect of the intercommunicator. Each child
// joins the Allreduce with its rank in the merged communicator; the parent checks the
// sum and aborts the job if it is wrong.
//
//	mpigo run -n 1 ./bench/spawn [scale]
package main

import (
	"os"
	"strconv"

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

func must(err error) {
	if err != nil {
		osu.Die("spawn: %v", err)
	}
}

// cycle is one spawn, merge, Allreduce and disconnect of n children, in seconds.
func cycle(self string, n int) float64 {
	t0 := mpi.Wtime()
	inter, _, err := mpi.CommSpawn(self, []string{"child", strconv.Itoa(n)}, n, nil, 0, mpi.Self)
	must(err)
	merged, err := inter.IntercommMerge(false)
	must(err)
	sum := []int32{0}
	must(mpi.Allreduce(merged, []int32{0}, sum, mpi.Sum))
	must(merged.Free())
	must(inter.Disconnect())
	t := mpi.Wtime() - t0
	if want := int32(n * (n + 1) / 2); sum[0] != want {
		osu.Die("spawn: the sum is %d, want %d", sum[0], want)
	}
	return t
}

// child joins its parent's Allreduce with its rank in the merged communicator.
func child(parent *mpi.Comm) {
	merged, err := parent.IntercommMerge(true)
	must(err)
	r := []int32{int32(merged.Rank())}
	must(mpi.Allreduce(merged, r, []int32{0}, mpi.Sum))
	must(merged.Free())
	must(parent.Disconnect())
}

func main() {
	must(mpi.Init())
	if p := mpi.CommGetParent(); p != nil {
		child(p)
		must(mpi.Finalize())
		return
	}
	self, err := os.Executable()
	must(err)
	reps := min(max(osu.Scaled(10, osu.Scale()), 3), 64)
	cycle(self, 1) // warm-up
	for _, n := range []int{1, 4} {
		t := make([]float64, reps)
		for i := range t {
			t[i] = cycle(self, n)
		}
		osu.Result("spawn", "spawn"+strconv.Itoa(n)+"_cycle", osu.Median(t)*1e3, 3, "ms")
	}
	must(mpi.Finalize())
}
