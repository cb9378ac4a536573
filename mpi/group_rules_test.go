package mpi_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// The rules of groups and communicator comparison both faces share through mpir;
// the C face's side is abi/testdata/grouprules.c.

// TestTranslateRanksSentinels: ProcNull translates to ProcNull and a process outside
// g2 to Undefined; AnySource (the group engine's ProcNull) and other negative ranks
// are no ranks of g1 (ErrRank).
func TestTranslateRanksSentinels(t *testing.T) {
	job(t, 3, func(t *testing.T, rank, size int) {
		world := mpi.World.Group()
		sub, err := world.Incl([]int{2, 0})
		must(t, err)
		got, err := mpi.TranslateRanks(world, []int{mpi.ProcNull, 0, 1, 2}, sub)
		if want := []int{mpi.ProcNull, 1, mpi.Undefined, 0}; err != nil || !slices.Equal(got, want) {
			t.Errorf("TranslateRanks = %v, %v; want %v", got, err, want)
		}
		for _, bad := range []int{mpi.AnySource, -7, size} {
			if got, err := mpi.TranslateRanks(world, []int{0, bad}, sub); !errors.Is(err, mpi.ErrRank) {
				t.Errorf("TranslateRanks of rank %d: %v, %v; want ErrRank", bad, got, err)
			}
		}
	})
}

// TestCommCompareIntercomms: intercommunicators compare by both groups, the remote one
// too; a view made by WithContext is its communicator (Ident).
func TestCommCompareIntercomms(t *testing.T) {
	job(t, 4, func(t *testing.T, rank, size int) {
		world := mpi.World.Group()
		inter := func(lo, hi []int, tag string) *mpi.Comm {
			a, err := world.Incl(lo)
			must(t, err)
			b, err := world.Incl(hi)
			must(t, err)
			if a.Rank() == mpi.Undefined {
				a, b = b, a
			}
			c, err := mpi.IntercommCreateFromGroups(a, 0, b, 0, tag, nil, nil)
			must(t, err)
			return c
		}
		base := inter([]int{0, 1}, []int{2, 3}, "base")
		dup, err := base.Dup()
		must(t, err)
		swapped := inter([]int{0, 1}, []int{3, 2}, "swapped") // each side's other group reordered
		view := base.WithContext(context.Background())
		for _, c := range []struct {
			name string
			with *mpi.Comm
			want mpi.Comparison
		}{
			{"itself", base, mpi.Ident},
			{"a view of it", view, mpi.Ident},
			{"a duplicate", dup, mpi.Congruent},
			{"one whose remote group (or local) is reordered", swapped, mpi.Similar},
		} {
			if got, err := mpi.CommCompare(base, c.with); got != c.want || err != nil {
				t.Errorf("rank %d: CommCompare with %s = %v, %v; want %v", rank, c.name, got, err, c.want)
			}
		}
		// The same local group and another remote one: ranks 0 and 1 see their own
		// group unchanged and must still answer Unequal.
		if rank < 3 {
			fewer := inter([]int{0, 1}, []int{2}, "fewer")
			if got, err := mpi.CommCompare(base, fewer); got != mpi.Unequal || err != nil {
				t.Errorf("rank %d: CommCompare with a remote group of fewer members = %v, %v; want Unequal", rank, got, err)
			}
			must(t, fewer.Free())
		}
		for _, c := range []*mpi.Comm{base, dup, swapped} {
			must(t, c.Free())
		}
	})
}

// TestGroupErrorsReachHandlers: a group call has no object of its own, so its error
// goes to the handler of its groups' owner: the session's for a session's groups,
// Self's for the world model's (MPI sends errors with no object to MPI_COMM_SELF's
// handler), as in the C face.
func TestGroupErrorsReachHandlers(t *testing.T) {
	mpitest.Run(t, 2, func(t *testing.T) {
		var sess []error
		s, err := mpi.SessionInit(nil, mpi.NewSessionErrHandler(func(_ *mpi.Session, err error) { sess = append(sess, err) }))
		must(t, err)
		g, err := s.GroupFromPset("mpi://WORLD")
		must(t, err)
		s2, err := mpi.SessionInit(nil, nil)
		must(t, err)
		g2, err := s2.GroupFromPset("mpi://WORLD")
		must(t, err)
		calls := map[string]func() error{
			"Incl of rank 9":             func() error { _, err := g.Incl([]int{9}); return err },
			"RangeExcl of stride 0":      func() error { _, err := g.RangeExcl([]mpi.Range{{First: 0, Last: 1, Stride: 0}}); return err },
			"GroupUnion of two sessions": func() error { _, err := mpi.GroupUnion(g, g2); return err },
			"TranslateRanks of rank -7":  func() error { _, err := mpi.TranslateRanks(g, []int{-7}, g2); return err },
		}
		for name, f := range calls {
			n := len(sess)
			if err := f(); err == nil || len(sess) != n+1 || sess[n] != err {
				t.Errorf("%s: %v; the session's handler saw %v, want that error once", name, err, sess[n:])
			}
		}

		must(t, mpi.Init())
		var self []error
		must(t, mpi.Self.SetErrHandler(mpi.NewErrHandler(func(_ *mpi.Comm, err error) { self = append(self, err) })))
		n := len(sess)
		_, err = mpi.World.Group().Excl([]int{0, 0})
		if !errors.Is(err, mpi.ErrRank) || len(self) != 1 || self[0] != err || len(sess) != n {
			t.Errorf("Excl of a repeated rank of World's group: %v; Self's handler saw %v, the session's %d errors; want it on Self's alone", err, self, len(sess)-n)
		}
		must(t, mpi.Self.SetErrHandler(nil))
		must(t, mpi.Finalize())
		must(t, s2.Finalize())
		must(t, s.Finalize())
	})
}

// TestIntercommCreateLeaderBadPeer: the peer communicator is read at the local leader
// only; when the leader's is no communicator (nil) or of another owner, the leader
// returns ErrComm and the rest of its group an error too, rather than wait for a
// leader that will not come.
func TestIntercommCreateLeaderBadPeer(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		s, err := mpi.SessionInit(nil, nil)
		must(t, err)
		all := worldOf(t, s, "all")
		for _, peer := range []*mpi.Comm{nil, all} {
			_, err := mpi.IntercommCreate(mpi.World, 0, peer, 0, 5)
			if rank == 0 && !errors.Is(err, mpi.ErrComm) {
				t.Errorf("leader with peer %v: %v, want ErrComm", peer, err)
			}
			if err == nil {
				t.Errorf("rank %d: IntercommCreate with the leader's peer %v succeeded", rank, peer)
			}
		}
		must(t, all.Free())
		must(t, s.Finalize())
	})
}

// TestIntercommCreateMixedOwners: MPI_Intercomm_create's peer communicator, which
// only the local leader reads, has the local communicator's owner there (else
// ErrComm): a session's and the world model's communicators do not mix.
func TestIntercommCreateMixedOwners(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		s, err := mpi.SessionInit(nil, nil)
		must(t, err)
		one, err := s.GroupFromPset("mpi://SELF")
		must(t, err)
		self, err := mpi.CommCreateFromGroup(one, "self", nil, nil) // each rank leads itself
		must(t, err)
		all := worldOf(t, s, "all")
		peer := 1 - rank
		if _, err := mpi.IntercommCreate(self, 0, mpi.World, peer, 5); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("IntercommCreate of a session's communicator over World: %v, want ErrComm", err)
		}
		if _, err := mpi.IntercommCreate(mpi.Self, 0, all, peer, 5); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("IntercommCreate of Self over a session's communicator: %v, want ErrComm", err)
		}
		ic, err := mpi.IntercommCreate(self, 0, all, peer, 6) // one owner: the session
		must(t, err)
		if !ic.IsInter() || ic.RemoteSize() != 1 {
			t.Errorf("IntercommCreate within the session: inter %v, remote size %d", ic.IsInter(), ic.RemoteSize())
		}
		for _, c := range []*mpi.Comm{ic, all, self} {
			must(t, c.Free())
		}
		must(t, s.Finalize())
	})
}
