package launch

import (
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/config"
)

// setRankSlack is the timer slack the ranks of a full node start with.
//
// Why: after a Go program blocks and resumes (the end of Init, a rank's first
// collective, any wait that slept), the runtime's monitor thread (sysmon) wakes every
// 20 us for its next 50 rounds before it backs off to 10 ms. When a node's ranks
// leave no CPU idle, each wake-up interrupts a rank that is working or waiting on a
// peer, and a Barrier's first few hundred calls run markedly slower than the later
// ones (a Go runtime that backs off at once removes the difference; the figures:
// docs/BENCHMARKS.md, launch). A timer slack lets the kernel fire sysmon's short sleeps
// together with other timers, at most one slack late: with 1 ms the Barrier is at its
// steady-state speed from the first call. sysmon starts before any of a program's
// code runs, so only its parent can give it a slack: the launcher sets it on the
// thread that starts the rank, and the rank's threads inherit it.
//
// The cost: a timed sleep of the rank (a Go timer, a futex wait with a timeout) may
// end up to the slack later. Go's timers already round sleeps up to a millisecond,
// and mpigo's waits are woken by their peers, not by their timeouts.
var setRankSlack = config.Int("rank_timer_slack", 1000,
	"timer slack, in microseconds, that the launcher gives the ranks of a node with no more CPUs than ranks, so that Go's runtime monitor wakes them less often (0: the launcher's own slack)").Range(0, 1_000_000)

// rankSlack is the slack in nanoseconds for the ranks of a node that runs nlocal of
// them, or 0 to leave the slack alone. settings are the job's --set flags.
func rankSlack(settings map[string]string, nlocal int) int64 {
	us := setRankSlack.Get()
	if v, ok := settings["rank_timer_slack"]; ok {
		us, _ = strconv.ParseInt(v, 0, 64)
	}
	if us <= 0 || nlocal < runtime.NumCPU() {
		return 0
	}
	return us * 1000
}

// startWithSlack starts cmd from a thread whose timer slack is slack ns (when not 0),
// so that the process and its threads inherit it.
func startWithSlack(cmd *exec.Cmd, slack int64) error {
	if slack == 0 {
		return cmd.Start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		return cmd.Start()
	}
	unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(slack), 0, 0, 0)
	defer unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0)
	return cmd.Start()
}
