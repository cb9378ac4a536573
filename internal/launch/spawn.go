package launch

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mpigo/mpigo/internal/pm"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/wireup"
)

// Spawning (MPI_Comm_spawn, MPI_Comm_spawn_multiple) runs in the launcher itself: the
// request of a rank reaches the supervising loop, which starts the commands as one
// more Job of the run, with its own job id, layout, collector and fences, exactly as
// it starts the first; no second launcher process is involved. The spawn's answer
// goes back once every process has been started (or refused), not when they reach
// Init: the parents wait for their children on the port, the children connect to it.
//
// Each command is judged on its own: a command whose program cannot be found, whose
// wdir or file is wrong or whose soft counts cannot be met gives each of its
// processes that error, and the other commands still start (MPI's array_of_errcodes
// has one code per process for this). The new job's world holds the processes
// started, in command order; MPI_APPNUM of each is the index of its command among all
// the commands asked for. A start that fails after the first process has started
// (the system refuses a process, or an agent cannot start one on its host) stops the
// processes of that spawn started so far and gives every one of its processes the
// error. Through agents the answer waits until every host has said its processes
// started (msgStarted).
//
// The info keys (MPI 4.1 section 11.3.4): host (comma-separated hosts, with slots
// as --host takes them, reached through agents as --host's are, except that a job on
// this machine alone starts here what names only this machine; without it, the
// spawning job's hosts, else this machine), wdir (working directory, and the
// directory a relative program name is found from), path (directories, separated by
// ':', searched for a program without a '/' before PATH), file (a file of more info,
// KEY=VALUE a line, '#' comments; keys given in the info itself win), soft (the
// counts allowed, as triplets a:b:c, the largest that fits in the universe's free
// slots is started), arch (accepted, ignored). Other keys are ignored, as MPI says.

// serve answers a rank's request to the launcher.
func (j *Job) serve(ev event) {
	rq := ev.req
	jb := j.all[ev.job]
	var a wireup.Answer
	var err error
	switch r := rq.req; r.Op {
	case wireup.OpSpawn:
		var later bool
		if a, later = j.spawn(jb, ev.rank, rq); later {
			return
		}
	case wireup.OpPublish:
		err = j.names.publish(r.Service, r.Port, jb.id)
	case wireup.OpLookup:
		a.Port, err = j.names.lookup(r.Service)
	case wireup.OpUnpublish:
		err = j.names.unpublish(r.Service, r.Port, jb.id)
	default:
		err = fmt.Errorf("the launcher does not know the request %q", r.Op)
	}
	if err != nil {
		a.Err = err.Error()
	}
	rq.reply(wireup.EncodeAnswer(rq.id, &a))
}

// spawn starts rq's commands as a new job of the run for rank of job parent. later
// says the caller must not answer: the answer went already (a start that failed), or
// goes when the agents have said the processes started (hostStarted).
func (j *Job) spawn(parent *Job, rank int, rq *rankRequest) (a wireup.Answer, later bool) {
	req := rq.req
	if req.Port == "" {
		return wireup.Answer{Err: "spawn: no port given for the new processes to connect to"}, false
	}
	if len(req.Cmds) == 0 {
		return wireup.Answer{Err: "spawn: no command given"}, false
	}
	for i, c := range req.Cmds {
		if c.MaxProcs < 0 {
			return wireup.Answer{Err: fmt.Sprintf("spawn: command %d (%s): maxprocs %d is negative", i, c.Program, c.MaxProcs)}, false
		}
	}
	free := j.universe - j.running()
	apps := make([]App, len(req.Cmds))
	var errs []string
	for i, c := range req.Cmds {
		app, err := j.plan(parent, c, &free)
		apps[i] = app
		for k := 0; k < c.MaxProcs; k++ {
			switch {
			case err != nil:
				errs = append(errs, fmt.Sprintf("spawn: command %d (%s): %v", i, c.Program, err))
			case k >= app.N:
				errs = append(errs, fmt.Sprintf("spawn: command %d (%s): soft %q allowed %d of its %d processes",
					i, c.Program, app.soft, app.N, c.MaxProcs))
			default:
				errs = append(errs, "")
			}
		}
	}
	nj := j.newSpawned(parent, rank, req.Port, apps)
	if nj.spec.N == 0 {
		return wireup.Answer{ProcErrs: errs}, false
	}
	j.all = append(j.all, nj)
	nj.pending, nj.pendErrs = rq, errs
	if err := nj.start(); err != nil {
		nj.abortStart(err.Error()) // answers
		return a, true
	}
	if len(nj.agents) > 0 {
		nj.started = map[int]bool{}
		return a, true
	}
	nj.pending = nil
	return wireup.Answer{ProcErrs: errs}, false
}

// hostStarted takes an agent's word on its ranks of this spawned job: once every host
// has started its ranks, the spawn is answered; one that could not stops the job, and
// every process of it gets the error (the others would wait for it in Init).
func (nj *Job) hostStarted(news *startNews) {
	if nj.pending == nil {
		return
	}
	if news.err != "" {
		nj.abortStart(news.err)
		return
	}
	nj.started[news.node] = true
	if len(nj.started) == nj.lay.NumNodes() {
		nj.answerSpawn()
	}
}

// subtreeStarted says whether every node under agent c has said its ranks started.
func (nj *Job) subtreeStarted(c *child) bool {
	for _, r := range c.spanRanks {
		if !nj.started[int(nj.lay.NodeOf[r])] {
			return false
		}
	}
	return true
}

// abortStart stops a spawned job whose start failed and answers its spawn (when not
// yet answered) with why for every process it was to start.
func (nj *Job) abortStart(why string) {
	nj.aborted = true
	nj.signalAll(syscall.SIGKILL)
	if nj.pending == nil {
		return
	}
	for i, e := range nj.pendErrs {
		if e == "" {
			nj.pendErrs[i] = "spawn: " + why
		}
	}
	nj.answerSpawn()
}

func (nj *Job) answerSpawn() {
	nj.pending.reply(wireup.EncodeAnswer(nj.pending.id, &wireup.Answer{ProcErrs: nj.pendErrs}))
	nj.pending = nil
}

// newSpawned makes the job of a spawn from rank of job parent: the first job's
// environment, settings and launch agent; the spawning job's hosts.
func (j *Job) newSpawned(parent *Job, rank int, port string, apps []App) *Job {
	first := j.spec
	spec := Spec{Apps: apps, Env: first.Env, Settings: maps.Clone(first.Settings), TagOutput: first.TagOutput,
		KillGrace: first.KillGrace, Hosts: parent.spec.Hosts, Mapping: parent.spec.Mapping,
		Agent: first.Agent, Fanout: first.Fanout, AgentPath: first.AgentPath, Stdout: first.Stdout, Stderr: first.Stderr}
	// A spawn may exceed the slots the first job filled.
	spec.Mapping.Oversubscribe = true
	if first.Profile != "" {
		// The profile's files are named by rank: a spawned job's would overwrite the
		// first job's.
		spec.Settings[prof.SettingProfile] = ""
	}
	spec.normalize()
	if len(spec.Hosts) == 0 {
		// Commands with a host key of their own run through agents; the others then
		// run on this machine, as the job's hosts.
		for _, a := range apps {
			if a.Hosts != nil {
				host, _ := os.Hostname()
				spec.Hosts = []Host{{Name: host, Slots: 1}}
				break
			}
		}
	}
	universe := j.universe
	if first.UniverseSize == 0 {
		universe = max(universe, j.running()+spec.N)
	}
	nj := &Job{node: node{spec: &spec, events: j.events, no: len(j.all), universe: universe, parentPort: port,
		stdout: j.stdout, stderr: j.stderr},
		spawner: fmt.Sprintf("rank %d of %s", rank, jobName(parent.no))}
	nj.finished = make([]bool, spec.N)
	return nj
}

// start starts a spawned job's processes: on this machine, or through agents (whose
// ranks are then still starting).
func (nj *Job) start() error {
	nj.id = newJobID()
	if len(nj.spec.Hosts) > 0 {
		_, err := nj.startAgents()
		return err
	}
	nj.layLocal()
	for r := 0; r < nj.spec.N; r++ {
		if err := nj.startRank(r, r, nj.stdout, nj.stderr, nj.tag(r)); err != nil {
			return fmt.Errorf("cannot start process %d of %d (%s): %v%s", r, nj.spec.N,
				nj.spec.Apps[nj.spec.appOf(r)].Program, err, startHint(err))
		}
	}
	return nil
}

// plan turns one command of a spawn into an application: its info (with the file
// key's), its program found, its count (soft), where it runs. free is the universe's
// free slots, less what the commands before took.
func (j *Job) plan(parent *Job, c pm.SpawnCmd, free *int) (App, error) {
	info := maps.Clone(c.Info)
	if info == nil {
		info = map[string]string{}
	}
	if f := info["file"]; f != "" {
		if err := readInfoFile(f, info); err != nil {
			return App{}, err
		}
	}
	app := App{Args: c.Args, N: c.MaxProcs, Dir: info["wdir"]}
	var err error
	if app.Hosts, err = spawnHosts(info["host"], parent); err != nil {
		return App{}, err
	}
	if app.Hosts == nil && len(parent.spec.Hosts) == 0 {
		// On this machine: the directory and the program must be here.
		if app.Dir, err = localDir(app.Dir); err != nil {
			return App{}, err
		}
		if app.Program, err = resolveSpawned(c.Program, app.Dir, info["path"]); err != nil {
			return App{}, err
		}
	} else {
		// On other hosts their agents find the program (and say when they cannot:
		// hostStarted), in the first directory of path if it gives any, else in PATH.
		app.Program = c.Program
		if dir, _, _ := strings.Cut(info["path"], ":"); dir != "" && !strings.Contains(c.Program, "/") {
			app.Program = filepath.Join(dir, c.Program)
		}
	}
	if s := info["soft"]; s != "" {
		if app.N, err = softCount(s, c.MaxProcs, *free); err != nil {
			return App{}, err
		}
		app.soft = s
	}
	*free -= app.N
	return app, nil
}

// spawnHosts reads the host key: nil when it is not given, or names only this
// machine in a job on this machine alone (which then spawns here, without an agent
// to reach itself with).
func spawnHosts(list string, parent *Job) ([]Host, error) {
	if list == "" {
		return nil, nil
	}
	hosts, err := ParseHosts(list)
	if err != nil {
		return nil, fmt.Errorf("host info key: %v", strings.TrimPrefix(err.Error(), "--host "))
	}
	if len(parent.spec.Hosts) == 0 && allThisMachine(hosts) {
		return nil, nil
	}
	return hosts, nil
}

// localDir checks the wdir key for a process of this machine and makes it absolute.
func localDir(d string) (string, error) {
	if d == "" {
		return "", nil
	}
	abs, err := filepath.Abs(d)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(abs); err == nil && !st.IsDir() {
			err = fmt.Errorf("not a directory")
		}
	}
	if err != nil {
		return "", fmt.Errorf("wdir %q: %v", d, err)
	}
	return abs, nil
}

// allThisMachine says whether every host is a name of this machine.
func allThisMachine(hosts []Host) bool {
	self, _ := os.Hostname()
	short, _, _ := strings.Cut(self, ".")
	for _, h := range hosts {
		switch h.Name {
		case "localhost", "127.0.0.1", "::1", self, short:
		default:
			return false
		}
	}
	return true
}

// readInfoFile adds to info the KEY=VALUE lines of the file named by the file key,
// where info does not give the key itself.
func readInfoFile(name string, info map[string]string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("file info key: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		k, v, ok := strings.Cut(text, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return fmt.Errorf("file info key: %s:%d: %q is not KEY=VALUE", name, line, text)
		}
		if _, given := info[k]; !given && k != "file" {
			info[k] = strings.TrimSpace(v)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("file info key: %s: %v", name, err)
	}
	return nil
}

// resolveSpawned finds a spawned program on this machine: a name with a '/' from
// dir (the wdir key; else the launcher's directory), a bare name in path's
// directories, then in PATH. It must be an executable file.
func resolveSpawned(prog, dir, path string) (string, error) {
	if prog == "" {
		return "", fmt.Errorf("no program given")
	}
	check := func(p string) error {
		st, err := os.Stat(p)
		switch {
		case err != nil:
			return err
		case st.IsDir():
			return fmt.Errorf("%s is a directory", p)
		case st.Mode()&0o111 == 0:
			return fmt.Errorf("%s is not executable", p)
		}
		return nil
	}
	if strings.Contains(prog, "/") {
		p := prog
		if !filepath.IsAbs(p) && dir != "" {
			p = filepath.Join(dir, p)
		}
		p, _ = filepath.Abs(p)
		if err := check(p); err != nil {
			return "", fmt.Errorf("program %q: %v", prog, err)
		}
		return p, nil
	}
	var dirs []string
	for _, d := range strings.Split(path, ":") {
		if d == "" {
			continue
		}
		if !filepath.IsAbs(d) && dir != "" {
			d = filepath.Join(dir, d)
		}
		dirs = append(dirs, d)
		if p := filepath.Join(d, prog); check(p) == nil {
			return filepath.Abs(p)
		}
	}
	if p, err := exec.LookPath(prog); err == nil {
		return filepath.Abs(p)
	}
	if len(dirs) > 0 {
		return "", fmt.Errorf("program %q not found in the path info key's directories (%s) nor in PATH", prog, strings.Join(dirs, ":"))
	}
	return "", fmt.Errorf("program %q not found in PATH", prog)
}

// softCount reads MPI's soft key (a comma-separated list of triplets a, a:b, a:b:c:
// the counts allowed; those below 0 or above maxprocs are ignored) and returns the
// largest allowed count that fits in free slots, else the smallest allowed count above
// zero: the
// universe's size is advice (MPI 4.1 section 11.10.1), and the slots of processes that
// have just disconnected are not free until they exit, so a pool that spawns again at
// once must still get workers.
func softCount(soft string, maxprocs, free int) (int, error) {
	type triplet struct{ lo, hi, step int }
	var ts []triplet
	for _, item := range strings.Split(soft, ",") {
		f := strings.Split(strings.TrimSpace(item), ":")
		v := make([]int, len(f))
		for i, s := range f {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || len(f) > 3 {
				return 0, fmt.Errorf("soft %q: %q is not a count or a triplet a:b or a:b:c", soft, item)
			}
			v[i] = n
		}
		t := triplet{v[0], v[0], 1}
		if len(v) > 1 {
			t.hi = v[1]
		}
		if len(v) > 2 {
			t.step = v[2]
		}
		if t.step == 0 || (t.hi-t.lo)*t.step < 0 {
			return 0, fmt.Errorf("soft %q: the triplet %q names no count", soft, item)
		}
		ts = append(ts, t)
	}
	fits := func(limit int) int {
		best := -1
		for _, t := range ts {
			best = max(best, largestIn(t.lo, t.hi, t.step, limit))
		}
		return best
	}
	if best := fits(min(maxprocs, free)); best > 0 {
		return best, nil
	}
	// Zero processes would fail the spawn: the smallest allowed count above zero.
	for n := max(free, 0) + 1; n <= maxprocs; n++ {
		if fits(n) == n {
			return n, nil
		}
	}
	if fits(0) == 0 {
		return 0, nil // only 0 is allowed: the caller asked for nothing
	}
	return 0, fmt.Errorf("soft %q: no count it allows is between 0 and maxprocs %d", soft, maxprocs)
}

// largestIn returns the largest of lo, lo+step, ... (up to hi) in [0, limit], or -1.
func largestIn(lo, hi, step, limit int) int {
	n := -1
	if step < 0 {
		// Descending from lo: the first at or below limit.
		n = lo
		if n > limit {
			n = lo + (lo-limit-step-1)/(-step)*step
		}
		if n < hi {
			return -1
		}
	} else if top := min(hi, limit); top >= lo {
		n = lo + (top-lo)/step*step
	}
	return max(n, -1)
}
