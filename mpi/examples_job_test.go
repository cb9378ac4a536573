package mpi_test

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestExamplesInJobs runs the Examples that start MPI themselves as real jobs and
// checks what rank 0 prints (the others print nothing). They have no Output line:
// go test runs examples in its own process, where MPI could start only once.
func TestExamplesInJobs(t *testing.T) {
	cases := []struct {
		name    string
		n       int
		example func()
		want    string
	}{
		{"Waitany/1", 1, ExampleWaitany, "sum of squares: 0\n"},
		{"Waitany/3", 3, ExampleWaitany, "sum of squares: 5\n"},
		{"SendInit/1", 1, ExampleSendInit, "sum of ranks: 0\n"},
		{"SendInit/3", 3, ExampleSendInit, "sum of ranks: 3\n"},
		{"GroupUnion/4", 4, ExampleGroupUnion, "world ranks [0 2 3] make a communicator of 3\n"},
		{"CartShift/4", 4, ExampleComm_CartShift, ""},
		{"OpCreate_struct/1", 1, ExampleOpCreate_struct, "mass 0 from rank 0\n"},
		{"OpCreate_struct/4", 4, ExampleOpCreate_struct, "mass 1 from rank 1\n"},
		{"GrequestStart/1", 1, ExampleGrequestStart, "sum 10 of 4 values\n"},
		{"Isendrecv/1", 1, ExampleIsendrecv, "rank 0 got 0 from rank 0\n"},
		{"Isendrecv/3", 3, ExampleIsendrecv, "rank 0 got 2 from rank 2\n"},
		{"Tools_Subscribe/2", 2, ExampleTools_Subscribe, "from rank 1, tag 0, 5 bytes\nfrom rank 1, tag 1, 5 bytes\n" +
			"from rank 1, tag 2, 5 bytes\n3 messages queued unexpected\n"},
		{"FileOpen/3", 3, ExampleFileOpen, "line of rank 0\nline of rank 1\nline of rank 2\n"},
		{"FileWriteOrdered/3", 3, ExampleFileWriteOrdered, "rank 0 says hi \nrank 1 says hi hi \nrank 2 says hi hi hi \n"},
		{"RegisterDatarep/1", 1, ExampleRegisterDatarep, "file 00 00 00 01 00 00 01 02, read back [1 258]\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mpitest.Run(t, c.n, func(t *testing.T) {
				out := stdoutOf(t, c.example)
				want := c.want
				if mpi.World.Rank() != 0 {
					want = ""
				}
				if out != want || !mpi.Finalized() {
					t.Errorf("rank %d printed %q, want %q (MPI finalised: %v)", mpi.World.Rank(), out, want, mpi.Finalized())
				}
			})
		})
	}
}

// stdoutOf runs f and returns what it wrote to standard output.
func stdoutOf(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	must(t, err)
	saved := os.Stdout
	os.Stdout = w
	got := make(chan []byte)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, r)
		got <- b.Bytes()
	}()
	defer func() { os.Stdout = saved }()
	f()
	w.Close()
	return string(<-got)
}
