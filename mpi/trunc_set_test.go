package mpi_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestTruncationNamesSenderEverywhere: a message longer than its receive buffer, met
// by every completion call on many requests and by the matched receives, names the
// call, the sender (as a rank of the request's communicator, here the reverse of
// World's) and both lengths, as Recv and Wait do; so do the statuses' errors.
func TestTruncationNamesSenderEverywhere(t *testing.T) {
	job(t, 2, func(t *testing.T, rank, size int) {
		c, err := mpi.World.Split(0, size-1-rank) // World's rank 0 is c's rank 1
		must(t, err)
		const tags = 10
		if rank == 0 {
			for tag := 1; tag <= tags; tag++ {
				must(t, mpi.Send(c, make([]int64, 16), 0, tag))
			}
			must(t, c.Free())
			return
		}
		sender := "from rank 1: message truncated: 128-byte message, 64-byte receive buffer"
		check := func(what string, err error, call string) {
			t.Helper()
			want := "mpi: " + call + ": "
			if call == "Waitall" || call == "Testall" || call == "Waitsome" || call == "Testsome" {
				want += "a request failed: request 0: " + sender
			} else {
				want += sender
			}
			if err == nil || err.Error() != want || !errors.Is(err, mpi.ErrTruncate) && !errors.Is(err, mpi.ErrInStatus) {
				t.Errorf("%s: %v\n want %s", what, err, want)
			}
		}
		status := func(what string, st mpi.Status, call string) {
			t.Helper()
			want := "mpi: " + call + ": " + sender
			if st.Err == nil || st.Err.Error() != want || !errors.Is(st.Err, mpi.ErrTruncate) || st.Source != 1 {
				t.Errorf("%s: status from %d, error %v\n want from 1, %s", what, st.Source, st.Err, want)
			}
		}
		recv := func(tag int) mpi.Request {
			q, err := mpi.Irecv(c, make([]int64, 8), 1, tag)
			must(t, err)
			return q
		}
		sts := make([]mpi.Status, 1)

		err = mpi.Waitall([]mpi.Request{recv(1)}, sts)
		check("Waitall", err, "Waitall")
		status("Waitall's status", sts[0], "Waitall")
		check("Waitall without statuses", mpi.Waitall([]mpi.Request{recv(2)}, nil), "Waitall")

		rs := []mpi.Request{recv(3)}
		for {
			ok, err := mpi.Testall(rs, sts)
			if ok {
				check("Testall", err, "Testall")
				status("Testall's status", sts[0], "Testall")
				break
			}
		}

		_, st, err := mpi.Waitany([]mpi.Request{recv(4)})
		check("Waitany", err, "Waitany")
		status("Waitany's status", st, "Waitany")
		rs = []mpi.Request{recv(5)}
		for {
			_, st, ok, err := mpi.Testany(rs)
			if ok {
				check("Testany", err, "Testany")
				status("Testany's status", st, "Testany")
				break
			}
		}

		_, ssts, err := mpi.Waitsome([]mpi.Request{recv(6)})
		check("Waitsome", err, "Waitsome")
		if len(ssts) == 1 {
			status("Waitsome's status", ssts[0], "Waitsome")
		}

		m, _, err := c.Mprobe(1, 7)
		must(t, err)
		_, err = mpi.Mrecv(make([]int64, 8), &m)
		check("Mrecv", err, "Mrecv")
		m, _, err = c.Mprobe(1, 8)
		must(t, err)
		q, err := mpi.Imrecv(make([]int64, 8), &m)
		must(t, err)
		check("Imrecv then Waitall", mpi.Waitall([]mpi.Request{q}, nil), "Waitall")
		m, _, err = c.Mprobe(1, 9)
		must(t, err)
		_, err = mpi.MrecvBuf(mpi.Typed(make([]int64, 8), 8, mpi.Int64), &m)
		check("MrecvBuf", err, "Mrecv")

		// The plain Wait, as it was.
		q = recv(10)
		_, err = q.Wait()
		check("Wait", err, "Wait")
		if err != nil && strings.Contains(err.Error(), "from rank 0") {
			t.Errorf("Wait names the sender's world rank: %v", err)
		}
		must(t, c.Free())
	})
}
