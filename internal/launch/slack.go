package launch

import (
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/idle"
)

// rankSlack is the slack in nanoseconds for the ranks of a node that runs nlocal of
// them, or 0 to leave the slack alone. settings are the job's --set flags.
func rankSlack(settings map[string]string, nlocal int) int64 {
	us := idle.RankTimerSlack.Get()
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
