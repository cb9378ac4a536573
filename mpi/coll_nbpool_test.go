package mpi_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// The record of a nonblocking collective is reused once a completion call has
// reported it; these tests check that no copy of a request can see the operation that
// reuses it, over shared memory and forced TCP.

// TestNonblockingCollStaleCopy: a copy of a collective's request, taken before Wait
// completed the original, is used up afterwards, even while a later collective (which
// takes the same record) is outstanding: IsNull is false, and Wait, Test, Free and
// Cancel fail with ErrRequest, and the later collective is left untouched, completing
// with its own result. (TestRequestCopiesUsedUp has the other kinds of request.)
func TestNonblockingCollStaleCopy(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		a, sum := []float64{float64(rank + 1)}, make([]float64, 1)
		r, err := mpi.Iallreduce(w, a, sum, mpi.Sum)
		must(t, err)
		stale := [4]mpi.Request{r, r, r, r}
		if _, err := r.Wait(); err != nil || sum[0] != 3 || !r.IsNull() {
			t.Fatalf("first Iallreduce: %v, sum %v, null %v", err, sum, r.IsNull())
		}
		// The later collective: rank 1 joins only once rank 0 has used the stale copy,
		// so on rank 0 it is outstanding meanwhile.
		b, sum2 := []float64{float64(10 * (rank + 1))}, make([]float64, 1)
		if rank == 1 {
			_, _, err := mpi.RecvValue[int](w, 0, 7)
			must(t, err)
		}
		r2, err := mpi.Iallreduce(w, b, sum2, mpi.Sum)
		must(t, err)
		if rank == 0 {
			if stale[0].IsNull() {
				t.Error("a used-up copy of a completed request says it is the null request")
			}
			_, ok, err := stale[0].Test()
			wantUsedUp(t, "Test of the stale copy", err)
			if ok {
				t.Error("Test of the stale copy reports it complete")
			}
			_, err = stale[1].Wait()
			wantUsedUp(t, "Wait of the stale copy", err)
			_, err = stale[1].WaitContext(context.Background())
			wantUsedUp(t, "WaitContext of the stale copy", err)
			if _, ok, _ := r2.Test(); ok {
				t.Error("the later Iallreduce completed before rank 1 joined it")
			}
			wantUsedUp(t, "Free of the stale copy", stale[2].Free())
			wantUsedUp(t, "Cancel of the stale copy", stale[3].Cancel())
			must(t, mpi.SendValue(w, 1, 1, 7))
		}
		if _, err := r2.Wait(); err != nil || sum2[0] != 30 {
			t.Fatalf("later Iallreduce: %v, sum %v, want 30", err, sum2)
		}
	})
}

// wantUsedUp checks that err is the error of a call given a used-up copy of a request.
func wantUsedUp(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, mpi.ErrRequest) || !strings.Contains(err.Error(), "used up") {
		t.Errorf("%s: %v; want an error of class ErrRequest saying the copy is used up", what, err)
	}
}

// TestNonblockingCollFreeActive: collectives' requests freed while outstanding
// complete in the background, their records go back to the pool then, and the
// collectives started meanwhile and after, which may take those records, give their
// own results.
func TestNonblockingCollFreeActive(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		w := mpi.World
		freed := make([][]float64, 50)
		for i := range freed {
			a := []float64{float64(rank + i)}
			freed[i] = make([]float64, 1)
			r, err := mpi.Iallreduce(w, a, freed[i], mpi.Sum)
			must(t, err)
			must(t, r.Free())
			if !r.IsNull() {
				t.Fatal("a freed request is not the null request")
			}
			v, out := []int64{int64(i + rank)}, make([]int64, 1)
			q, err := mpi.Iallreduce(w, v, out, mpi.Sum)
			must(t, err)
			if _, err := q.Wait(); err != nil || out[0] != int64(2*i+1) {
				t.Fatalf("Iallreduce %d beside a freed one: %v, got %v", i, err, out)
			}
		}
	})
}

// TestNonblockingCollCopiesConcurrent: at ThreadMultiple, goroutines each start and
// complete collectives on a communicator of their own, mixed with Ibarrier and
// Ibcast, completing them through Wait, Test, Waitall, Waitany and WaitContext while
// they hold stale copies of every earlier request, and test those copies all along:
// each is used up, and each result is its own. Run under -race too.
func TestNonblockingCollCopiesConcurrent(t *testing.T) {
	jobEach(t, 2, func(t *testing.T, rank, size int) {
		const goroutines, n = 4, 200
		comms := make([]*mpi.Comm, goroutines)
		for g := range comms {
			c, err := mpi.World.Dup()
			must(t, err)
			comms[g] = c
		}
		errs := make(chan error, goroutines)
		for g := range comms {
			go func(c *mpi.Comm) {
				errs <- nbCopies(c, g, rank, n)
			}(comms[g])
		}
		for range comms {
			must(t, <-errs)
		}
		for _, c := range comms {
			must(t, c.Free())
		}
	})
}

func nbCopies(c *mpi.Comm, g, rank, n int) error {
	var stale []mpi.Request
	for i := 0; i < n; i++ {
		a, sum := []int64{int64(g*1000 + i + rank)}, make([]int64, 1)
		v := []int32{int32(i)}
		if rank != 0 {
			v[0] = -1
		}
		r, err := mpi.Iallreduce(c, a, sum, mpi.Sum)
		if err != nil {
			return err
		}
		rb, err := mpi.Ibcast(c, v, 0)
		if err != nil {
			return err
		}
		rs := []mpi.Request{r, rb}
		stale = append(stale, r, rb)
		switch i % 4 {
		case 0:
			_, err = r.Wait()
			if err == nil {
				_, err = rb.Wait()
			}
		case 1:
			err = mpi.Waitall(rs, nil)
		case 2:
			for k := 0; k < 2 && err == nil; k++ {
				_, _, err = mpi.Waitany(rs)
			}
		case 3:
			for ok := false; !ok && err == nil; {
				_, ok, err = r.Test()
			}
			if err == nil {
				_, err = rb.WaitContext(context.Background())
			}
		}
		if err != nil {
			return fmt.Errorf("goroutine %d, round %d: %w", g, i, err)
		}
		if want := int64(2*(g*1000+i) + 1); sum[0] != want || v[0] != int32(i) {
			return fmt.Errorf("goroutine %d, round %d: sum %d (want %d), bcast %d", g, i, sum[0], want, v[0])
		}
		b, err := c.Ibarrier()
		if err != nil {
			return err
		}
		for k := range stale {
			if _, ok, err := stale[k].Test(); ok || !errors.Is(err, mpi.ErrRequest) || stale[k].IsNull() {
				return fmt.Errorf("goroutine %d, round %d: Test of stale copy %d: ok %v, %v, null %v; want it used up",
					g, i, k, ok, err, stale[k].IsNull())
			}
		}
		if _, err := b.Wait(); err != nil {
			return err
		}
		if len(stale) > 16 {
			stale = stale[2:]
		}
	}
	return nil
}
