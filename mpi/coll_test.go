package mpi_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// collJob runs body on World for each size from 1 to 9 ranks, one job per size.
func collJob(t *testing.T, sizes []int, body func(t *testing.T, c *mpi.Comm)) {
	for _, n := range sizes {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			mpitest.Run(t, n, func(t *testing.T) {
				if err := mpi.Init(); err != nil {
					t.Fatal(err)
				}
				body(t, mpi.World)
				if err := mpi.Finalize(); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

var allSizes = []int{1, 2, 3, 4, 5, 6, 7, 8, 9}

func chk(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func eq[T comparable](t *testing.T, what string, rank int, got, want []T) {
	t.Helper()
	if !slices.Equal(got, want) {
		if len(got) > 12 {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("rank %d: %s: first difference at %d of %d/%d", rank, what, i, len(got), len(want))
			return
		}
		t.Errorf("rank %d: %s: got %v, want %v", rank, what, got, want)
	}
}

// vec is rank r's input: n float64 values, exact in sums over few ranks.
func vec(r, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(r*3 + i%5 + 1)
	}
	return v
}

func ivec(r, n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64((r*7+i*3)%11 + 1)
	}
	return v
}

// matmul is a non-commutative op: each 4 int64s are a 2x2 matrix; inout = in × inout.
var matmul = mpi.OpCreate(func(inout, in []int64) {
	for i := 0; i+4 <= len(inout); i += 4 {
		a, b := in[i:i+4], inout[i:i+4]
		b[0], b[1], b[2], b[3] = a[0]*b[0]+a[1]*b[2], a[0]*b[1]+a[1]*b[3], a[2]*b[0]+a[3]*b[2], a[2]*b[1]+a[3]*b[3]
	}
}, false)

// serial reductions of ranks lo..hi-1 in rank order.
func sumRanks(lo, hi, n int) []float64 {
	out := make([]float64, n)
	for r := lo; r < hi; r++ {
		for i, x := range vec(r, n) {
			out[i] += x
		}
	}
	return out
}

func matRanks(lo, hi, n int) []int64 {
	acc := ivec(lo, n)
	for r := lo + 1; r < hi; r++ {
		x := ivec(r, n)
		if err := mpi.ReduceLocal(acc, x, matmul); err != nil {
			panic(err)
		}
		acc = x
	}
	return acc
}

func TestCollectives(t *testing.T) {
	collJob(t, allSizes, func(t *testing.T, c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		chk(t, "Barrier", c.Barrier())

		t.Run("Bcast", func(t *testing.T) {
			for _, m := range []int{0, 1, 1000, 70000} {
				for _, root := range []int{0, n - 1} {
					buf := make([]float64, m)
					if r == root {
						copy(buf, vec(root, m))
					}
					chk(t, "Bcast", mpi.Bcast(c, buf, root))
					eq(t, fmt.Sprintf("Bcast %d root %d", m, root), r, buf, vec(root, m))
				}
			}
		})

		t.Run("Reduce", func(t *testing.T) {
			for _, m := range []int{1, 7, 5000} {
				root := n / 2
				var recv []float64
				if r == root {
					recv = make([]float64, m)
				}
				chk(t, "Reduce", mpi.Reduce(c, vec(r, m), recv, mpi.Sum, root))
				if r == root {
					eq(t, "Reduce sum", r, recv, sumRanks(0, n, m))
				}
				// In place at the root, with a non-commutative op, on another root.
				root = n - 1
				mrecv := ivec(r, 4*m)
				send := mrecv
				if r == root {
					send = mpi.InPlace[int64]()
				}
				chk(t, "Reduce matmul", mpi.Reduce(c, send, mrecv, matmul, root))
				if r == root {
					eq(t, "Reduce matmul in place", r, mrecv, matRanks(0, n, 4*m))
				}
			}
			// Maxloc on (value, index) pairs: the maximum is on the last rank, ties go to
			// the smallest index.
			pair := []float64{float64(r), float64(r), 5, float64(r)}
			out := make([]float64, 4)
			chk(t, "Reduce maxloc", mpi.Reduce(c, pair, out, mpi.Maxloc, 0))
			if r == 0 {
				eq(t, "Maxloc", r, out, []float64{float64(n - 1), float64(n - 1), 5, 0})
			}
		})

		t.Run("Allreduce", func(t *testing.T) {
			for _, m := range []int{1, 3, 100, 20000} {
				recv := make([]float64, m)
				chk(t, "Allreduce", mpi.Allreduce(c, vec(r, m), recv, mpi.Sum))
				eq(t, fmt.Sprintf("Allreduce sum %d", m), r, recv, sumRanks(0, n, m))
				inout := vec(r, m)
				chk(t, "Allreduce in place", mpi.Allreduce(c, mpi.InPlace[float64](), inout, mpi.Sum))
				eq(t, "Allreduce in place", r, inout, sumRanks(0, n, m))
				mv := make([]int64, 4*m)
				chk(t, "Allreduce matmul", mpi.Allreduce(c, ivec(r, 4*m), mv, matmul))
				eq(t, "Allreduce matmul", r, mv, matRanks(0, n, 4*m))
			}
			mx := []int32{int32(r), int32(-r)}
			chk(t, "Allreduce max", mpi.Allreduce(c, mpi.InPlace[int32](), mx, mpi.Max))
			eq(t, "Max", r, mx, []int32{int32(n - 1), 0})
			b := []uint8{1 << (r % 8), 0xff}
			chk(t, "Allreduce bor", mpi.Allreduce(c, mpi.InPlace[uint8](), b, mpi.Bor))
			want := uint8(0)
			for i := 0; i < n; i++ {
				want |= 1 << (i % 8)
			}
			eq(t, "Bor", r, b, []uint8{want, 0xff})
			lb := []bool{r == 0, true}
			chk(t, "Allreduce land", mpi.Allreduce(c, mpi.InPlace[bool](), lb, mpi.Land))
			eq(t, "Land", r, lb, []bool{n == 1, true})
			cx := []complex128{complex(float64(r), 1)}
			chk(t, "Allreduce complex", mpi.Allreduce(c, mpi.InPlace[complex128](), cx, mpi.Sum))
			eq(t, "complex Sum", r, cx, []complex128{complex(float64(n*(n-1)/2), float64(n))})
		})

		t.Run("GatherScatter", func(t *testing.T) {
			const m = 3
			all := make([]float64, 0, n*m)
			for i := 0; i < n; i++ {
				all = append(all, vec(i, m)...)
			}
			for _, root := range []int{0, n - 1} {
				var recv []float64
				if r == root {
					recv = make([]float64, n*m)
				}
				chk(t, "Gather", mpi.Gather(c, vec(r, m), recv, root))
				if r == root {
					eq(t, "Gather", r, recv, all)
					clear(recv)
					copy(recv[root*m:], vec(root, m))
				}
				send := vec(r, m)
				if r == root {
					send = mpi.InPlace[float64]()
				}
				chk(t, "Gather in place", mpi.Gather(c, send, recv, root))
				if r == root {
					eq(t, "Gather in place", r, recv, all)
				}
				got := make([]float64, m)
				var sb []float64
				if r == root {
					sb = all
				}
				chk(t, "Scatter", mpi.Scatter(c, sb, got, root))
				eq(t, "Scatter", r, got, vec(r, m))
				if r == root {
					chk(t, "Scatter in place", mpi.Scatter(c, sb, mpi.InPlace[float64](), root))
				} else {
					chk(t, "Scatter in place", mpi.Scatter(c, sb, got, root))
					eq(t, "Scatter in place", r, got, vec(r, m))
				}
			}
			// v forms: rank i has i%3 elements, laid out in reverse rank order with gaps.
			counts, displs := make([]int, n), make([]int, n)
			off := 0
			for i := n - 1; i >= 0; i-- {
				counts[i], displs[i] = i%3, off
				off += i%3 + 1
			}
			vall := make([]float64, off)
			for i := 0; i < n; i++ {
				copy(vall[displs[i]:], vec(i, counts[i]))
			}
			var recv []float64
			if r == 0 {
				recv = make([]float64, off)
			}
			chk(t, "Gatherv", mpi.Gatherv(c, vec(r, counts[r]), recv, counts, displs, 0))
			if r == 0 {
				eq(t, "Gatherv", r, recv, vall)
			}
			got := make([]float64, counts[r])
			chk(t, "Scatterv", mpi.Scatterv(c, vall, counts, displs, got, 0))
			eq(t, "Scatterv", r, got, vec(r, counts[r]))
			ag := make([]float64, off)
			chk(t, "Allgatherv", mpi.Allgatherv(c, vec(r, counts[r]), ag, counts, displs))
			eq(t, "Allgatherv", r, ag, vall)
			for _, m := range []int{1, 5000} {
				all := make([]float64, 0, n*m)
				for i := 0; i < n; i++ {
					all = append(all, vec(i, m)...)
				}
				ag := make([]float64, n*m)
				chk(t, "Allgather", mpi.Allgather(c, vec(r, m), ag))
				eq(t, "Allgather", r, ag, all)
				clear(ag)
				copy(ag[r*m:], vec(r, m))
				chk(t, "Allgather in place", mpi.Allgather(c, mpi.InPlace[float64](), ag))
				eq(t, "Allgather in place", r, ag, all)
			}
		})

		t.Run("Alltoall", func(t *testing.T) {
			for _, m := range []int{1, 2000} {
				send := make([]int64, n*m)
				want := make([]int64, n*m)
				for j := 0; j < n; j++ {
					for k := 0; k < m; k++ {
						send[j*m+k] = int64(r*1000000 + j*1000 + k)
						want[j*m+k] = int64(j*1000000 + r*1000 + k)
					}
				}
				recv := make([]int64, n*m)
				chk(t, "Alltoall", mpi.Alltoall(c, send, recv))
				eq(t, "Alltoall", r, recv, want)
				chk(t, "Alltoall in place", mpi.Alltoall(c, mpi.InPlace[int64](), send))
				eq(t, "Alltoall in place", r, send, want)
			}
			// Alltoallv: rank i sends (i+j)%3 elements to rank j.
			lay := func(cnt func(j int) int) (counts, displs []int, total int) {
				counts, displs = make([]int, n), make([]int, n)
				for j := range counts {
					counts[j], displs[j] = cnt(j), total
					total += counts[j]
				}
				return
			}
			sc, sd, st := lay(func(j int) int { return (r + j) % 3 })
			rc, rd, rt := lay(func(i int) int { return (i + r) % 3 })
			send, recv, want := make([]int32, st), make([]int32, rt), make([]int32, rt)
			for j := 0; j < n; j++ {
				for k := 0; k < sc[j]; k++ {
					send[sd[j]+k] = int32(r*100 + j*10 + k)
				}
				for k := 0; k < rc[j]; k++ {
					want[rd[j]+k] = int32(j*100 + r*10 + k)
				}
			}
			chk(t, "Alltoallv", mpi.Alltoallv(c, send, sc, sd, recv, rc, rd))
			eq(t, "Alltoallv", r, recv, want)
		})

		t.Run("ReduceScatter", func(t *testing.T) {
			const m = 3
			recv := make([]float64, m)
			chk(t, "ReduceScatterBlock", mpi.ReduceScatterBlock(c, vec(r, n*m), recv, mpi.Sum))
			eq(t, "ReduceScatterBlock", r, recv, sumRanks(0, n, n*m)[r*m:(r+1)*m])
			counts := make([]int, n)
			total := 0
			for i := range counts {
				counts[i] = 4 * (i % 3)
				total += counts[i]
			}
			start := 0
			for i := 0; i < r; i++ {
				start += counts[i]
			}
			mrecv := make([]int64, counts[r])
			chk(t, "ReduceScatter matmul", mpi.ReduceScatter(c, ivec(r, total), mrecv, counts, matmul))
			eq(t, "ReduceScatter matmul", r, mrecv, matRanks(0, n, total)[start:start+counts[r]])
			inout := vec(r, total)
			chk(t, "ReduceScatter in place", mpi.ReduceScatter(c, mpi.InPlace[float64](), inout, counts, mpi.Sum))
			eq(t, "ReduceScatter in place", r, inout[:counts[r]], sumRanks(0, n, total)[start:start+counts[r]])
		})

		t.Run("Scan", func(t *testing.T) {
			const m = 8
			recv := make([]float64, m)
			chk(t, "Scan", mpi.Scan(c, vec(r, m), recv, mpi.Sum))
			eq(t, "Scan", r, recv, sumRanks(0, r+1, m))
			mv := ivec(r, m)
			chk(t, "Scan matmul in place", mpi.Scan(c, mpi.InPlace[int64](), mv, matmul))
			eq(t, "Scan matmul", r, mv, matRanks(0, r+1, m))
			ex := make([]int64, m)
			chk(t, "Exscan matmul", mpi.Exscan(c, ivec(r, m), ex, matmul))
			if r > 0 {
				eq(t, "Exscan matmul", r, ex, matRanks(0, r, m))
			} else {
				eq(t, "Exscan rank 0 untouched", r, ex, make([]int64, m))
			}
		})

		t.Run("Nonblocking", func(t *testing.T) {
			// Many collectives outstanding at once; odd ranks complete them in reverse.
			const m = 600
			var reqs []mpi.Request
			add := func(q mpi.Request, err error) {
				t.Helper()
				chk(t, "start", err)
				reqs = append(reqs, q)
			}
			bc := make([]float64, m)
			if r == 0 {
				copy(bc, vec(0, m))
			}
			ar := make([]float64, m)
			ag := make([]float64, n*4)
			sc := make([]int64, m)
			a2a := make([]int64, n)
			a2aIn := make([]int64, n)
			for j := range a2aIn {
				a2aIn[j] = int64(r*n + j)
			}
			rd := make([]float64, m)
			add(c.Ibarrier())
			add(mpi.Ibcast(c, bc, 0))
			add(mpi.Iallreduce(c, vec(r, m), ar, mpi.Sum))
			add(mpi.Iallgather(c, vec(r, 4), ag))
			add(mpi.Iscan(c, ivec(r, m), sc, matmul))
			add(mpi.Ialltoall(c, a2aIn, a2a))
			add(mpi.Ireduce(c, vec(r, m), rd, mpi.Sum, n-1))
			add(c.Ibarrier())
			if r%2 == 1 {
				slices.Reverse(reqs)
			}
			for i := range reqs {
				if i%2 == 0 {
					_, err := reqs[i].Wait()
					chk(t, "Wait", err)
					continue
				}
				for {
					_, done, err := reqs[i].Test()
					chk(t, "Test", err)
					if done {
						break
					}
				}
			}
			for _, q := range reqs {
				if !q.IsNull() {
					t.Error("request not null after completion")
				}
			}
			eq(t, "Ibcast", r, bc, vec(0, m))
			eq(t, "Iallreduce", r, ar, sumRanks(0, n, m))
			all := make([]float64, 0, n*4)
			for i := 0; i < n; i++ {
				all = append(all, vec(i, 4)...)
			}
			eq(t, "Iallgather", r, ag, all)
			eq(t, "Iscan", r, sc, matRanks(0, r+1, m))
			for j := range a2a {
				if a2a[j] != int64(j*n+r) {
					t.Errorf("rank %d: Ialltoall[%d] = %d", r, j, a2a[j])
				}
			}
			if r == n-1 {
				eq(t, "Ireduce", r, rd, sumRanks(0, n, m))
			}
		})

		t.Run("Self", func(t *testing.T) {
			x := vec(r, 5)
			chk(t, "Self Barrier", mpi.Self.Barrier())
			chk(t, "Self Allreduce", mpi.Allreduce(mpi.Self, mpi.InPlace[float64](), x, mpi.Sum))
			eq(t, "Self Allreduce", r, x, vec(r, 5))
			g := make([]float64, 5)
			chk(t, "Self Allgather", mpi.Allgather(mpi.Self, x, g))
			eq(t, "Self Allgather", r, g, x)
		})

		chk(t, "final Barrier", c.Barrier())
	})
}

// TestCollArgs checks that bad arguments get clear errors, on every rank, before any
// message moves (so the job goes on).
func TestCollArgs(t *testing.T) {
	collJob(t, []int{3}, func(t *testing.T, c *mpi.Comm) {
		r := c.Rank()
		cases := []struct {
			name  string
			err   error
			class error
			text  string
		}{
			{"bcast root", mpi.Bcast(c, []int32{1}, 5), mpi.ErrRoot, "mpi: Bcast: root 5 out of range [0,3)"},
			{"reduce root", mpi.Reduce(c, []int32{1}, []int32{0}, mpi.Sum, -1), mpi.ErrRoot, "root -1 out of range"},
			{"allreduce lengths", mpi.Allreduce(c, []float64{1, 2}, []float64{0}, mpi.Sum), mpi.ErrCount, "mpi: Allreduce: len(send) 2 != len(recv) 1"},
			{"band on floats", mpi.Allreduce(c, []float64{1}, []float64{0}, mpi.Band), mpi.ErrOp, "Band is not defined on float64"},
			{"lor on float32", mpi.Allreduce(c, []float32{1}, []float32{0}, mpi.Lor), mpi.ErrOp, "not defined on float32"},
			{"max on complex", mpi.Allreduce(c, []complex64{1}, []complex64{0}, mpi.Max), mpi.ErrOp, "not defined on complex64"},
			{"user op type", mpi.Allreduce(c, []int32{1}, []int32{0}, matmul), mpi.ErrOp, "op made by OpCreate for int64 used on int32"},
			{"zero op", mpi.Allreduce(c, []int32{1}, []int32{0}, mpi.Op{}), mpi.ErrOp, "zero Op"},
			{"allgather lengths", mpi.Allgather(c, []int8{1, 2}, make([]int8, 5)), mpi.ErrCount, "len(recv) 5 != size 3 × len(send) 2"},
			{"alltoall lengths", mpi.Alltoall(c, make([]int8, 3), make([]int8, 4)), mpi.ErrCount, "equal multiples"},
			{"maxloc odd", mpi.Allreduce(c, []int32{1, 2, 3}, make([]int32, 3), mpi.Maxloc), mpi.ErrCount, "pairs"},
			{"reduce_scatter counts", mpi.ReduceScatter(c, make([]int64, 4), make([]int64, 1), []int{1, 1}, mpi.Sum), mpi.ErrCount, "len(counts) 2 != the size 3"},
		}
		q, err := mpi.Ibcast(c, []int8{1}, 7)
		cases = append(cases, struct {
			name  string
			err   error
			class error
			text  string
		}{"ibcast root", err, mpi.ErrRoot, "mpi: Ibcast: root 7 out of range [0,3)"})
		if !q.IsNull() {
			t.Error("a failed Ibcast returned a live request")
		}
		for _, tc := range cases {
			if !errors.Is(tc.err, tc.class) || tc.err == nil || !strings.Contains(tc.err.Error(), tc.text) {
				t.Errorf("rank %d: %s: got %v, want %v containing %q", r, tc.name, tc.err, tc.class, tc.text)
			}
		}
		// Root-only checks fail on the root only. The root still takes its part, with
		// no data, so the others do not wait for it: their blocks go as usual (the
		// recv they pass is not looked at).
		if r == 1 {
			err := mpi.Gather(c, []int16{1, 2}, make([]int16, 5), 1)
			if !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "len(recv) 5 != size 3 × len(send) 2 at the root") {
				t.Errorf("Gather at root: %v", err)
			}
		} else {
			chk(t, "Gather to a root whose recv is wrong", mpi.Gather(c, []int16{1, 2}, []int16{-1}, 1))
		}
		// InPlace on a non-root: its error, and its empty part, which the root finds
		// short of its own length.
		err = mpi.Reduce(c, mpi.InPlace[int32](), []int32{1}, mpi.Sum, 0)
		if r != 0 && !errors.Is(err, mpi.ErrBuffer) {
			t.Errorf("rank %d: InPlace on a non-root: %v", r, err)
		}
		if r == 0 && err == nil {
			t.Errorf("rank 0: the root of a Reduce whose other ranks passed InPlace succeeded")
		}
		chk(t, "Barrier", c.Barrier())
	})
}

// TestCollCheck runs with coll_check on: ranks that call different collectives, or
// the same with different sizes, all get an error instead of a hang or garbage.
func TestCollCheck(t *testing.T) {
	mpitest.Job(t, mpitest.Options{N: 3, Settings: map[string]string{"coll_check": "true"}}, collCheckBody)
}

func collCheckBody(t *testing.T) {
	chk(t, "Init", mpi.Init())
	c := mpi.World
	r := c.Rank()
	// Matching calls pass the check.
	buf := []float64{1, 2}
	chk(t, "Allreduce", mpi.Allreduce(c, mpi.InPlace[float64](), buf, mpi.Sum))
	// Different lengths.
	err := mpi.Bcast(c, make([]int32, 2+r), 0)
	if !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "coll_check") {
		t.Errorf("rank %d: Bcast of different lengths: %v", r, err)
	}
	// Different collectives.
	if r == 0 {
		err = c.Barrier()
	} else {
		err = mpi.Allreduce(c, []int32{1}, []int32{0}, mpi.Sum)
	}
	if err == nil || !strings.Contains(err.Error(), "called") {
		t.Errorf("rank %d: mismatched collectives: %v", r, err)
	}
	// Different roots.
	err = mpi.Bcast(c, []int8{1}, r%2)
	if !errors.Is(err, mpi.ErrRoot) {
		t.Errorf("rank %d: different roots: %v", r, err)
	}
	// The v forms: the root (or the receiver) counts one element more for rank 2 than
	// rank 2 sends; every rank learns of it.
	n := c.Size()
	counts, displs := make([]int, n), make([]int, n)
	for j := range counts {
		counts[j], displs[j] = 1, 2*j
	}
	bad := append([]int(nil), counts...)
	bad[n-1] = 2
	one := []float64{float64(r)}
	err = mpi.Gatherv(c, one, make([]float64, 2*n), bad, displs, 0)
	if !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "coll_check") {
		t.Errorf("rank %d: Gatherv with a root count that does not match: %v", r, err)
	}
	err = mpi.Scatterv(c, make([]float64, 2*n), bad, displs, one, 1)
	if !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "coll_check") {
		t.Errorf("rank %d: Scatterv with a root count that does not match: %v", r, err)
	}
	rc := counts
	if r == 0 {
		rc = bad
	}
	err = mpi.Alltoallv(c, make([]float64, 2*n), counts, displs, make([]float64, 2*n), rc, displs)
	if !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "coll_check") {
		t.Errorf("rank %d: Alltoallv with a receive count that does not match: %v", r, err)
	}
	err = mpi.Allgatherv(c, one, make([]float64, 2*n), rc, displs)
	if !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "coll_check") {
		t.Errorf("rank %d: Allgatherv with a count that does not match: %v", r, err)
	}
	chk(t, "Gatherv", mpi.Gatherv(c, one, make([]float64, 2*n), counts, displs, 0))
	chk(t, "Barrier", c.Barrier())
	chk(t, "Finalize", mpi.Finalize())
}
