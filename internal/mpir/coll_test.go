package mpir

import (
	"errors"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
)

// The collectives' rules are pure functions of a communicator's shape and the
// arguments: tested here in one process. Their use in real jobs (that a process whose
// arguments fail takes its part, and that the faces agree) is tested in mpi and abi.

func f64(n int) Vec { return Vec{B: make([]byte, 8*n), Esz: 8} }

func inPlace() Vec { return Vec{InPlace: true, Esz: 8} }

// TestSides: which buffers count where (MPI 4.1 sections 6.2.2, 6.4-6.11).
func TestSides(t *testing.T) {
	for _, c := range []struct {
		k     CollKind
		ro    role
		inter bool
		want  Sides
	}{
		{CollBcast, roleRoot, false, SendSide},
		{CollBcast, roleLeaf, false, SendSide},
		{CollBcast, roleIdle, true, 0},
		{CollBcast, roleRemote, true, SendSide},
		{CollGather, roleRoot, false, bothSides},
		{CollGather, roleLeaf, false, SendSide},
		{CollGather, roleRoot, true, RecvSide},
		{CollGather, roleRemote, true, SendSide},
		{CollGatherv, roleIdle, true, 0},
		{CollScatter, roleRoot, false, bothSides},
		{CollScatter, roleLeaf, false, RecvSide},
		{CollScatterv, roleRoot, true, SendSide},
		{CollScatterv, roleRemote, true, RecvSide},
		{CollReduce, roleLeaf, false, SendSide},
		{CollReduce, roleRoot, true, RecvSide},
		{CollReduce, roleRemote, true, SendSide},
		{CollReduce, roleIdle, true, 0},
		{CollAllreduce, roleAll, true, bothSides},
		{CollAlltoallv, roleAll, false, bothSides},
	} {
		if got := sidesOf(c.k, c.ro, c.inter); got != c.want {
			t.Errorf("%s, role %d, inter %v: sides %b, want %b", c.k.Name(), c.ro, c.inter, got, c.want)
		}
	}
}

// TestRoles: an intercommunicator's root argument; a root that is none.
func TestRoles(t *testing.T) {
	intra := view{rank: 1, size: 3}
	inter := view{rank: 0, size: 2, remote: 5, inter: true}
	for _, c := range []struct {
		v    view
		root int
		want role
		err  bool
	}{
		{intra, 1, roleRoot, false}, {intra, 0, roleLeaf, false}, {intra, 3, 0, true}, {intra, Root, 0, true},
		{inter, Root, roleRoot, false}, {inter, core.ProcNull, roleIdle, false}, {inter, 4, roleRemote, false},
		{inter, 5, 0, true}, {inter, -7, 0, true},
	} {
		got, err := c.v.roleOf("Gather", c.root)
		if c.err {
			if !errors.Is(err, core.ErrRoot) {
				t.Errorf("root %d (inter %v): %v, want ErrRoot", c.root, c.v.inter, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("root %d (inter %v): role %d, %v; want %d", c.root, c.v.inter, got, err, c.want)
		}
	}
}

// TestInPlaceRules: MPI_IN_PLACE where each kind takes it, and the error elsewhere.
func TestInPlaceRules(t *testing.T) {
	for _, c := range []struct {
		k          CollKind
		ro         role
		inter      bool
		send, recv bool
		ok         bool
	}{
		{CollGather, roleRoot, false, true, false, true},
		{CollGather, roleLeaf, false, true, false, false},
		{CollGather, roleRoot, false, false, true, false},
		{CollScatter, roleRoot, false, false, true, true},
		{CollScatter, roleLeaf, false, false, true, false},
		{CollScatter, roleRoot, false, true, false, false},
		{CollBcast, roleRoot, false, true, false, false},
		{CollReduce, roleRoot, false, true, false, true},
		{CollReduce, roleLeaf, false, true, false, false},
		{CollAllreduce, roleAll, false, true, false, true},
		{CollAllreduce, roleAll, true, true, false, false},
		{CollAlltoallw, roleAll, false, true, false, true},
		{CollNeighborAlltoall, roleAll, false, true, false, false},
	} {
		err := inPlaceErr("x", c.k, c.ro, c.inter, c.send, c.recv)
		if c.ok != (err == nil) || err != nil && !errors.Is(err, core.ErrBuffer) {
			t.Errorf("%s role %d inter %v send %v recv %v: %v", c.k.Name(), c.ro, c.inter, c.send, c.recv, err)
		}
	}
}

// TestLengthRules: each kind's rules on its buffers' lengths, and the blocks of no
// data whose displacements are never looked at (issue 35: an Ialltoallv refused
// scounts[1] 0 at sdispls[1] 2 out of a buffer of 0).
func TestLengthRules(t *testing.T) {
	intra := view{rank: 1, size: 3}
	inter := view{rank: 0, size: 2, remote: 3, inter: true}
	sum := Red{Name: "Sum"}
	maxloc := Red{Name: "Maxloc", Pair: true}
	for _, c := range []struct {
		name string
		k    CollKind
		v    view
		ro   role
		a    CollArgs
		want error // nil: accepted
		text string
	}{
		{"gather root", CollGather, intra, roleRoot, CollArgs{Send: f64(2), Recv: f64(6)}, nil, ""},
		{"gather root short", CollGather, intra, roleRoot, CollArgs{Send: f64(2), Recv: f64(5)}, core.ErrCount, "len(recv) 5 != size 3 × len(send) 2 at the root"},
		{"gather root in place", CollGather, intra, roleRoot, CollArgs{Send: inPlace(), Recv: f64(7)}, core.ErrCount, "not a multiple"},
		{"gather leaf", CollGather, intra, roleLeaf, CollArgs{Send: f64(2)}, nil, ""},
		{"gather inter root", CollGather, inter, roleRoot, CollArgs{Recv: f64(6)}, nil, ""},
		{"gather inter root short", CollGather, inter, roleRoot, CollArgs{Recv: f64(5)}, core.ErrCount, "remote group's size 3"},
		{"gatherv zero block anywhere", CollGatherv, intra, roleRoot,
			CollArgs{Send: f64(1), Recv: f64(2), Counts: []int{1, 1, 0}, Displs: []int{0, 1, 99}}, nil, ""},
		{"gatherv block out", CollGatherv, intra, roleRoot,
			CollArgs{Send: f64(1), Recv: f64(2), Counts: []int{1, 1, 1}, Displs: []int{0, 1, 2}}, core.ErrCount, "counts[2] 1 at displs[2] 2 out of the buffer of 2"},
		{"gatherv negative", CollGatherv, intra, roleRoot,
			CollArgs{Send: f64(1), Recv: f64(2), Counts: []int{1, -1, 0}, Displs: []int{0, 1, 0}}, core.ErrCount, "negative"},
		{"gatherv missing counts", CollGatherv, intra, roleRoot, CollArgs{Send: f64(1), Recv: f64(2)}, core.ErrArg, "missing"},
		{"gatherv own block", CollGatherv, intra, roleRoot,
			CollArgs{Send: f64(2), Recv: f64(3), Counts: []int{1, 1, 1}, Displs: []int{0, 1, 2}}, core.ErrCount, "len(send) 2 != counts[1] 1"},
		// 0 ints from the root against a count of 1 of a type of size 0 (MPICH's
		// coll/zero_size type): both are empty signatures.
		{"gatherv empty own block", CollGatherv, intra, roleRoot,
			CollArgs{Send: Vec{Esz: 4}, Recv: Vec{Esz: 1}, Counts: []int{0, 0, 0}, Displs: []int{0, 0, 0}}, nil, ""},
		{"alltoallv zero blocks anywhere", CollAlltoallv, intra, roleAll,
			CollArgs{Send: f64(0), SCounts: []int{0, 0, 0}, SDispls: []int{0, 2, 7}, Recv: f64(0), Counts: []int{0, 0, 0}, Displs: []int{5, 0, 0}}, nil, ""},
		{"alltoallv in place", CollAlltoallv, intra, roleAll,
			CollArgs{Send: inPlace(), Recv: f64(3), Counts: []int{1, 1, 1}, Displs: []int{0, 1, 2}}, nil, ""},
		{"allgather", CollAllgather, intra, roleAll, CollArgs{Send: Vec{B: make([]byte, 2), Esz: 1}, Recv: Vec{B: make([]byte, 5), Esz: 1}}, core.ErrCount, "len(recv) 5 != size 3 × len(send) 2"},
		{"allgather two element sizes", CollAllgather, intra, roleAll, CollArgs{Send: Vec{B: make([]byte, 8), Esz: 4}, Recv: Vec{B: make([]byte, 24), Esz: 8}}, nil, ""},
		{"alltoall", CollAlltoall, intra, roleAll, CollArgs{Send: f64(3), Recv: f64(4)}, core.ErrCount, "equal multiples"},
		{"reduce root", CollReduce, intra, roleRoot, CollArgs{Send: f64(2), Recv: f64(1), Red: sum}, core.ErrCount, "len(send) 2 != len(recv) 1 at the root"},
		{"reduce inter root", CollReduce, inter, roleRoot, CollArgs{Recv: f64(1), Red: sum}, nil, ""},
		{"allreduce maxloc odd", CollAllreduce, intra, roleAll, CollArgs{Send: f64(3), Recv: f64(3), Red: maxloc}, core.ErrCount, "pairs"},
		// Each group's send holds its own group's size of blocks (MPI 4.1 section
		// 6.10.1): 2 × 3 here, not the remote group's 3 × 3.
		{"reduce_scatter_block inter", CollReduceScatterBlock, inter, roleAll, CollArgs{Send: f64(6), Recv: f64(3), Red: sum}, nil, ""},
		{"reduce_scatter_block inter remote size", CollReduceScatterBlock, inter, roleAll, CollArgs{Send: f64(9), Recv: f64(3), Red: sum}, core.ErrCount, "local group's size"},
		{"reduce_scatter counts", CollReduceScatter, intra, roleAll, CollArgs{Send: f64(4), Recv: f64(1), Red: sum, Counts: []int{1, 1}}, core.ErrCount, "len(counts) 2 != the size 3"},
		{"reduce_scatter in place", CollReduceScatter, intra, roleAll, CollArgs{Send: inPlace(), Recv: f64(4), Red: sum, Counts: []int{1, 2, 1}}, nil, ""},
	} {
		err := checkLengths(c.k, c.k.Name(), &c.v, c.ro, &c.a)
		switch {
		case c.want == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != nil && (!errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text)):
			t.Errorf("%s: %v, want %v saying %q", c.name, err, c.want, c.text)
		}
	}
}

// TestTypedBufferRules: a significant buffer of a datatype: committed, a count not
// negative, its items (a v form's blocks) inside its memory.
func TestTypedBufferRules(t *testing.T) {
	strided, err := datatype.Vector(2, 1, 2, datatype.Int64) // 24 bytes
	if err != nil {
		t.Fatal(err)
	}
	loose, err := datatype.Contiguous(2, datatype.Int64)
	if err != nil {
		t.Fatal(err)
	}
	if err := strided.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		v    Vec
		bl   [2][]int
		want error
	}{
		{"fits", TypedVecOf(make([]byte, 24), 1, strided), [2][]int{}, nil},
		{"too short", TypedVecOf(make([]byte, 16), 1, strided), [2][]int{}, core.ErrBuffer},
		{"uncommitted", TypedVecOf(make([]byte, 16), 1, loose), [2][]int{}, core.ErrType},
		{"negative", TypedVecOf(make([]byte, 16), -1, strided), [2][]int{}, core.ErrCount},
		{"blocks reach", TypedVecOf(make([]byte, 24), 1, strided), [2][]int{{1, 0}, {1, 5}}, core.ErrBuffer},
		{"blocks of no data", TypedVecOf(make([]byte, 24), 1, strided), [2][]int{{1, 0}, {0, 5}}, nil},
	} {
		err := checkTyped("Gatherv", "recv", &c.v, c.bl)
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TypedVecOf is collective.TypedVec, for the tests.
func TypedVecOf(mem []byte, count int, t *datatype.Type) Vec {
	v := Vec{B: mem, Count: count, Type: t}
	v.Esz = int(t.Size())
	return v
}

// TestBlockRules: the w forms' and neighbourhood sides' blocks: a block of no data is
// neither placed nor typed (MPI_DATATYPE_NULL there is fine), a block of data must be
// of a committed type, inside its memory.
func TestBlockRules(t *testing.T) {
	i64 := datatype.Int64
	s := WSide{Mem: make([]byte, 8), Counts: []int{1, 0}, Displs: []int{0, 99}, Types: []*datatype.Type{i64, nil}}
	if own, err := checkWSide("Alltoallw", "s", 2, &s, 0); err != nil || own != 8 {
		t.Errorf("a zero block with no type: %v %v", own, err)
	}
	if own, err := checkWSide("Alltoallw", "s", 2, &s, 1); err != nil || own != 0 {
		t.Errorf("a zero block with no type: %v %v", own, err)
	}
	s.Types[0] = nil
	if _, err := checkWSide("Alltoallw", "s", 2, &s, -1); !errors.Is(err, core.ErrType) {
		t.Errorf("a block of data with no type: %v", err)
	}
	s = WSide{Mem: make([]byte, 8), Counts: []int{2}, Displs: []int{0}, Types: []*datatype.Type{i64}}
	if _, err := checkWSide("Alltoallw", "s", 1, &s, -1); !errors.Is(err, core.ErrBuffer) {
		t.Errorf("a block past the memory: %v", err)
	}
	if _, err := checkWSide("Alltoallw", "r", 1, &WSide{}, -1); !errors.Is(err, core.ErrArg) {
		t.Errorf("missing arrays: %v", err)
	}
	// Only the blocks of data have their types converted.
	var asked []int
	ts, err := WTypes("Alltoallw", "sendtypes", 3, []int{0, 2, 0}, func(j int) (*datatype.Type, error) {
		asked = append(asked, j)
		return i64, nil
	}, nil)
	if err != nil || len(ts) != 3 || ts[0] != nil || ts[1] != i64 || len(asked) != 1 || asked[0] != 1 {
		t.Errorf("WTypes: %v %v, asked %v", ts, err, asked)
	}
	_, err = WTypes("Alltoallw", "sendtypes", 1, []int{1}, func(int) (*datatype.Type, error) {
		return nil, core.Errorf(core.ClassType, "Alltoallw", "datatype 0 is MPI_DATATYPE_NULL")
	}, nil)
	if !errors.Is(err, core.ErrType) || !strings.Contains(err.Error(), "sendtypes[0]: datatype 0") {
		t.Errorf("WTypes's error: %v", err)
	}
	// A plain side: blocks of elements inside the memory.
	n := NSide{Mem: make([]byte, 16), Counts: []int{2, 0}, Displs: []int{0, 7}, Unit: 8}
	if err := checkNSide("Neighbor_alltoallv", "r", 2, &n); err != nil {
		t.Errorf("a neighbourhood side with a zero block far away: %v", err)
	}
	n.Displs[0] = 1
	if err := checkNSide("Neighbor_alltoallv", "r", 2, &n); !errors.Is(err, core.ErrCount) {
		t.Errorf("a block past the memory: %v", err)
	}
	if lo, hi, err := SideSpan(&NSide{Counts: []int{1, 0, 1}, Displs: []int{-1, 100, 2}, Unit: 8, Type: i64}, 3); err != nil || lo != -8 || hi != 24 {
		t.Errorf("SideSpan: [%d,%d) %v, want [-8,24)", lo, hi, err)
	}
	if end := BlocksEnd([]int{1, 0, 2}, []int{4, 50, 1}); end != 5 {
		t.Errorf("BlocksEnd: %d, want 5", end)
	}
}

// TestCollNames: the procedures' names as the standard spells them.
func TestCollNames(t *testing.T) {
	for _, c := range []struct {
		k    CollKind
		m    Mode
		want string
	}{
		{CollBarrier, Blocking, "Barrier"}, {CollBcast, Nonblocking, "Ibcast"},
		{CollReduceScatterBlock, Persistent, "Reduce_scatter_block_init"},
		{CollNeighborAlltoallw, Nonblocking, "Ineighbor_alltoallw"},
	} {
		if p := CollProc(c.k, c.m); p.Op != c.want || p.Kind != c.k || p.Mode != c.m {
			t.Errorf("%v: %+v, want %s", c, p, c.want)
		}
	}
}
