package mpi_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/internal/topo"
	"github.com/mpigo/mpigo/mpi"
)

// hwTypes are the values of mpi_hw_resource_type mpigo knows, the node first.
func hwTypes() []string {
	out := []string{mpi.HWSharedMemory}
	for _, typ := range topo.ResourceTypes {
		out = append(out, "hwloc://"+typ)
	}
	return out
}

// placesOf gathers, for each world rank, the instance of typ it is within as
// internal/topo reads it (-1 for none); the tests run on one node, so the node is 0.
func placesOf(t *testing.T, typ string) []int64 {
	t.Helper()
	id := int64(0)
	if typ != mpi.HWSharedMemory {
		set, err := topo.Allowed()
		must(t, err)
		id = int64(topo.Machine().InstanceOf(typ[len("hwloc://"):], set))
	}
	all := make([]int64, mpi.World.Size())
	must(t, mpi.Allgather(mpi.World, []int64{id}, all))
	return all
}

// infoWith makes an Info holding the pairs (key, value, key, value...).
func infoWith(t *testing.T, kv ...string) *mpi.Info {
	t.Helper()
	in := mpi.InfoCreate()
	for i := 0; i < len(kv); i += 2 {
		must(t, in.Set(kv[i], kv[i+1]))
	}
	return in
}

// worldRanks lists the world ranks of g's members in g's order.
func worldRanks(t *testing.T, g *mpi.Group) []int {
	t.Helper()
	in := make([]int, g.Size())
	for i := range in {
		in[i] = i
	}
	out, err := mpi.TranslateRanks(g, in, mpi.World.Group())
	must(t, err)
	return out
}

// sameColor lists the world ranks among members whose place equals mine, in the order
// of key = size-1-rank (descending world rank).
func sameColor(places []int64, mine int64, members []int) []int {
	var out []int
	for _, r := range members {
		if places[r] == mine {
			out = append(out, r)
		}
	}
	slices.Reverse(out)
	return out
}

// checkMembers fails t unless c holds exactly want (world ranks, in rank order), or
// is nil where want is empty.
func checkMembers(t *testing.T, what string, c *mpi.Comm, want []int) {
	t.Helper()
	if len(want) == 0 {
		if c != nil {
			t.Errorf("%s: got a communicator of %v, want nil", what, worldRanks(t, c.Group()))
		}
		return
	}
	if c == nil {
		t.Errorf("%s: got nil, want the ranks %v", what, want)
		return
	}
	if got := worldRanks(t, c.Group()); !slices.Equal(got, want) {
		t.Errorf("%s: ranks %v, want %v", what, got, want)
	}
}

func allRanks(size int) []int {
	out := make([]int, size)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestSplitTypeHWGuided splits World by every resource type, bound to cores and
// unbound, with both guided split types: each communicator holds exactly the ranks
// internal/topo places in the same instance, ranked by key; a rank within none gets nil.
func TestSplitTypeHWGuided(t *testing.T) {
	for _, tc := range []struct {
		bind string
		n    int
	}{{"core", 4}, {"none", 2}} {
		t.Run(tc.bind, func(t *testing.T) {
			jobWith(t, mpitest.Options{N: tc.n, Settings: map[string]string{"bind_to": tc.bind}}, func(t *testing.T, rank, size int) {
				if tc.bind == "core" && placesOf(t, "hwloc://Core")[rank] < 0 {
					t.Fatalf("rank %d is bound to a core but not within one", rank)
				}
				for _, typ := range hwTypes() {
					places := placesOf(t, typ)
					want := []int(nil)
					if places[rank] >= 0 {
						want = sameColor(places, places[rank], allRanks(size))
					}
					for _, kind := range []int{mpi.SplitTypeHWGuided, mpi.SplitTypeResourceGuided} {
						info := infoWith(t, "mpi_hw_resource_type", typ)
						c, err := mpi.World.SplitTypeInfo(kind, size-1-rank, info)
						must(t, err)
						checkMembers(t, typ, c, want)
						if c != nil {
							must(t, c.Barrier())
							must(t, c.Free())
						}
						must(t, info.Free())
					}
				}
			})
		})
	}
}

// TestSplitTypeGuidedNil: a nil info, a missing key and a value mpigo does not know
// give nil on every rank; a rank passing Undefined gets nil while the others split.
func TestSplitTypeGuidedNil(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		for _, kind := range []int{mpi.SplitTypeHWGuided, mpi.SplitTypeResourceGuided} {
			c, err := mpi.World.SplitTypeInfo(kind, 0, nil)
			checkNil(t, "nil info", c, err)
			c, err = mpi.World.SplitType(kind, 0)
			checkNil(t, "SplitType", c, err)
			for _, info := range []*mpi.Info{
				infoWith(t),
				infoWith(t, "other", "x"),
				infoWith(t, "mpi_hw_resource_type", "hwloc://Bogus"),
				infoWith(t, "mpi_hw_resource_type", "NUMANode"),
				infoWith(t, "mpi_hw_resource_type", "hwloc://numanode"),
				infoWith(t, "mpi_hw_resource_type", ""),
				infoWith(t, "mpi_pset_name", "mpi://WORLD"), // read by RESOURCE_GUIDED only
			} {
				c, err := mpi.World.SplitTypeInfo(kind, 0, info)
				if kind == mpi.SplitTypeResourceGuided && c != nil {
					must(t, c.Free()) // the pset gives World
					continue
				}
				checkNil(t, "unknown or missing resource type", c, err)
			}
		}
		c, err := mpi.World.SplitTypeInfo(mpi.SplitTypeResourceGuided, 0, infoWith(t, "mpi_pset_name", "mpi://nothing"))
		checkNil(t, "unknown process set", c, err)
		kind := mpi.SplitTypeHWGuided
		if rank == 1 {
			kind = mpi.Undefined
		}
		c, err = mpi.World.SplitTypeInfo(kind, 0, infoWith(t, "mpi_hw_resource_type", mpi.HWSharedMemory))
		must(t, err)
		if rank == 1 {
			checkNil(t, "Undefined", c, err)
		} else {
			checkMembers(t, "the others", c, []int{0, 2})
		}
	})
}

func checkNil(t *testing.T, what string, c *mpi.Comm, err error) {
	t.Helper()
	if err != nil || c != nil {
		t.Errorf("%s: got %v, %v; want nil, nil", what, c, err)
	}
}

// TestSplitTypeMismatch: arguments that differ between ranks, or that no rank may
// pass, give an error on every rank (so none waits), and World works on.
func TestSplitTypeMismatch(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		hw := func(v string) *mpi.Info { return infoWith(t, "mpi_hw_resource_type", v) }
		pick := func(first, rest *mpi.Info) *mpi.Info {
			if rank == 0 {
				return first
			}
			return rest
		}
		freed := hw("hwloc://Core")
		must(t, freed.Free())
		for _, tc := range []struct {
			what       string
			kind       int
			info       *mpi.Info
			want, mine error // mine: rank 0's error when it differs
		}{
			{"values differ", mpi.SplitTypeHWGuided, pick(hw("hwloc://Core"), hw("hwloc://L3Cache")), mpi.ErrInfoValue, nil},
			{"a key only some give", mpi.SplitTypeHWGuided, pick(infoWith(t), hw(mpi.HWSharedMemory)), mpi.ErrInfoValue, nil},
			// RESOURCE_GUIDED's keys are hints: given differently, they are ignored,
			// and every rank gets nil as with none (MPICH's comm/cmsplit_type).
			{"pset names differ", mpi.SplitTypeResourceGuided, pick(infoWith(t, "mpi_pset_name", mpi.PsetSelf), infoWith(t, "mpi_pset_name", mpi.PsetWorld)), nil, nil},
			{"resource types differ", mpi.SplitTypeResourceGuided, pick(hw("hwloc://Core"), hw(mpi.HWSharedMemory)), nil, nil},
			{"a hint only some give", mpi.SplitTypeResourceGuided, pick(hw(mpi.HWSharedMemory), nil), nil, nil},
			{"split types differ", map[bool]int{true: mpi.SplitTypeShared, false: mpi.SplitTypeHWUnguided}[rank == 0], nil, mpi.ErrArg, nil},
			{"no such split type", 99, nil, mpi.ErrArg, nil},
			{"split type -1", -1, nil, mpi.ErrArg, nil},
			{"both keys", mpi.SplitTypeResourceGuided, infoWith(t, "mpi_hw_resource_type", "hwloc://Core", "mpi_pset_name", mpi.PsetWorld), mpi.ErrInfoKey, nil},
			// Rank 0's own error, whose class the others' errors take.
			{"a freed info", mpi.SplitTypeHWGuided, pick(freed, hw("hwloc://Core")), mpi.ErrInfo, nil},
		} {
			want := tc.want
			if rank == 0 && tc.mine != nil {
				want = tc.mine
			}
			c, err := mpi.World.SplitTypeInfo(tc.kind, rank, tc.info)
			if c != nil || !errors.Is(err, want) {
				t.Errorf("%s: got %v, %v; want nil and %v", tc.what, c, err, want)
			}
			must(t, mpi.World.Barrier())
		}
	})
}

// allPlaces is placesOf for every resource type; it is collective over World.
func allPlaces(t *testing.T) map[string][]int64 {
	out := map[string][]int64{}
	for _, typ := range hwTypes() {
		out[typ] = placesOf(t, typ)
	}
	return out
}

// unguidedLevel is the type the standard's rule picks for the ranks listed: the
// first, from the node down, some of whose instances hold some of them and none all.
func unguidedLevel(all map[string][]int64, members []int) (string, []int64) {
	for _, typ := range hwTypes() {
		places := all[typ]
		count := map[int64]int{}
		for _, r := range members {
			if places[r] >= 0 {
				count[places[r]]++
			}
		}
		strict := len(count) > 0
		for _, n := range count {
			strict = strict && n < len(members)
		}
		if strict {
			if typ == "hwloc://Machine" {
				typ = mpi.HWSharedMemory
			}
			return typ, places
		}
	}
	return "", nil
}

// TestSplitTypeHWUnguided: each split goes by the first level whose instances part
// the communicator into strict subsets, reports it in the info, and splitting the
// result again ends in nil within as many steps as there are levels.
func TestSplitTypeHWUnguided(t *testing.T) {
	for _, tc := range []struct {
		bind string
		n    int
	}{{"core", 4}, {"none", 2}} {
		t.Run(tc.bind, func(t *testing.T) {
			jobWith(t, mpitest.Options{N: tc.n, Settings: map[string]string{"bind_to": tc.bind}}, func(t *testing.T, rank, size int) {
				all := allPlaces(t)
				c, members := mpi.World, allRanks(size)
				for step := 0; c != nil; step++ {
					if step > len(hwTypes()) {
						t.Fatalf("still splitting after %d steps", step)
					}
					typ, places := unguidedLevel(all, members)
					want := []int(nil)
					if typ != "" && places[rank] >= 0 {
						want = sameColor(places, places[rank], members)
					}
					info := mpi.InfoCreate()
					nc, err := c.SplitTypeInfo(mpi.SplitTypeHWUnguided, size-1-rank, info)
					must(t, err)
					checkMembers(t, "unguided", nc, want)
					got, ok, err := info.Get("mpi_hw_resource_type")
					must(t, err)
					if nc != nil && (!ok || got != typ) || nc == nil && ok {
						t.Errorf("step %d: the info says %q (set %v), want %q", step, got, ok, typ)
					}
					if tc.bind == "core" && step == 0 && nc == nil {
						t.Errorf("ranks bound to cores: the first unguided split gave nil")
					}
					must(t, info.Free())
					if c != mpi.World {
						must(t, c.Free())
					}
					c, members = nc, want
					// Every rank of the step's communicator takes part in the next.
					if c != nil {
						slices.Sort(members)
					}
				}
				d, err := mpi.World.SplitType(mpi.SplitTypeHWUnguided, 0)
				must(t, err)
				if typ, _ := unguidedLevel(all, allRanks(size)); (d == nil) != (typ == "") {
					t.Errorf("info-less unguided split: %v", d)
				}
				if d != nil {
					must(t, d.Free())
				}
			})
		})
	}
}

// TestSplitTypePset splits by the process sets mpigo has: mpi://WORLD keeps the
// communicator whole (any case), mpi://SELF leaves each rank alone.
func TestSplitTypePset(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		half, err := mpi.World.Split(rank%2, rank)
		must(t, err)
		for _, parent := range []*mpi.Comm{mpi.World, half} {
			for _, name := range []string{mpi.PsetWorld, "MPI://world"} {
				c, err := parent.SplitTypeInfo(mpi.SplitTypeResourceGuided, 0, infoWith(t, "mpi_pset_name", name))
				must(t, err)
				cmp, err := mpi.CommCompare(c, parent)
				must(t, err)
				if cmp != mpi.Congruent {
					t.Errorf("%s: compare with the parent: %v", name, cmp)
				}
				must(t, c.Free())
			}
			c, err := parent.SplitTypeInfo(mpi.SplitTypeResourceGuided, 0, infoWith(t, "mpi_pset_name", mpi.PsetSelf))
			must(t, err)
			checkMembers(t, "mpi://SELF", c, []int{rank})
			must(t, c.Free())
		}
		must(t, half.Free())
	})
}

// TestSplitTypeInter splits an intercommunicator of world ranks {0,1} and {2,3},
// bound to cores: the ranks of both groups within one instance form an
// intercommunicator, nil where the instance has ranks in one group only.
func TestSplitTypeInter(t *testing.T) {
	jobWith(t, mpitest.Options{N: 4, Settings: map[string]string{"bind_to": "core"}}, func(t *testing.T, rank, size int) {
		side := rank / 2
		local, err := mpi.World.Split(side, rank)
		must(t, err)
		inter, err := mpi.IntercommCreate(local, 0, mpi.World, 2*(1-side), 7)
		must(t, err)
		mine, theirs := []int{2 * side, 2*side + 1}, []int{2 * (1 - side), 2*(1-side) + 1}
		check := func(what string, c *mpi.Comm, places []int64) {
			t.Helper()
			wantLocal := sameColor(places, places[rank], mine)
			wantRemote := sameColor(places, places[rank], theirs)
			if places[rank] < 0 || len(wantRemote) == 0 {
				checkMembers(t, what, c, nil)
				return
			}
			if c == nil || !c.IsInter() {
				t.Errorf("%s: got %v, want an intercommunicator", what, c)
				return
			}
			checkMembers(t, what+" (local)", c, wantLocal)
			if got := worldRanks(t, c.RemoteGroup()); !slices.Equal(got, wantRemote) {
				t.Errorf("%s: remote ranks %v, want %v", what, got, wantRemote)
			}
			must(t, c.Barrier())
			must(t, c.Free())
		}
		for _, typ := range []string{mpi.HWSharedMemory, "hwloc://Core", "hwloc://L3Cache"} {
			c, err := inter.SplitTypeInfo(mpi.SplitTypeHWGuided, size-1-rank, infoWith(t, "mpi_hw_resource_type", typ))
			must(t, err)
			check(typ, c, placesOf(t, typ))
		}
		c, err := inter.SplitType(mpi.SplitTypeShared, size-1-rank)
		must(t, err)
		check("shared", c, placesOf(t, mpi.HWSharedMemory))
		typ, places := unguidedLevel(allPlaces(t), allRanks(size))
		c, err = inter.SplitType(mpi.SplitTypeHWUnguided, size-1-rank)
		must(t, err)
		if typ == "" {
			checkMembers(t, "unguided", c, nil)
		} else {
			check("unguided", c, places)
		}
		v := map[int]string{0: "hwloc://Core", 1: "hwloc://Core", 2: "hwloc://PU", 3: "hwloc://PU"}[rank]
		c, err = inter.SplitTypeInfo(mpi.SplitTypeHWGuided, 0, infoWith(t, "mpi_hw_resource_type", v))
		if c != nil || !errors.Is(err, mpi.ErrInfoValue) {
			t.Errorf("the groups pass different types: %v, %v; want ErrInfoValue", c, err)
		}
		must(t, inter.Free())
		must(t, local.Free())
	})
}

// TestSplitTypeNilAndFreedComm: both forms refuse a nil or freed communicator with
// ErrComm, without taking part in any exchange.
func TestSplitTypeNilAndFreedComm(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		freed, err := mpi.World.Dup()
		must(t, err)
		must(t, freed.Free())
		for _, c := range []*mpi.Comm{nil, freed} {
			_, err := c.SplitType(mpi.SplitTypeShared, 0)
			if !errors.Is(err, mpi.ErrComm) {
				t.Errorf("SplitType: %v, want ErrComm", err)
			}
			_, err = c.SplitTypeInfo(mpi.SplitTypeHWGuided, 0, infoWith(t, "mpi_hw_resource_type", "hwloc://Core"))
			if !errors.Is(err, mpi.ErrComm) {
				t.Errorf("SplitTypeInfo: %v, want ErrComm", err)
			}
		}
	})
}

// checkHwInfo compares GetHwResourceInfo with internal/topo: a "true" or "false" for
// every type the machine has, by whether this process is within one instance.
func checkHwInfo(t *testing.T, bound bool) {
	t.Helper()
	info, err := mpi.GetHwResourceInfo()
	must(t, err)
	set, err := topo.Allowed()
	must(t, err)
	m := topo.Machine()
	var want []string
	for _, typ := range topo.ResourceTypes {
		if len(m.Instances(typ)) > 0 {
			want = append(want, "hwloc://"+typ)
		}
	}
	n, err := info.Nkeys()
	must(t, err)
	var keys []string
	for i := range n {
		k, err := info.Nthkey(i)
		must(t, err)
		keys = append(keys, k)
		v, _, err := info.Get(k)
		must(t, err)
		in := m.InstanceOf(k[len("hwloc://"):], set) >= 0
		if v != map[bool]string{true: "true", false: "false"}[in] {
			t.Errorf("%s = %q, but within one instance: %v", k, v, in)
		}
	}
	if !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if v, _, _ := info.Get("hwloc://Machine"); v != "true" {
		t.Errorf("hwloc://Machine = %q, want true", v)
	}
	if v, _, _ := info.Get("hwloc://Core"); bound && v != "true" {
		t.Errorf("bound to a core, but hwloc://Core = %q", v)
	}
	must(t, info.Free())
}

// TestGetHwResourceInfo reads the hardware info before Init, in a job bound to
// cores, and after Finalize; every restricted type splits World without nil.
func TestGetHwResourceInfo(t *testing.T) {
	mpitest.Job(t, mpitest.Options{N: 2, Settings: map[string]string{"bind_to": "core"}}, func(t *testing.T) {
		checkHwInfo(t, false)
		must(t, mpi.Init())
		checkHwInfo(t, true)
		info, err := mpi.GetHwResourceInfo()
		must(t, err)
		n, err := info.Nkeys()
		must(t, err)
		for i := range n {
			k, _ := info.Nthkey(i)
			v, _, _ := info.Get(k)
			split := infoWith(t, "mpi_hw_resource_type", k)
			c, err := mpi.World.SplitTypeInfo(mpi.SplitTypeResourceGuided, 0, split)
			must(t, err)
			if (c != nil) != (v == "true") {
				t.Errorf("%s = %s, but the split gave %v", k, v, c)
			}
			if c != nil {
				must(t, c.Free())
			}
		}
		must(t, mpi.Finalize())
		checkHwInfo(t, true)
	})
}
