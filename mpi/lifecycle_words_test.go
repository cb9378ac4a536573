package mpi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// callsOnWorld makes one call of each family on World, and of the calls that need MPI
// without a communicator, and returns their errors by name.
func callsOnWorld() map[string]error {
	w := mpi.World
	calls := map[string]error{}
	calls["Send"] = mpi.Send(w, []int{1}, 0, 0)
	_, calls["Recv"] = mpi.Recv(w, make([]int, 1), 0, 0)
	_, calls["Isend"] = mpi.Isend(w, []int{1}, 0, 0)
	_, calls["Irecv"] = mpi.Irecv(w, make([]int, 1), 0, 0)
	_, calls["Probe"] = w.Probe(0, 0)
	_, _, calls["Iprobe"] = w.Iprobe(0, 0)
	calls["Barrier"] = w.Barrier()
	calls["Bcast"] = mpi.Bcast(w, []int{1}, 0)
	calls["Allreduce"] = mpi.Allreduce(w, []int{1}, make([]int, 1), mpi.Sum)
	calls["Gather"] = mpi.Gather(w, []int{1}, make([]int, 1), 0)
	_, calls["Iallreduce"] = mpi.Iallreduce(w, []int{1}, make([]int, 1), mpi.Sum)
	_, calls["Ibarrier"] = w.Ibarrier()
	_, calls["Dup"] = w.Dup()
	_, _, calls["Idup"] = w.Idup()
	_, calls["DupWithInfo"] = w.DupWithInfo(nil)
	_, calls["Split"] = w.Split(0, 0)
	_, calls["Create"] = w.Create(nil)
	_, calls["CreateGroup"] = w.CreateGroup(mpi.GroupEmpty, 0)
	_, calls["CartCreate"] = w.CartCreate([]int{1}, []bool{false}, false)
	calls["SetName"] = w.SetName("x")
	calls["SetErrHandler"] = w.SetErrHandler(mpi.ErrorsReturn)
	calls["SetAttr"] = w.SetAttr(mpi.NewKeyval(nil, nil), 1)
	calls["DeleteAttr"] = w.DeleteAttr(mpi.NewKeyval(nil, nil))
	calls["SetInfo"] = w.SetInfo(nil)
	_, calls["Info"] = w.Info()
	_, calls["AllocMem"] = mpi.AllocMem(8, nil)
	calls["FreeMem"] = mpi.FreeMem(make([]byte, 8))
	_, calls["IsThreadMain"] = mpi.IsThreadMain()
	_, calls["IntercommCreate"] = mpi.IntercommCreate(w, 0, w, 0, 0)
	calls["Ssend"] = mpi.Ssend(w, []int{1}, 0, 0)
	calls["Bsend"] = mpi.Bsend(w, []int{1}, 0, 0)
	_, calls["Sendrecv"] = mpi.Sendrecv(w, []int{1}, 0, 0, make([]int, 1), 0, 0)
	_, calls["SendInit"] = mpi.SendInit(w, []int{1}, 0, 0)
	_, _, calls["Mprobe"] = w.Mprobe(0, 0)
	calls["BufferAttach"] = mpi.BufferAttach(make([]byte, 1<<16))
	_, calls["BufferDetach"] = mpi.BufferDetach()
	calls["Scan"] = mpi.Scan(w, []int{1}, make([]int, 1), mpi.Sum)
	calls["Alltoall"] = mpi.Alltoall(w, []int{1}, make([]int, 1))
	calls["ReduceScatterBlock"] = mpi.ReduceScatterBlock(w, []int{1}, make([]int, 1), mpi.Sum)
	calls["NeighborAllgather"] = mpi.NeighborAllgather(w, []int{1}, make([]int, 1))
	_, calls["Cartdim"] = w.Cartdim()
	_, calls["IntercommMerge"] = w.IntercommMerge(false)
	_, calls["SplitType"] = w.SplitType(mpi.SplitTypeShared, 0)
	return calls
}

// TestCallsSayWhyMPIIsNotRunning: before Init and after Finalize every call that needs
// MPI fails with an error of class MPI_ERR_OTHER saying which of the two it is
// ("MPI is not initialised yet", "MPI was finalised"), never a panic nor a wrong
// class (MPI 4.1 allows no such call; only those listed under "MPI Functionality that
// is Always Available" may be made at any time). World's Rank and Size are Undefined
// and 0 before Init.
func TestCallsSayWhyMPIIsNotRunning(t *testing.T) {
	mpitest.Run(t, 2, func(t *testing.T) {
		if r, s := mpi.World.Rank(), mpi.World.Size(); r != mpi.Undefined || s != 0 {
			t.Errorf("before Init: World rank %d size %d, want Undefined and 0", r, s)
		}
		if g := mpi.World.Group(); g != nil {
			t.Errorf("before Init: World.Group() = %v, want nil", g)
		}
		check := func(when, words string) {
			for name, err := range callsOnWorld() {
				if !errors.Is(err, mpi.ErrOther) || !strings.Contains(err.Error(), words) || !strings.Contains(err.Error(), name) {
					t.Errorf("%s %s: %v, want class ErrOther saying %q and naming the call", name, when, err, words)
				}
			}
		}
		check("before Init", "MPI is not initialised yet")
		must(t, mpi.Init())
		must(t, mpi.Finalize())
		check("after Finalize", "MPI was finalised")
	})
}
