package launch

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
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
// asked.
func (n *node) askRanks() []int {
	var asked []int
	for _, c := range n.ranks {
		select {
		case <-c.pmDone:
			continue
		default:
		}
		if c.write(wireup.MsgQuery, nil) == nil {
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

// explain prints, before a run that timed out or was interrupted is stopped, what
// each rank is blocked in, and which ranks wait for one that never came: of the first
// job, then of each spawned job with ranks still running (a parent blocked on its
// children is explained by what the children are doing).
func (j *Job) explain(why string) {
	for i, jb := range j.all {
		if i > 0 && (jb.aborted || jb.exited == jb.spec.N) {
			continue
		}
		head := why + "; what each rank is doing:"
		if i > 0 {
			head = fmt.Sprintf("%s (%s), what each rank is doing:", jobName(jb.no), jb.spec.Apps[0].Program)
		}
		jb.explainRanks(head)
	}
}

// explainRanks prints this job's part of explain under head.
func (j *Job) explainRanks(head string) {
	ans := j.query()
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", head)
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  RANK\tCALL\tCOMM\tPEER\tTAG\tBYTES\tFOR")
	for r := 0; r < j.spec.N; r++ {
		a := ans[r]
		switch {
		case j.finished[r]:
			fmt.Fprintf(w, "  %d\t(exited)\t\t\t\t\t\n", r)
		case a == nil:
			fmt.Fprintf(w, "  %d\t(no answer: not in MPI yet, or not an mpigo program)\t\t\t\t\t\n", r)
		case a.Where.Call == "":
			fmt.Fprintf(w, "  %d\t(not in an MPI call)\t\t\t\t\t\n", r)
		default:
			x := a.Where
			tag := "-"
			if k := prof.CallNamed(x.Call).Kind(); k == prof.KindSend || k == prof.KindRecv || k == prof.KindWait || k == prof.KindRMA {
				tag = tagName(x.Tag)
			}
			fmt.Fprintf(w, "  %d\t%s\t%s\t%s\t%s\t%d\t%s\n", r, x.Call, commName(x), peerName(x), tag, x.Bytes, since(x.Blocked))
		}
	}
	w.Flush()
	for _, line := range diagnose(ans, j.finished) {
		fmt.Fprintln(&b, line)
	}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		j.diag("%s", line)
	}
}

// commName names the communicator of x: WORLD, SELF, its name, or its context id and
// its group's world ranks; one freed while the call goes on says so.
func commName(x prof.Where) string {
	if x.Freed {
		x.Freed = false
		return commName(x) + " (freed)"
	}
	switch {
	case x.Comm == 0 && x.Group == nil:
		return "WORLD"
	case x.Comm == 2:
		return "SELF"
	case x.CommName != "":
		return x.CommName
	case x.Group == nil:
		return fmt.Sprintf("ctx%d(world)", x.Comm)
	}
	return fmt.Sprintf("ctx%d(%s)", x.Comm, rankSet(x.Group))
}

// rankSet writes ranks compactly: 0-3,6,8-9.
func rankSet(rs []int) string {
	var b strings.Builder
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", rs[i], rs[j])
		} else {
			fmt.Fprint(&b, rs[i])
		}
		i = j + 1
	}
	return b.String()
}

func peerName(x prof.Where) string {
	switch {
	case x.Peer == -1:
		return "any"
	case x.Peer == -2:
		return "null"
	case x.Peer == prof.NoPeer:
		return "-"
	case prof.CallNamed(x.Call).Kind() == prof.KindColl || prof.CallNamed(x.Call).Kind() == prof.KindStart:
		return fmt.Sprintf("root %d", x.Peer)
	}
	return fmt.Sprint(x.Peer)
}

func tagName(t int) string {
	if t == -1 {
		return "any"
	}
	if t < -1 {
		return "-"
	}
	return fmt.Sprint(t)
}

func since(s float64) string {
	if s < 0 {
		return "?"
	}
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

// receives are the calls that wait for a message from a peer.
func receives(c prof.Call) bool {
	switch c {
	case prof.Recv, prof.Probe, prof.Mprobe, prof.Sendrecv, prof.SendrecvReplace:
		return true
	}
	return false
}

// diagnose says which ranks wait for one that never came: a receive that no rank is
// sending, a collective some ranks of its communicator never entered.
func diagnose(ans []*prof.Answer, finished []bool) []string {
	var out []string
	doing := func(r int) string {
		switch {
		case r < 0 || r >= len(ans):
			return "not a rank of the job"
		case finished[r]:
			return "has exited"
		case ans[r] == nil:
			return "did not answer"
		case ans[r].Where.Call == "":
			return "is not in an MPI call"
		}
		x := ans[r].Where
		s := "is in " + x.Call
		if c := prof.CallNamed(x.Call); c.Kind() == prof.KindSend || receives(c) || (c.Kind() == prof.KindWait && x.Peer >= 0) {
			s += fmt.Sprintf(" (peer %s, tag %s)", peerName(x), tagName(x.Tag))
		}
		return s
	}
	sendsTo := func(s, r, tag int) bool {
		if s < 0 || s >= len(ans) || ans[s] == nil {
			return false
		}
		x := ans[s].Where
		c := prof.CallNamed(x.Call)
		return c.Kind() == prof.KindSend && x.Peer == r && (tag == -1 || x.Tag == tag)
	}
	// Collectives: group the ranks in one by communicator (its context id and group:
	// disjoint communicators of one Split share a context id) and call.
	type key struct {
		comm  uint32
		group string
		call  string
	}
	in := map[key][]int{}
	var keys []key
	for r, a := range ans {
		if a == nil {
			continue
		}
		x := a.Where
		c := prof.CallNamed(x.Call)
		if x.WaitsRecv && c.Kind() == prof.KindWait {
			c = prof.Recv // a wait for a receive waits as Recv does
		}
		switch {
		case receives(c) && x.Peer >= 0:
			if !sendsTo(x.Peer, r, x.Tag) {
				out = append(out, fmt.Sprintf("rank %d waits in %s for a message from rank %d (tag %s) that never came: rank %d %s",
					r, x.Call, x.Peer, tagName(x.Tag), x.Peer, doing(x.Peer)))
			}
		case receives(c) && x.Peer == -1:
			any := false
			for s := range ans {
				any = any || sendsTo(s, r, x.Tag)
			}
			if !any {
				out = append(out, fmt.Sprintf("rank %d waits in %s for a message from any rank (tag %s) that no rank is sending", r, x.Call, tagName(x.Tag)))
			}
		case c.Kind() == prof.KindColl || c == prof.Finalize:
			k := key{x.Comm, fmt.Sprint(x.Group), x.Call}
			if c == prof.Finalize {
				k = key{0, "", x.Call}
			}
			if _, ok := in[k]; !ok {
				keys = append(keys, k)
			}
			in[k] = append(in[k], r)
		}
	}
	sort.SliceStable(keys, func(a, b int) bool { return keys[a].comm < keys[b].comm })
	for _, k := range keys {
		rs := in[k]
		x := ans[rs[0]].Where
		// The communicator's members, as world ranks.
		var members []int
		switch {
		case k.call == prof.Finalize.String() || x.Group == nil:
			for r := range ans {
				members = append(members, r)
			}
		default:
			members = x.Group
		}
		if x.Remote != nil { // an intercommunicator's collective: both groups enter
			members = append(append([]int{}, members...), x.Remote...)
		}
		if len(rs) >= len(members) {
			continue
		}
		name := commName(x)
		if k.call == prof.Finalize.String() {
			name = "WORLD"
		}
		msg := fmt.Sprintf("%d of %d ranks of %s are in %s (%s)", len(rs), len(members), name, k.call, rankList(rs))
		entered := map[int]bool{}
		for _, r := range rs {
			entered[r] = true
		}
		var missing []string
		for _, r := range members {
			if !entered[r] {
				missing = append(missing, fmt.Sprintf("rank %d %s", r, doing(r)))
			}
		}
		if k.call == prof.Finalize.String() {
			msg += "; they wait for the others: " + strings.Join(missing, "; ")
		} else {
			msg += "; never entered it: " + strings.Join(missing, "; ")
		}
		out = append(out, msg)
	}
	return out
}

func rankList(rs []int) string {
	var s []string
	for _, r := range rs {
		s = append(s, fmt.Sprint(r))
	}
	return "ranks " + strings.Join(s, ",")
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
