package launch

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mpigo/mpigo/internal/prof"
)

// A run that timed out or was interrupted explains itself before it is stopped: what
// each rank of each of its jobs is blocked in, and which ranks wait for one that never
// came. A rank names its peers by indices of its own (internal/core: its world's
// ranks, then the processes of other jobs in the order it learnt of them), so the
// explanation first turns every index into a process of the run, (job, rank), with the
// names each answer carries (prof.Where.Others): a parent waiting on its child and the
// child waiting on its parent are then one story, told from both jobs.

// proc is a process of the run: rank of the job numbered job (its index in all), or,
// with job -1, rank of a job this launcher does not run (joined through a port), id
// its job id.
type proc struct {
	job, rank int
	id        string
}

// runView is every job's answers, as explain gathered them.
type runView struct {
	jobs []jobView
	byID map[string]int // job id -> number
}

type jobView struct {
	jb  *Job
	ans []*prof.Answer // by rank; nil: no answer (or not asked: the job is over)
}

// explain prints, before a run that timed out or was interrupted is stopped, what
// each rank is blocked in, and which ranks wait for one that never came: of the first
// job, then of each spawned job with ranks still running (a parent blocked on its
// children is explained by what the children are doing).
func (j *Job) explain(why string) {
	v := &runView{byID: map[string]int{}}
	for i, jb := range j.all {
		var ans []*prof.Answer
		if i == 0 || !jb.over() {
			ans = jb.query()
		}
		v.jobs = append(v.jobs, jobView{jb, ans})
		v.byID[jb.id] = i
	}
	for i, jv := range v.jobs {
		if i > 0 && jv.jb.over() {
			continue
		}
		head := why + "; what each rank is doing:"
		if i > 0 {
			head = fmt.Sprintf("%s (%s), what each rank is doing:", jobName(i), jv.jb.spec.Apps[0].Program)
		}
		jv.jb.explainRanks(v, i, head)
	}
}

// over reports whether a spawned job has nothing left to explain.
func (j *Job) over() bool { return j.aborted || j.exited == j.spec.N }

// explainRanks prints job number no's part of explain under head.
func (j *Job) explainRanks(v *runView, no int, head string) {
	ans := v.jobs[no].ans
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
			fmt.Fprintf(w, "  %d\t%s\t%s\t%s\t%s\t%d\t%s\n", r, x.Call, v.commName(no, x), v.peerName(no, x), tag, x.Bytes, since(x.Blocked))
		}
	}
	w.Flush()
	for _, line := range v.diagnose(no) {
		fmt.Fprintln(&b, line)
	}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		j.diag("%s", line)
	}
}

// resolve is the process that index i of an answer of job no's means.
func (v *runView) resolve(no int, x *prof.Where, i int) proc {
	if i >= 0 && i < v.jobs[no].jb.spec.N {
		return proc{no, i, ""}
	}
	for _, o := range x.Others {
		if o.Index == i {
			if k, ok := v.byID[o.Job]; ok {
				return proc{k, o.Rank, ""}
			}
			return proc{-1, o.Rank, o.Job}
		}
	}
	return proc{-1, i, ""}
}

// name is p as job no's explanation calls it: "rank 3" in job no itself, "rank 0 of
// spawned job 1" in another.
func (v *runView) name(no int, p proc) string {
	switch {
	case p.job == no:
		return fmt.Sprintf("rank %d", p.rank)
	case p.job >= 0:
		return fmt.Sprintf("rank %d of %s", p.rank, jobName(p.job))
	case p.id != "":
		return fmt.Sprintf("rank %d of job %s (not of this run)", p.rank, p.id)
	}
	return fmt.Sprintf("process %d (unknown to the launcher)", p.rank)
}

// where is p's answer, nil when it gave none or is not of the run.
func (v *runView) where(p proc) *prof.Where {
	if p.job < 0 {
		return nil
	}
	ans := v.jobs[p.job].ans
	if p.rank < 0 || p.rank >= len(ans) || ans[p.rank] == nil {
		return nil
	}
	return &ans[p.rank].Where
}

// doing says what p is doing, as seen from job no.
func (v *runView) doing(no int, p proc) string {
	if p.job < 0 {
		return "is not a process of this run"
	}
	jb := v.jobs[p.job].jb
	switch {
	case p.rank < 0 || p.rank >= jb.spec.N:
		return "is not a rank of its job"
	case jb.finished[p.rank]:
		return "has exited"
	case v.jobs[p.job].ans == nil:
		return "did not answer"
	}
	x := v.where(p)
	switch {
	case x == nil:
		return "did not answer"
	case x.Call == "":
		return "is not in an MPI call"
	}
	s := "is in " + x.Call
	if c := prof.CallNamed(x.Call); c.Kind() == prof.KindSend || receives(c) || (c.Kind() == prof.KindWait && x.Peer >= 0) {
		peer := v.peerName(p.job, *x)
		if x.Peer >= 0 {
			if q := v.resolve(p.job, x, x.Peer); q.job == no {
				peer = fmt.Sprint(q.rank)
			} else {
				peer = v.name(no, q)
			}
		}
		s += fmt.Sprintf(" (peer %s, tag %s)", peer, tagName(x.Tag))
	}
	return s
}

// sendsTo reports whether s is sending to r with tag (-1: any tag).
func (v *runView) sendsTo(s, r proc, tag int) bool {
	x := v.where(s)
	if x == nil || prof.CallNamed(x.Call).Kind() != prof.KindSend || x.Peer < 0 {
		return false
	}
	return v.resolve(s.job, x, x.Peer) == r && (tag == -1 || x.Tag == tag)
}

// members are the processes of the communicator x names, as a rank of job no
// answered: its (local) group, then an intercommunicator's remote one.
func (v *runView) members(no int, x *prof.Where, finalize bool) []proc {
	var out []proc
	if finalize || x.Group == nil {
		for r := 0; r < v.jobs[no].jb.spec.N; r++ {
			out = append(out, proc{no, r, ""})
		}
	} else {
		for _, i := range x.Group {
			out = append(out, v.resolve(no, x, i))
		}
	}
	if !finalize {
		for _, i := range x.Remote {
			out = append(out, v.resolve(no, x, i))
		}
	}
	return out
}

// diagnose says which ranks of job no wait for one that never came: a receive that
// no process is sending, a collective some processes of its communicator never
// entered.
func (v *runView) diagnose(no int) []string {
	ans := v.jobs[no].ans
	var out []string
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
		x := &a.Where
		me := proc{no, r, ""}
		c := prof.CallNamed(x.Call)
		if x.WaitsRecv && c.Kind() == prof.KindWait {
			c = prof.Recv // a wait for a receive waits as Recv does
		}
		switch {
		case receives(c) && x.Peer >= 0:
			from := v.resolve(no, x, x.Peer)
			if !v.sendsTo(from, me, x.Tag) {
				out = append(out, fmt.Sprintf("rank %d waits in %s for a message from %s (tag %s) that never came: %s %s",
					r, x.Call, v.name(no, from), tagName(x.Tag), v.name(no, from), v.doing(no, from)))
			}
		case receives(c) && x.Peer == -1:
			any := false
			for s := range ans {
				any = any || v.sendsTo(proc{no, s, ""}, me, x.Tag)
			}
			for _, o := range x.Others {
				any = any || v.sendsTo(v.resolve(no, x, o.Index), me, x.Tag)
			}
			if !any {
				out = append(out, fmt.Sprintf("rank %d waits in %s for a message from any rank (tag %s) that no rank is sending", r, x.Call, tagName(x.Tag)))
			}
		case c.Kind() == prof.KindColl || c == prof.Finalize:
			k := key{x.Comm, fmt.Sprint(x.Group, x.Remote), x.Call}
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
		x := &ans[rs[0]].Where
		finalize := k.call == prof.Finalize.String()
		entered := map[proc]bool{}
		for _, r := range rs {
			entered[proc{no, r, ""}] = true
		}
		members := v.members(no, x, finalize)
		for _, m := range members {
			if m.job != no && v.inCollectiveWith(m, k.call, proc{no, rs[0], ""}) {
				entered[m] = true
			}
		}
		if len(entered) >= len(members) {
			continue
		}
		name := v.commName(no, *x)
		if finalize {
			name = "WORLD"
		}
		msg := fmt.Sprintf("%d of %d ranks of %s are in %s (%s)", len(entered), len(members), name, k.call, rankList(rs))
		var missing []string
		for _, m := range members {
			if !entered[m] {
				missing = append(missing, fmt.Sprintf("%s %s", v.name(no, m), v.doing(no, m)))
			}
		}
		if finalize {
			msg += "; they wait for the others: " + strings.Join(missing, "; ")
		} else {
			msg += "; never entered it: " + strings.Join(missing, "; ")
		}
		out = append(out, msg)
	}
	return out
}

// inCollectiveWith reports whether m, a process of another job, is in call on a
// communicator whose remote group holds p: the other side of an intercommunicator's
// collective.
func (v *runView) inCollectiveWith(m proc, call string, p proc) bool {
	x := v.where(m)
	if x == nil || x.Call != call {
		return false
	}
	for _, i := range x.Remote {
		if v.resolve(m.job, x, i) == p {
			return true
		}
	}
	return false
}

func rankList(rs []int) string {
	var s []string
	for _, r := range rs {
		s = append(s, fmt.Sprint(r))
	}
	return "ranks " + strings.Join(s, ",")
}

// commName names the communicator of x, as a rank of job no answered: WORLD, SELF,
// its name, or its context id and its group's world ranks (and an intercommunicator's
// remote group's); one freed while the call goes on says so.
func (v *runView) commName(no int, x prof.Where) string {
	if x.Freed {
		x.Freed = false
		return v.commName(no, x) + " (freed)"
	}
	switch {
	case x.Comm == 0 && x.Group == nil && x.Remote == nil:
		return "WORLD"
	case x.Comm == 2:
		return "SELF"
	case x.CommName != "":
		return x.CommName
	}
	local := "world"
	if x.Group != nil {
		local = rankSet(x.Group)
	}
	if x.Remote == nil {
		return fmt.Sprintf("ctx%d(%s)", x.Comm, local)
	}
	return fmt.Sprintf("ctx%d(%s; remote %s)", x.Comm, local, v.remoteSet(no, &x))
}

// remoteSet writes an intercommunicator's remote group: ranks of job no compactly,
// those of another job as "spawned job 1 ranks 0-1".
func (v *runView) remoteSet(no int, x *prof.Where) string {
	var parts []string
	var run []int
	runJob := proc{job: no}
	flush := func() {
		if len(run) == 0 {
			return
		}
		switch {
		case runJob.job == no:
			parts = append(parts, rankSet(run))
		case runJob.job >= 0:
			parts = append(parts, jobName(runJob.job)+" ranks "+rankSet(run))
		default:
			parts = append(parts, "job "+runJob.id+" ranks "+rankSet(run))
		}
		run = nil
	}
	for _, i := range x.Remote {
		p := v.resolve(no, x, i)
		if p.job != runJob.job || p.id != runJob.id {
			flush()
			runJob = proc{job: p.job, id: p.id}
		}
		run = append(run, p.rank)
	}
	flush()
	return strings.Join(parts, ",")
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

// peerName is the PEER column of x, an answer of job no's rank.
func (v *runView) peerName(no int, x prof.Where) string {
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
	p := v.resolve(no, &x, x.Peer)
	if p.job == no {
		return fmt.Sprint(p.rank)
	}
	return v.name(no, p)
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

// receives are the calls that wait for a message from a peer.
func receives(c prof.Call) bool {
	switch c {
	case prof.Recv, prof.Probe, prof.Mprobe, prof.Sendrecv, prof.SendrecvReplace:
		return true
	}
	return false
}

func since(s float64) string {
	if s < 0 {
		return "?"
	}
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}
