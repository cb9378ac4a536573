package mpi_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestMain runs the tests and removes what they built (mpitest.Build).
func TestMain(m *testing.M) { mpitest.Main(m) }

// job runs body between Init and Finalize on n ranks.
func job(t *testing.T, n int, body func(t *testing.T, rank, size int)) {
	t.Helper()
	jobWith(t, mpitest.Options{N: n}, body)
}

// jobWith runs body between Init and Finalize on the ranks of a job shaped by o.
func jobWith(t *testing.T, o mpitest.Options, body func(t *testing.T, rank, size int)) mpitest.Result {
	t.Helper()
	return mpitest.Job(t, o, func(t *testing.T) {
		must(t, mpi.Init())
		body(t, mpi.World.Rank(), mpi.World.Size())
		must(t, mpi.Finalize())
	})
}

// eachTransport runs f once per transport of mpitest.Transports, each in a subtest
// named after it.
func eachTransport(t *testing.T, f func(t *testing.T, tr mpitest.Transport)) {
	t.Helper()
	for _, tr := range mpitest.Transports {
		t.Run(tr.Name, func(t *testing.T) { f(t, tr) })
	}
}

// jobEach is job over each transport.
func jobEach(t *testing.T, n int, body func(t *testing.T, rank, size int)) {
	t.Helper()
	jobEachSet(t, n, nil, body)
}

// jobEachSet is jobEach with settings (as mpigo run --set) over each transport's.
func jobEachSet(t *testing.T, n int, settings map[string]string, body func(t *testing.T, rank, size int)) {
	t.Helper()
	eachTransport(t, func(t *testing.T, tr mpitest.Transport) {
		jobWith(t, mpitest.Options{N: n, Transport: tr, Settings: settings}, body)
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// fatalLine reports whether stderr has the launcher's line for the end of a job that
// rank brought, naming it once ("mpigo: rank 1 (pid 123, host h)"), followed at once by
// text: "): mpi: Send: ..." for an error, ") called MPI_Abort with code 7; ..." for
// MPI_Abort.
func fatalLine(stderr string, rank int, text string) bool {
	re := regexp.MustCompile(fmt.Sprintf(`(?m)^mpigo: rank %d \(pid \d+, host [^)]*`, rank) + regexp.QuoteMeta(text) + `.*$`)
	line := re.FindString(stderr)
	return line != "" && !strings.Contains(line, fmt.Sprintf("rank %d: ", rank))
}

// The paths a collective test's job runs by: over each transport, and (pathsShmSchedTCP)
// by the schedules over shared memory, the node's region off.
var (
	pathsShmTCP      = mpitest.Transports
	pathsShmSchedTCP = []mpitest.Transport{mpitest.Shm, {Name: "sched", Settings: map[string]string{"coll_shm": "off"}}, mpitest.TCP}
)
