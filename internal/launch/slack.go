package launch

import (
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/idle"
)

// rankSched is how a rank's threads are scheduled, as the launcher sets it on the
// thread that starts the rank (they inherit it): a timer slack and a fair scheduler
// slice, in nanoseconds, 0 leaving each as the launcher's.
type rankSched struct{ slack, slice int64 }

// rankSchedOf is rankSched for the ranks of a node that runs nlocal of them: the timer
// slack when the ranks leave no CPU idle (idle.RankTimerSlack), the slice when they
// outnumber the CPUs (idle.RankSchedSlice), as the job's settings give them.
func rankSchedOf(spec *Spec, nlocal int) rankSched {
	get := func(s *config.Setting) int64 {
		v, _ := strconv.ParseInt(settingOf(spec, s), 0, 64)
		return max(v, 0) * 1000
	}
	var rs rankSched
	if nlocal >= runtime.NumCPU() {
		rs.slack = get(idle.RankTimerSlack.Setting)
	}
	if nlocal > runtime.NumCPU() {
		rs.slice = get(idle.RankSchedSlice.Setting)
	}
	return rs
}

// start starts cmd from a thread scheduled as rs says, so that the process and its
// threads inherit it. A setting the system refuses is left out.
func (rs rankSched) start(cmd *exec.Cmd) error {
	if rs == (rankSched{}) {
		return cmd.Start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if rs.slack != 0 {
		if old, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0); err == nil {
			unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(rs.slack), 0, 0, 0)
			defer unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(old), 0, 0, 0)
		}
	}
	if rs.slice != 0 {
		// Only a fair policy's slice is set; the thread's policy and nice value stay.
		if old, err := unix.SchedGetAttr(0, 0); err == nil && (old.Policy == unix.SCHED_NORMAL || old.Policy == unix.SCHED_BATCH) {
			a := *old
			a.Runtime = uint64(rs.slice)
			if unix.SchedSetAttr(0, &a, 0) == nil {
				defer unix.SchedSetAttr(0, old, 0)
			}
		}
	}
	return cmd.Start()
}
