package launch

import (
	"io"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// TestExitOrderIsTheKernels: two watched processes end one after the other; their
// waits return in the other order, as two waiting goroutines may on a loaded
// machine, and the numbers still say which ended first.
func TestExitOrderIsTheKernels(t *testing.T) {
	type proc struct {
		cmd *exec.Cmd
		in  io.WriteCloser
		w   *exitWatch
	}
	start := func() proc {
		cmd := exec.Command("cat")
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return proc{cmd, in, watchExit(cmd.Process.Pid)}
	}
	end := func(p proc) { // close its input and wait until it is a zombie, unreaped
		p.in.Close()
		var info unix.Siginfo
		if err := unix.Waitid(unix.P_PID, p.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
			t.Fatal(err)
		}
	}
	first, second := start(), start()
	end(first)
	end(second)
	n2 := second.w.waitRank(second.cmd)
	n1 := first.w.waitRank(first.cmd)
	if n1 == 0 || n2 == 0 || n1 >= n2 {
		t.Errorf("the first process to end has number %d, the second %d: want 0 < first < second", n1, n2)
	}
	if !second.cmd.ProcessState.Exited() || !first.cmd.ProcessState.Exited() {
		t.Errorf("waitRank did not reap: %v, %v", first.cmd.ProcessState, second.cmd.ProcessState)
	}
}
