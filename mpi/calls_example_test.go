package mpi_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// The Examples of the main calls. Like the other Examples that start MPI, they have
// no Output line (go test runs Examples in its own process, where MPI could start only
// once): TestCallExamplesInJobs runs each as a job of one rank and of several, and
// checks what rank 0 prints.

// Send and Recv: every rank sends its rank to rank 0, which receives them in rank
// order. Typed operations are package functions over slices of any element type.
func ExampleSend() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	rank, size := mpi.World.Rank(), mpi.World.Size()
	if rank != 0 {
		if err := mpi.Send(mpi.World, []int{rank}, 0, 0); err != nil {
			fmt.Println(err)
		}
		return
	}
	sum := 0
	buf := make([]int, 1)
	for r := 1; r < size; r++ {
		if _, err := mpi.Recv(mpi.World, buf, r, 0); err != nil {
			fmt.Println(err)
			return
		}
		sum += buf[0]
	}
	fmt.Println("sum of the other ranks:", sum)
}

// Isend, Irecv and Waitall: each rank swaps values with both neighbours of a ring at
// once; nothing waits until Waitall, so no order of calls can deadlock.
func ExampleWaitall() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	rank, size := mpi.World.Rank(), mpi.World.Size()
	left, right := (rank+size-1)%size, (rank+1)%size
	fromLeft, fromRight := make([]float64, 1), make([]float64, 1)
	reqs := make([]mpi.Request, 4)
	var err error
	reqs[0], err = mpi.Irecv(mpi.World, fromLeft, left, 0)
	if err == nil {
		reqs[1], err = mpi.Irecv(mpi.World, fromRight, right, 1)
	}
	if err == nil {
		reqs[2], err = mpi.Isend(mpi.World, []float64{float64(rank)}, right, 0)
	}
	if err == nil {
		reqs[3], err = mpi.Isend(mpi.World, []float64{float64(rank)}, left, 1)
	}
	if err == nil {
		err = mpi.Waitall(reqs, nil)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	if rank == 0 {
		fmt.Println("rank 0's neighbours:", fromLeft[0], fromRight[0])
	}
}

// Bcast: the last rank's settings reach every rank.
func ExampleBcast() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	settings := make([]float64, 3)
	root := mpi.World.Size() - 1
	if mpi.World.Rank() == root {
		copy(settings, []float64{0.5, 1e-6, 100})
	}
	if err := mpi.Bcast(mpi.World, settings, root); err != nil {
		fmt.Println(err)
		return
	}
	if mpi.World.Rank() == 0 {
		fmt.Println("rank 0 has", settings)
	}
}

// Allreduce: every rank gets the sum and the maximum of every rank's values.
func ExampleAllreduce() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	rank := mpi.World.Rank()
	sum, most := make([]int, 1), make([]int, 1)
	if err := mpi.Allreduce(mpi.World, []int{rank}, sum, mpi.Sum); err != nil {
		fmt.Println(err)
		return
	}
	if err := mpi.Allreduce(mpi.World, []int{rank * rank}, most, mpi.Max); err != nil {
		fmt.Println(err)
		return
	}
	if rank == 0 {
		fmt.Println("sum", sum[0], "max square", most[0])
	}
}

// Comm.Split: the even and the odd ranks get communicators of their own, ranked by
// their world rank.
func ExampleComm_Split() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	rank := mpi.World.Rank()
	half, err := mpi.World.Split(rank%2, rank)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer half.Free()
	if rank == 0 {
		fmt.Printf("world rank 0 is rank %d of %d even ranks\n", half.Rank(), half.Size())
	}
}

// atom is a Go struct sent as MPI data: TypeOf describes it from Go's own layout.
type atom struct {
	Pos  [3]float64
	Mass float32
	ID   int32
}

// TypeOf: slices of a struct travel with the typed-buffer calls, described by the
// datatype TypeOf makes from the struct's fields.
func ExampleTypeOf() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	dt, err := mpi.TypeOf[atom]()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dt.Free()
	rank, size := mpi.World.Rank(), mpi.World.Size()
	out := []atom{{Pos: [3]float64{1, 2, 3}, Mass: 0.5, ID: int32(rank)}}
	in := make([]atom, 1)
	_, err = mpi.SendrecvBuf(mpi.World, mpi.Typed(out, 1, dt), (rank+1)%size, 0,
		mpi.Typed(in, 1, dt), (rank+size-1)%size, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	if rank == 0 {
		fmt.Printf("rank 0 got atom %d at %v\n", in[0].ID, in[0].Pos)
	}
}

// report is any Go value: maps, strings and slices travel as they are.
type report struct {
	Rank   int
	Host   string
	Counts map[string]int
}

// SendValue and RecvValue: values of any Go type as messages, with no buffer to size.
// Every rank sends rank 0 a report; rank 0 receives them as they come.
func ExampleSendValue() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	rank, size := mpi.World.Rank(), mpi.World.Size()
	r := report{Rank: rank, Host: "node", Counts: map[string]int{"jobs": rank + 1}}
	if rank != 0 {
		if err := mpi.SendValue(mpi.World, r, 0, 0); err != nil {
			fmt.Println(err)
		}
		return
	}
	jobs := r.Counts["jobs"]
	for range size - 1 {
		got, _, err := mpi.RecvValue[report](mpi.World, mpi.AnySource, 0)
		if err != nil {
			fmt.Println(err)
			return
		}
		jobs += got.Counts["jobs"]
	}
	fmt.Println("jobs in all:", jobs)
}

// AllreduceValue: a Go function combines values of any type; here every rank's word
// counts are merged.
func ExampleAllreduceValue() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	counts := map[string]int{"mpi": 1, fmt.Sprint("rank", mpi.World.Rank()): 1}
	merge := func(a, b map[string]int) map[string]int {
		out := maps.Clone(a)
		for k, v := range b {
			out[k] += v
		}
		return out
	}
	all, err := mpi.AllreduceValue(mpi.World, counts, merge)
	if err != nil {
		fmt.Println(err)
		return
	}
	if mpi.World.Rank() == 0 {
		fmt.Println(len(all), "words; mpi:", all["mpi"], slices.Sorted(maps.Keys(all))[0])
	}
}

// Comm.WithContext: a receive that gives up after a deadline, leaving nothing behind.
func ExampleComm_WithContext() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	// Nobody sends with tag 99: the receive is cancelled when the deadline passes.
	_, _, err := mpi.RecvValue[string](mpi.World.WithContext(ctx), mpi.AnySource, 99)
	if mpi.World.Rank() == 0 {
		fmt.Println("deadline passed:", errors.Is(err, context.DeadlineExceeded))
	}
}

// AllocMem with the hint mpigo_node_mapped: message buffers the node's ranks map, so
// that each rank's large messages to its neighbour cost one plain copy. Such memory is
// not collected: FreeMem gives it back.
func ExampleAllocMem() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	info := mpi.InfoCreate()
	defer info.Free()
	if err := info.Set("mpigo_node_mapped", "true"); err != nil {
		fmt.Println(err)
		return
	}
	const n = 1 << 20
	send, err := mpi.AllocMem(n, info)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.FreeMem(send)
	recv, err := mpi.AllocMem(n, info)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.FreeMem(recv)
	rank, size := mpi.World.Rank(), mpi.World.Size()
	for i := range send {
		send[i] = byte(rank)
	}
	right, left := (rank+1)%size, (rank+size-1)%size
	if _, err := mpi.Sendrecv(mpi.World, send, right, 0, recv, left, 0); err != nil {
		fmt.Println(err)
		return
	}
	if rank == 0 {
		fmt.Printf("rank 0 got %d bytes of %d from rank %d\n", len(recv), recv[n-1], left)
	}
}

// TestCallExamplesInJobs runs the Examples of this file as jobs of one rank and of
// several, and checks what rank 0 prints.
func TestCallExamplesInJobs(t *testing.T) {
	cases := []struct {
		name    string
		n       int
		example func()
		want    string
	}{
		{"Send/1", 1, ExampleSend, "sum of the other ranks: 0\n"},
		{"Send/4", 4, ExampleSend, "sum of the other ranks: 6\n"},
		{"Waitall/1", 1, ExampleWaitall, "rank 0's neighbours: 0 0\n"},
		{"Waitall/3", 3, ExampleWaitall, "rank 0's neighbours: 2 1\n"},
		{"Bcast/1", 1, ExampleBcast, "rank 0 has [0.5 1e-06 100]\n"},
		{"Bcast/3", 3, ExampleBcast, "rank 0 has [0.5 1e-06 100]\n"},
		{"Allreduce/1", 1, ExampleAllreduce, "sum 0 max square 0\n"},
		{"Allreduce/4", 4, ExampleAllreduce, "sum 6 max square 9\n"},
		{"Split/1", 1, ExampleComm_Split, "world rank 0 is rank 0 of 1 even ranks\n"},
		{"Split/5", 5, ExampleComm_Split, "world rank 0 is rank 0 of 3 even ranks\n"},
		{"TypeOf/1", 1, ExampleTypeOf, "rank 0 got atom 0 at [1 2 3]\n"},
		{"TypeOf/3", 3, ExampleTypeOf, "rank 0 got atom 2 at [1 2 3]\n"},
		{"SendValue/1", 1, ExampleSendValue, "jobs in all: 1\n"},
		{"SendValue/4", 4, ExampleSendValue, "jobs in all: 10\n"},
		{"AllreduceValue/1", 1, ExampleAllreduceValue, "2 words; mpi: 1 mpi\n"},
		{"AllreduceValue/3", 3, ExampleAllreduceValue, "4 words; mpi: 3 mpi\n"},
		{"WithContext/1", 1, ExampleComm_WithContext, "deadline passed: true\n"},
		{"WithContext/2", 2, ExampleComm_WithContext, "deadline passed: true\n"},
		{"AllocMem/1", 1, ExampleAllocMem, "rank 0 got 1048576 bytes of 0 from rank 0\n"},
		{"AllocMem/3", 3, ExampleAllocMem, "rank 0 got 1048576 bytes of 2 from rank 2\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mpitest.Run(t, c.n, func(t *testing.T) {
				out := stdoutOf(t, c.example)
				want := c.want
				if mpi.World.Rank() != 0 {
					want = ""
				}
				if out != want || !mpi.Finalized() {
					t.Errorf("rank %d printed %q, want %q (MPI finalised: %v)", mpi.World.Rank(), out, want, mpi.Finalized())
				}
			})
		})
	}
}
