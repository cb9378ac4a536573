package mpitest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/launch"
)

// Foreign runs command, another MPI's launcher with its arguments (mpiexec.mpich -n 4
// ./prog), with env added, ended after timeout. Its processes carry a job mark, and
// those that outlive it (Hydra's proxies may exit before their ranks) are killed and
// fail t. A launcher that is not installed skips t.
func Foreign(t testing.TB, timeout time.Duration, env []string, command ...string) Result {
	t.Helper()
	if _, err := exec.LookPath(command[0]); err != nil {
		t.Skipf("%s is not installed", command[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	mark := JobMark()
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Env = append(append(os.Environ(), mark), env...)
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := Result{Code: 1, Stdout: out.String(), Stderr: errb.String()}
	if cmd.ProcessState != nil {
		res.Code = cmd.ProcessState.ExitCode() // -1 when killed by a signal
	}
	if ctx.Err() != nil {
		res.Code = launch.ExitTimeout
		res.Stderr += fmt.Sprintf("mpitest: %s did not end within %v\n", command[0], timeout)
	} else if err != nil && res.Code == 0 {
		res.Code = 1
		res.Stderr += fmt.Sprintf("mpitest: %s: %v\n", command[0], err)
	}
	if left := KillMarked(mark); len(left) > 0 {
		t.Errorf("%s left processes of the job running; killed %v", command[0], left)
	}
	return res
}
