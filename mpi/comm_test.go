package mpi_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

func TestSplitManyColors(t *testing.T) {
	job(t, 7, func(t *testing.T, rank, size int) {
		color, key := rank%3, -rank // reversed order inside each colour
		c, err := mpi.World.Split(color, key)
		must(t, err)
		var members []int
		for r := size - 1; r >= 0; r-- {
			if r%3 == color {
				members = append(members, r)
			}
		}
		if c.Size() != len(members) || members[c.Rank()] != rank {
			t.Fatalf("colour %d: rank %d of %d, want position of %d in %v", color, c.Rank(), c.Size(), rank, members)
		}
		// Every member sends its world rank around the new communicator's ring.
		got := []int{-1}
		_, err = mpi.Sendrecv(c, []int{rank}, (c.Rank()+1)%c.Size(), 0, got, (c.Rank()-1+c.Size())%c.Size(), 0)
		must(t, err)
		if want := members[(c.Rank()-1+c.Size())%c.Size()]; got[0] != want {
			t.Errorf("received %d, want %d", got[0], want)
		}
		must(t, c.Barrier())
		tr, err := mpi.TranslateRanks(c.Group(), []int{0, c.Size() - 1}, mpi.World.Group())
		must(t, err)
		if tr[0] != members[0] || tr[1] != members[len(members)-1] {
			t.Errorf("TranslateRanks %v, members %v", tr, members)
		}
		must(t, c.Free())
		// Undefined leaves a rank out.
		c2, err := mpi.World.Split(map[bool]int{true: mpi.Undefined, false: 1}[rank == 0], 0)
		must(t, err)
		if (rank == 0) != (c2 == nil) {
			t.Errorf("rank %d: Split with Undefined gave %v", rank, c2)
		}
		if c2 != nil {
			if c2.Size() != size-1 {
				t.Errorf("size %d", c2.Size())
			}
			must(t, c2.Free())
		}
	})
}

func TestSplitTypeShared(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		c, err := mpi.World.SplitType(mpi.SplitTypeShared, rank)
		must(t, err)
		if c.Size() != size || c.Rank() != rank {
			t.Errorf("one node: rank %d of %d", c.Rank(), c.Size())
		}
		cmp, err := mpi.CommCompare(c, mpi.World)
		must(t, err)
		if cmp != mpi.Congruent {
			t.Errorf("compare with World: %v", cmp)
		}
	})
}

// TestCommunicatorsIsolateMessages sends the same (source, tag) on World and on a
// duplicate; each receive gets the message of its own communicator.
func TestCommunicatorsIsolateMessages(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		d, err := mpi.World.Dup()
		must(t, err)
		if rank == 0 {
			must(t, mpi.Send(d, []int{222}, 1, 5))
			must(t, mpi.Send(mpi.World, []int{111}, 1, 5))
			return
		}
		a, b := []int{0}, []int{0}
		_, err = mpi.Recv(mpi.World, a, 0, 5)
		must(t, err)
		_, err = mpi.Recv(d, b, 0, mpi.AnyTag)
		must(t, err)
		if a[0] != 111 || b[0] != 222 {
			t.Errorf("World got %d, dup got %d", a[0], b[0])
		}
	})
}

func TestDupFreeCyclesRecycleContexts(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		for i := 0; i < 5000; i++ { // more than the 4096 contexts: ids must come back
			d, err := mpi.World.Dup()
			if err != nil {
				t.Fatalf("cycle %d: %v", i, err)
			}
			must(t, d.Free())
		}
		var live []*mpi.Comm
		for i := 0; i < 100; i++ {
			d, err := mpi.World.Dup()
			must(t, err)
			live = append(live, d)
		}
		for _, d := range live {
			must(t, d.Barrier())
			must(t, d.Free())
		}
	})
}

// TestConcurrentCreationFromGoroutines creates communicators from several goroutines at
// once, each on its own parent, in different orders on different ranks.
func TestConcurrentCreationFromGoroutines(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		const k = 4
		parents := make([]*mpi.Comm, k)
		for i := range parents {
			var err error
			parents[i], err = mpi.World.Dup()
			must(t, err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, k*20)
		for i := 0; i < k; i++ {
			i := i
			if rank%2 == 1 {
				i = k - 1 - i // a different order on odd ranks
			}
			wg.Add(1)
			go func(p *mpi.Comm) {
				defer wg.Done()
				for j := 0; j < 20; j++ {
					c, err := p.Split(rank%2, rank)
					if err != nil {
						errs <- err
						return
					}
					if err := c.Barrier(); err != nil {
						errs <- err
					}
					c.Free()
				}
			}(parents[i])
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

// TestCreateGroupOnDisjointGroups: the two halves create their communicators at the
// same time, each collective over its own half only.
func TestCreateGroupOnDisjointGroups(t *testing.T) {
	job(t, 6, func(t *testing.T, rank, size int) {
		half := mpi.Range{First: 0, Last: 2, Stride: 1}
		if rank >= 3 {
			half = mpi.Range{First: 3, Last: 5, Stride: 1}
		}
		g, err := mpi.World.Group().RangeIncl([]mpi.Range{half})
		must(t, err)
		c, err := mpi.World.CreateGroup(g, 7)
		must(t, err)
		if c.Size() != 3 || c.Rank() != rank%3 {
			t.Errorf("rank %d of %d", c.Rank(), c.Size())
		}
		must(t, c.Barrier())
		// Create over all of World: outsiders get nil.
		evens, err := mpi.World.Group().RangeIncl([]mpi.Range{{First: 0, Last: size - 1, Stride: 2}})
		must(t, err)
		e, err := mpi.World.Create(evens)
		must(t, err)
		if (rank%2 == 0) != (e != nil) {
			t.Errorf("rank %d: Create gave %v", rank, e)
		}
	})
}

// TestCreationTagsToTagUB: MPI_Comm_create_group and MPI_Intercomm_create take any
// valid tag, up to MPI_TAG_UB (MPI 4.1 sections 7.4.2 and 7.6.2), including tags
// that fold onto the same internal one, used one after the other; a negative tag is
// MPI_ERR_TAG.
func TestCreationTagsToTagUB(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		for _, tag := range []int{mpi.TagUB, 1 << 20, 3 << 20, 5} {
			c, err := mpi.World.CreateGroup(mpi.World.Group(), tag)
			must(t, err)
			if c.Size() != size || c.Rank() != rank {
				t.Errorf("CreateGroup tag %d: rank %d of %d", tag, c.Rank(), c.Size())
			}
			must(t, c.Barrier())
			must(t, c.Free())
			side := rank % 2
			local, err := mpi.World.Split(side, rank)
			must(t, err)
			ic, err := mpi.IntercommCreate(local, 0, mpi.World, 1-side, tag)
			must(t, err)
			if got := members(t, ic.RemoteGroup()); len(got) != 2 || got[0]%2 == side {
				t.Errorf("IntercommCreate tag %d: remote group %v", tag, got)
			}
			must(t, ic.Free())
			must(t, local.Free())
		}
		_, err := mpi.World.CreateGroup(mpi.World.Group(), -1)
		if !errors.Is(err, mpi.ErrTag) {
			t.Errorf("CreateGroup tag -1: %v, want ErrTag", err)
		}
	})
}

// TestConstructorOneBadRank: a constructor whose arguments are bad at one rank only
// fails at every rank, with the class of that rank's error and a message naming it,
// instead of leaving the others waiting in it (abi's TestConstructorsAgree checks
// the C face).
func TestConstructorOneBadRank(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		check := func(what string, err error, class error) {
			t.Helper()
			if !errors.Is(err, class) {
				t.Errorf("%s: rank %d got %v, want %v", what, rank, err, class)
			}
			if rank != 2 && (err == nil || !strings.Contains(err.Error(), "rank 2 passed invalid arguments")) {
				t.Errorf("%s: rank %d's error %v does not name rank 2", what, rank, err)
			}
		}
		color := 0
		if rank == 2 {
			color = -3
		}
		_, err := mpi.World.Split(color, 0)
		check("Split with a negative colour at rank 2", err, mpi.ErrArg)
		var g *mpi.Group
		if rank != 2 {
			g = mpi.World.Group()
		}
		_, err = mpi.World.Create(g)
		check("Create with a nil group at rank 2", err, mpi.ErrGroup)
		d, err := mpi.World.Dup() // the failures left every rank in step
		must(t, err)
		must(t, d.Barrier())
		must(t, d.Free())
	})
}

func TestCommBadInput(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		if _, err := mpi.World.Split(-7, 0); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("negative colour: %v", err)
		}
		if err := mpi.World.Free(); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("freeing World: %v", err)
		}
		d, err := mpi.World.Dup()
		must(t, err)
		must(t, d.Free())
		if _, err := d.Dup(); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("Dup of a freed communicator: %v", err)
		}
		if _, err := mpi.World.Group().Incl([]int{0, 5}); !errors.Is(err, mpi.ErrRank) {
			t.Errorf("Incl of rank 5 of 2: %v", err)
		}
		other, _ := mpi.World.Group().Incl([]int{1 - rank})
		if _, err := mpi.Self.Create(other); !errors.Is(err, mpi.ErrGroup) {
			t.Errorf("Create with a group outside the communicator: %v", err)
		}
	})
}

func TestIdup(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		d, req, err := mpi.World.Idup()
		must(t, err)
		// The parent stays usable meanwhile, point-to-point and collectives.
		got := []int{-1}
		_, err = mpi.Sendrecv(mpi.World, []int{rank}, (rank+1)%size, 0, got, (rank+size-1)%size, 0)
		must(t, err)
		must(t, mpi.World.Barrier())
		d2, req2, err := mpi.World.Idup()
		must(t, err)
		reqs := []mpi.Request{req, req2}
		must(t, mpi.Waitall(reqs, nil))
		for _, c := range []*mpi.Comm{d, d2} {
			if c.Size() != size || c.Rank() != rank {
				t.Fatalf("idup'd communicator: rank %d of %d", c.Rank(), c.Size())
			}
			must(t, c.Barrier())
		}
		if cmp, _ := mpi.CommCompare(d, d2); cmp != mpi.Congruent {
			t.Errorf("two duplicates compare %v", cmp)
		}
	})
}

// TestNilCommRankSize: a nil communicator (MPI_COMM_NULL) has no rank and no size:
// asking is an error of class ErrComm, which goes to Self's handler and names the
// call, and Rank gives Undefined, which a send then refuses (ErrRank), and Size 0.
func TestNilCommRankSize(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		var seen []error
		must(t, mpi.Self.SetErrHandler(mpi.NewErrHandler(func(c *mpi.Comm, err error) { seen = append(seen, err) })))
		defer mpi.Self.SetErrHandler(mpi.ErrorsReturn)
		var null *mpi.Comm
		r := null.Rank()
		if r != mpi.Undefined || len(seen) != 1 || !errors.Is(seen[0], mpi.ErrComm) || !strings.Contains(seen[0].Error(), "Rank: the communicator is nil (MPI_COMM_NULL)") {
			t.Errorf("nil Rank() = %d, Self's handler saw %v; want Undefined and one ErrComm naming Rank", r, seen)
		}
		if n := null.Size(); n != 0 || len(seen) != 2 || !errors.Is(seen[1], mpi.ErrComm) || !strings.Contains(seen[1].Error(), "Size: ") {
			t.Errorf("nil Size() = %d, Self's handler saw %v; want 0 and a second ErrComm naming Size", n, seen)
		}
		if err := mpi.Send(mpi.World, []int{1}, r, 0); !errors.Is(err, mpi.ErrRank) {
			t.Errorf("a Send to the nil communicator's Rank: %v, want ErrRank", err)
		}
	})
}

// TestNilHandleCallsSaySo: Rank and Size of a nil communicator and of a nil group
// have no error result, so under the default ErrorsReturn the error would be lost;
// each is written to standard error instead, once per call, with the rank, the
// class's words and what the call returned.
func TestNilHandleCallsSaySo(t *testing.T) {
	res := mpitest.Job(t, mpitest.Options{N: 2}, func(t *testing.T) {
		must(t, mpi.Init())
		defer mpi.Finalize()
		var null *mpi.Comm
		var g *mpi.Group
		for i := 0; i < 3; i++ {
			if r, n := null.Rank(), null.Size(); r != mpi.Undefined || n != 0 {
				t.Errorf("nil communicator: Rank %d, Size %d; want Undefined and 0", r, n)
			}
			if r, n := g.Rank(), g.Size(); r != mpi.Undefined || n != 0 {
				t.Errorf("nil group: Rank %d, Size %d; want Undefined and 0", r, n)
			}
		}
	})
	for _, want := range []string{
		"Rank: the communicator is nil (MPI_COMM_NULL), which has no ranks (Rank has no error result; it returns Undefined)",
		"Size: the communicator is nil (MPI_COMM_NULL), which has no ranks (Size has no error result; it returns 0)",
		"Group.Rank: the group is nil (MPI_GROUP_NULL) (Group.Rank has no error result; it returns Undefined)",
		"Group.Size: the group is nil (MPI_GROUP_NULL) (Group.Size has no error result; it returns 0)",
	} {
		for rank := 0; rank < 2; rank++ {
			line := fmt.Sprintf("mpigo: rank %d: mpi: %s", rank, want)
			if n := strings.Count(res.Stderr, line); n != 1 {
				t.Errorf("stderr has %q %d times, want once:\n%s", line, n, res.Stderr)
			}
		}
	}
}
