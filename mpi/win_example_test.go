package mpi_test

import (
	"fmt"

	"github.com/mpigo/mpigo/mpi"
)

// Fence-synchronised puts (the standard's Example 12.12 pattern): every rank writes
// its rank into its right neighbour's window between two fences, then reads what its
// left neighbour wrote. Run it in a job; rank 0 prints.
func ExampleWin_Fence() {
	if err := mpi.Init(); err != nil {
		panic(err)
	}
	defer mpi.Finalize()
	rank, size := mpi.World.Rank(), mpi.World.Size()
	w, mem, err := mpi.WinAllocate(8, 8, nil, mpi.World)
	if err != nil {
		panic(err)
	}
	defer w.Free()
	w.Fence(mpi.ModeNoPrecede)
	if err := mpi.Put(w, []int64{int64(rank)}, (rank+1)%size, 0); err != nil {
		panic(err)
	}
	w.Fence(mpi.ModeNoSucceed)
	if rank == 0 {
		fmt.Println("rank 0 got", mem[0], "from its left neighbour")
	}
}

// Generalised active target (post/start/complete/wait, as in the standard's Example
// 12.17): rank 0 exposes its window to every other rank, each of which adds its rank
// into it; rank 0 prints the sum once Wait returns.
func ExampleWin_Start() {
	if err := mpi.Init(); err != nil {
		panic(err)
	}
	defer mpi.Finalize()
	rank := mpi.World.Rank()
	w, _, err := mpi.WinAllocate(8, 8, nil, mpi.World)
	if err != nil {
		panic(err)
	}
	defer w.Free()
	world := mpi.World.Group()
	if rank == 0 {
		others, _ := world.Excl([]int{0})
		w.Post(others, 0)
		w.Wait()
		sum := make([]int64, 1)
		w.Lock(mpi.LockShared, 0, 0)
		mpi.Get(w, sum, 0, 0)
		w.Unlock(0)
		fmt.Println("sum of the other ranks:", sum[0])
		return
	}
	zero, _ := world.Incl([]int{0})
	w.Start(zero, 0)
	mpi.Accumulate(w, []int64{int64(rank)}, 0, 0, mpi.Sum)
	w.Complete()
}

// Passive target (the standard's lock examples): every rank takes a ticket from a
// counter at rank 0 with FetchAndOp inside a shared lock, while rank 0 does nothing
// for it; rank 0 prints how many tickets went out.
func ExampleWin_Lock() {
	if err := mpi.Init(); err != nil {
		panic(err)
	}
	defer mpi.Finalize()
	w, _, err := mpi.WinAllocate(8, 8, nil, mpi.World)
	if err != nil {
		panic(err)
	}
	defer w.Free()
	w.Lock(mpi.LockShared, 0, 0)
	if _, err := mpi.FetchAndOp(w, int64(1), 0, 0, mpi.Sum); err != nil {
		panic(err)
	}
	w.Unlock(0)
	mpi.World.Barrier()
	if mpi.World.Rank() == 0 {
		n := make([]int64, 1)
		w.Lock(mpi.LockExclusive, 0, 0)
		mpi.Get(w, n, 0, 0)
		w.Unlock(0)
		fmt.Println("tickets given:", n[0])
	}
}
