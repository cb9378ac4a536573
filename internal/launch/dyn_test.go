package launch_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/launch"
	"github.com/mpigo/mpigo/internal/mpitest"
)

func TestMain(m *testing.M) { mpitest.Main(m) }

// dynrank is testdata/dynrank built: a rank that speaks to the launcher through
// wireup's client directly (spawn, names, the job's facts), without MPI.
func dynrank(t testing.TB) string { return mpitest.Build(t, "./testdata/dynrank") }

type result struct {
	code           int
	stdout, stderr string
}

type buffer struct{ b bytes.Buffer }

// Write is called under the launcher's line lock.
func (w *buffer) Write(p []byte) (int, error) { return w.b.Write(p) }

// run runs spec through the launcher, bounded by a timeout of its own.
func run(t *testing.T, spec launch.Spec) result {
	t.Helper()
	var out, errb buffer
	spec.Stdout, spec.Stderr = &out, &errb
	if spec.Timeout == 0 {
		spec.Timeout = time.Minute
	}
	code := launch.Run(spec)
	return result{code, out.b.String(), errb.b.String()}
}

var sayLine = regexp.MustCompile(`job (\S+) rank (\d+) size (\d+) appnum (-?\d+) (\w+) universe (-?\d+) (\w+) parent "([^"]*)" host (\S+) wd (\S+) args (.*)`)

type said struct {
	job                          string
	rank, size, appnum, universe int
	parent, host, wd, args       string
}

// children returns what each process said of its job, by job id.
func children(out string) map[string][]said {
	m := map[string][]said{}
	for _, g := range sayLine.FindAllStringSubmatch(out, -1) {
		a := func(i int) int { n, _ := strconv.Atoi(g[i]); return n }
		m[g[1]] = append(m[g[1]], said{g[1], a(2), a(3), a(4), a(6), g[8], g[9], g[10], g[11]})
	}
	return m
}

// TestSpawnChildrenSeeTheirJob: a rank spawns two commands (two processes of one, one
// of the other, in another directory, on "localhost": here, without an agent) as one
// new job; the children see a world of
// three in command order, their command's index as appnum, the parents' port and
// the universe size, and the run ends when they have.
func TestSpawnChildrenSeeTheirJob(t *testing.T) {
	prog := dynrank(t)
	wdir := t.TempDir()
	r := run(t, launch.Spec{N: 2, Program: prog, UniverseSize: 9,
		Args: []string{"spawn", "tcp://parent:1/t", "2|" + prog, "1|" + prog + "|wdir=" + wdir + "|arch=x86_64|mpigo_unknown=1|host=localhost", "--", "child", "a b"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for i := 0; i < 3; i++ {
		if !strings.Contains(r.stdout, fmt.Sprintf("proc %d: <nil>\n", i)) {
			t.Errorf("process %d of the spawn was not started:\n%s", i, r.stdout)
		}
	}
	jobs := children(r.stdout)
	if len(jobs) != 2 {
		t.Fatalf("%d jobs spoke, want the parents' and the children's:\n%s", len(jobs), r.stdout)
	}
	for _, procs := range jobs {
		if procs[0].parent == "" {
			if len(procs) != 1 || procs[0].appnum != 0 || procs[0].universe != 9 || procs[0].size != 2 {
				t.Errorf("the spawning rank saw %+v", procs)
			}
			continue
		}
		if len(procs) != 3 {
			t.Fatalf("the spawned job has %d processes, want 3:\n%s", len(procs), r.stdout)
		}
		cwd, _ := os.Getwd()
		for _, p := range procs {
			wantApp, wantWd := 0, cwd
			if p.rank == 2 {
				wantApp, wantWd = 1, wdir
			}
			if p.size != 3 || p.appnum != wantApp || p.parent != "tcp://parent:1/t" || p.universe != 9 ||
				p.wd != wantWd || p.args != `["child" "a b"]` {
				t.Errorf("spawned rank %d saw %+v; want size 3, appnum %d, the parents' port, universe 9, wd %s", p.rank, p, wantApp, wantWd)
			}
		}
	}
}

// TestSpawnThroughAgents: a rank of a job on several hosts asks through its agent;
// the children go to the job's hosts, or where the host key says, through agents of
// their own, and the answer comes back down to the rank.
func TestSpawnThroughAgents(t *testing.T) {
	prog := dynrank(t)
	agent, _ := mpitest.Agent(t)
	r := run(t, launch.Spec{N: 2, Program: prog, Hosts: []launch.Host{{Name: "alpha", Slots: 1}, {Name: "beta", Slots: 1}},
		Agent: []string{agent}, AgentPath: mpitest.Mpigo(t),
		Args: []string{"spawn", "p", "2|" + prog, "1|" + prog + "|host=gamma", "--", "child"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var spawned []said
	for _, procs := range children(r.stdout) {
		if procs[0].parent != "" {
			spawned = procs
		}
	}
	hosts := map[int]string{}
	for _, p := range spawned {
		hosts[p.rank] = p.host
		wantApp := 0
		if p.rank == 2 {
			wantApp = 1
		}
		if p.size != 3 || p.appnum != wantApp {
			t.Errorf("spawned rank %d saw %+v", p.rank, p)
		}
	}
	if len(spawned) != 3 || hosts[0] != "alpha" || hosts[1] != "beta" || hosts[2] != "gamma" {
		t.Errorf("spawned ranks on %v, want 0 on alpha, 1 on beta, 2 on gamma:\n%s", hosts, r.stdout)
	}
	for i := 0; i < 3; i++ {
		if !strings.Contains(r.stdout, fmt.Sprintf("proc %d: <nil>", i)) {
			t.Errorf("process %d: no answer:\n%s", i, r.stdout)
		}
	}
}

// TestSpawnThroughAgentsFails: a program missing on a host of the spawn: every process
// of the spawn gets the error naming the host and the program (through agents the
// processes of a spawn start together or not at all: those started on other hosts are
// killed), and the run goes on.
func TestSpawnThroughAgentsFails(t *testing.T) {
	prog := dynrank(t)
	agent, _ := mpitest.Agent(t)
	r := run(t, launch.Spec{N: 1, Program: prog, Hosts: []launch.Host{{Name: "alpha", Slots: 1}},
		Agent: []string{agent}, AgentPath: mpitest.Mpigo(t),
		Args: []string{"spawn", "p", "1|" + prog, "2|/no/such/program|host=gamma", "--", "child"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for i := 0; i < 3; i++ {
		want := fmt.Sprintf("proc %d: spawn: host gamma: cannot start rank ", i)
		if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "(/no/such/program): ") {
			t.Errorf("no %q naming the program in:\n%s", want, r.stdout)
		}
	}
}

// TestSpawnMissingProgram: a command whose program does not exist gives each of its
// processes an error naming it; the other command starts, and the run goes on.
func TestSpawnMissingProgram(t *testing.T) {
	prog := dynrank(t)
	r := run(t, launch.Spec{N: 1, Program: prog,
		Args: []string{"spawn", "p", "2|no-such-program-mpigo|path=/nonexistent", "1|" + prog, "3|" + prog + "|wdir=/nonexistent/dir", "--", "child"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for i, want := range []string{
		`proc 0: spawn: command 0 (no-such-program-mpigo): program "no-such-program-mpigo" not found in the path info key's directories (/nonexistent) nor in PATH`,
		`proc 1: spawn: command 0 (no-such-program-mpigo): program "no-such-program-mpigo" not found`,
		"proc 2: <nil>",
		`proc 3: spawn: command 2 (` + prog + `): wdir "/nonexistent/dir": `,
		`proc 5: spawn: command 2`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("line %d: no %q in\n%s", i, want, r.stdout)
		}
	}
	var spawned []said
	for _, procs := range children(r.stdout) {
		if procs[0].parent != "" {
			spawned = procs
		}
	}
	if len(spawned) != 1 || spawned[0].size != 1 || spawned[0].appnum != 1 {
		t.Errorf("the spawned job: %+v; want one process of command 1 (appnum 1) in a world of 1", spawned)
	}
}

// TestSpawnSoft: soft's counts are met within the universe's free slots; the
// processes beyond the count get errors that say so.
func TestSpawnSoft(t *testing.T) {
	prog := dynrank(t)
	// A universe of 4 with 1 running: 3 free, of which soft "1:2,4" allows 2.
	r := run(t, launch.Spec{N: 1, Program: prog, UniverseSize: 4,
		Args: []string{"spawn", "p", "4|" + prog + "|soft=1:2,4", "--", "child"}})
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for i, want := range []string{"proc 0: <nil>", "proc 1: <nil>", `proc 2: spawn: command 0 (` + prog + `): soft "1:2,4" allowed 2 of its 4 processes`, "proc 3: spawn"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("%d: no %q in\n%s", i, want, r.stdout)
		}
	}
}

// TestSpawnedFailureEndsTheRun: a spawned process that exits 3 ends the run with code
// 3 and one line naming it, its job and whose spawn it was; nothing is left running.
func TestSpawnedFailureEndsTheRun(t *testing.T) {
	prog := dynrank(t)
	r := run(t, launch.Spec{N: 2, Program: prog,
		Args: []string{"spawn-block", "p", "2|" + prog, "--", "child", "3", "1"}})
	if r.code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", r.code, r.stdout, r.stderr)
	}
	line := regexp.MustCompile(`(?m)^mpigo: rank 1 of spawned job 1 \(` + regexp.QuoteMeta(prog) + `, spawned by rank 0 of the first job; pid \d+, host \S+\) exited with code 3; stopping the job$`)
	if !line.MatchString(r.stderr) {
		t.Errorf("no line naming the spawned rank in:\n%s", r.stderr)
	}
	if n := strings.Count(r.stderr, "mpigo: "); n != 1 {
		t.Errorf("%d lines from the launcher, want 1:\n%s", n, r.stderr)
	}
}

// TestTimeoutReachesSpawnedJobs: --timeout stops the spawned job too, and the launcher
// returns only when its processes are gone.
func TestTimeoutReachesSpawnedJobs(t *testing.T) {
	prog := dynrank(t)
	r := run(t, launch.Spec{N: 1, Program: prog, Timeout: 3 * time.Second,
		Args: []string{"spawn-block", "p", "2|" + prog, "--", "spawn-block", "p2"}})
	if r.code != launch.ExitTimeout {
		t.Fatalf("exit %d, want %d\n%s%s", r.code, launch.ExitTimeout, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stdout, "spawned\n"); n != 3 {
		t.Errorf("%d processes were blocked when the time ran out, want the parent and 2 children:\n%s", n, r.stdout)
	}
	if !strings.Contains(r.stdout, "spawn failed: spawn: no command given\n") {
		t.Errorf("a spawn of no command was not refused as a whole:\n%s", r.stdout)
	}
	assertNoneLeft(t)
}

// assertNoneLeft checks that no process of this test binary's dynrank runs.
func assertNoneLeft(t *testing.T) {
	t.Helper()
	out, _ := exec.Command("pgrep", "-f", dynrank(t)).Output()
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("processes of the run still running: %s", s)
	}
}

// TestNamesAcrossLaunchers: a name published by one mpigo run is found by another,
// which can neither publish it again nor unpublish it; withdrawn, it is gone, and the
// launcher removes what its job left published.
func TestNamesAcrossLaunchers(t *testing.T) {
	prog, mpigo := dynrank(t), mpitest.Mpigo(t)
	dir := t.TempDir()
	env := append(os.Environ(), launch.EnvNamesDir+"="+dir)
	a := exec.Command(mpigo, "run", "-n", "1", "--timeout", "60", prog, "names")
	a.Env = env
	in, _ := a.StdinPipe()
	outA, _ := a.StdoutPipe()
	a.Stderr = os.Stderr
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer a.Process.Kill()
	linesA := bufio(outA)
	fmt.Fprintln(in, "publish ocean tcp://a:1/x")
	if got := <-linesA; got != "publish ocean tcp://a:1/x: <nil>" {
		t.Fatalf("job A: %s", got)
	}
	fmt.Fprintln(in, "publish left tcp://a:1/y")
	<-linesA

	b := exec.Command(mpigo, "run", "-n", "1", "--timeout", "60", prog, "names")
	b.Env = env
	b.Stdin = strings.NewReader("lookup ocean\npublish ocean tcp://b:2/z\nunpublish ocean tcp://a:1/x\nlookup nobody\n")
	out, err := b.CombinedOutput()
	if err != nil {
		t.Fatalf("job B: %v\n%s", err, out)
	}
	for _, want := range []string{
		`lookup ocean: "tcp://a:1/x" <nil>`,
		`publish ocean tcp://b:2/z: publish "ocean": the name is already published (by the job of launcher pid `,
		`unpublish ocean tcp://a:1/x: unpublish "ocean": the name was published by another job; only it may unpublish it`,
		`lookup nobody: "" lookup "nobody": no job has published that name`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("job B: no %q in\n%s", want, out)
		}
	}
	for _, step := range []struct{ line, want string }{
		{"unpublish ocean tcp://a:1/other", `unpublish ocean tcp://a:1/other: unpublish "ocean": the name is published with port "tcp://a:1/x", not "tcp://a:1/other"`},
		{"unpublish ocean tcp://a:1/x", "unpublish ocean tcp://a:1/x: <nil>"},
		{"lookup ocean", `lookup ocean: "" lookup "ocean": no job has published that name`},
		{"unpublish ocean tcp://a:1/x", `unpublish ocean tcp://a:1/x: unpublish "ocean": the name is not published`},
	} {
		fmt.Fprintln(in, step.line)
		if got := <-linesA; got != step.want {
			t.Errorf("job A: %s\nwant %s", got, step.want)
		}
	}
	in.Close()
	if err := a.Wait(); err != nil {
		t.Errorf("job A: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		left, _ := filepath.Glob(filepath.Join(dir, "*"))
		t.Errorf("the names directory is left after both runs, with %v", left)
	}
}

// bufio returns r's lines, one at a time.
func bufio(r interface{ Read([]byte) (int, error) }) <-chan string {
	ch := make(chan string, 16)
	go func() {
		defer close(ch)
		var buf []byte
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			buf = append(buf, b[:n]...)
			for {
				i := bytes.IndexByte(buf, '\n')
				if i < 0 {
					break
				}
				ch <- string(buf[:i])
				buf = buf[i+1:]
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// TestUniverseSize: without hosts the universe is this machine's CPUs, never fewer
// than the ranks; with hosts, their slots.
func TestUniverseSize(t *testing.T) {
	prog := dynrank(t)
	n := runtime.NumCPU() + 1
	r := run(t, launch.Spec{N: n, Program: prog, Args: []string{"child"}})
	for _, procs := range children(r.stdout) {
		for _, p := range procs {
			if p.universe != n {
				t.Errorf("rank %d: universe %d, want %d (the ranks, more than the %d CPUs)", p.rank, p.universe, n, runtime.NumCPU())
			}
		}
	}
	agent, _ := mpitest.Agent(t)
	r = run(t, launch.Spec{N: 2, Program: prog, Args: []string{"child"}, Agent: []string{agent}, AgentPath: mpitest.Mpigo(t),
		Hosts: []launch.Host{{Name: "alpha", Slots: 3}, {Name: "beta", Slots: 2}}})
	seen := 0
	for _, procs := range children(r.stdout) {
		for _, p := range procs {
			seen++
			if p.universe != 5 {
				t.Errorf("rank %d on hosts of 5 slots: universe %d", p.rank, p.universe)
			}
		}
	}
	if r.code != 0 || seen != 2 {
		t.Errorf("exit %d, %d ranks spoke\n%s%s", r.code, seen, r.stdout, r.stderr)
	}
}

// BenchmarkSpawn4 measures a spawn of 4 processes in the launcher: from the parent's
// request to the last child's Hello (ns/spawn4) and to the answer (ns/answer), one
// spawn per run of the launcher.
func BenchmarkSpawn4(b *testing.B) {
	prog := dynrank(b)
	stamp := regexp.MustCompile(`(start|answer|hello) 0 (\d+)`)
	var total, answered time.Duration
	for i := 0; i < b.N; i++ {
		var out, errb buffer
		code := launch.Run(launch.Spec{N: 1, Program: prog, Args: []string{"stamps", "1"},
			Timeout: time.Minute, Stdout: &out, Stderr: &errb})
		if code != 0 {
			b.Fatalf("exit %d\n%s%s", code, out.b.String(), errb.b.String())
		}
		var start, answer, last int64
		hellos := 0
		for _, m := range stamp.FindAllStringSubmatch(out.b.String(), -1) {
			ns, _ := strconv.ParseInt(m[2], 10, 64)
			switch m[1] {
			case "start":
				start = ns
			case "answer":
				answer = ns
			default:
				last = max(last, ns)
				hellos++
			}
		}
		if hellos != 4 || start == 0 {
			b.Fatalf("%d hellos:\n%s", hellos, out.b.String())
		}
		total += time.Duration(last - start)
		answered += time.Duration(answer - start)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/spawn4")
	b.ReportMetric(float64(answered.Nanoseconds())/float64(b.N), "ns/answer")
}

// TestSignalReachesSpawnedJobs: Ctrl-C to mpigo run stops the spawned job too; the
// launcher ends with 128+SIGINT once every process of both jobs is gone.
func TestSignalReachesSpawnedJobs(t *testing.T) {
	prog := dynrank(t)
	cmd := exec.Command(mpitest.Mpigo(t), "run", "-n", "1", "--timeout", "60", prog, "spawn-block", "p", "2|"+prog, "--", "spawn-block", "p2")
	out, _ := cmd.StdoutPipe()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio(out)
	for blocked := 0; blocked < 3; {
		l, ok := <-lines
		if !ok {
			t.Fatalf("the run ended before its 3 processes blocked:\n%s", errb.String())
		}
		if l == "spawned" {
			blocked++
		}
	}
	cmd.Process.Signal(os.Interrupt)
	for range lines {
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "received interrupt; forwarding it to 3 ranks") {
		t.Errorf("the launcher did not forward the signal to the 3 ranks of both jobs:\n%s", errb.String())
	}
	assertNoneLeft(t)
}
