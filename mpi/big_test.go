package mpi_test

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestMessageOver2GiB sends 2.5 GiB in one message. It needs about 5 GB of memory, so it
// runs only when MPIGO_TEST_BIG=1 (CI sets it outside the race-detector pass).
func TestMessageOver2GiB(t *testing.T) {
	if os.Getenv("MPIGO_TEST_BIG") != "1" && !mpitest.IsRank(t) {
		t.Skip("set MPIGO_TEST_BIG=1 to send a 2.5 GiB message (needs ~5 GB)")
	}
	const n = 5 << 29 // 2.5 GiB
	job(t, 2, func(t *testing.T, rank, size int) {
		buf := make([]byte, n)
		if rank == 0 {
			for i := 0; i < n; i += 4096 {
				buf[i] = byte(i >> 12)
			}
			buf[n-1] = 0xee
			must(t, mpi.Send(mpi.World, buf, 1, 0))
			return
		}
		st, err := mpi.Recv(mpi.World, buf, 0, 0)
		must(t, err)
		if st.Bytes() != n {
			t.Fatalf("received %d bytes, want %d", st.Bytes(), int64(n))
		}
		for i := 0; i < n; i += 4096 {
			if buf[i] != byte(i>>12) {
				t.Fatalf("byte %d = %d", i, buf[i])
			}
		}
		if buf[n-1] != 0xee {
			t.Fatal("last byte wrong")
		}
	})
}

// TestPeerKilledMidTransfer: a rank dies while a large message to it is under way; the
// job ends promptly, naming the rank, instead of the sender hanging.
func TestPeerKilledMidTransfer(t *testing.T) {
	start := time.Now()
	res := mpitest.Job(t, mpitest.Options{N: 2, Fail: true}, func(t *testing.T) {
		must(t, mpi.Init())
		big := make([]byte, 64<<20)
		if mpi.World.Rank() == 1 {
			// Take part of a message, then die.
			part := make([]byte, 1<<20)
			mpi.Recv(mpi.World, part, 0, 1)
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		mpi.Send(mpi.World, make([]byte, 1<<20), 1, 1)
		for i := 0; i < 100; i++ {
			if err := mpi.Send(mpi.World, big, 1, 2); err != nil {
				os.Exit(3) // the failure seen by the sender is also a correct ending
			}
		}
		t.Error("sent 6.4 GB to a dead rank without an error")
	})
	if res.Code == 0 || !contains(res.Stderr, "rank 1 (pid") {
		t.Errorf("exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
}
