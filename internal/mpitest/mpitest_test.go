package mpitest_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/launch"
	"github.com/mpigo/mpigo/internal/mpitest"

	_ "github.com/mpigo/mpigo/internal/core" // the settings the launcher checks
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// TestJob: the body runs on every rank of the job, with the options' settings (the
// transport's, overridden by Settings) and environment; what the ranks print comes back.
func TestJob(t *testing.T) {
	o := mpitest.Options{
		N:         3,
		Transport: mpitest.TCP,
		Settings:  map[string]string{"p2p_spin": "7"},
		Env:       []string{"MPIGO_TEST_EXTRA=yes"},
	}
	res := mpitest.Job(t, o, func(t *testing.T) {
		if os.Getenv("MPIGO_TRANSPORTS") != "self,tcp" || os.Getenv("MPIGO_P2P_SPIN") != "7" || os.Getenv("MPIGO_TEST_EXTRA") != "yes" {
			t.Errorf("rank %s: transports %q, p2p_spin %q, extra %q", os.Getenv("MPIGO_RANK"),
				os.Getenv("MPIGO_TRANSPORTS"), os.Getenv("MPIGO_P2P_SPIN"), os.Getenv("MPIGO_TEST_EXTRA"))
		}
		fmt.Printf("rank %s of %s\n", os.Getenv("MPIGO_RANK"), os.Getenv("MPIGO_SIZE"))
	})
	for r := 0; r < 3; r++ {
		if want := fmt.Sprintf("rank %d of 3\n", r); !strings.Contains(res.Stdout, want) {
			t.Errorf("no %q in the job's output: %v", want, res)
		}
	}
}

// TestRun: Run is a job of n ranks that must succeed; its body runs in each rank.
func TestRun(t *testing.T) {
	mpitest.Run(t, 2, func(t *testing.T) {
		if !mpitest.IsRank(t) || os.Getenv("MPIGO_SIZE") != "2" {
			t.Errorf("IsRank %v, size %q", mpitest.IsRank(t), os.Getenv("MPIGO_SIZE"))
		}
	})
	if mpitest.IsRank(t) {
		t.Error("the test went on in a rank after its body")
	}
}

// ExampleJob runs a test's body on the ranks of a job over TCP; the test checks what
// the ranks printed.
func ExampleJob() {
	var t *testing.T // the test's
	res := mpitest.Job(t, mpitest.Options{N: 4, Transport: mpitest.TCP}, func(t *testing.T) {
		fmt.Println("rank", os.Getenv("MPIGO_RANK"))
	})
	if strings.Count(res.Stdout, "rank ") != 4 {
		t.Errorf("the ranks printed %q", res.Stdout)
	}
}

// TestJobSettingsOverTransport: Settings win over the transport's.
func TestJobSettingsOverTransport(t *testing.T) {
	o := mpitest.Options{N: 1, Transport: mpitest.TCP, Settings: map[string]string{"transports": "self"}}
	mpitest.Job(t, o, func(t *testing.T) {
		if got := os.Getenv("MPIGO_TRANSPORTS"); got != "self" {
			t.Errorf("transports %q, want self", got)
		}
	})
}

// TestJobExpectedFailure: a job expected to fail returns how it ended: the exit code
// of the rank that failed and the launcher's word on it.
func TestJobExpectedFailure(t *testing.T) {
	res := mpitest.Job(t, mpitest.Options{N: 2, Fail: true}, func(t *testing.T) {
		if os.Getenv("MPIGO_RANK") == "1" {
			os.Exit(3)
		}
	})
	if res.Code != 3 || !strings.Contains(res.Stderr, "rank 1 (pid") {
		t.Errorf("want exit 3 naming rank 1: %v", res)
	}
}

// TestJobRankTestFails: a rank whose body fails its test fails the job (the launcher
// then stops the other ranks), and its message comes back.
func TestJobRankTestFails(t *testing.T) {
	res := mpitest.Job(t, mpitest.Options{N: 2, Fail: true}, func(t *testing.T) {
		t.Errorf("deliberate failure on rank %s", os.Getenv("MPIGO_RANK"))
	})
	if res.Code != 1 || !strings.Contains(res.Stdout, "--- FAIL: TestJobRankTestFails") || !strings.Contains(res.Stdout, "deliberate failure on rank ") {
		t.Errorf("want a job failed with a rank's message: %v", res)
	}
}

// TestJobOnHosts: ranks on pretend hosts, through mpigo's agents (the command built by
// Mpigo) and the stand-in for ssh, mapped round robin.
func TestJobOnHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/mpigo")
	}
	hosts := []launch.Host{{Name: "alpha", Slots: 2}, {Name: "beta", Slots: 2}}
	res := mpitest.Job(t, mpitest.Options{N: 4, Hosts: hosts, ByNode: true}, func(t *testing.T) {
		fmt.Printf("rank %s on node map %s of hosts %s\n", os.Getenv("MPIGO_RANK"), os.Getenv("MPIGO_NODEMAP"), os.Getenv("MPIGO_HOSTS"))
	})
	if !strings.Contains(res.Stdout, "rank 3 on node map ") || !strings.Contains(res.Stdout, "of hosts alpha,beta\n") {
		t.Errorf("ranks' view of the hosts: %v", res)
	}
}

// TestBuildOnce: a program is built once per test binary.
func TestBuildOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/mpigo")
	}
	a, b := mpitest.Mpigo(t), mpitest.Mpigo(t)
	if a != b {
		t.Errorf("two builds: %s and %s", a, b)
	}
	if fi, err := os.Stat(a); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("%s: %v, %v", a, fi, err)
	}
}

// TestForeign: another launcher's command runs with the environment added, and one
// that outlasts its timeout is ended with the timeout's exit code.
func TestForeign(t *testing.T) {
	res := mpitest.Foreign(t, time.Minute, []string{"MPIGO_TEST_EXTRA=yes"}, "sh", "-c", "echo extra=$MPIGO_TEST_EXTRA; exit 5")
	if res.Code != 5 || res.Stdout != "extra=yes\n" {
		t.Errorf("sh: %v", res)
	}
	res = mpitest.Foreign(t, 100*time.Millisecond, nil, "sleep", "60")
	if res.Code != launch.ExitTimeout || !strings.Contains(res.Stderr, "did not end within") {
		t.Errorf("sleep past the timeout: %v", res)
	}
}

// TestTransports: the table's names and the flags that choose each.
func TestTransports(t *testing.T) {
	var names []string
	for _, tr := range mpitest.Transports {
		names = append(names, tr.Name)
	}
	if !slices.Equal(names, []string{"shm", "tcp"}) {
		t.Errorf("transports %v", names)
	}
	if got := mpitest.TCP.Flags(); !slices.Equal(got, []string{"--set", "transports=self,tcp"}) {
		t.Errorf("TCP.Flags() = %q", got)
	}
	two := mpitest.Transport{Settings: map[string]string{"b": "2", "a": "1"}}
	if got := two.Flags(); !slices.Equal(got, []string{"--set", "a=1", "--set", "b=2"}) {
		t.Errorf("Flags() = %q, want them sorted", got)
	}
}
