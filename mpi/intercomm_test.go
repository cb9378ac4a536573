package mpi_test

import (
	"errors"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

func TestIntercommunicator(t *testing.T) {
	job(t, 5, func(t *testing.T, rank, size int) {
		// Side A: ranks 0,1 (leader 0); side B: ranks 2,3,4 (leader world rank 2).
		side := 0
		if rank >= 2 {
			side = 1
		}
		local, err := mpi.World.Split(side, rank)
		must(t, err)
		remoteLeader := map[int]int{0: 2, 1: 0}[side]
		ic, err := mpi.IntercommCreate(local, 0, mpi.World, remoteLeader, 42)
		must(t, err)
		if !ic.IsInter() || ic.Size() != local.Size() || ic.RemoteSize() != size-local.Size() {
			t.Fatalf("intercomm: size %d remote %d", ic.Size(), ic.RemoteSize())
		}
		// Point-to-point across: local rank 0 of A sends to every rank of B.
		if side == 0 && ic.Rank() == 0 {
			for r := 0; r < ic.RemoteSize(); r++ {
				must(t, mpi.Send(ic, []int{100 + r}, r, 1))
			}
		}
		if side == 1 {
			got := []int{0}
			st, err := mpi.Recv(ic, got, mpi.AnySource, 1)
			must(t, err)
			if got[0] != 100+ic.Rank() || st.Source != 0 {
				t.Errorf("B rank %d got %d from remote rank %d", ic.Rank(), got[0], st.Source)
			}
		}
		// A duplicate of an intercommunicator is one too, with its own context.
		dup, err := ic.Dup()
		must(t, err)
		if !dup.IsInter() || dup.RemoteSize() != ic.RemoteSize() {
			t.Fatalf("Dup of an intercommunicator: inter %v remote size %d", dup.IsInter(), dup.RemoteSize())
		}
		if side == 0 && dup.Rank() == 0 {
			must(t, mpi.Send(dup, []int{7}, 0, 2))
		}
		if side == 1 && dup.Rank() == 0 {
			got := []int{0}
			_, err := mpi.Recv(dup, got, 0, 2)
			must(t, err)
			if got[0] != 7 {
				t.Errorf("across the duplicate: %d", got[0])
			}
		}
		// Merge with B high: A's ranks come first.
		m, err := ic.IntercommMerge(side == 1)
		must(t, err)
		if m.Size() != size || m.Rank() != rank {
			t.Errorf("merged: rank %d of %d, want %d of %d", m.Rank(), m.Size(), rank, size)
		}
		must(t, m.Barrier())
		// Merge with A high: B's ranks first.
		m2, err := ic.IntercommMerge(side == 0)
		must(t, err)
		want := rank - 2
		if side == 0 {
			want = rank + 3
		}
		if m2.Rank() != want {
			t.Errorf("merged the other way: rank %d, want %d", m2.Rank(), want)
		}
		if _, err := mpi.World.IntercommMerge(false); !errors.Is(err, mpi.ErrComm) {
			t.Errorf("merging an intracommunicator: %v", err)
		}
	})
}

func TestAttributesAndErrHandlers(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		var deleted []any
		k := mpi.NewKeyval(mpi.CopyDup, func(c *mpi.Comm, k *mpi.Keyval, v any) error {
			deleted = append(deleted, v)
			return nil
		})
		nocopy := mpi.NewKeyval(nil, nil)
		d, err := mpi.World.Dup()
		must(t, err)
		must(t, d.SetAttr(k, "first"))
		must(t, d.SetAttr(k, "second")) // deletes "first"
		must(t, d.SetAttr(nocopy, 7))
		d2, err := d.Dup()
		must(t, err)
		if v, ok := d2.Attr(k); !ok || v != "second" {
			t.Errorf("dup's attribute %v %v", v, ok)
		}
		if _, ok := d2.Attr(nocopy); ok {
			t.Error("an attribute without a copy function was copied")
		}
		must(t, d.Free()) // deletes "second"
		if len(deleted) != 2 || deleted[0] != "first" || deleted[1] != "second" {
			t.Errorf("delete calls %v", deleted)
		}
		if v, ok := mpi.World.Attr(mpi.KeyTagUB); !ok || v.(int) < 32767 {
			t.Errorf("TagUB attribute %v", v)
		}
		if v, ok := mpi.World.Attr(mpi.KeyUniverseSize); !ok || v.(int) < size {
			t.Errorf("UniverseSize %v (%v), want at least %d", v, ok, size)
		}
		// A user handler sees the error; the call still returns it.
		var seen error
		d2.SetErrHandler(mpi.NewErrHandler(func(c *mpi.Comm, err error) { seen = err }))
		err = mpi.Send(d2, []int{1}, 9, 0)
		if !errors.Is(err, mpi.ErrRank) || seen != err {
			t.Errorf("handler saw %v, call returned %v", seen, err)
		}
	})
}

// TestErrorsAreFatal: with ErrorsAreFatal, a bad call ends the whole job with a message
// naming the rank.
func TestErrorsAreFatal(t *testing.T) {
	res := mpitest.Job(t, mpitest.Options{N: 2, Fail: true}, func(t *testing.T) {
		must(t, mpi.Init())
		mpi.World.SetErrHandler(mpi.ErrorsAreFatal)
		if mpi.World.Rank() == 1 {
			mpi.Send(mpi.World, []int{1}, 5, 0)
		}
		mpi.World.Barrier()
		mpi.Finalize()
	})
	if res.Code == 0 || !fatalLine(res.Stderr, 1, "): mpi: Send: dest 5 out of range") {
		t.Errorf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
}
