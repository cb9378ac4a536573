package mpi_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// interSplit makes an intercommunicator of the world: group A is world ranks
// 0..sizeA-1, group B the rest. It returns it and this process's side (0: A, 1: B).
func interSplit(t *testing.T, sizeA int) (*mpi.Comm, int) {
	t.Helper()
	rank := mpi.World.Rank()
	side := 0
	if rank >= sizeA {
		side = 1
	}
	local, err := mpi.World.Split(side, rank)
	must(t, err)
	leader := sizeA
	if side == 1 {
		leader = 0
	}
	ic, err := mpi.IntercommCreate(local, 0, mpi.World, leader, 9)
	must(t, err)
	return ic, side
}

// pid names local rank r of side s across both groups.
func pid(s, r int) int { return 100*s + r }

// rootArg is the root argument of local rank r on side for a root at local rank
// rootRank of rootSide.
func rootArg(side, r, rootSide, rootRank int) int {
	switch {
	case side != rootSide:
		return rootRank
	case r == rootRank:
		return mpi.Root
	}
	return mpi.ProcNull
}

// gapped returns counts[j] = f(j) for n peers, displacements leaving a one-element gap
// before each block, and the buffer length they need.
func gapped(n int, f func(j int) int) (counts, displs []int, total int) {
	counts, displs = make([]int, n), make([]int, n)
	for j := 0; j < n; j++ {
		counts[j] = f(j)
		displs[j] = total + 1
		total += counts[j] + 1
	}
	return counts, displs, total
}

func filled(n int, v float64) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = v
	}
	return b
}

// rsCounts splits 12 elements among n processes unevenly: 1, 2, ... and the rest last.
func rsCounts(n int) []int {
	c := make([]int, n)
	left := 12
	for i := 0; i < n-1; i++ {
		c[i] = i + 1
		left -= i + 1
	}
	c[n-1] = left
	return c
}

// interCalls runs every intercommunicator collective once on ic, blocking or
// nonblocking (started and waited at once), and checks each result against the
// value computed here from the other group's formulas.
func interCalls(t *testing.T, ic *mpi.Comm, side int, nb bool) {
	n, m, r := ic.Size(), ic.RemoteSize(), ic.Rank()
	me, other := pid(side, r), func(j int) int { return pid(1-side, j) }
	tag := fmt.Sprintf("side %d rank %d nonblocking=%v", side, r, nb)
	do := func(what string, blocking func() error, start func() (mpi.Request, error)) {
		t.Helper()
		if !nb {
			if err := blocking(); err != nil {
				t.Fatalf("%s: %s: %v", tag, what, err)
			}
			return
		}
		req, err := start()
		if err != nil {
			t.Fatalf("%s: I%s: %v", tag, what, err)
		}
		if _, err := req.Wait(); err != nil {
			t.Fatalf("%s: I%s: Wait: %v", tag, what, err)
		}
	}
	eqf := func(what string, got, want []float64) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: %s = %v, want %v", tag, what, got, want)
		}
	}

	do("barrier", ic.Barrier, ic.Ibarrier)

	// Bcast from B's last rank to A.
	{
		root := rootArg(side, r, 1, map[int]int{0: m, 1: n}[side]-1)
		buf := []float64{-1, -1, -1}
		if root == mpi.Root {
			buf = []float64{4, 5, 6}
		}
		do("Bcast", func() error { return mpi.Bcast(ic, buf, root) }, func() (mpi.Request, error) { return mpi.Ibcast(ic, buf, root) })
		if side == 0 {
			eqf("Bcast", buf, []float64{4, 5, 6})
		}
	}

	// Reduce of B's data to A's rank 0 and Allreduce.
	{
		root := rootArg(side, r, 0, 0)
		recv := []float64{0, 0}
		do("Reduce", func() error { return mpi.Reduce(ic, []float64{float64(me), 1}, recv, mpi.Sum, root) },
			func() (mpi.Request, error) { return mpi.Ireduce(ic, []float64{float64(me), 1}, recv, mpi.Sum, root) })
		if root == mpi.Root {
			sum := 0
			for j := range m {
				sum += other(j)
			}
			eqf("Reduce", recv, []float64{float64(sum), float64(m)})
		}
		out := []float64{0}
		do("Allreduce", func() error { return mpi.Allreduce(ic, []float64{float64(me)}, out, mpi.Max) },
			func() (mpi.Request, error) { return mpi.Iallreduce(ic, []float64{float64(me)}, out, mpi.Max) })
		eqf("Allreduce", out, []float64{float64(other(m - 1))})
	}

	// Gather, Scatter, Allgather, Alltoall with equal blocks.
	{
		root := rootArg(side, r, 1, 0)
		recv := filled(2*m, -1)
		do("Gather", func() error { return mpi.Gather(ic, []float64{float64(me), -2}, recv, root) },
			func() (mpi.Request, error) { return mpi.Igather(ic, []float64{float64(me), -2}, recv, root) })
		if root == mpi.Root {
			want := make([]float64, 0, 2*m)
			for j := range m {
				want = append(want, float64(other(j)), -2)
			}
			eqf("Gather", recv, want)
		}
		root = rootArg(side, r, 0, n-1+(m-n)*side)
		var send []float64
		if root == mpi.Root {
			for j := range m {
				send = append(send, float64(10*j), float64(10*j+1))
			}
		}
		got := []float64{-1, -1}
		do("Scatter", func() error { return mpi.Scatter(ic, send, got, root) },
			func() (mpi.Request, error) { return mpi.Iscatter(ic, send, got, root) })
		if side == 1 {
			eqf("Scatter", got, []float64{float64(10 * r), float64(10*r + 1)})
		}
		all := filled(m, -1)
		do("Allgather", func() error { return mpi.Allgather(ic, []float64{float64(me)}, all) },
			func() (mpi.Request, error) { return mpi.Iallgather(ic, []float64{float64(me)}, all) })
		want := make([]float64, m)
		for j := range want {
			want[j] = float64(other(j))
		}
		eqf("Allgather", all, want)
		a2a := make([]float64, m)
		for j := range a2a {
			a2a[j] = wVal(me, other(j), 0)
		}
		res := filled(m, -1)
		do("Alltoall", func() error { return mpi.Alltoall(ic, a2a, res) },
			func() (mpi.Request, error) { return mpi.Ialltoall(ic, a2a, res) })
		for j := range want {
			want[j] = wVal(other(j), me, 0)
		}
		eqf("Alltoall", res, want)
	}

	// Gatherv to A's last rank: remote rank j sends j+1 elements.
	{
		root := rootArg(side, r, 0, n-1+(m-n)*side)
		send := make([]float64, r+1)
		for e := range send {
			send[e] = float64(1000*me + e)
		}
		var counts, displs []int
		var recv []float64
		if root == mpi.Root {
			var total int
			counts, displs, total = gapped(m, func(j int) int { return j + 1 })
			recv = filled(total, -1)
		}
		if root == mpi.ProcNull {
			send = nil
		}
		do("Gatherv", func() error { return mpi.Gatherv(ic, send, recv, counts, displs, root) },
			func() (mpi.Request, error) { return mpi.Igatherv(ic, send, recv, counts, displs, root) })
		if root == mpi.Root {
			want := filled(len(recv), -1)
			for j := range m {
				for e := 0; e < counts[j]; e++ {
					want[displs[j]+e] = float64(1000*other(j) + e)
				}
			}
			eqf("Gatherv", recv, want)
		}
	}

	// Scatterv from B's rank 0: remote rank j gets j+2 elements.
	{
		root := rootArg(side, r, 1, 0)
		var send []float64
		var counts, displs []int
		if root == mpi.Root {
			var total int
			counts, displs, total = gapped(m, func(j int) int { return j + 2 })
			send = filled(total, -1)
			for j := range m {
				for e := 0; e < counts[j]; e++ {
					send[displs[j]+e] = float64(1000*j + e)
				}
			}
		}
		var recv []float64
		if side == 0 {
			recv = filled(r+2, -1)
		}
		do("Scatterv", func() error { return mpi.Scatterv(ic, send, counts, displs, recv, root) },
			func() (mpi.Request, error) { return mpi.Iscatterv(ic, send, counts, displs, recv, root) })
		if side == 0 {
			want := make([]float64, r+2)
			for e := range want {
				want[e] = float64(1000*r + e)
			}
			eqf("Scatterv", recv, want)
		}
	}

	// Allgatherv: every process sends r+1 elements.
	{
		send := make([]float64, r+1)
		for e := range send {
			send[e] = float64(1000*me + e)
		}
		counts, displs, total := gapped(m, func(j int) int { return j + 1 })
		recv := filled(total, -1)
		do("Allgatherv", func() error { return mpi.Allgatherv(ic, send, recv, counts, displs) },
			func() (mpi.Request, error) { return mpi.Iallgatherv(ic, send, recv, counts, displs) })
		want := filled(total, -1)
		for j := range m {
			for e := 0; e < counts[j]; e++ {
				want[displs[j]+e] = float64(1000*other(j) + e)
			}
		}
		eqf("Allgatherv", recv, want)
	}

	// Alltoallv: a -> b carries (a+2b)%3 elements (some empty).
	{
		k := func(a, b int) int { return (a + 2*b) % 3 }
		sc, sd := make([]int, m), make([]int, m)
		rc, rd := make([]int, m), make([]int, m)
		send, recv := filled(4*m, -1), filled(4*m+1, -1)
		want := filled(4*m+1, -1)
		for j := range m {
			sc[j], sd[j] = k(r, j), 4*j
			rc[j], rd[j] = k(j, r), 4*j+1
			for e := 0; e < sc[j]; e++ {
				send[sd[j]+e] = wVal(me, other(j), e)
			}
			for e := 0; e < rc[j]; e++ {
				want[rd[j]+e] = wVal(other(j), me, e)
			}
		}
		do("Alltoallv", func() error { return mpi.Alltoallv(ic, send, sc, sd, recv, rc, rd) },
			func() (mpi.Request, error) { return mpi.Ialltoallv(ic, send, sc, sd, recv, rc, rd) })
		eqf("Alltoallv", recv, want)
	}

	// Alltoallw with a layout family per peer, the receiver's differing from the sender's.
	{
		sl := func(j int) wLayout { return wType(t, (r+j)%3, wK(r, j)) }
		rl := func(i int) wLayout { return wType(t, (r+i+1)%3, wK(i, r)) }
		send := filled(m*region, -1)
		for j := range m {
			for e, x := range sl(j).idx {
				send[j*region+x] = wVal(me, other(j), e)
			}
		}
		sc, sd, st := wArgs(m, sl)
		rc, rd, rt := wArgs(m, rl)
		recv := filled(m*region, -7)
		do("Alltoallw", func() error { return mpi.Alltoallw(ic, send, sc, sd, st, recv, rc, rd, rt) },
			func() (mpi.Request, error) { return mpi.Ialltoallw(ic, send, sc, sd, st, recv, rc, rd, rt) })
		checkRegions(t, tag+": Alltoallw", recv, m, rl, func(i, e int) float64 { return wVal(other(i), me, e) }, -7)
	}

	// ReduceScatter and ReduceScatterBlock of 12 elements: this group gets the other
	// group's sum, element e of process p being 7p+e.
	{
		send := make([]int, 12)
		for e := range send {
			send[e] = 7*me + e
		}
		sum := make([]int, 12)
		for j := range m {
			for e := range sum {
				sum[e] += 7*other(j) + e
			}
		}
		counts := rsCounts(n)
		lo := 0
		for _, c := range counts[:r] {
			lo += c
		}
		recv := make([]int, counts[r])
		do("ReduceScatter", func() error { return mpi.ReduceScatter(ic, send, recv, counts, mpi.Sum) },
			func() (mpi.Request, error) { return mpi.IreduceScatter(ic, send, recv, counts, mpi.Sum) })
		if !slices.Equal(recv, sum[lo:lo+counts[r]]) {
			t.Errorf("%s: ReduceScatter = %v, want %v", tag, recv, sum[lo:lo+counts[r]])
		}
		b := 12 / n
		blk := make([]int, b)
		do("ReduceScatterBlock", func() error { return mpi.ReduceScatterBlock(ic, send, blk, mpi.Sum) },
			func() (mpi.Request, error) { return mpi.IreduceScatterBlock(ic, send, blk, mpi.Sum) })
		if !slices.Equal(blk, sum[r*b:(r+1)*b]) {
			t.Errorf("%s: ReduceScatterBlock = %v, want %v", tag, blk, sum[r*b:(r+1)*b])
		}
	}
}

// TestInterCollAll runs every intercommunicator collective, blocking and nonblocking,
// on groups of unequal and equal sizes.
func TestInterCollAll(t *testing.T) {
	for _, c := range []struct{ n, a int }{{5, 2}, {5, 1}, {6, 3}} {
		t.Run(fmt.Sprintf("%d+%d", c.a, c.n-c.a), func(t *testing.T) {
			job(t, c.n, func(t *testing.T, rank, size int) {
				ic, side := interSplit(t, c.a)
				interCalls(t, ic, side, false)
				interCalls(t, ic, side, true)
				must(t, ic.Free())
			})
		})
	}
}

// TestInterNonblockingOutstanding starts many nonblocking collectives on an
// intercommunicator (and one on the world) at once, runs a blocking one on the same
// intercommunicator meanwhile, and waits for them in an order that differs from rank
// to rank. A's leader first blocks in a receive that B's leader sends only once its
// own requests have completed: they complete only if A's leader's collectives
// progress while it is blocked.
func TestInterNonblockingOutstanding(t *testing.T) {
	job(t, 5, func(t *testing.T, rank, size int) {
		ic, side := interSplit(t, 2)
		n, m, r := ic.Size(), ic.RemoteSize(), ic.Rank()
		me, other := pid(side, r), func(j int) int { return pid(1-side, j) }
		var reqs []mpi.Request
		add := func(q mpi.Request, err error) {
			t.Helper()
			must(t, err)
			reqs = append(reqs, q)
		}
		for range 3 {
			add(ic.Ibarrier())
		}
		ar := []int{0, 0}
		add(mpi.Iallreduce(ic, []int{me, 1}, ar, mpi.Sum))
		wr := []int{0}
		add(mpi.Iallreduce(mpi.World, []int{rank}, wr, mpi.Sum))
		ag := make([]float64, m)
		add(mpi.Iallgather(ic, []float64{float64(me)}, ag))
		a2a := make([]float64, 2*m)
		for j := range m {
			a2a[2*j], a2a[2*j+1] = wVal(me, other(j), 0), wVal(me, other(j), 1)
		}
		a2aOut := make([]float64, 2*m)
		add(mpi.Ialltoall(ic, a2a, a2aOut))
		counts := rsCounts(n)
		rs := make([]int, counts[r])
		rsIn := make([]int, 12)
		for e := range rsIn {
			rsIn[e] = me + e
		}
		add(mpi.IreduceScatter(ic, rsIn, rs, counts, mpi.Sum))
		bc := []int{0, 0}
		root := rootArg(side, r, 1, 2)
		if root == mpi.Root {
			bc = []int{8, 9}
		}
		add(mpi.Ibcast(ic, bc, root))

		// A blocking collective on the same intercommunicator while those are in flight.
		blk := []int{0}
		must(t, mpi.Allreduce(ic, []int{1}, blk, mpi.Sum))
		if blk[0] != m {
			t.Errorf("side %d rank %d: blocking Allreduce amid nonblocking ones = %d, want %d", side, r, blk[0], m)
		}

		order := make([]int, len(reqs))
		for i := range order {
			order[i] = i
		}
		switch rank % 3 {
		case 1:
			slices.Reverse(order)
		case 2:
			order = append(order[len(order)/2:], order[:len(order)/2]...)
		}
		if side == 0 && r == 0 {
			token := []int{0}
			_, err := mpi.Recv(mpi.World, token, 2, 77)
			must(t, err)
			if token[0] != 1 {
				t.Errorf("token %d, want 1", token[0])
			}
		}
		for _, i := range order {
			_, err := reqs[i].Wait()
			must(t, err)
		}
		if side == 1 && r == 0 {
			must(t, mpi.Send(mpi.World, []int{1}, 0, 77))
		}

		sum := 0
		for j := range m {
			sum += other(j)
		}
		if !slices.Equal(ar, []int{sum, m}) {
			t.Errorf("side %d rank %d: Iallreduce = %v, want [%d %d]", side, r, ar, sum, m)
		}
		if wr[0] != size*(size-1)/2 {
			t.Errorf("rank %d: world Iallreduce = %d", rank, wr[0])
		}
		for j := range m {
			if ag[j] != float64(other(j)) {
				t.Errorf("side %d rank %d: Iallgather = %v", side, r, ag)
				break
			}
			if a2aOut[2*j] != wVal(other(j), me, 0) || a2aOut[2*j+1] != wVal(other(j), me, 1) {
				t.Errorf("side %d rank %d: Ialltoall = %v", side, r, a2aOut)
				break
			}
		}
		lo := 0
		for _, c := range counts[:r] {
			lo += c
		}
		for e := range rs {
			if want := sum + m*(lo+e); rs[e] != want {
				t.Errorf("side %d rank %d: IreduceScatter[%d] = %d, want %d", side, r, e, rs[e], want)
			}
		}
		if side == 0 && !slices.Equal(bc, []int{8, 9}) {
			t.Errorf("side %d rank %d: Ibcast = %v", side, r, bc)
		}
		must(t, ic.Free())
	})
}

// TestInterCollMoreErrors checks the arguments of the new intercommunicator
// collectives: slices sized for the remote group, no InPlace, no Scan.
func TestInterCollMoreErrors(t *testing.T) {
	job(t, 5, func(t *testing.T, rank, size int) {
		ic, side := interSplit(t, 2)
		n, m, r := ic.Size(), ic.RemoteSize(), ic.Rank()
		check := func(what string, err error, class error, words ...string) {
			t.Helper()
			if !errors.Is(err, class) {
				t.Errorf("side %d rank %d: %s: %v, want %v", side, r, what, err, class)
				return
			}
			for _, w := range words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("side %d rank %d: %s: %q does not name %q", side, r, what, err, w)
				}
			}
		}
		buf := make([]float64, 64)
		local := make([]int, n) // sized for the wrong group
		check("Allgatherv counts for the local group", mpi.Allgatherv(ic, buf[:1], buf, make([]int, n+m), make([]int, n+m)), mpi.ErrCount, "size")
		check("Alltoallv counts for the local group", mpi.Alltoallv(ic, buf, local, local, buf, make([]int, m), make([]int, m)), mpi.ErrCount, "len(scounts)")
		check("Alltoallv in place", mpi.Alltoallv(ic, mpi.InPlace[float64](), nil, nil, buf, make([]int, m), make([]int, m)), mpi.ErrBuffer, "in place")
		check("Gatherv root out of range", mpi.Gatherv(ic, buf[:1], buf, nil, nil, m), mpi.ErrRoot)
		check("Scatterv at the root, short counts", mpi.Scatterv(ic, buf, make([]int, m-1), make([]int, m-1), nil, mpi.Root), mpi.ErrCount)
		check("ReduceScatter counts for the remote group", mpi.ReduceScatter(ic, buf[:12], buf[:1], make([]int, n+1), mpi.Sum), mpi.ErrCount, "len(counts)")
		check("ReduceScatterBlock lengths", mpi.ReduceScatterBlock(ic, buf[:n*2+1], buf[:2], mpi.Sum), mpi.ErrCount, "local group's size")
		check("ReduceScatterBlock in place", mpi.ReduceScatterBlock(ic, mpi.InPlace[float64](), buf[:2], mpi.Sum), mpi.ErrBuffer)
		one := []int{1, 1, 1}
		ts := []*mpi.Datatype{mpi.Float64, mpi.Float64, mpi.Float64}
		check("Alltoallw slices sized for the local group", mpi.Alltoallw(ic, buf, one[:n], one[:n], ts[:n], buf, one[:m], one[:m], ts[:m]), mpi.ErrArg, fmt.Sprintf("len(scounts) %d", n))
		check("Alltoallw in place", mpi.Alltoallw(ic, mpi.InPlace[byte](), nil, nil, nil, buf, one[:m], one[:m], ts[:m]), mpi.ErrBuffer, "in place")
		_, err := mpi.Iexscan(ic, buf[:1], buf[1:2], mpi.Sum)
		check("Iexscan", err, mpi.ErrComm, "not defined on intercommunicators")
		// Still usable.
		out := []int{0}
		must(t, mpi.Allreduce(ic, []int{r}, out, mpi.Sum))
		if want := (m - 1) * m / 2; out[0] != want {
			t.Errorf("side %d rank %d: Allreduce after errors = %d, want %d", side, r, out[0], want)
		}
	})
}

// TestInterCollMoreCheck runs with coll_check on: a group that calls a blocking
// collective while the other calls its nonblocking form, lengths of a
// ReduceScatterBlock that do not match across the groups, and an Alltoallw against an
// Alltoallv all give an error on every process instead of a hang.
func TestInterCollMoreCheck(t *testing.T) {
	mpitest.Job(t, mpitest.Options{N: 5, Settings: map[string]string{"coll_check": "true"}}, interMoreCheckBody)
}

func interMoreCheckBody(t *testing.T) {
	chk(t, "Init", mpi.Init())
	ic, side := interSplit(t, 2)
	n, m, r := ic.Size(), ic.RemoteSize(), ic.Rank()
	// Blocking against nonblocking.
	var err error
	if side == 0 {
		err = ic.Barrier()
	} else {
		var q mpi.Request
		if q, err = ic.Ibarrier(); err == nil {
			_, err = q.Wait()
		}
	}
	if err == nil || !strings.Contains(err.Error(), "nonblocking") {
		t.Errorf("side %d rank %d: Barrier against Ibarrier: %v", side, r, err)
	}
	// ReduceScatterBlock: A sends 2×2 = 4 elements, B 3×1 = 3.
	blk := 2
	if side == 1 {
		blk = 1
	}
	err = mpi.ReduceScatterBlock(ic, make([]int, n*blk), make([]int, blk), mpi.Sum)
	if !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "coll_check") {
		t.Errorf("side %d rank %d: ReduceScatterBlock lengths: %v", side, r, err)
	}
	// Alltoallw against Alltoallv.
	buf := make([]float64, m)
	ones, displs, bdispls := make([]int, m), make([]int, m), make([]int, m)
	types := make([]*mpi.Datatype, m)
	for j := range ones {
		ones[j], displs[j], bdispls[j], types[j] = 1, j, 8*j, mpi.Float64
	}
	if side == 0 {
		err = mpi.Alltoallw(ic, buf, ones, bdispls, types, make([]float64, m), ones, bdispls, types)
	} else {
		err = mpi.Alltoallv(ic, buf, ones, displs, make([]float64, m), ones, displs)
	}
	if err == nil || !strings.Contains(err.Error(), "called") {
		t.Errorf("side %d rank %d: Alltoallw against Alltoallv: %v", side, r, err)
	}
	// B's rank 0 expects two elements from A's rank 1, which sends one.
	rc := append([]int(nil), ones...)
	if side == 1 && r == 0 {
		rc[1] = 2
	}
	err = mpi.Alltoallv(ic, buf, ones, displs, make([]float64, m+1), rc, displs)
	if !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "the block rank 1 of") {
		t.Errorf("side %d rank %d: Alltoallv with a block of the wrong size: %v", side, r, err)
	}
	want := map[int]string{0: "rank 1 of this group sends rank 0 of the remote group", 1: "rank 1 of the remote group sends rank 0 of this group"}[side]
	if err != nil && !strings.Contains(err.Error(), want) {
		t.Errorf("side %d rank %d: %v does not say %q", side, r, err, want)
	}
	// Gatherv to A's rank 0 and Scatterv from it, where the root counts one element
	// too many for B's rank 1.
	root := mpi.ProcNull
	if side == 0 && r == 0 {
		root = mpi.Root
	} else if side == 1 {
		root = 0
	}
	vc, vd := make([]int, m), make([]int, m)
	for j := range vc {
		vc[j], vd[j] = 1, 2*j
	}
	vc[m-1] = 2 // B has two processes or more
	var one [1]float64
	// Every process learns of it, ProcNull ones too.
	err = mpi.Gatherv(ic, one[:], make([]float64, 2*m), vc, vd, root)
	if !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "coll_check") {
		t.Errorf("side %d rank %d: Gatherv with a root count that does not match: %v", side, r, err)
	}
	err = mpi.Scatterv(ic, make([]float64, 2*m), vc, vd, one[:], root)
	if !errors.Is(err, mpi.ErrCount) || !strings.Contains(err.Error(), "coll_check") {
		t.Errorf("side %d rank %d: Scatterv with a root count that does not match: %v", side, r, err)
	}
	// Matching calls still pass.
	chk(t, "Gatherv", mpi.Gatherv(ic, one[:], make([]float64, 2*m), ones, vd, root))
	chk(t, "Scatterv", mpi.Scatterv(ic, make([]float64, 2*m), ones, vd, one[:], root))
	chk(t, "Alltoallw", mpi.Alltoallw(ic, buf, ones, bdispls, types, make([]float64, m), ones, bdispls, types))
	chk(t, "Barrier", ic.Barrier())
	chk(t, "Finalize", mpi.Finalize())
}

// TestInterCollAllocs measures, in a real 2+3 job, the heap allocations of short
// blocking collectives on an intercommunicator called in a loop: their schedules,
// scratch buffers and Conn come from pools, so there are none per call.
func TestInterCollAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	job(t, 5, func(t *testing.T, rank, size int) { interAllocs(t) })
}

func interAllocs(t *testing.T) {
	ic, side := interSplit(t, 2)
	m := ic.RemoteSize()
	send, recv := []float64{1, 2}, []float64{0, 0}
	all, out := make([]float64, 2*m), make([]float64, 2*m)
	root := rootArg(side, ic.Rank(), 0, 0)
	calls := []struct {
		name string
		f    func() error
	}{
		{"Barrier", ic.Barrier},
		// A rooted collective lets the root run ahead (its sends are eager): pace the
		// loop with a barrier, or the messages queue up unexpected at the receivers.
		{"Bcast", func() error { return errors.Join(mpi.Bcast(ic, recv, root), ic.Barrier()) }},
		{"Reduce", func() error { return errors.Join(mpi.Reduce(ic, send, recv, mpi.Sum, root), ic.Barrier()) }},
		{"Allreduce", func() error { return mpi.Allreduce(ic, send, recv, mpi.Sum) }},
		{"Allgather", func() error { return mpi.Allgather(ic, send, all) }},
		{"Alltoall", func() error { return mpi.Alltoall(ic, all, out) }},
	}
	for _, c := range calls {
		var err error
		for range 20 { // fill the pools: schedules, their step lists, scratch
			err = errors.Join(err, c.f())
		}
		a := testing.AllocsPerRun(300, func() {
			if e := c.f(); e != nil {
				err = e
			}
		})
		chk(t, c.name, err)
		if a != 0 {
			t.Errorf("side %d rank %d: %s on an intercommunicator: %.2f allocations per call", side, ic.Rank(), c.name, a)
		}
	}
}
