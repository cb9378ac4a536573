// Package mpitest runs a test's body as every rank of a real job: the test binary
// re-launches itself through mpigo's launcher, n processes wired up over the real
// transports, and the parent test reports what the ranks reported.
//
//	func TestRing(t *testing.T) {
//		mpitest.Run(t, 4, func(t *testing.T) {
//			mpi.Init() ...
//		})
//	}
package mpitest

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/launch"
)

// childVar names the test a rank process runs.
const childVar = "MPIGO_TEST_CHILD"

// Options shape a job.
type Options struct {
	N        int
	Env      []string          // extra KEY=VALUE for every rank
	Settings map[string]string // as mpigo run --set
	Timeout  time.Duration     // default 2 minutes
}

// Result is how a job ended.
type Result struct {
	Code   int
	Stdout string
	Stderr string
}

// IsRank reports whether this process is a rank of a job started by Run for t.
func IsRank(t testing.TB) bool { return os.Getenv(childVar) == t.Name() }

// Run runs body on n ranks and fails t if the job fails.
func Run(t *testing.T, n int, body func(t *testing.T)) {
	t.Helper()
	if IsRank(t) {
		body(t)
		return
	}
	res := Launch(t, Options{N: n}, body)
	if res.Code != 0 {
		t.Fatalf("job of %d ranks failed with exit code %d\n--- stdout\n%s--- stderr\n%s", n, res.Code, res.Stdout, res.Stderr)
	}
}

// Launch runs body on the ranks of a job shaped by o and returns how the job ended, for
// tests that expect a job to fail. In the rank processes it runs body and returns a zero Result.
func Launch(t *testing.T, o Options, body func(t *testing.T)) Result {
	t.Helper()
	if IsRank(t) {
		body(t)
		return Result{}
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	var out, errb syncBuffer
	spec := launch.Spec{
		N:        o.N,
		Program:  os.Args[0],
		Args:     []string{"-test.run=" + runPattern(t.Name()), "-test.count=1"},
		Env:      append([]string{childVar + "=" + t.Name()}, o.Env...),
		Settings: o.Settings,
		Timeout:  o.Timeout,
		Stdout:   &out,
		Stderr:   &errb,
	}
	code := launch.Run(spec)
	return Result{Code: code, Stdout: out.String(), Stderr: errb.String()}
}

// runPattern selects exactly the test (and subtest) named.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

type syncBuffer struct {
	b bytes.Buffer
}

// Write is called with the launcher's line lock held, so no second lock is needed.
func (s *syncBuffer) Write(p []byte) (int, error) { return s.b.Write(p) }
func (s *syncBuffer) String() string              { return s.b.String() }
