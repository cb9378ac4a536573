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
