package collective

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// The collective package's own tests run in one process: the test binary is a
// singleton job (Init with no launcher is a job of one rank), whose communicators
// have one member. That reaches the table chosen at creation, the entry points and
// their argument checks, the staging of typed buffers, the nonblocking progress and
// its pooled records, persistent collectives and their argument check, the
// neighbourhood exchange and Alltoallw (with this rank as its own neighbour). The
// node and hierarchical paths, intercommunicators and the mismatch checks need
// several processes and are tested through real jobs in mpi and abi.
func TestMain(m *testing.M) {
	if err := Init(core.ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := Finalize(nil); err != nil && code == 0 {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantClass(t *testing.T, what string, err error, want core.ErrorClass) {
	t.Helper()
	if err == nil || core.ClassOf(err) != want {
		t.Errorf("%s: got %v (class %v), want class %v", what, err, core.ClassOf(err), want)
	}
}

// i64 is int64s as a Vec's bytes.
func i64(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func int64s(b []byte) []int64 {
	out := make([]int64, len(b)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

func vec(b []byte) Vec { return Vec{B: b, Esz: 8} }

// sum is an int64 Sum as the faces build it.
var sum = Red{K: ReduceOp{Fn: func(inout, in []byte) {
	for i := 0; i+8 <= len(inout); i += 8 {
		binary.LittleEndian.PutUint64(inout[i:], binary.LittleEndian.Uint64(inout[i:])+binary.LittleEndian.Uint64(in[i:]))
	}
}, Commute: true}, Name: "Sum", Code: 1}

// TestTables: World, Self and every communicator made here chose their collectives
// when they were made; a one-rank communicator takes the schedules.
func TestTables(t *testing.T) {
	for _, c := range []*core.Comm{core.World, core.Self} {
		if p, why := PathOf(c); p != PathSched || why != "one rank" {
			t.Errorf("%s: path %v (%q), want the schedules for one rank", c.Name(), p, why)
		}
	}
	tab := Table(core.World)
	if !strings.HasPrefix(tab, "collectives of MPI_COMM_WORLD (1 ranks): Barrier, Bcast, Reduce, Allreduce by schedule (one rank)") ||
		!strings.Contains(tab, "every other collective, and every nonblocking one: schedules") {
		t.Errorf("Table(World):\n%s", tab)
	}
	d, err := Dup(core.World, "Dup", nil)
	must(t, err)
	if of(d) == nil || of(d).Comm != d || of(d).size != 1 {
		t.Fatal("Dup's communicator has no collectives of its own")
	}
	if p, _ := PathOf(d); p != PathSched {
		t.Errorf("Dup's path %v", p)
	}
	must(t, Free(d, "Free"))
	wantClass(t, "Barrier on a freed communicator", Barrier(d, "Barrier"), core.ClassComm)
	wantClass(t, "Free twice", Free(d, "Free"), core.ClassComm)
	wantClass(t, "Barrier on a nil communicator", Barrier(nil, "Barrier"), core.ClassComm)
	for name, make := range map[string]func() (*core.Comm, error){
		"Split":       func() (*core.Comm, error) { return Split(core.World, "Split", 1, 0, nil) },
		"Create":      func() (*core.Comm, error) { return Create(core.World, "Create", core.World.Group(), nil) },
		"CreateGroup": func() (*core.Comm, error) { return CreateGroup(core.World, "Create_group", core.World.Group(), 3, nil) },
		"CreateFromGroup": func() (*core.Comm, error) {
			return CreateFromGroup("Comm_create_from_group", core.World.Group(), "t", nil)
		},
		"SplitType": func() (*core.Comm, error) {
			c, _, err := SplitType(core.World, "Split_type", core.SplitTypeArgs{Kind: core.SplitShared}, nil)
			return c, err
		},
	} {
		c, err := make()
		if err != nil || c == nil || of(c) == nil {
			t.Errorf("%s: %v, %v: want a communicator with its collectives", name, c, err)
			continue
		}
		must(t, Barrier(c, "Barrier"))
		must(t, Free(c, "Free"))
	}
	if c, err := Split(core.World, "Split", core.Undefined, 0, nil); c != nil || err != nil {
		t.Errorf("Split with Undefined: %v, %v; want nil, nil", c, err)
	}
}

// TestOneRank: every collective on one rank gives what MPI defines for a group of one.
func TestOneRank(t *testing.T) {
	w := core.World
	must(t, Barrier(w, "Barrier"))
	b := vec(i64(7, 8))
	must(t, Bcast(w, "Bcast", &b, 0))
	send, recv := vec(i64(3, 4)), vec(make([]byte, 16))
	must(t, Allreduce(w, "Allreduce", &send, &recv, &sum))
	if got := int64s(recv.B); got[0] != 3 || got[1] != 4 {
		t.Errorf("Allreduce: %v", got)
	}
	in := InPlaceVec(8)
	must(t, Reduce(w, "Reduce", &in, &recv, &sum, 0))
	if allocs := testing.AllocsPerRun(100, func() {
		if raceEnabled {
			return
		}
		Barrier(w, "Barrier")
		Bcast(w, "Bcast", &b, 0)
		Allreduce(w, "Allreduce", &send, &recv, &sum)
	}); allocs != 0 {
		t.Errorf("Barrier, Bcast and Allreduce allocate %v times", allocs)
	}
	for _, tc := range []struct {
		name string
		run  func(out []byte) (*core.Pending, error)
		want []int64
	}{
		{"Gather", func(out []byte) (*core.Pending, error) { return Gather(w, "Gather", vec(i64(5)), vec(out), 0, false) }, []int64{5}},
		{"Igather", func(out []byte) (*core.Pending, error) { return Gather(w, "Igather", vec(i64(5)), vec(out), 0, true) }, []int64{5}},
		{"Scatter", func(out []byte) (*core.Pending, error) { return Scatter(w, "Scatter", vec(i64(6)), vec(out), 0, false) }, []int64{6}},
		{"Allgather", func(out []byte) (*core.Pending, error) {
			return Allgather(w, "Allgather", vec(i64(9)), vec(out), false)
		}, []int64{9}},
		{"Alltoall", func(out []byte) (*core.Pending, error) { return Alltoall(w, "Alltoall", vec(i64(2)), vec(out), true) }, []int64{2}},
		{"Allgatherv", func(out []byte) (*core.Pending, error) {
			return Allgatherv(w, "Allgatherv", vec(i64(4)), vec(out), []int{1}, []int{0}, false)
		}, []int64{4}},
		{"ReduceScatterBlock", func(out []byte) (*core.Pending, error) {
			return ReduceScatterBlock(w, "Reduce_scatter_block", vec(i64(11)), vec(out), sum, false)
		}, []int64{11}},
		{"Scan", func(out []byte) (*core.Pending, error) {
			return Scan(w, "Scan", vec(i64(12)), vec(out), sum, false, true)
		}, []int64{12}},
		{"Iallreduce", func(out []byte) (*core.Pending, error) {
			return Iallreduce(w, "Iallreduce", vec(i64(13)), vec(out), sum)
		}, []int64{13}},
		{"Ibcast", func(out []byte) (*core.Pending, error) {
			copy(out, i64(14))
			return Ibcast(w, "Ibcast", vec(out), 0)
		}, []int64{14}},
	} {
		out := make([]byte, 8)
		p, err := tc.run(out)
		if err == nil && p != nil {
			err = p.Wait()
		}
		if err != nil || int64s(out)[0] != tc.want[0] {
			t.Errorf("%s: %v, %v; want %v", tc.name, int64s(out), err, tc.want)
		}
	}
	p, err := Ibarrier(w, "Ibarrier")
	must(t, err)
	must(t, p.Wait())
}

// TestArgumentErrors: the checks the device keeps for itself (a root out of range, a
// datatype the engine cannot bind) give the class MPI names, before anything is
// sent; the others are mpir's (internal/mpir/coll_test.go).
func TestArgumentErrors(t *testing.T) {
	w := core.World
	b := vec(i64(1))
	wantClass(t, "Bcast from root 1 of one", Bcast(w, "Bcast", &b, 1), core.ClassRoot)
	_, err := Scatter(w, "Scatter", vec(i64(1)), vec(make([]byte, 8)), -1, true)
	wantClass(t, "Iscatter from root -1", err, core.ClassRoot)
	uncommitted, err := datatype.Contiguous(2, datatype.Int64)
	must(t, err)
	tv := TypedVec(make([]byte, 16), 1, uncommitted)
	wantClass(t, "Bcast of an uncommitted type", Bcast(w, "Bcast", &tv, 0), core.ClassType)
}

// TestTypedBuffers: buffers described by datatypes are laid out for the schedules
// and back: a vector type's gaps are left alone, in the blocking and the
// nonblocking form.
func TestTypedBuffers(t *testing.T) {
	w := core.World
	strided, err := datatype.Vector(3, 1, 2, datatype.Int64) // items 0, 2, 4 of five
	must(t, err)
	must(t, strided.Commit())
	for _, nb := range []bool{false, true} {
		out := i64(-1, -1, -1, -1, -1)
		p, err := Allgather(w, "Allgather", vec(i64(10, 20, 30)), TypedVec(out, 1, strided), nb)
		if err == nil && p != nil {
			err = p.Wait()
		}
		must(t, err)
		if got := int64s(out); fmt.Sprint(got) != "[10 -1 20 -1 30]" {
			t.Errorf("Allgather into a vector type (nonblocking %v): %v", nb, got)
		}
	}
	buf := i64(1, 0, 2, 0, 3)
	v := TypedVec(buf, 1, strided)
	must(t, Bcast(w, "Bcast", &v, 0))
	if got := int64s(buf); fmt.Sprint(got) != "[1 0 2 0 3]" {
		t.Errorf("Bcast of a vector type: %v", got)
	}
}

// TestPooledRecords: a nonblocking collective's record goes back to the pool once
// reported and serves the next one; a stale copy of the first request is a used-up
// request, never the second operation.
func TestPooledRecords(t *testing.T) {
	p, err := Ibarrier(core.World, "Ibarrier")
	must(t, err)
	old := p.Ref()
	must(t, old.Wait())
	must(t, old.Release())
	q, err := Ibarrier(core.World, "Ibarrier")
	must(t, err)
	if q != p {
		t.Fatal("the second collective did not reuse the record the first gave back")
	}
	if !old.Stale() || old.Active() {
		t.Errorf("the first request's copy: Stale %v, Active %v; want used up", old.Stale(), old.Active())
	}
	if ok, err := old.Test(); !ok || err != nil {
		t.Errorf("a stale copy's Test: %v, %v; want the null request's", ok, err)
	}
	if q.Ref().Stale() {
		t.Error("the second request is stale")
	}
	must(t, q.Wait())
	must(t, q.Ref().Release())
	in, out := vec(i64(1)), vec(make([]byte, 8))
	if allocs := testing.AllocsPerRun(100, func() {
		if raceEnabled {
			return
		}
		p, _ := Iallreduce(core.World, "Iallreduce", in, out, sum)
		h := p.Ref()
		h.Wait()
		h.Release()
	}); allocs != 0 {
		t.Errorf("Iallreduce+Wait allocates %v times", allocs)
	}
}

// TestPersistent: a persistent collective is inactive until Start, runs its
// nonblocking form once per Start on the numbers its init reserved, and cannot be
// started while active; its Init's
// check of the arguments sends nothing and takes no collective sequence number.
func TestPersistent(t *testing.T) {
	w := core.World
	runs := 0
	p := Persistent(w, ReservePersistent(w), func() (*core.Pending, error) { runs++; return Ibarrier(w, "Barrier_init") })
	seq0 := w.SeqTag()
	if p.Active() || !p.IsPersistent() {
		t.Fatalf("a new persistent request: Active %v, IsPersistent %v", p.Active(), p.IsPersistent())
	}
	for i := 0; i < 3; i++ {
		must(t, p.Start("Start"))
		if !p.Active() {
			t.Fatal("not active after Start")
		}
		if i == 0 {
			wantClass(t, "Start of an active request", p.Start("Start"), core.ClassRequest)
		}
		must(t, p.Wait())
		must(t, p.Ref().Release())
	}
	if runs != 3 || p.Active() {
		t.Errorf("%d runs, Active %v after the last report", runs, p.Active())
	}
	if seq1 := w.SeqTag(); seq1 != seq0+1 {
		t.Errorf("the runs took %d of the communicator's sequence numbers, want none (they draw from the init's)", seq1-seq0-1)
	}
	must(t, p.Ref().Free())
	wantClass(t, "Start after Free", p.Start("Start"), core.ClassRequest)

	before := w.SeqTag()
	err := CheckArgs(w, func() error {
		_, err := Ibcast(w, "Bcast_init", vec(i64(1)), 3)
		return err
	})
	wantClass(t, "Bcast_init from root 3", err, core.ClassRoot)
	must(t, CheckArgs(w, func() error {
		_, err := Iallreduce(w, "Allreduce_init", vec(i64(1)), vec(make([]byte, 8)), sum)
		return err
	}))
	if after := w.SeqTag(); after != before+1 {
		t.Errorf("the checks took %d collective sequence numbers, want none", after-before-1)
	}
}

// TestNeighborSelf: a neighbourhood exchange in which this rank is every neighbour,
// on a grid (each block by its slot's tag) and not, typed and not.
func TestNeighborSelf(t *testing.T) {
	w := core.World
	for _, cart := range []bool{false, true} {
		send := &NSide{Mem: i64(1, 2), Count: 1, Stride: 1, Unit: 8}
		out := make([]byte, 16)
		recv := &NSide{Mem: out, Count: 1, Stride: 1, Unit: 8}
		_, err := Neighbor(w, "Neighbor_alltoall", []int{0, 0}, []int{0, 0}, cart, send, recv, false)
		must(t, err)
		want := "[1 2]"
		if cart {
			want = "[2 1]" // the +1 neighbour's block comes as the -1 neighbour's
		}
		if got := fmt.Sprint(int64s(out)); got != want {
			t.Errorf("cart %v: %s, want %s", cart, got, want)
		}
	}
	strided, err := datatype.Vector(2, 1, 2, datatype.Int64)
	must(t, err)
	must(t, strided.Commit())
	out := i64(-1, -1, -1)
	p, err := Neighbor(w, "Ineighbor_allgather", []int{0}, []int{0}, false,
		&NSide{Mem: i64(5, 6), Count: 2, Unit: 8}, &NSide{Mem: out, Count: 1, Unit: 1, Type: strided}, true)
	must(t, err)
	must(t, p.Wait())
	if got := fmt.Sprint(int64s(out)); got != "[5 -1 6]" {
		t.Errorf("a typed receive side: %s", got)
	}
}

// TestAlltoallwSelf: Alltoallw with this rank alone, the two sides of different
// datatypes of one type signature. (Its arguments' checks are mpir's.)
func TestAlltoallwSelf(t *testing.T) {
	strided, err := datatype.Vector(2, 1, 2, datatype.Int64)
	must(t, err)
	must(t, strided.Commit())
	out := i64(-1, -1, -1)
	for _, nb := range []bool{false, true} {
		p, err := Alltoallw(core.World, "Alltoallw", i64(7, 8), false, []int{2}, []int{0}, []*datatype.Type{datatype.Int64},
			out, []int{1}, []int{0}, []*datatype.Type{strided}, nb)
		if err == nil && p != nil {
			err = p.Wait()
		}
		must(t, err)
		if got := fmt.Sprint(int64s(out)); got != "[7 -1 8]" {
			t.Errorf("Alltoallw (nonblocking %v): %s", nb, got)
		}
	}
}
