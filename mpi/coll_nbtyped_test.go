package mpi_test

import (
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestNonblockingTypedCollNoAllocs: a nonblocking collective on a datatype with gaps
// (a matrix column) and its Wait allocate nothing per call once warm: the staging of
// the typed buffers rides in the collective's pooled record. The results are checked
// after the measured runs.
func TestNonblockingTypedCollNoAllocs(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		const cols, n = 4, 64
		w := mpi.World
		col := committed(mpi.TypeVector(n, 1, cols, mpi.Float64))(t)
		a, got := make([]float64, cols*n), make([]float64, cols*n)
		for i := range a {
			a[i] = float64(100*rank + i)
		}
		// Gather and alltoall: each rank sends one column and receives one per rank,
		// resized so that consecutive items are consecutive columns.
		rcol := committed(mpi.TypeResized(col, 0, 8))(t)
		ga := make([]float64, cols*n)
		ta := make([]float64, cols*n)
		wait := func(r mpi.Request, err error) {
			t.Helper()
			must(t, err)
			_, err = r.Wait()
			must(t, err)
		}
		calls := []struct {
			name string
			f    func()
		}{
			{"IbcastBuf(+Ibarrier)", func() { wait(mpi.IbcastBuf(w, mpi.Typed(a, 1, col), 0)); wait(w.Ibarrier()) }},
			{"IallreduceBuf", func() { wait(mpi.IallreduceBuf(w, mpi.Typed(a[1:], 1, col), mpi.Typed(got[1:], 1, col), mpi.Sum)) }},
			{"IallgatherBuf", func() { wait(mpi.IallgatherBuf(w, mpi.Typed(a[2:], 1, col), mpi.Typed(ga, size, rcol))) }},
			{"IalltoallBuf", func() { wait(mpi.IalltoallBuf(w, mpi.Typed(a, size, rcol), mpi.Typed(ta, size, rcol))) }},
		}
		for _, c := range calls {
			c.f() // the first call fills the pools
			if raceEnabled {
				continue // the race detector makes sync.Pool drop items
			}
			if k := testing.AllocsPerRun(200, c.f); k != 0 {
				t.Errorf("%s+Wait on a column type: %.2f allocations per call, want 0", c.name, k)
			}
		}
		// Results: rank 0's column 0 broadcast (a is rank 0's on both now), column 1
		// summed, column 2 gathered, columns exchanged.
		for i := 0; i < n; i++ {
			if want := float64(i * cols); a[i*cols] != want {
				t.Fatalf("IbcastBuf: item %d is %v, want %v", i, a[i*cols], want)
			}
		}
		for i := 0; i < n; i++ {
			// a's column 1 on rank r is 100r+i*cols+1, but rank 0's column 0 was
			// broadcast only; column 1 is untouched by the broadcast.
			want := 0.0
			for r := 0; r < size; r++ {
				want += float64(100*r + i*cols + 1)
			}
			if got[1+i*cols] != want {
				t.Fatalf("IallreduceBuf: item %d is %v, want %v", i, got[1+i*cols], want)
			}
			if got[i*cols] != 0 || got[2+i*cols] != 0 {
				t.Fatalf("IallreduceBuf wrote outside its column at item %d", i)
			}
			for r := 0; r < size; r++ {
				// rank r's column 2 lands in ga's column r.
				if want := float64(100*r + i*cols + 2); ga[r+i*cols] != want {
					t.Fatalf("IallgatherBuf: rank %d's item %d is %v, want %v", r, i, ga[r+i*cols], want)
				}
				// rank r sent its column `rank` to this rank; it lands in ta's column r.
				// Rank r's column rank: its column 0 came from the broadcast on every
				// rank (rank 0's values), other columns its own.
				src := 100*r + i*cols + rank
				if rank == 0 {
					src = i * cols
				}
				if ta[r+i*cols] != float64(src) {
					t.Fatalf("IalltoallBuf: from rank %d item %d is %v, want %v", r, i, ta[r+i*cols], float64(src))
				}
			}
		}
	})
}

// TestNonblockingTypedCollCopies: the requests of nonblocking collectives on a column
// type follow the rules of every collective's request: a copy used up by a Wait of
// another copy fails with ErrRequest, a request freed while active completes in the
// background (its staging released, the collectives beside it right), and on Self,
// where the schedule completes inside the call before the staging is attached, the
// result is still unpacked into the column. Over shared memory and forced TCP.
func TestNonblockingTypedCollCopies(t *testing.T) {
	jobEach(t, 2, typedCopies)
}

func typedCopies(t *testing.T, rank, size int) {
	const cols, n = 3, 50
	col := committed(mpi.TypeVector(n, 1, cols, mpi.Float64))(t)
	a, got := make([]float64, cols*n), make([]float64, cols*n)
	for i := range a {
		a[i] = float64(rank + i)
	}
	check := func(what string, c *mpi.Comm, j int) {
		t.Helper()
		for i := 0; i < n; i++ {
			want := 0.0
			for r := 0; r < c.Size(); r++ {
				want += float64(r + i*cols + j)
			}
			if c == mpi.Self {
				want = float64(rank + i*cols + j)
			}
			if got[j+i*cols] != want {
				t.Fatalf("%s: item %d is %v, want %v", what, i, got[j+i*cols], want)
			}
		}
	}
	// On Self the schedule is done inside the call.
	for j := 0; j < cols; j++ {
		r, err := mpi.IallreduceBuf(mpi.Self, mpi.Typed(a[j:], 1, col), mpi.Typed(got[j:], 1, col), mpi.Sum)
		must(t, err)
		_, err = r.Wait()
		must(t, err)
		check("IallreduceBuf on Self", mpi.Self, j)
	}
	// A used-up copy.
	r, err := mpi.IallreduceBuf(mpi.World, mpi.Typed(a[1:], 1, col), mpi.Typed(got[1:], 1, col), mpi.Sum)
	must(t, err)
	cp := r
	_, err = r.Wait()
	must(t, err)
	check("IallreduceBuf", mpi.World, 1)
	_, err = cp.Wait()
	wantUsedUp(t, "Wait of a copy of a typed Iallreduce's request", err)
	b := make([]float64, cols*n)
	q, err := mpi.IbcastBuf(mpi.World, mpi.Typed(b[2:], 1, col), 0)
	must(t, err)
	cq := q
	_, err = q.Wait()
	must(t, err)
	wantUsedUp(t, "Free of a copy of a typed Ibcast's request", cq.Free())
	// Freed while active, beside collectives that may take their records.
	for k := 0; k < 30; k++ {
		f, err := mpi.IallreduceBuf(mpi.World, mpi.Typed(a[0:], 1, col), mpi.Typed(b[0:], 1, col), mpi.Sum)
		must(t, err)
		must(t, f.Free())
		clear(got)
		r, err := mpi.IallreduceBuf(mpi.World, mpi.Typed(a[2:], 1, col), mpi.Typed(got[2:], 1, col), mpi.Sum)
		must(t, err)
		_, err = r.Wait()
		must(t, err)
		check("IallreduceBuf beside a freed one", mpi.World, 2)
	}
	must(t, mpi.World.Barrier())
}
