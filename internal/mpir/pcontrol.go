package mpir

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// Pcontrol is MPI_Pcontrol (MPI 4.1 section 15.2.4) for mpigo's own record
// (internal/prof), which is what a profiling library is to a C MPI: level 2 flushes
// the profile (with mpigo run --profile, the rank's file is rewritten now, so that a
// long run's picture can be drawn while it goes on); levels 0 and 1, which turn a
// profiling library off and on, leave the record on, since its counts also serve the
// tool interface's performance variables and the launcher's report of a hung job;
// any other level is a profiler's own and has no effect, as the standard allows.
func Pcontrol(op string, level int) error {
	if level != 2 {
		return nil
	}
	if err := prof.Flush("pcontrol"); err != nil {
		return core.Wrap(core.ClassOther, op, "writing the profile", err)
	}
	return nil
}
