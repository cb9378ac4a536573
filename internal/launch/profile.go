package launch

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/wireup"
)

// What the launcher learns from the ranks' records (internal/prof): their reports at
// Finalize (--report), their answers when the launcher asks where they are (a job
// that times out or is interrupted explains itself; a profiled job that fails still
// gets its ranks' profiles), and, at the end, the job's picture (picture.go).

// queryWait bounds how long the launcher waits for the ranks' answers: a rank whose
// goroutines cannot run (stopped, or spinning with the runtime's preemption off) does
// not hold the job's end.
const queryWait = 2 * time.Second

// answered stores a rank's report or answer; in an agent, it passes it up.
func (n *node) answered(rank int, typ byte, body []byte) {
	if n.rankNews != nil {
		n.rankNews(rank, typ, body)
		return
	}
	n.fmu.Lock()
	defer n.fmu.Unlock()
	switch typ {
	case wireup.MsgReport:
		r := new(prof.Report)
		if json.Unmarshal(body, r) == nil {
			if n.reports == nil {
				n.reports = map[int]*prof.Report{}
			}
			n.reports[rank] = r
		}
	case wireup.MsgState:
		a := new(prof.Answer)
		if json.Unmarshal(body, a) == nil {
			if n.answers == nil {
				n.answers = map[int]*prof.Answer{}
			}
			n.answers[rank] = a
		}
	}
}

// askRanks asks every local rank still connected where it is, and returns whom it
// asked. A rank that has not said Hello is not asked: it is not in MPI yet, and
// nothing in it reads the question (a launcher interrupted while Python ranks import
// would otherwise wait queryWait for them).
func (n *node) askRanks() []int {
	var asked []int
	for _, c := range n.ranks {
		select {
		case <-c.pmDone:
			continue
		default:
		}
		n.fmu.Lock()
		hello := c.hello
		n.fmu.Unlock()
		if hello && c.write(wireup.MsgQuery, nil) == nil {
			asked = append(asked, c.rank)
		}
	}
	return asked
}

// agentAsked notes an agent's answer to msgQuery: its node id and the ranks it asked.
func (n *node) agentAsked(body []byte) {
	h, k := binary.Uvarint(body)
	if k <= 0 {
		return
	}
	n.fmu.Lock()
	defer n.fmu.Unlock()
	if n.askedHost == nil {
		return // no question out
	}
	n.askedHost[int(h)] = true
	for body = body[k:]; len(body) > 0; body = body[k:] {
		r, k2 := binary.Uvarint(body)
		if k2 <= 0 {
			return
		}
		k = k2
		n.asked[int(r)] = true
	}
}

// query asks every rank still connected, on this host and (through the agents) on
// the others, where it is (each flushes its profile first), and waits, bounded, for
// their answers. It returns the answers by rank (nil: none came).
func (j *Job) query() []*prof.Answer {
	j.queried = true
	j.fmu.Lock()
	j.answers = map[int]*prof.Answer{}
	j.asked, j.askedHost = map[int]bool{}, map[int]bool{}
	j.fmu.Unlock()
	local := j.askRanks()
	j.fmu.Lock()
	for _, r := range local {
		j.asked[r] = true
	}
	j.fmu.Unlock()
	var agents []*child
	for _, c := range j.agents {
		select {
		case <-c.pmDone:
			continue
		default:
		}
		if c.write(msgQuery, nil) == nil {
			agents = append(agents, c)
		}
	}
	// Every agent of the tree says whom it asked: one per host but the launcher's.
	hosts := 0
	if len(agents) > 0 {
		hosts = j.lay.NumNodes()
	}
	deadline := time.Now().Add(queryWait)
	for {
		j.fmu.Lock()
		done := len(j.askedHost) >= hosts
		for r := range j.asked {
			if j.answers[r] == nil && !j.finished[r] {
				done = false
			}
		}
		j.fmu.Unlock()
		if done || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	out := make([]*prof.Answer, j.spec.N)
	j.fmu.Lock()
	for r, a := range j.answers {
		if r >= 0 && r < len(out) {
			out[r] = a
		}
	}
	j.asked, j.askedHost = nil, nil
	j.fmu.Unlock()
	return out
}

// flushRanks, in a failing profiled job, has the surviving ranks write their
// profiles before they are stopped.
func (j *Job) flushRanks() {
	if j.spec.Profile == "" || j.queried {
		return
	}
	j.query()
}

// endProfile, once every rank is gone, prints the --report lines and draws the
// picture of a profiled job from the files its ranks wrote.
func (j *Job) endProfile() {
	if j.spec.Report {
		j.printReport()
	}
	if j.spec.Profile == "" {
		return
	}
	pic, err := readProfile(j.spec.Profile, j.spec.N)
	if err != nil {
		j.diag("profile: %v", err)
		return
	}
	var b strings.Builder
	pic.summary(&b)
	j.stderr.write([]byte(b.String()))
	if err := pic.writeAll(j.spec.Profile, b.String()); err != nil {
		j.diag("profile: %v", err)
		return
	}
	j.diag("profile of %d ranks in %s: summary.txt, matrix.csv, trace.json (chrome://tracing, ui.perfetto.dev), profile.html",
		len(pic.ranks), j.spec.Profile)
}

// printReport prints one line per rank: its time in MPI (--report).
func (j *Job) printReport() {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	for rank := 0; rank < j.spec.N; rank++ {
		r := j.reports[rank]
		if a := j.answers[rank]; r == nil && a != nil {
			r = &a.Report
		}
		if r == nil || r.Rank < 0 {
			j.diag("rank %d: no report (it ended before Finalize, or does not use mpigo)", rank)
			continue
		}
		pct := 0.0
		if r.Wall > 0 {
			pct = 100 * r.MPI / r.Wall
		}
		top := ""
		if r.Top != "" {
			top = fmt.Sprintf(", most in %s (%.3f s)", r.Top, r.TopS)
		}
		if r.CallTime > r.MPI*1.001 {
			top += fmt.Sprintf("; the calls' times add up to %.3f s (goroutines in MPI at once)", r.CallTime)
		}
		j.diag("rank %d: %.3f s in MPI of %.3f s (%.1f%%), %d calls%s", rank, r.MPI, r.Wall, pct, r.Calls, top)
	}
}

// prepareProfile makes the profile directory and removes what an earlier job left
// there (ranks' files and the picture), so that the picture is of this job only.
func prepareProfile(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, pat := range []string{"rank-*.json", "rank-*.events", "rank-*.json.tmp"} {
		old, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, f := range old {
			os.Remove(f)
		}
	}
	for _, f := range pictureFiles {
		os.Remove(filepath.Join(dir, f))
	}
	return nil
}

// setupProfile settles where a profiled job writes: --profile, else the profile
// setting (--set, the environment, the config file), which the ranks are then given.
func setupProfile(spec *Spec) error {
	if spec.Profile == "" {
		if v, ok := spec.Settings[prof.SettingProfile]; ok {
			spec.Profile = v
		} else {
			spec.Profile = prof.Directory()
		}
	}
	if spec.Profile == "" {
		return nil
	}
	abs, err := filepath.Abs(spec.Profile)
	if err != nil {
		return err
	}
	spec.Profile = abs
	if spec.Settings == nil {
		spec.Settings = map[string]string{}
	}
	spec.Settings[prof.SettingProfile] = abs
	return prepareProfile(abs)
}
