package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
)

// A job whose rank 0 waits in Recv forever while the others sit in Finalize, ended
// by --timeout, says so before it is stopped: the rank, the call, the peer and tag.
func TestHungJobExplainsItself(t *testing.T) {
	r := mpigo(t, "", "run", "-n", "3", "--timeout", "2", rankBin(t), "hang-recv")
	if r.code != 124 {
		t.Fatalf("exit %d, want 124; stderr:\n%s", r.code, r.stderr)
	}
	for _, re := range []string{
		`RANK\s+CALL\s+COMM\s+PEER\s+TAG\s+BYTES\s+FOR`,
		`mpigo:\s+0\s+Recv\s+WORLD\s+1\s+7\s+8\s+[0-9.]+m?s`,
		`mpigo:\s+1\s+Finalize\s+WORLD`,
		`rank 0 waits in Recv for a message from rank 1 \(tag 7\) that never came: rank 1 is in Finalize`,
		`2 of 3 ranks of WORLD are in Finalize \(ranks 1,2\); they wait for the others: rank 0 is in Recv \(peer 1, tag 7\)`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stderr) {
			t.Errorf("stderr does not match %q:\n%s", re, r.stderr)
		}
	}
	// The explanation comes before the ranks are stopped.
	if i, j := strings.Index(r.stderr, "never came"), strings.Index(r.stderr, "stopping 3 ranks"); i < 0 || j < i {
		t.Errorf("the explanation should precede the stop:\n%s", r.stderr)
	}
}

// A rank blocked in a file's collective (one the others never enter) is explained as
// any other: the file call, the file as its communicator, who never entered it.
func TestHungFileCollectiveExplained(t *testing.T) {
	name := filepath.Join(t.TempDir(), "out")
	r := mpigo(t, "", "run", "-n", "2", "--timeout", "2", rankBin(t), "hang-file", name)
	if r.code != 124 {
		t.Fatalf("exit %d, want 124; stderr:\n%s", r.code, r.stderr)
	}
	file := regexp.QuoteMeta(`file "` + name + `"`)
	for _, re := range []string{
		`mpigo:\s+0\s+FileWriteAtAll\s+` + file + `\s+-\s+-\s+16\s`,
		`rank 1 waits in Recv for a message from rank 0 \(tag 5\) that never came: rank 0 is in FileWriteAtAll`,
		`1 of 2 ranks of ` + file + ` are in FileWriteAtAll \(ranks 0\); never entered it: rank 1 is in Recv \(peer 0, tag 5\)`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stderr) {
			t.Errorf("stderr does not match %q:\n%s", re, r.stderr)
		}
	}
}

// Ctrl-C on a hung job: the launcher prints the table before it stops the ranks, and
// nothing of the job is left: no process, no file in /dev/shm.
func TestInterruptedHungJobExplainsItself(t *testing.T) {
	cmd, out, errb, drained := startReady(t, 3, "run", "-n", "3", "--set", "shm_memory=file", rankBin(t), "hang-recv")
	ps := pids(out.String())
	if len(ps) != 3 {
		t.Fatalf("pids %v from %q", ps, out.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	<-drained
	if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGINT) {
		t.Errorf("exit code %d, want %d", code, 128+int(syscall.SIGINT))
	}
	stderr := errb.String()
	for _, re := range []string{
		`received interrupt; what each rank is doing:`,
		`mpigo:\s+0\s+Recv\s+WORLD\s+1\s+7\s+8\s`,
		`mpigo:\s+2\s+Finalize\s+WORLD`,
		`rank 0 waits in Recv for a message from rank 1 \(tag 7\) that never came: rank 1 is in Finalize`,
	} {
		if !regexp.MustCompile(re).MatchString(stderr) {
			t.Errorf("stderr does not match %q:\n%s", re, stderr)
		}
	}
	if i, j := strings.Index(stderr, "never came"), strings.Index(stderr, "forwarding it to 3 ranks"); i < 0 || j < i {
		t.Errorf("the explanation should precede the signal's forwarding:\n%s", stderr)
	}
	assertGone(t, ps)
	left, _ := filepath.Glob("/dev/shm/mpigo-" + strconv.FormatInt(int64(cmd.Process.Pid), 36) + "*")
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// Across hosts (every rank under an agent): the ranks' answers come up through the
// agents, and the analysis names the missing members of any communicator by world
// rank. Rank 0 is in an Allreduce on the even half of a Split that rank 2 never
// enters: rank 2 waits (Wait on an Irecv) for a message rank 3 never sends.
func TestHungJobExplainsItselfAcrossHosts(t *testing.T) {
	agent, _ := mpitest.Agent(t)
	r := mpigo(t, "", "run", "--host", "alpha:2,beta:2", "--launch-agent", agent, "--timeout", "3", rankBin(t), "hang-split")
	if r.code != 124 {
		t.Fatalf("exit %d, want 124; stderr:\n%s", r.code, r.stderr)
	}
	for _, re := range []string{
		`mpigo:\s+0\s+Allreduce\s+ctx\d+\(0,2\)\s+-\s+-\s+8\s`,
		`mpigo:\s+1\s+Finalize\s+WORLD`,
		`mpigo:\s+2\s+Wait\s+WORLD\s+3\s+9\s+0\s`,
		`mpigo:\s+3\s+Finalize\s+WORLD`,
		`rank 2 waits in Wait for a message from rank 3 \(tag 9\) that never came: rank 3 is in Finalize`,
		`1 of 2 ranks of ctx\d+\(0,2\) are in Allreduce \(ranks 0\); never entered it: rank 2 is in Wait \(peer 3, tag 9\)`,
		`2 of 4 ranks of WORLD are in Finalize \(ranks 1,3\); they wait for the others: rank 0 is in Allreduce; rank 2 is in Wait \(peer 3, tag 9\)`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stderr) {
			t.Errorf("stderr does not match %q:\n%s", re, r.stderr)
		}
	}
}

// A communicator is named in the table by the name the program gave it after making
// it, and one freed while a call still waits on its request says so.
func TestHungJobOnFreedCommunicator(t *testing.T) {
	r := mpigo(t, "", "run", "-n", "2", "--timeout", "2", rankBin(t), "hang-freed")
	if r.code != 124 {
		t.Fatalf("exit %d, want 124; stderr:\n%s", r.code, r.stderr)
	}
	for _, re := range []string{
		`mpigo:\s+0\s+Wait\s+halo \(freed\)\s+1\s+3\s+0\s`,
		`mpigo:\s+1\s+Finalize\s+WORLD`,
		`rank 0 waits in Wait for a message from rank 1 \(tag 3\) that never came: rank 1 is in Finalize`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stderr) {
			t.Errorf("stderr does not match %q:\n%s", re, r.stderr)
		}
	}
}

// A rank whose receives block (its peer is away before each send) spends its time in
// MPI: --report says so, and no more than its wall time. Below ThreadMultiple the
// short calls are sampled; the time of the receives not sampled is measured from when
// they blocked, and the mean of the sampled ones (which blocked too) is not added for
// them again: that made 50 times the wall time.
// At ThreadMultiple every call is timed, in the tallies of the processors that run
// them: the same holds.
func TestReportOfBlockedCalls(t *testing.T) {
	for _, mode := range []string{"slowsend-single", "slowsend"} {
		r := mpigo(t, "", "run", "-n", "2", "--report", rankBin(t), mode, "200")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, r.code, r.stderr)
		}
		m := regexp.MustCompile(`mpigo: rank 0: ([0-9.]+) s in MPI of ([0-9.]+) s \(([0-9.]+)%\)`).FindStringSubmatch(r.stderr)
		if m == nil {
			t.Fatalf("%s: no report line for rank 0:\n%s", mode, r.stderr)
		}
		if pct, _ := strconv.ParseFloat(m[3], 64); pct < 50 || pct > 101 {
			t.Errorf("%s: rank 0 in MPI %s%% of its time (%s s of %s s); want most of it and at most all of it", mode, m[3], m[1], m[2])
		}
	}
}

// The value calls are one call each in the record, with the bytes of their values,
// at ThreadMultiple too: the sends, receives, waits and collectives they are made of
// are not counted again, so a rank blocked in SendValue is in MPI for its wall time,
// not twice that, and --report never says more.
func TestProfileOfValueCalls(t *testing.T) {
	dir := t.TempDir()
	const rounds = 50
	r := mpigo(t, "", "run", "-n", "2", "--report", "--profile", dir, rankBin(t), "values", strconv.Itoa(rounds))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for rank := range 2 {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("rank-%d.json", rank)))
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Wall, MPI, CallTime float64
			Calls               []struct {
				Call  string
				N     int
				Bytes int
			}
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		got := map[string][2]int{}
		for _, c := range p.Calls {
			got[c.Call] = [2]int{c.N, c.Bytes}
		}
		want := map[string]int{"IsendValue": 1, "IrecvValue": 1, "Wait": 1, "SendrecvValue": 1, "BcastValue": 1,
			"GatherValues": 1, "ScatterValues": 1, "AllgatherValues": 1, "AlltoallValues": 1, "ReduceValue": 1, "AllreduceValue": 1}
		want[[]string{"SendValue", "RecvValue"}[rank]] = rounds
		delete(want, []string{"IrecvValue", "IsendValue"}[rank])
		for call, n := range want {
			g := got[call]
			if g[0] != n || (g[1] == 0) != (call == "Wait" || call == "IrecvValue") {
				t.Errorf("rank %d: %s counted %d times with %d bytes; want %d, with bytes (none for Wait and IrecvValue)", rank, call, g[0], g[1], n)
			}
		}
		if sv := got["SendValue"]; rank == 0 && sv[1] < rounds*256_000 {
			t.Errorf("rank 0: SendValue's bytes %d; want the %d values of 256 KiB", sv[1], rounds)
		}
		for _, inner := range []string{"Send", "Recv", "Isend", "Irecv", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv",
			"Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Test"} {
			if got[inner][0] != 0 {
				t.Errorf("rank %d: %s counted %d times inside value calls", rank, inner, got[inner][0])
			}
		}
		if p.CallTime > p.Wall*1.02 || p.MPI > p.Wall {
			t.Errorf("rank %d: its calls' times add up to %.3f s, MPI %.3f s, of a wall time of %.3f s", rank, p.CallTime, p.MPI, p.Wall)
		}
	}
	m := regexp.MustCompile(`mpigo: rank 0: ([0-9.]+) s in MPI of ([0-9.]+) s \(([0-9.]+)%\)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no report line for rank 0:\n%s", r.stderr)
	}
	if pct, _ := strconv.ParseFloat(m[3], 64); pct < 50 || pct > 100 {
		t.Errorf("rank 0 in MPI %s%% of its time (%s s of %s s); want most of it and at most all of it", m[3], m[1], m[2])
	}
}

// The timeline of a hung job, written when --timeout stops it, ends on each rank with
// the last call it completed: rank 0's Split before the Allreduce it hangs in, rank
// 2's Irecv before its Wait. Each event waits for the next call before it goes into
// the ring; a rank the launcher stops sees its call fail, and the error seam settles
// the event before it writes the profile.
func TestProfileOfHungJob(t *testing.T) {
	dir := t.TempDir()
	r := mpigo(t, "", "run", "-n", "4", "--timeout", "3", "--profile", dir, rankBin(t), "hang-split")
	if r.code != 124 {
		t.Fatalf("exit %d, want 124; stderr:\n%s", r.code, r.stderr)
	}
	last := map[int]traceEvent{}
	for _, e := range readTrace(t, dir) {
		if l, ok := last[e.Pid]; !ok || e.Ts >= l.Ts {
			last[e.Pid] = e
		}
	}
	for rank, want := range map[int]string{0: "Split", 2: "Irecv"} {
		if got := last[rank].Name; got != want {
			t.Errorf("rank %d's timeline ends with %q, want %q (the call before the one it hangs in)", rank, got, want)
		}
	}
}

// --report prints one line per rank of its time in MPI, for any job.
func TestReport(t *testing.T) {
	r := mpigo(t, "", "run", "-n", "3", "--report", rankBin(t), "ring", "50")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	re := regexp.MustCompile(`mpigo: rank (\d): ([0-9.]+) s in MPI of ([0-9.]+) s \(([0-9.]+)%\), (\d+) calls`)
	m := re.FindAllStringSubmatch(r.stderr, -1)
	if len(m) != 3 {
		t.Fatalf("want 3 report lines, got %d:\n%s", len(m), r.stderr)
	}
	for i, x := range m {
		calls, _ := strconv.Atoi(x[5])
		// 50 x (Irecv, Send, Wait), Allreduce, Barrier, Finalize.
		if x[1] != strconv.Itoa(i) || calls != 153 {
			t.Errorf("line %q: want rank %d with 153 calls", x[0], i)
		}
	}
	// Across hosts, the reports come up through the agents.
	agent, _ := mpitest.Agent(t)
	r = mpigo(t, "", "run", "--host", "alpha:1,beta:2", "--launch-agent", agent, "--report", rankBin(t), "ring", "50")
	if r.code != 0 {
		t.Fatalf("across hosts: exit %d: %s", r.code, r.stderr)
	}
	if m := re.FindAllStringSubmatch(r.stderr, -1); len(m) != 3 || m[2][1] != "2" || m[2][5] != "153" {
		t.Errorf("across hosts: want 3 report lines, the last of rank 2 with 153 calls:\n%s", r.stderr)
	}
}

// Columns of readProfileDir's matrix entries.
const (
	mP2PBytes = iota // point-to-point messages
	mP2PMsgs
	mCollBytes // collectives: messages and node shared-memory flows
	mCollMsgs
	mRMABytes // one-sided operations on node memory
	mRMAOps
)

// readProfileDir reads summary.txt and matrix.csv: for each pair (from, to) the
// point-to-point bytes and messages, the collectives' and the one-sided operations'
// (see the m* columns).
func readProfileDir(t *testing.T, dir string) (summary string, matrix map[[2]int][6]int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "matrix.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "from,to,bytes,messages,coll_bytes,coll_messages,rma_bytes,rma_ops" {
		t.Fatalf("matrix.csv header %v", rows[0])
	}
	matrix = map[[2]int][6]int{}
	for _, row := range rows[1:] {
		var v [8]int
		for i := range v {
			v[i], _ = strconv.Atoi(row[i])
		}
		matrix[[2]int{v[0], v[1]}] = [6]int{v[2] - v[4] - v[6], v[3] - v[5] - v[7], v[4], v[5], v[6], v[7]}
	}
	return string(b), matrix
}

// A profiled job: the summary, the matrix of a ring (each rank sends only to the
// next), a trace with one track per rank, and the page.
func TestProfile(t *testing.T) {
	dir := t.TempDir()
	r := mpigo(t, "", "run", "-n", "4", "--profile", dir, rankBin(t), "ring", "20")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sum, m := readProfileDir(t, dir)
	for _, want := range []string{"time per rank:", "slowest ranks", "load imbalance", "time per call", "message sizes", "Allreduce", "Irecv"} {
		if !strings.Contains(sum, want) || !strings.Contains(r.stderr, want) {
			t.Errorf("summary (printed and in summary.txt) lacks %q:\n%s", want, sum)
		}
	}
	if !regexp.MustCompile(`(?m)^\s+Send\s+send\s+80\s`).MatchString(sum) {
		t.Errorf("summary should count 80 Sends over the job:\n%s", sum)
	}
	if !regexp.MustCompile(`(?m)^\s+Send\s+1K-2K\s+80$`).MatchString(sum) {
		t.Errorf("histogram should put the 80 Sends at 1K-2K:\n%s", sum)
	}
	// Point-to-point: the ring alone; collectives: the Allreduce's and the Barrier's
	// messages, every rank sending some.
	collFrom := map[int]int{}
	for pair, v := range m {
		want := 0
		if pair[1] == (pair[0]+1)%4 {
			want = 20
		}
		if v[0] != want*1024 || v[1] != want {
			t.Errorf("matrix %d->%d point-to-point = %d bytes in %d messages, want %d in %d", pair[0], pair[1], v[0], v[1], want*1024, want)
		}
		collFrom[pair[0]] += v[3]
	}
	for from := 0; from < 4; from++ {
		if _, ok := m[[2]int{from, (from + 1) % 4}]; !ok {
			t.Errorf("matrix lacks %d->%d", from, (from+1)%4)
		}
		if collFrom[from] == 0 {
			t.Errorf("matrix: rank %d sent no collective message: %v", from, m)
		}
	}
	trace := readTrace(t, dir)
	perRank := map[int]map[string]int{}
	for _, e := range trace {
		if perRank[e.Pid] == nil {
			perRank[e.Pid] = map[string]int{}
		}
		perRank[e.Pid][e.Name+"/"+e.Cat]++
	}
	for rank := 0; rank < 4; rank++ {
		c := perRank[rank]
		if c["Send/send"] != 20 || c["Wait/wait"] != 20 || c["Allreduce/collective"] != 1 || c["Barrier/collective"] != 1 {
			t.Errorf("rank %d's track: %v; want 20 Sends, 20 Waits, one Allreduce and one Barrier marked as collectives", rank, c)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "profile.html")); err != nil {
		t.Error(err)
	}
}

// A timeline many times longer than the ring (profile_events) keeps every event, in
// order: the halves written by the writer goroutine and the rest by the final flush.
func TestProfileTimelineLongerThanRing(t *testing.T) {
	dir := t.TempDir()
	const rounds = 3000 // 9000 events per rank, the ring holds 1024
	r := mpigo(t, "", "run", "-n", "2", "--profile", dir, "--set", "profile_events=1024", rankBin(t), "ring", strconv.Itoa(rounds))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	trace := readTrace(t, dir)
	sends := map[int]int{}
	last := map[int]float64{}
	for _, e := range trace {
		if e.Name == "Send" {
			sends[e.Pid]++
		}
		if e.Ts < last[e.Pid] {
			t.Errorf("rank %d: an event at %v after one at %v", e.Pid, e.Ts, last[e.Pid])
		}
		last[e.Pid] = e.Ts
	}
	if sends[0] != rounds || sends[1] != rounds {
		t.Errorf("Sends in the trace per rank: %v, want %d each", sends, rounds)
	}
}

// A ping-pong of small messages, whose events' edges are read where they cost the
// message's path nothing (a send's start once its message has left, a receive's end
// at its wait's last polls): every Send and Recv is in its rank's track, in order,
// none overlapping the next, and the last call (Finalize) too.
func TestProfilePingPongTimeline(t *testing.T) {
	dir := t.TempDir()
	const rounds = 2000
	r := mpigo(t, "", "run", "-n", "2", "--profile", dir, rankBin(t), "pingpong-single", strconv.Itoa(rounds))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	trace := readTrace(t, dir)
	count := map[int]map[string]int{0: {}, 1: {}}
	end := map[int]float64{}
	for _, e := range trace {
		count[e.Pid][e.Name]++
		if e.Dur < 0 {
			t.Errorf("rank %d: %s lasts %v us", e.Pid, e.Name, e.Dur)
		}
		// The trace's times are microseconds, rounded: allow a nanosecond.
		if e.Ts < end[e.Pid]-0.001 {
			t.Errorf("rank %d: %s at %v us starts before the previous event's end, %v us", e.Pid, e.Name, e.Ts, end[e.Pid])
		}
		end[e.Pid] = e.Ts + e.Dur
	}
	for rank, c := range count {
		if c["Send"] != rounds || c["Recv"] != rounds || c["Finalize"] != 1 {
			t.Errorf("rank %d's track: %d Sends, %d Recvs, %d Finalize; want %d, %d and 1", rank, c["Send"], c["Recv"], c["Finalize"], rounds, rounds)
		}
		// The sends start deferred (their events are their ends) and never wait:
		// some are timed as samples, and the summary gives the others their mean.
		for _, k := range readCalls(t, dir, rank) {
			if k.Call == "Send" && (k.N != rounds || k.Timed == 0 || k.Timed > rounds/4 || k.Ns <= 0) {
				t.Errorf("rank %d: %d Sends, %d of them timed, %v ns in all; want %d, about 1 in %d timed, time > 0",
					rank, k.N, k.Timed, k.Ns, rounds, 64)
			}
		}
	}
}

// A rank spinning on Test draws one timeline event per run of polls, not one per
// poll, while its counters keep every Test.
func TestProfileTestLoop(t *testing.T) {
	dir := t.TempDir()
	const rounds = 20
	r := mpigo(t, "", "run", "-n", "2", "--profile", dir, rankBin(t), "testloop-single", strconv.Itoa(rounds))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	trace := readTrace(t, dir)
	events := 0
	for _, e := range trace {
		if e.Pid == 0 && e.Name == "Test" {
			events++
		}
	}
	tests := 0
	for _, c := range readCalls(t, dir, 0) {
		if c.Call == "Test" {
			tests = c.N
		}
	}
	// Each round is at least one run (an Irecv lies between rounds) of at least 100
	// polls (rank 1 sends when rank 0 has polled 100 times, which a Send of rank 0
	// tells it: two runs a round); a run may break where the rank was descheduled.
	if events < rounds || tests < 100*rounds || tests < 10*events {
		t.Errorf("rank 0: %d Test events in the timeline for %d Tests in %d rounds; want a run of polls per event and every Test counted", events, tests, rounds)
	}
}

// Calls of every kind report themselves once: creation, topologies, neighbourhood
// and nonblocking collectives, Isendrecv, Sendrecv, windows, values, Free (rank 1's
// counts).
func TestProfileCountsEveryKindOfCall(t *testing.T) {
	dir := t.TempDir()
	r := mpigo(t, "", "run", "-n", "3", "--profile", dir, rankBin(t), "calls")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := map[string]int{}
	kind := map[string]string{}
	for _, c := range readCalls(t, dir, 1) {
		got[c.Call], kind[c.Call] = c.N, c.Kind
	}
	for call, n := range map[string]int{"Dup": 1, "Split": 1, "CartCreate": 1, "NeighborAlltoall": 1, "Ialltoall": 1,
		"Isendrecv": 1, "Sendrecv": 1, "SendrecvReplace": 1, "BcastValue": 1, "AllgatherValues": 1, "Wait": 7, "WinAllocate": 1, "Fence": 2, "Put": 1, "WinFree": 2, "RecvValue": 1, "CommFree": 3,
		"SendInit": 1, "RecvInit": 2, "Start": 3, "Cancel": 1, "RequestFree": 3, "RequestGetStatus": 1,
		"RequestGetStatusAll": 1, "RequestGetStatusAny": 1, "RequestGetStatusSome": 1, "BufferFlush": 1,
		"BufferIflush": 1, "CommFlushBuffer": 1, "CommIflushBuffer": 1, "WinCreateDynamic": 1, "WinAttach": 1,
		"WinDetach": 1, "Finalize": 1} {
		if got[call] != n {
			t.Errorf("%s counted %d times, want %d (all: %v)", call, got[call], n, got)
		}
	}
	for call, k := range map[string]string{"NeighborAlltoall": "neighbor", "Ialltoall": "start", "Put": "rma", "Fence": "collective", "RecvValue": "recv",
		"RequestGetStatus": "wait", "WinAttach": "rma"} {
		if kind[call] != k {
			t.Errorf("%s is of kind %q, want %q", call, kind[call], k)
		}
	}
	// Calls made inside others are not counted again (Split's and Dup's agreements,
	// RecvValue's receive, Sendrecv's send, receive and wait, the value collectives'
	// collectives), at ThreadMultiple too,
	// where the recorder cannot tell nesting from another goroutine's calls.
	for _, inner := range []string{"Allreduce", "Allgather", "Allgatherv", "Bcast", "Recv", "Irecv", "Send"} {
		if got[inner] != 0 {
			t.Errorf("%s counted %d times inside other calls", inner, got[inner])
		}
	}
}

// A job one of whose ranks fails still leaves the profile of the others: the launcher
// has them write it before it stops them.
func TestProfileOfFailingJob(t *testing.T) {
	dir := t.TempDir()
	r := mpigo(t, "", "run", "-n", "3", "--profile", dir, rankBin(t), "ring", "5", "1")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3: %s", r.code, r.stderr)
	}
	sum, m := readProfileDir(t, dir)
	if !strings.Contains(sum, "no profile from ranks 1") {
		t.Errorf("summary should name rank 1 as missing:\n%s", sum)
	}
	for _, rank := range []string{"0", "2"} {
		if !regexp.MustCompile(`(?m)^\s+` + rank + `\s.*(stopped|error)$`).MatchString(sum) {
			t.Errorf("rank %s should be in the summary, written when the job failed:\n%s", rank, sum)
		}
	}
	if got := m[[2]int{0, 1}]; got[0] != 5*1024 || got[1] != 5 {
		t.Errorf("matrix 0->1 = %v, want 5120 bytes in 5 messages", got)
	}
}

// The page opens in a real browser with no console error, and draws the matrix: at 4
// ranks, and at 64 (a tiny program, as the machine may have 2 cores).
func TestProfileHTMLInChromium(t *testing.T) {
	browser := ""
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no chromium (apt-get install -y chromium; .ci/run installs it)")
	}
	for _, n := range []int{4, 64} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			dir := t.TempDir()
			r := mpigo(t, "", "run", "-n", strconv.Itoa(n), "--profile", dir, rankBin(t), "ring", "3")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			page := "file://" + filepath.Join(dir, "profile.html")
			args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
				"--user-data-dir=" + filepath.Join(dir, "chrome"), "--enable-logging=stderr", "--v=0"}
			dom, logs := chromium(t, browser, append(args, "--dump-dom", page)...)
			if !strings.Contains(dom, `data-status="ok"`) {
				t.Errorf("the page did not finish drawing: %s\n%s", statusOf(dom), logs)
			}
			if strings.Contains(logs, "CONSOLE") || strings.Contains(logs, "Uncaught") {
				t.Errorf("console messages:\n%s", logs)
			}
			shot := filepath.Join(dir, "shot.png")
			chromium(t, browser, append(args, "--window-size=1200,1000", "--screenshot="+shot, page)...)
			f, err := os.Open(shot)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			// The matrix's canvas starts at about (17, 80); its cells are pale grey
			// (nothing sent) or red (the ring). Count red pixels in its area.
			red, colors := 0, map[[3]uint32]bool{}
			for y := 60; y < 520 && y < img.Bounds().Dy(); y++ {
				for x := 0; x < 460; x++ {
					r, g, b := rgb(img, x, y)
					colors[[3]uint32{r >> 4, g >> 4, b >> 4}] = true
					if r > 120 && g < 100 && b < 100 {
						red++
					}
				}
			}
			if red < 4*n || len(colors) < 4 {
				t.Errorf("the screenshot shows no matrix: %d red pixels, %d colours", red, len(colors))
			}
		})
	}
}

func rgb(img image.Image, x, y int) (uint32, uint32, uint32) {
	r, g, b, _ := img.At(x, y).RGBA()
	return r >> 8, g >> 8, b >> 8
}

func statusOf(dom string) string {
	i := strings.Index(dom, "data-status=")
	if i < 0 {
		return "no status"
	}
	return dom[i:min(len(dom), i+200)]
}

// chromium runs the browser (bounded) and returns its standard output and the console
// lines of its log.
func chromium(t *testing.T, browser string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(browser, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, errb.String())
	}
	var console []string
	for _, line := range strings.Split(errb.String(), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			console = append(console, line)
		}
	}
	return out.String(), strings.Join(console, "\n")
}

// Help goes to stdout, with the flags spelt as the README spells them.
func TestHelpToStdout(t *testing.T) {
	for _, args := range [][]string{{"run", "--help"}, {"run", "-h"}, {"help", "run"}} {
		r := mpigo(t, "", args...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("mpigo %v: exit %d, stderr %q; want 0 and nothing on stderr", args, r.code, r.stderr)
		}
		for _, f := range []string{"\n  -n INT", "\n  -np INT", "\n  --timeout SECONDS", "\n  --tag-output\n", "\n  --set VALUE", "\n  -x VALUE", "\n  --profile STRING", "\n  --report\n", "\n  --bind-to STRING (default auto)"} {
			if !strings.Contains(r.stdout, f) {
				t.Errorf("mpigo %v: help lacks %q:\n%s", args, f, r.stdout)
			}
		}
	}
	if r := mpigo(t, "", "help"); r.code != 0 || !strings.Contains(r.stdout, "cache") {
		t.Errorf("mpigo help: exit %d, stdout %q", r.code, r.stdout)
	}
}

// Every command refuses what it does not know, naming it.
func TestUnknownFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--bogus", "-n", "1", "true"}, `mpigo run: unknown flag "--bogus"`},
		{[]string{"info", "--bogus"}, `mpigo info: unknown argument "--bogus"`},
		{[]string{"version", "--bogus"}, `mpigo version: unknown argument "--bogus"`},
		{[]string{"cache", "--bogus"}, `mpigo cache: unknown argument "--bogus"`},
		{[]string{"bogus"}, `mpigo: unknown command "bogus"`},
	} {
		r := mpigo(t, "", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("mpigo %v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// mpigo cache shows the programs mpigo run built, and clean empties it. Its cache is
// a directory of the test's own; Go's build cache stays the one in use (a new one
// would rebuild the standard library).
func TestCacheClean(t *testing.T) {
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v", err)
	}
	env := []string{"XDG_CACHE_HOME=" + t.TempDir(), "GOCACHE=" + strings.TrimSpace(string(gocache))}
	if r := mpigoEnv(t, env, "", "run", "-n", "1", "./testdata/rankprog", "hello"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r := mpigoEnv(t, env, "", "cache"); r.code != 0 || !strings.Contains(r.stdout, ": 1 programs") {
		t.Errorf("mpigo cache: exit %d, %q; want 1 program", r.code, r.stdout)
	}
	if r := mpigoEnv(t, env, "", "cache", "clean"); r.code != 0 || !strings.Contains(r.stdout, "removed 1 programs") {
		t.Errorf("mpigo cache clean: exit %d, %q", r.code, r.stdout)
	}
	if r := mpigoEnv(t, env, "", "cache"); !strings.Contains(r.stdout, ": 0 programs") {
		t.Errorf("after clean: %q", r.stdout)
	}
}

// The node shared-memory collectives, which send no messages, are in the matrix's
// collective column as their flows: a Bcast's bytes from the root to every other
// rank, a Reduce's from every other rank to the root, an Allreduce's from every rank
// to every other. Two jobs differ only in how many times they run the collectives,
// so the difference of their matrices is the collectives' own (the region's set-up
// sends the same messages in both). At Init's ThreadMultiple (the flows counted per
// processor) and at ThreadSingle.
func TestProfileNodeCollectiveFlows(t *testing.T) {
	for _, mode := range []string{"flows", "flows-single"} {
		t.Run(mode, func(t *testing.T) { testNodeCollectiveFlows(t, mode) })
	}
}

func testNodeCollectiveFlows(t *testing.T, mode string) {
	const n = 3
	run := func(reps int, set ...string) map[[2]int][6]int {
		dir := t.TempDir()
		args := append([]string{"run", "-n", strconv.Itoa(n), "--profile", dir}, set...)
		r := mpigo(t, "", append(args, rankBin(t), mode, strconv.Itoa(reps))...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		_, m := readProfileDir(t, dir)
		return m
	}
	// Through point-to-point messages (coll_shm=off) the same data moves the same
	// way: on 3 ranks, collectives of at most coll_flat_bytes (1024) take the direct
	// algorithms, in which the root sends to every rank (Bcast), every rank to the
	// root (Reduce), every rank to every other (Allreduce).
	for _, set := range [][]string{nil, {"--set", "coll_shm=off"}} {
		one, three := run(1, set...), run(3, set...)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i == j {
					continue
				}
				want := 64 // Allreduce
				msgs := 1
				if i == 1 {
					want += 1000 // Bcast from 1
					msgs++
				}
				if j == 2 {
					want += 800 // Reduce to 2
					msgs++
				}
				a, b := one[[2]int{i, j}], three[[2]int{i, j}]
				if d := b[mCollBytes] - a[mCollBytes]; d != 2*want {
					t.Errorf("%v %d->%d: two more rounds of collectives added %d collective bytes, want %d (1 round: %v, 3: %v)", set, i, j, d, 2*want, a, b)
				}
				if d := b[mCollMsgs] - a[mCollMsgs]; d != 2*msgs {
					t.Errorf("%v %d->%d: two more rounds added %d collective messages, want %d", set, i, j, d, 2*msgs)
				}
				if d := b[mP2PBytes] - a[mP2PBytes]; d != 0 {
					t.Errorf("%v %d->%d: the collectives added %d point-to-point bytes", set, i, j, d)
				}
			}
		}
	}
}

// Across nodes (two simulated hosts of two ranks), the hierarchical collectives are in
// the matrix as the data moves: within a node as the node's shared-memory flows,
// between nodes as the leaders' messages. A Bcast from rank 1 goes 1 -> 0 (alpha's
// leader) -> 2 (beta's) -> 3; a Reduce to rank 2 comes 1 -> 0 -> 2 and 3 -> 2; an
// Allreduce reduces to the leaders (1 -> 0, 3 -> 2), which exchange (0 <-> 2) and
// broadcast (0 -> 1, 2 -> 3). Each transfer is counted once.
func TestProfileHierarchicalFlows(t *testing.T) {
	agent, _ := mpitest.Agent(t)
	run := func(reps int) map[[2]int][6]int {
		dir := t.TempDir()
		r := mpigo(t, "", "run", "--host", "alpha:2,beta:2", "--launch-agent", agent, "--profile", dir, rankBin(t), "flows", strconv.Itoa(reps))
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		_, m := readProfileDir(t, dir)
		return m
	}
	one, three := run(1), run(3)
	want := map[[2]int][2]int{ // bytes, messages of one round
		{1, 0}: {1000 + 800 + 64, 3}, {0, 2}: {1000 + 800 + 64, 3}, {2, 3}: {1000 + 64, 2},
		{3, 2}: {800 + 64, 2}, {0, 1}: {64, 1}, {2, 0}: {64, 1},
	}
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			if i == j {
				continue
			}
			w := want[[2]int{i, j}]
			a, b := one[[2]int{i, j}], three[[2]int{i, j}]
			if d := b[mCollBytes] - a[mCollBytes]; d != 2*w[0] {
				t.Errorf("%d->%d: two more rounds added %d collective bytes, want %d (1 round: %v, 3: %v)", i, j, d, 2*w[0], a, b)
			}
			if d := b[mCollMsgs] - a[mCollMsgs]; d != 2*w[1] {
				t.Errorf("%d->%d: two more rounds added %d collective messages, want %d", i, j, d, 2*w[1])
			}
		}
	}
}

// One-sided operations on node memory (an allocated window on one node: the device's
// short way) are in the matrix's one-sided column, origin to target for Put and
// Accumulate, target to origin for Get, both ways for FetchAndOp and GetAccumulate:
// at ThreadMultiple (the processors' links) as below it.
func TestProfileOneSidedFlows(t *testing.T) {
	for _, mode := range []string{"rmaflows", "rmaflows-single"} {
		t.Run(mode, func(t *testing.T) { testOneSidedFlows(t, mode) })
	}
}

func testOneSidedFlows(t *testing.T, mode string) {
	const n = 3
	dir := t.TempDir()
	r := mpigo(t, "", "run", "-n", strconv.Itoa(n), "--profile", dir, rankBin(t), mode)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	_, m := readProfileDir(t, dir)
	for i := 0; i < n; i++ {
		// i -> i+1: Put 16, Accumulate 8, FetchAndOp's and GetAccumulate's operands
		// 8 each, and 24 that rank i+1 gets from rank i+3, which is i.
		next, prev := m[[2]int{i, (i + 1) % n}], m[[2]int{i, (i + n - 1) % n}]
		if next[mRMABytes] != 16+8+8+8+24 || next[mRMAOps] != 5 {
			t.Errorf("%d->%d: one-sided %d bytes in %d operations, want 64 in 5 (%v)", i, (i+1)%n, next[mRMABytes], next[mRMAOps], next)
		}
		// i -> i-1: the old values of i-1's FetchAndOp and GetAccumulate.
		if prev[mRMABytes] != 16 || prev[mRMAOps] != 2 {
			t.Errorf("%d->%d: one-sided %d bytes in %d operations, want 16 in 2 (%v)", i, (i+n-1)%n, prev[mRMABytes], prev[mRMAOps], prev)
		}
	}
}

// traceEvent is an event of a profile's trace.json (the Chrome trace format).
type traceEvent struct {
	Name, Cat, Ph string
	Pid           int
	Ts, Dur       float64
}

// readTrace reads the complete ("X") events of the profile in dir, the calls.
func readTrace(t *testing.T, dir string) []traceEvent {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr struct{ TraceEvents []traceEvent }
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("trace.json: %v", err)
	}
	calls := tr.TraceEvents[:0]
	for _, e := range tr.TraceEvents {
		if e.Ph == "X" {
			calls = append(calls, e)
		}
	}
	return calls
}

// callTotals is a call's line of a rank's profile (rank-N.json).
type callTotals struct {
	Call, Kind string
	N, Timed   int
	Ns         float64
}

// readCalls reads rank's per-call totals from the profile in dir.
func readCalls(t *testing.T, dir string, rank int) []callTotals {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("rank-%d.json", rank)))
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ Calls []callTotals }
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p.Calls
}
