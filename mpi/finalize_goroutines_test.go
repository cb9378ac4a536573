package mpi_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestFinalizeLeavesNoGoroutines: after Finalize no goroutine of mpigo's is left in
// a rank, not even the pooled ones that serve waits on contexts (idle watchers) and
// views' collectives (runners), which this job puts to work first: a receive whose
// WaitContext sleeps until its deadline, collectives through a view, and one given
// up by its context while the other rank is late, which Finalize waits for.
func TestFinalizeLeavesNoGoroutines(t *testing.T) {
	mpitest.Job(t, mpitest.Options{N: 2, Settings: map[string]string{"p2p_spin": "1", "p2p_yield": "1"}}, func(t *testing.T) {
		must(t, mpi.Init())
		w := mpi.World
		rank := w.Rank()
		// A wait that sleeps, its context watched, until the deadline ends it.
		buf := make([]int32, 1)
		r, err := mpi.Irecv(w, buf, 1-rank, 9)
		must(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		_, err = r.WaitContext(ctx)
		cancel()
		wantCtxErr(t, "WaitContext of a receive with no sender", err)
		must(t, r.Cancel())
		_, err = r.Wait()
		must(t, err)
		// Collectives through a view run in runners.
		vctx, vcancel := context.WithCancel(context.Background())
		v := w.WithContext(vctx)
		for i := 0; i < 3; i++ {
			must(t, v.Barrier())
			x := []float64{1}
			must(t, mpi.Allreduce(v, x, x, mpi.Sum))
		}
		vcancel()
		// A view's collective given up by its context while rank 1 is late: it goes
		// on in its runner, and completes when rank 1 comes (on World, since the view
		// can run no more collectives); Finalize waits for it, then stops the runner.
		gctx, gcancel := context.WithCancel(context.Background())
		g := w.WithContext(gctx)
		if rank == 0 {
			go func() { // ends the wait below; no sleep needed to order anything
				runtime.Gosched()
				gcancel()
			}()
			err := g.Barrier()
			wantCanceled(t, "a view's Barrier while rank 1 is late", err)
			must(t, mpi.Send(w, []int32{1}, 1, 8))
		} else {
			_, err := mpi.Recv(w, buf, 0, 8)
			must(t, err)
			must(t, w.Barrier())
		}
		gcancel()
		if n := mpigoGoroutines(); n == 0 {
			t.Error("no mpigo goroutine before Finalize: the test does not see them")
		}
		must(t, mpi.Finalize())
		if n := mpigoGoroutines(); n != 0 {
			t.Errorf("%d goroutines of mpigo left after Finalize:\n%s", n, allStacks())
		}
	})
}

// mpigoGoroutines counts the goroutines other than the caller's that run code of
// mpigo's (not its tests').
func mpigoGoroutines() int {
	n := 0
	for i, g := range strings.Split(allStacks(), "\n\n") {
		if i == 0 {
			continue // the caller's own
		}
		if strings.Contains(g, "created by github.com/mpigo/mpigo/internal/wireup.NewClient") {
			// The launcher's connection lives as long as the process, by design: the
			// launcher learns of the rank's exit from it, and a later SessionInit
			// uses it again.
			continue
		}
		for _, line := range strings.Split(g, "\n") {
			if strings.HasPrefix(line, "github.com/mpigo/mpigo/") && !strings.Contains(line, "_test.") && !strings.Contains(line, "internal/mpitest") {
				n++
				break
			}
		}
	}
	return n
}

func allStacks() string {
	b := make([]byte, 1<<20)
	return string(bytes.TrimSpace(b[:runtime.Stack(b, true)]))
}

func wantCanceled(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%s: %v, want an MPI error wrapping context.Canceled", what, err)
	}
}
