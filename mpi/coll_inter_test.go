package mpi_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// interJob runs body on 5 ranks split into an intercommunicator: side A is world ranks
// 0,1 (local ranks 0,1), side B world ranks 2,3,4 (local ranks 0,1,2).
func interJob(t *testing.T, body func(t *testing.T, ic *mpi.Comm, side int)) {
	job(t, 5, func(t *testing.T, rank, size int) {
		side := 0
		if rank >= 2 {
			side = 1
		}
		local, err := mpi.World.Split(side, rank)
		must(t, err)
		ic, err := mpi.IntercommCreate(local, 0, mpi.World, map[int]int{0: 2, 1: 0}[side], 7)
		must(t, err)
		body(t, ic, side)
	})
}

// val is the test datum of local rank r of side s.
func val(s, r int) float64 { return float64(10*(s+1) + r) }

func TestInterBarrierBcast(t *testing.T) {
	interJob(t, func(t *testing.T, ic *mpi.Comm, side int) {
		must(t, ic.Barrier())
		// Root in A (local rank 1) broadcasts to B.
		buf := []int32{0, 0, 0}
		root := 1
		switch {
		case side == 0 && ic.Rank() == 1:
			buf = []int32{7, 8, 9}
			root = mpi.Root
		case side == 0:
			root = mpi.ProcNull
		}
		must(t, mpi.Bcast(ic, buf, root))
		want := []int32{7, 8, 9}
		if side == 0 && ic.Rank() == 0 {
			want = []int32{0, 0, 0} // ProcNull: untouched
		}
		if !slices.Equal(buf, want) {
			t.Errorf("side %d rank %d: Bcast from A got %v, want %v", side, ic.Rank(), buf, want)
		}
		// Root in B (local rank 2) broadcasts to A.
		b2 := []float64{-1}
		root = 2
		if side == 1 {
			root = mpi.ProcNull
			if ic.Rank() == 2 {
				root, b2[0] = mpi.Root, 3.5
			}
		}
		must(t, mpi.Bcast(ic, b2, root))
		if side == 0 && b2[0] != 3.5 {
			t.Errorf("A rank %d: Bcast from B got %v", ic.Rank(), b2[0])
		}
		must(t, ic.Barrier())
	})
}

func TestInterReduceAllreduce(t *testing.T) {
	interJob(t, func(t *testing.T, ic *mpi.Comm, side int) {
		me := val(side, ic.Rank())
		// Reduce to root 0 of B from A's data: 10 + 11.
		send := []float64{me, 2 * me}
		recv := []float64{0, 0}
		root := 0
		if side == 1 {
			root = mpi.ProcNull
			if ic.Rank() == 0 {
				root = mpi.Root
			}
		}
		must(t, mpi.Reduce(ic, send, recv, mpi.Sum, root))
		if side == 1 && ic.Rank() == 0 && !slices.Equal(recv, []float64{21, 42}) {
			t.Errorf("Reduce into B's root: %v, want [21 42]", recv)
		}
		// Reduce to root 1 of A from B's data: max of 20,21,22.
		mx := []int{0}
		root = 1
		if side == 0 {
			root = mpi.ProcNull
			if ic.Rank() == 1 {
				root = mpi.Root
			}
		}
		must(t, mpi.Reduce(ic, []int{int(me)}, mx, mpi.Max, root))
		if side == 0 && ic.Rank() == 1 && mx[0] != 22 {
			t.Errorf("Reduce into A's root: %v, want 22", mx[0])
		}
		// Allreduce: A gets B's sum 20+21+22 = 63, B gets A's 10+11 = 21.
		out := []float64{0, 0}
		must(t, mpi.Allreduce(ic, []float64{me, 1}, out, mpi.Sum))
		want := []float64{63, 3}
		if side == 1 {
			want = []float64{21, 2}
		}
		if !slices.Equal(out, want) {
			t.Errorf("side %d rank %d: Allreduce %v, want %v", side, ic.Rank(), out, want)
		}
	})
}

func TestInterGatherScatter(t *testing.T) {
	interJob(t, func(t *testing.T, ic *mpi.Comm, side int) {
		me := val(side, ic.Rank())
		// Gather B's pairs at A's rank 0.
		recv := make([]float64, 6)
		root := 0
		if side == 0 {
			root = mpi.ProcNull
			if ic.Rank() == 0 {
				root = mpi.Root
			}
		}
		must(t, mpi.Gather(ic, []float64{me, -me}, recv, root))
		if side == 0 && ic.Rank() == 0 && !slices.Equal(recv, []float64{20, -20, 21, -21, 22, -22}) {
			t.Errorf("Gather at A's root: %v", recv)
		}
		// Gather A's values at B's rank 2.
		r2 := make([]float64, 2)
		root = 2
		if side == 1 {
			root = mpi.ProcNull
			if ic.Rank() == 2 {
				root = mpi.Root
			}
		}
		must(t, mpi.Gather(ic, []float64{me}, r2, root))
		if side == 1 && ic.Rank() == 2 && !slices.Equal(r2, []float64{10, 11}) {
			t.Errorf("Gather at B's root: %v", r2)
		}
		// Scatter from B's rank 1 to A: A's rank i gets {i, 100+i}.
		got := []int{-1, -1}
		root = 1
		var send []int
		if side == 1 {
			root = mpi.ProcNull
			if ic.Rank() == 1 {
				root, send = mpi.Root, []int{0, 100, 1, 101}
			}
		}
		must(t, mpi.Scatter(ic, send, got, root))
		if side == 0 && !slices.Equal(got, []int{ic.Rank(), 100 + ic.Rank()}) {
			t.Errorf("A rank %d: Scatter got %v", ic.Rank(), got)
		}
		// Scatter from A's rank 0 to B: B's rank i gets 5*i.
		g1 := []int{-1}
		root, send = 0, nil
		if side == 0 {
			root = mpi.ProcNull
			if ic.Rank() == 0 {
				root, send = mpi.Root, []int{0, 5, 10}
			}
		}
		must(t, mpi.Scatter(ic, send, g1, root))
		if side == 1 && g1[0] != 5*ic.Rank() {
			t.Errorf("B rank %d: Scatter got %v", ic.Rank(), g1)
		}
	})
}

func TestInterAllgatherAlltoall(t *testing.T) {
	interJob(t, func(t *testing.T, ic *mpi.Comm, side int) {
		me := val(side, ic.Rank())
		remote := ic.RemoteSize()
		// Allgather: each side gets the other's values in rank order.
		recv := make([]float64, remote)
		must(t, mpi.Allgather(ic, []float64{me}, recv))
		want := []float64{20, 21, 22}
		if side == 1 {
			want = []float64{10, 11}
		}
		if !slices.Equal(recv, want) {
			t.Errorf("side %d rank %d: Allgather %v, want %v", side, ic.Rank(), recv, want)
		}
		// Alltoall: block j goes to remote rank j; value 100*side + 10*me + j.
		send := make([]int, 2*remote)
		for j := range remote {
			send[2*j], send[2*j+1] = 1000*side+10*ic.Rank()+j, -1
		}
		got := make([]int, 2*remote)
		must(t, mpi.Alltoall(ic, send, got))
		for j := range remote {
			w := 1000*(1-side) + 10*j + ic.Rank()
			if got[2*j] != w || got[2*j+1] != -1 {
				t.Errorf("side %d rank %d: Alltoall block %d = %v, want [%d -1]", side, ic.Rank(), j, got[2*j:2*j+2], w)
			}
		}
	})
}

func TestInterCollErrors(t *testing.T) {
	interJob(t, func(t *testing.T, ic *mpi.Comm, side int) {
		buf := []int{1}
		// A root outside the remote group, and a negative one that is neither Root nor ProcNull.
		for _, root := range []int{ic.RemoteSize(), -7} {
			if err := mpi.Bcast(ic, buf, root); !errors.Is(err, mpi.ErrRoot) {
				t.Errorf("Bcast root %d: %v, want ErrRoot", root, err)
			}
			if err := mpi.Reduce(ic, buf, buf, mpi.Sum, root); !errors.Is(err, mpi.ErrRoot) {
				t.Errorf("Reduce root %d: %v, want ErrRoot", root, err)
			}
			if err := mpi.Gather(ic, buf, buf, root); !errors.Is(err, mpi.ErrRoot) {
				t.Errorf("Gather root %d: %v, want ErrRoot", root, err)
			}
		}
		if err := mpi.Allreduce(ic, mpi.InPlace[int](), buf, mpi.Sum); !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("Allreduce in place: %v, want ErrBuffer", err)
		}
		if err := mpi.Allgather(ic, buf, make([]int, ic.RemoteSize()+1)); !errors.Is(err, mpi.ErrCount) {
			t.Errorf("Allgather with a bad recv: %v, want ErrCount", err)
		}
		if err := mpi.Allreduce(ic, []bool{true}, []bool{false}, mpi.Sum); !errors.Is(err, mpi.ErrOp) {
			t.Errorf("Allreduce Sum on bool: %v, want ErrOp", err)
		}
		// Scan and Exscan are not defined on intercommunicators.
		if err := mpi.Scan(ic, buf, make([]int, 1), mpi.Sum); !errors.Is(err, mpi.ErrComm) || !strings.Contains(err.Error(), "not defined on intercommunicators") {
			t.Errorf("Scan on an intercommunicator: %v, want ErrComm", err)
		}
		if err := mpi.Exscan(ic, buf, make([]int, 1), mpi.Sum); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("Exscan on an intercommunicator: %v, want ErrComm", err)
		}
		if _, err := mpi.Iscan(ic, buf, make([]int, 1), mpi.Sum); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("Iscan on an intercommunicator: %v, want ErrComm", err)
		}
		// The refusals above left the intercommunicator usable.
		out := []int{0}
		must(t, mpi.Allreduce(ic, []int{1}, out, mpi.Sum))
		if out[0] != ic.RemoteSize() {
			t.Errorf("Allreduce after errors: %d, want %d", out[0], ic.RemoteSize())
		}
	})
}

// TestInterCollCheck runs with coll_check on: mismatched root conventions, lengths and
// collectives across the two groups give every process an error instead of a hang.
func TestInterCollCheck(t *testing.T) {
	mpitest.Job(t, mpitest.Options{N: 5, Settings: map[string]string{"coll_check": "true"}}, interCheckBody)
}

func interCheckBody(t *testing.T) {
	chk(t, "Init", mpi.Init())
	rank := mpi.World.Rank()
	side := 0
	if rank >= 2 {
		side = 1
	}
	local, err := mpi.World.Split(side, rank)
	chk(t, "Split", err)
	ic, err := mpi.IntercommCreate(local, 0, mpi.World, map[int]int{0: 2, 1: 0}[side], 7)
	chk(t, "IntercommCreate", err)
	r := ic.Rank()
	buf := []int32{1, 2}
	// Matching calls pass.
	root := 0
	if side == 0 {
		root = map[bool]int{true: mpi.Root, false: mpi.ProcNull}[r == 0]
	}
	chk(t, "Bcast", mpi.Bcast(ic, buf, root))
	// Both groups name a remote root: nobody holds it.
	if err := mpi.Bcast(ic, buf, 0); !errors.Is(err, mpi.ErrRoot) || !strings.Contains(err.Error(), "coll_check") {
		t.Errorf("side %d rank %d: no root: %v", side, r, err)
	}
	// Two Roots in A.
	root = 0
	if side == 0 {
		root = mpi.Root
	}
	if err := mpi.Bcast(ic, buf, root); !errors.Is(err, mpi.ErrRoot) {
		t.Errorf("side %d rank %d: two roots: %v", side, r, err)
	}
	// B names rank 1 of A but the Root is A's rank 0.
	root = 1
	if side == 0 {
		root = map[bool]int{true: mpi.Root, false: mpi.ProcNull}[r == 0]
	}
	if err := mpi.Reduce(ic, buf, buf, mpi.Sum, root); !errors.Is(err, mpi.ErrRoot) {
		t.Errorf("side %d rank %d: wrong root named: %v", side, r, err)
	}
	// Lengths that do not match across the groups.
	if err := mpi.Allgather(ic, make([]int32, 1+side), make([]int32, 3*ic.RemoteSize())); !errors.Is(err, mpi.ErrCount) {
		t.Errorf("side %d rank %d: Allgather lengths: %v", side, r, err)
	}
	// Different collectives.
	if side == 0 {
		err = ic.Barrier()
	} else {
		err = mpi.Allreduce(ic, buf, make([]int32, 2), mpi.Sum)
	}
	if err == nil || !strings.Contains(err.Error(), "called") {
		t.Errorf("side %d rank %d: mismatched collectives: %v", side, r, err)
	}
	chk(t, "Barrier", ic.Barrier())
	chk(t, "Finalize", mpi.Finalize())
}
