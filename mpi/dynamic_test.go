package mpi_test

import (
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestDynamicBadArgs: the dynamic-process calls' arguments that every process gives
// (the communicator, the root) are checked at every process alike, with the classes
// MPI names, and nothing is made; a job that was not spawned has no parent.
func TestDynamicBadArgs(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		if p := mpi.CommGetParent(); p != nil {
			t.Errorf("CommGetParent in a job not spawned: %v", p)
		}
		inter, err := mpi.IntercommCreate(mpi.Self, 0, mpi.World, 1-rank, 7)
		must(t, err)
		defer inter.Free()

		spawn := func(root int, c *mpi.Comm) error {
			nc, errs, err := mpi.CommSpawn("x", nil, 1, nil, root, c)
			if nc != nil || errs != nil {
				t.Errorf("CommSpawn from root %d made %v, errs %v", root, nc, errs)
			}
			return err
		}
		wantClass(t, "CommSpawn on a nil communicator", spawn(0, nil), mpi.ErrComm)
		wantClass(t, "CommSpawn from root size", spawn(size, mpi.World), mpi.ErrRoot)
		wantClass(t, "CommSpawn from root -1", spawn(-1, mpi.World), mpi.ErrRoot)
		wantClass(t, "CommSpawn on an intercommunicator", spawn(0, inter), mpi.ErrComm)
		_, _, err = mpi.CommSpawnMultiple([]mpi.SpawnCommand{{Command: "x", MaxProcs: 1}}, size, mpi.World)
		wantClass(t, "CommSpawnMultiple from root size", err, mpi.ErrRoot)

		for _, f := range []struct {
			name string
			call func(string, *mpi.Info, int, *mpi.Comm) (*mpi.Comm, error)
		}{{"CommAccept", mpi.CommAccept}, {"CommConnect", mpi.CommConnect}} {
			for _, c := range []struct {
				what string
				root int
				comm *mpi.Comm
				want error
			}{
				{"a nil communicator", 0, nil, mpi.ErrComm},
				{"root size", size, mpi.World, mpi.ErrRoot},
				{"root -1", -1, mpi.World, mpi.ErrRoot},
				{"an intercommunicator", 0, inter, mpi.ErrComm},
			} {
				nc, err := f.call("port", nil, c.root, c.comm)
				wantClass(t, f.name+" on "+c.what, err, c.want)
				if nc != nil {
					t.Errorf("%s on %s made %v", f.name, c.what, nc)
				}
			}
		}

		_, err = mpi.CommJoinConn(nil)
		wantClass(t, "CommJoinConn of nil", err, mpi.ErrArg)
		wantClass(t, "Disconnect of a nil communicator", (*mpi.Comm)(nil).Disconnect(), mpi.ErrComm)
		d, err := mpi.World.Dup()
		must(t, err)
		must(t, d.Free())
		wantClass(t, "Disconnect of a freed communicator", d.Disconnect(), mpi.ErrComm)
	})
}
