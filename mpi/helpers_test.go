package mpi_test

import (
	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
)

// launchFailing runs body on n ranks of a job expected to fail and returns how it ended.
func launchFailing(t *testing.T, n int, body func(t *testing.T)) mpitest.Result {
	t.Helper()
	res := mpitest.Launch(t, mpitest.Options{N: n}, body)
	if mpitest.IsRank(t) {
		t.SkipNow()
	}
	return res
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// collPath is a way for a collective test's job to run: a name for its subtests and
// the job's settings (read only: tests share them).
type collPath struct {
	name string
	set  map[string]string
}

// pathsShmTCP: the node's shared memory (the default) and forced TCP;
// pathsShmSchedTCP adds the schedules over shared memory, the region off.
var (
	pathsShmTCP      = []collPath{{"shm", nil}, {"tcp", map[string]string{"transports": "self,tcp"}}}
	pathsShmSchedTCP = []collPath{{"shm", nil}, {"sched", map[string]string{"coll_shm": "off"}}, {"tcp", map[string]string{"transports": "self,tcp"}}}
)
