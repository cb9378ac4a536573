// Package mpitest is the toolkit of the module's tests that run real jobs.
//
// Job runs a test's body as every rank of a job: the test binary re-launches itself
// through mpigo's launcher (or another MPI's, Options.Launcher), n processes wired up
// over the real transports, and the test checks how the job ended. Options shape the
// job: ranks, settings, the transport (one of the table Transports), environment,
// pretend hosts, a timeout, and whether the job is expected to fail.
//
//	func TestRing(t *testing.T) {
//		mpitest.Job(t, mpitest.Options{N: 4, Transport: mpitest.TCP}, func(t *testing.T) {
//			mpi.Init() ...
//		})
//	}
//
// The body runs in the ranks only; the code after Job runs in the test only (a rank's
// test ends when its body returns). So a test, or subtest, starts one job.
//
// Mpigo builds the mpigo command from the checkout once per test binary, and Build any
// other main package; what they build is removed when the tests end, by Main, which a
// package that builds calls from its TestMain.
package mpitest

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/launch"
)

// childVar names the test a rank process runs.
const childVar = "MPIGO_TEST_CHILD"

// Options shape a job.
type Options struct {
	N         int               // ranks (with Launcher: the launcher's own flags say how many)
	Settings  map[string]string // as mpigo run --set; over Transport's
	Transport Transport         // how the ranks reach each other (zero: the settings' default)
	Env       []string          // extra KEY=VALUE for every rank
	Timeout   time.Duration     // the job is ended after this long; default 2 minutes

	// Hosts, when set, places the ranks on these pretend hosts: mpigo's agents (the
	// command, built by Mpigo) started by a script standing in for ssh (Agent) run
	// them on this machine. ByNode maps ranks round robin over the hosts rather than
	// in blocks.
	Hosts  []launch.Host
	ByNode bool

	// Launcher, when set, is another MPI's launcher with its flags (e.g. "mpiexec.mpich",
	// "-n", "4") that starts the ranks instead of mpigo's; Settings, Transport and Hosts
	// are then not used. See Foreign.
	Launcher []string

	// Fail says the job is expected to fail: Job returns how it ended for the test to
	// check, and fails the test if the job succeeded. Otherwise a job that fails fails
	// the test.
	Fail bool
}

// Result is how a job ended.
type Result struct {
	Code   int
	Stdout string
	Stderr string
}

func (r Result) String() string {
	return fmt.Sprintf("exit code %d\n--- stdout\n%s--- stderr\n%s", r.Code, r.Stdout, r.Stderr)
}

// IsRank reports whether this process is a rank of a job started by Job for t.
func IsRank(t testing.TB) bool { return os.Getenv(childVar) == t.Name() }

// Run runs body on n ranks and fails t if the job fails: Job with n ranks and nothing
// else.
func Run(t *testing.T, n int, body func(t *testing.T)) {
	t.Helper()
	Job(t, Options{N: n}, body)
}

// jobs holds the tests that started a job, so that a second one in the same test is
// refused (its ranks could not tell the two apart).
var jobs sync.Map // *testing.T -> struct{}

// Job runs body on the ranks of a job shaped by o and returns how the job ended. In a
// rank it runs body and then ends the rank's test (skipped, unless body failed it),
// so that what follows Job runs in the test only.
func Job(t *testing.T, o Options, body func(t *testing.T)) Result {
	t.Helper()
	if IsRank(t) {
		body(t)
		t.SkipNow()
	}
	if _, dup := jobs.LoadOrStore(t, struct{}{}); dup {
		t.Fatal("mpitest.Job: a second job in one test: start each in a subtest of its own")
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	args := []string{"-test.run=" + runPattern(t.Name()), "-test.count=1"}
	env := append([]string{childVar + "=" + t.Name()}, o.Env...)
	var res Result
	if o.Launcher != nil {
		cmd := append(append(o.Launcher[:len(o.Launcher):len(o.Launcher)], os.Args[0]), args...)
		res = Foreign(t, o.Timeout, env, cmd...)
	} else {
		res = launchJob(t, o, launch.Spec{N: o.N, Program: os.Args[0], Args: args, Env: env})
	}
	what := fmt.Sprintf("the job of %d ranks", o.N)
	if o.Launcher != nil {
		what = "the job under " + strings.Join(o.Launcher, " ")
	}
	switch {
	case o.Fail && res.Code == 0:
		t.Fatalf("%s succeeded, want a failure: %v", what, res)
	case !o.Fail && res.Code != 0:
		t.Fatalf("%s failed: %v", what, res)
	}
	return res
}

// launchJob runs spec through mpigo's launcher, with o's settings, hosts and timeout.
func launchJob(t testing.TB, o Options, spec launch.Spec) Result {
	t.Helper()
	spec.Settings = maps.Clone(o.Transport.Settings)
	if spec.Settings == nil {
		spec.Settings = map[string]string{}
	}
	maps.Copy(spec.Settings, o.Settings)
	spec.Timeout = o.Timeout
	if o.Hosts != nil {
		agent, _ := Agent(t)
		spec.Hosts, spec.Mapping = o.Hosts, launch.Mapping{ByNode: o.ByNode}
		spec.Agent, spec.AgentPath = []string{agent}, Mpigo(t)
	}
	var out, errb syncBuffer
	spec.Stdout, spec.Stderr = &out, &errb
	code := launch.Run(spec)
	return Result{Code: code, Stdout: out.String(), Stderr: errb.String()}
}

// Bench runs benchmark b as the ranks of a job of n: each rank runs b's function with
// -test.benchtime=benchtime; their output comes back tagged "[rank] ". A job that
// fails fails b. In a rank (IsRank(b)) the benchmark does its part rather than call
// Bench.
func Bench(b *testing.B, n int, benchtime string) Result {
	b.Helper()
	res := launchJob(b, Options{N: n, Timeout: 2 * time.Minute}, launch.Spec{
		N:       n,
		Program: os.Args[0],
		Args: []string{"-test.run=^$", "-test.bench=" + runPattern(b.Name()), "-test.benchtime=" + benchtime,
			"-test.count=1", "-test.benchmem"},
		Env:       []string{childVar + "=" + b.Name()},
		TagOutput: true,
	})
	if res.Code != 0 {
		b.Fatalf("the benchmark's job of %d ranks failed: %v", n, res)
	}
	return res
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
