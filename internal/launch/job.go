package launch

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/transport/shm"
	"github.com/mpigo/mpigo/internal/wireup"
)

// Spec is what to run: one program on N ranks (N, Program, Args), or several
// (Apps, MPMD: each application's ranks follow the previous one's, and MPI_APPNUM is
// its index).
type Spec struct {
	N       int      // number of ranks (with Apps: their sum, filled in by Run)
	Program string   // resolved executable path (see Resolve)
	Args    []string // arguments for the program
	Apps    []App    // several programs; when set, Program and Args are not used
	// UniverseSize is MPI_UNIVERSE_SIZE (0: the hosts' slots, else this machine's
	// CPUs, and never less than N).
	UniverseSize int
	Env          []string          // extra KEY=VALUE for every rank (-x)
	Settings     map[string]string // mpigo settings given as flags (--set NAME=VALUE)
	TagOutput    bool              // prefix each output line with "[rank] "
	Timeout      time.Duration     // end the job after this long (0: never)
	KillGrace    time.Duration     // between forwarding a signal and SIGKILL (0: 1s)

	// Hosts, when set, runs the job on these machines through one agent per host,
	// started with Agent (default ssh) in a tree of the given Fanout (default 32).
	Hosts     []Host
	Mapping   Mapping
	Agent     []string
	Fanout    int
	AgentPath string // the mpigo binary the agents run (default: this executable)

	// Profile, when set, is the directory where every rank writes its profile and the
	// launcher, at the end, the job's picture (profile.go). Report prints one line per
	// rank of its time in MPI at the end.
	Profile string
	Report  bool

	// WireupStats prints, at the end, the fence traffic between the launcher and each
	// agent: what crosses the network per node.
	WireupStats bool

	Stdin          *os.File  // for rank 0 (nil: /dev/null)
	Stdout, Stderr io.Writer // nil: os.Stdout, os.Stderr
}

// App is one program of a job and its ranks.
type App struct {
	Program string   // resolved executable path
	Args    []string // arguments for the program
	N       int      // its ranks (0: none; a spawned command that could not start)
	Dir     string   // working directory of its ranks ("": the launcher's)
	// Hosts, in a spawned job, are where its ranks run (the spawn's host info key);
	// nil: the job's hosts.
	Hosts []Host `json:"-"`

	soft string // the soft info key that chose N, for the errors of the others
}

// normalize makes Apps the one description of the programs and N their sum.
func (s *Spec) normalize() {
	if len(s.Apps) == 0 {
		s.Apps = []App{{Program: s.Program, Args: s.Args, N: s.N}}
		return
	}
	s.N = 0
	for _, a := range s.Apps {
		s.N += a.N
	}
	s.Program, s.Args = s.Apps[0].Program, s.Apps[0].Args
}

// appOf returns the index of rank r's application.
func (s *Spec) appOf(r int) int {
	for i, a := range s.Apps {
		if r < a.N {
			return i
		}
		r -= a.N
	}
	return len(s.Apps) - 1
}

// universeOf is MPI_UNIVERSE_SIZE for spec: what it says, else the slots of its
// hosts, else this machine's CPUs; never fewer than its ranks.
func universeOf(spec *Spec) int {
	if spec.UniverseSize > 0 {
		return spec.UniverseSize
	}
	n := runtime.NumCPU()
	if len(spec.Hosts) > 0 {
		n = 0
		for _, h := range spec.Hosts {
			if spec.Mapping.PerNode > 0 {
				n += spec.Mapping.PerNode
			} else {
				n += h.Slots
			}
		}
	}
	return max(n, spec.N)
}

// Exit codes of the launcher itself, beyond those of the ranks.
const (
	ExitUsage   = 2   // bad command line
	ExitTimeout = 124 // --timeout expired (as timeout(1))
)

// child is one connection a collector gathers fence contributions from: a local rank,
// or an agent standing for the ranks of its hosts.
type child struct {
	idx  int
	conn io.ReadWriteCloser
	wmu  sync.Mutex
	cmd  *exec.Cmd
	pid  int // the process started (its process group's id); set once, never changed

	rank      int     // a local rank's global rank; -1 for an agent
	host      int     // the node id the child runs on (an agent: its own host)
	spanRanks []int32 // an agent: the ranks of its subtree

	hello, finalized bool
	mpiPid           int // the pid the rank reported at Init (a wrapper may have exec'd it)
	abort            *abortMsg
	aborted          bool          // it called Abort (an agent: a rank below it did); under fmu
	crash            string        // the first line of a Go panic or fatal error on its stderr
	pmDone           chan struct{} // the connection has ended
	errDone          chan struct{} // its stderr has been forwarded to its end
	stdoutDone       chan struct{} // its stdout has been forwarded to its end
	outDone          sync.WaitGroup
}

// emit passes ev, from this job, to the supervising loop.
func (n *node) emit(ev event) {
	ev.job = n.no
	n.events <- ev
}

func (c *child) write(typ byte, body []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return wireup.WriteFrame(c.conn, typ, body)
}

// tellShared sends the rank whether other processes keep its node's CPUs busy.
func (c *child) tellShared(on bool) {
	body := []byte{0}
	if on {
		body[0] = 1
	}
	_ = c.write(wireup.MsgShared, body)
}

// event is something the supervising loop must judge or pass on.
type event struct {
	job       int // which job of the run (Job.no)
	req       *rankRequest
	started   *startNews
	rank      int // global rank, or -1
	pid       int
	host      int
	status    syscall.WaitStatus
	exited    bool
	hello     bool
	finalized bool
	abort     *abortMsg
	crash     string // the rank's stderr said it panicked (child.crash)
	err       error  // a rank broke the protocol
	failure   string // an agent's word on what went wrong (host named)
	lost      *child // an agent's connection ended
	// order numbers a local rank's end among this launcher's ranks' ends, in the
	// order the kernel saw them (exitOrder; zero for a rank on another host, whose
	// agent reports it): the order of two ranks' ends, which their events may not
	// keep.
	order uint64
}

// rankRequest is a rank's request to the launcher (wireup.MsgRequest) and the way
// back to it.
type rankRequest struct {
	id    uint64
	req   *wireup.Request
	reply func(body []byte) // sends a wireup.MsgAnswer body to the rank
}

// startNews is an agent's word that its ranks of a spawned job started, or why not.
type startNews struct {
	node int
	err  string
}

// abortMsg is a rank's end of the job (wireup.MsgAbort): a call to MPI_Abort, or an
// error it could not go on from (fatal).
type abortMsg struct {
	code  int
	fatal bool
	msg   string
}

// parseAbort reads a MsgAbort's body: code (varint), kind, message.
func parseAbort(body []byte) (*abortMsg, bool) {
	code, k := binary.Varint(body)
	if k <= 0 {
		return nil, false
	}
	ab := &abortMsg{code: int(code)}
	if k < len(body) {
		ab.fatal = body[k] == wireup.AbortError
		ab.msg = string(body[k+1:])
	}
	return ab, true
}

// appendAbort appends ab as a MsgAbort's body.
func appendAbort(b []byte, ab *abortMsg) []byte {
	kind := wireup.AbortCall
	if ab.fatal {
		kind = wireup.AbortError
	}
	return append(append(binary.AppendVarint(b, int64(ab.code)), kind), ab.msg...)
}

// node is what the launcher and an agent have in common: local ranks and child agents
// under one collector, and the events they raise.
type node struct {
	spec   *Spec
	id     string
	lay    *wireup.Layout // the whole job
	events chan event     // one for the whole run: every job's (each event names its job)
	no     int            // this job's number in the run: 0 for the first, then in the order spawned

	// What the ranks are told beyond the layout: MPI_UNIVERSE_SIZE and, in a spawned
	// job, the port its parents accept on.
	universe   int
	parentPort string

	children []*child
	ranks    []*child // the local ranks among children
	agents   []*child

	fmu  sync.Mutex
	coll *wireup.Collector
	// done is called with the collector's encoded result when every child has entered
	// the fence: the launcher sends it down, an agent sends it up.
	done func(*wireup.Collector) []byte
	up   func(msg []byte)
	// relay, in an agent, passes a child agent's news up unchanged, and rankNews a
	// local rank's report or answer.
	relay    func(typ byte, body []byte)
	rankNews func(rank int, typ byte, body []byte)
	// finishedSet records which ranks have ended, to tell a lost agent whose ranks
	// were all done from one that took running ranks with it.
	finishedSet map[int]bool

	stdout, stderr *lineWriter
	killer         *time.Timer
	killing        atomic.Bool // the SIGKILL that ends a stopped job has been sent

	// What the ranks said of themselves (profile.go), by rank, under fmu: their
	// reports at Finalize, their last answers to the launcher's question, and, while
	// a question is out, the ranks asked and the hosts whose agents said whom they asked.
	reports   map[int]*prof.Report
	answers   map[int]*prof.Answer
	asked     map[int]bool
	askedHost map[int]bool

	// Fence traffic between this node and its parent (an agent) or children (the
	// launcher), for --wireup-stats.
	fences, upBytes, downBytes int64
	stats                      []agentStats
}

type agentStats struct{ node, fences, up, down int64 }

// Run runs the job to its end and returns the launcher's exit code. Diagnostics go to
// spec.Stderr as single lines starting "mpigo: ".
//
// The jobs the ranks spawn (spawn.go) are part of the run: Run returns once every
// process of every job has ended, a failure in any of them stops them all, and the
// run's exit code is the failure's.
func Run(spec Spec) int {
	if spec.Stdout == nil {
		spec.Stdout = os.Stdout
	}
	if spec.Stderr == nil {
		spec.Stderr = os.Stderr
	}
	if spec.KillGrace == 0 {
		spec.KillGrace = time.Second
	}
	spec.normalize()
	if err := CheckSettings(&spec); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(spec.Stderr, "mpigo: %s\n", line)
		}
		return ExitUsage
	}
	if err := setupProfile(&spec); err != nil {
		fmt.Fprintf(spec.Stderr, "mpigo: profile directory %s: %v\n", spec.Profile, err)
		return ExitUsage
	}
	j := &Job{node: node{spec: &spec, events: make(chan event, 4*spec.N+16), universe: universeOf(&spec),
		stdout: &lineWriter{w: spec.Stdout}, stderr: &lineWriter{w: spec.Stderr}}, names: newNames()}
	j.all = []*Job{j}
	defer j.cleanupAll()
	return j.run()
}

// Job is the launcher's view of one job of the run: it judges every rank's end. The
// first job (started by Run) also supervises the run: its loop judges every job's
// events and serves the ranks' requests.
type Job struct {
	node
	exited     int
	finished   []bool
	agentsGone int
	queried    bool // the ranks were asked where they are (profile.go)
	// sigs receives the signals that stop the run, from the start of run to its
	// end: the start, the main loop and the stop (reapAll) each watch it, so that a
	// signal ends the launcher at any moment.
	sigs chan os.Signal

	// The supervisor's: every job of the run by number (all[0] is the first), and
	// the name service its ranks publish in.
	all   []*Job
	names *names

	// A spawned job's: who spawned it, for diagnostics ("rank 0 of the first job"),
	// and whether its start failed (its ranks are being killed; their ends are not
	// failures).
	spawner string
	aborted bool
	// A spawned job started through agents answers its spawn when every host has said
	// its ranks started (startNews): the request, the answer so far, the hosts to hear.
	pending  *rankRequest
	pendErrs []string
	started  map[int]bool // the nodes whose ranks started
}

func (n *node) diag(format string, a ...any) {
	n.stderr.write([]byte("mpigo: " + fmt.Sprintf(format, a...) + "\n"))
}

func newJobID() string {
	var b [4]byte
	rand.Read(b[:])
	return strconv.FormatInt(int64(os.Getpid()), 36) + hex.EncodeToString(b[:])
}

func (j *Job) run() int {
	j.id = newJobID()
	j.finished = make([]bool, j.spec.N)
	j.sigs = make(chan os.Signal, 4)
	signal.Notify(j.sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(j.sigs)

	if len(j.spec.Hosts) == 0 {
		j.layLocal()
		for r := 0; r < j.spec.N; r++ {
			if code, stop := j.interruptedStarting(); stop {
				return code
			}
			if err := j.startRank(r, r, j.stdout, j.stderr, j.tag(r)); err != nil {
				j.diag("cannot start rank %d of %d (%s): %v%s; stopping the %d ranks started",
					r, j.spec.N, j.spec.Apps[j.spec.appOf(r)].Program, err, startHint(err), r)
				return j.fail(1)
			}
		}
	} else if usage, err := j.startAgents(); err != nil {
		j.diag("%v", err)
		if usage {
			return ExitUsage
		}
		return j.fail(1)
	}
	var timeout <-chan time.Time
	if j.spec.Timeout > 0 {
		t := time.NewTimer(j.spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	defer j.printStats()
	defer j.endProfile()
	for !j.allEnded() {
		select {
		case ev := <-j.events:
			if ev.req != nil {
				j.serve(ev)
				continue
			}
			if code, stop := j.judge(ev); stop {
				return code
			}
		case s := <-j.sigs:
			sig := s.(syscall.Signal)
			j.explain(fmt.Sprintf("received %v", sig))
			j.diag("received %v; forwarding it to %d ranks", sig, j.running())
			j.signalJobs(sig)
			j.reapAll(sig, 0)
			return 128 + int(sig)
		case <-timeout:
			j.explain(fmt.Sprintf("the job timed out after %v", j.spec.Timeout))
			j.diag("job timed out after %v; stopping %d ranks", j.spec.Timeout, j.running())
			return j.fail(ExitTimeout)
		}
	}
	for _, jb := range j.all {
		jb.drainOutput()
	}
	return 0
}

// layLocal lays the job out on this machine alone, each rank a child of the collector.
func (j *Job) layLocal() {
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	j.lay = &wireup.Layout{NodeOf: make([]int32, j.spec.N), Hosts: []string{host}}
	spans := make([]wireup.Span, j.spec.N)
	for r := range spans {
		spans[r] = j.lay.RankSpan(r)
	}
	j.coll = wireup.NewCollector(j.lay, spans)
	j.done = (*wireup.Collector).Result
}

// ended says whether every process of this job has been reported gone.
func (j *Job) ended() bool {
	if j.aborted {
		// Only what was started: its local ranks, or its agents (and their ranks).
		if len(j.agents) > 0 {
			return j.agentsGone == len(j.agents)
		}
		return j.exited >= len(j.ranks)
	}
	return j.exited >= j.spec.N
}

func (j *Job) allEnded() bool {
	for _, jb := range j.all {
		if !jb.ended() {
			return false
		}
	}
	return true
}

// running counts the ranks of the run not yet ended.
func (j *Job) running() int {
	n := 0
	for _, jb := range j.all {
		if !jb.aborted {
			n += jb.spec.N - jb.exited
		}
	}
	return n
}

// interruptedStarting, between two starts, stops the ranks started so far if a
// signal came, and says with what code the launcher ends.
func (j *Job) interruptedStarting() (int, bool) {
	select {
	case s := <-j.sigs:
		sig := s.(syscall.Signal)
		j.diag("received %v while starting the job; stopping the %d ranks started", sig, len(j.ranks))
		j.signalJobs(sig)
		j.reapAll(sig, 0)
		return 128 + int(sig), true
	default:
		return 0, false
	}
}

// startHint says which limit a start that the system refused ran into.
func startHint(err error) string {
	switch {
	case errors.Is(err, syscall.EAGAIN):
		return " (the system refuses more processes: the limit on processes per user, ulimit -u, or the kernel's pid_max or threads-max)"
	case errors.Is(err, syscall.EMFILE):
		return " (the launcher ran out of file descriptors, ulimit -n: it holds 3 for each local rank)"
	case errors.Is(err, syscall.ENFILE), errors.Is(err, syscall.ENOMEM):
		return " (the system is out of memory or of open files)"
	}
	return ""
}

func (j *Job) hostName(h int) string {
	if j.lay != nil && h >= 0 && h < len(j.lay.Hosts) {
		return j.lay.Hosts[h]
	}
	return "?"
}

// rankName names a rank of this job for a diagnostic: "rank 2 (pid 4711, host h)",
// and for a spawned job which one and whose spawn it was.
func (j *Job) rankName(rank, pid, host int) string {
	where := fmt.Sprintf("pid %d, host %s", pid, j.hostName(host))
	if j.no == 0 {
		return fmt.Sprintf("rank %d (%s)", rank, where)
	}
	prog := "?"
	if rank >= 0 && rank < j.spec.N {
		prog = j.spec.Apps[j.spec.appOf(rank)].Program
	}
	return fmt.Sprintf("rank %d of spawned job %d (%s, spawned by %s; %s)", rank, j.no, prog, j.spawner, where)
}

// jobName names job number no for a diagnostic.
func jobName(no int) string {
	if no == 0 {
		return "the first job"
	}
	return fmt.Sprintf("spawned job %d", no)
}

// judge decides what an event means for the run: whether to stop it, and with what code.
func (j *Job) judge(ev event) (int, bool) {
	if ev.job < 0 || ev.job >= len(j.all) {
		return 0, false
	}
	jb := j.all[ev.job]
	who := func() string { return jb.rankName(ev.rank, ev.pid, ev.host) }
	switch {
	case ev.started != nil:
		jb.hostStarted(ev.started)
		return 0, false
	case ev.lost != nil && jb.pending != nil && !jb.subtreeStarted(ev.lost):
		jb.abortStart(fmt.Sprintf("lost the agent on host %s (%v) before the processes started", jb.hostName(ev.lost.host), exitOf(ev.lost)))
	}
	if jb.aborted {
		// A spawned job whose start failed: its processes are being killed, and the
		// spawn's answer already said why.
		switch {
		case ev.exited && ev.rank >= 0 && ev.rank < len(jb.finished) && !jb.finished[ev.rank]:
			jb.finished[ev.rank] = true
			jb.exited++
		case ev.lost != nil:
			jb.agentsGone++
		}
		return 0, false
	}
	switch {
	case ev.abort != nil:
		code := wireup.ExitStatus(ev.abort.code)
		switch {
		case ev.abort.fatal:
			j.diag("%s%s; stopping the job", who(), colonMsg(ev.abort.msg))
		case code != ev.abort.code:
			j.diag("%s called MPI_Abort with code %d%s; stopping the job with exit status %d", who(), ev.abort.code, colonMsg(ev.abort.msg), code)
		default:
			j.diag("%s called MPI_Abort with code %d%s; stopping the job", who(), ev.abort.code, colonMsg(ev.abort.msg))
		}
		return j.fail(code), true
	case ev.err != nil:
		j.diag("%s: %v; stopping the job", who(), ev.err)
		return j.fail(1), true
	case ev.failure != "":
		if jb.no > 0 {
			ev.failure = jobName(jb.no) + " (spawned by " + jb.spawner + "): " + ev.failure
		}
		j.diag("%s; stopping the job", ev.failure)
		return j.fail(1), true
	case ev.lost != nil:
		jb.agentsGone++
		for _, r := range ev.lost.spanRanks {
			if !jb.finished[r] {
				of := ""
				if jb.no > 0 {
					of = " of " + jobName(jb.no)
				}
				j.diag("lost the agent on host %s (%v) with ranks%s still running; stopping the job",
					jb.hostName(ev.lost.host), exitOf(ev.lost), of)
				return j.fail(1), true
			}
		}
		return 0, false
	case ev.exited:
		if ev.rank < 0 || ev.rank >= len(jb.finished) || jb.finished[ev.rank] {
			return 0, false
		}
		jb.finished[ev.rank] = true
		jb.exited++
		code, why := exitCode(ev)
		if code == 0 {
			return 0, false
		}
		if !j.allEnded() {
			why += "; stopping the job"
		}
		j.diag("%s %s", who(), why)
		j.flushRanks()
		j.signalJobs(syscall.SIGTERM)
		if first, ok := j.reapAll(syscall.SIGTERM, ev.order); ok {
			// Another rank ended with an error of its own before this one, which
			// probably failed because of it (a survivor that saw its peer gone): the
			// run ends with the first failure's code.
			c, why := exitCode(first)
			j.diag("%s %s before it; the job ends with its code", j.all[first.job].rankName(first.rank, first.pid, first.host), why)
			code = c
		}
		return code, true
	}
	return 0, false
}

func exitOf(c *child) string {
	if c.cmd != nil && c.cmd.ProcessState != nil {
		return c.cmd.ProcessState.String()
	}
	return "connection closed"
}

func colonMsg(m string) string {
	if m == "" {
		return ""
	}
	return ": " + m
}

// exitCode returns the exit code a rank's end gives the job (0: fine) and why.
func exitCode(ev event) (int, string) {
	ws := ev.status
	switch {
	case ws.Exited() && ws.ExitStatus() == 2 && ev.crash != "":
		// How a Go program ends on a panic or a fatal error of its runtime.
		if p, ok := strings.CutPrefix(ev.crash, "panic: "); ok {
			return 2, fmt.Sprintf("panicked: %s (exit code 2)", p)
		}
		return 2, fmt.Sprintf("crashed: %s (exit code 2)", ev.crash)
	case ws.Signaled():
		return 128 + int(ws.Signal()), fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	case ws.ExitStatus() != 0:
		return ws.ExitStatus(), fmt.Sprintf("exited with code %d", ws.ExitStatus())
	case ev.hello && !ev.finalized:
		return 1, "exited with code 0 without finalizing MPI (mpi.Finalize, MPI_Finalize)"
	}
	return 0, ""
}

// fail stops the run after a failure and returns code once every rank is gone.
func (j *Job) fail(code int) int {
	j.flushRanks()
	j.signalJobs(syscall.SIGTERM)
	j.reapAll(syscall.SIGTERM, 0)
	return code
}

// signalJobs sends sig to every job of the run.
func (j *Job) signalJobs(sig syscall.Signal) {
	for _, jb := range j.all {
		jb.signalAll(sig)
	}
}

// signalAll sends sig to every local rank's process group and every agent (which pass
// it on), then SIGKILL to whatever is left after the grace period. A rank that called
// Abort, and an agent with such a rank below it, come after all others: the rank waits
// in Abort for this, and its peers must not see it go first, which each would take
// for a failure of its own and report. (A C or Python rank, whose SIGTERM is not
// handled, runs no more code once kill returns.)
func (n *node) signalAll(sig syscall.Signal) {
	n.fmu.Lock()
	var last []*child
	for _, c := range n.children {
		if c.aborted {
			last = append(last, c)
		}
	}
	n.fmu.Unlock()
	send := func(c *child) {
		if c.rank < 0 {
			c.write(msgSignal, appendUvarints(nil, uint64(sig)))
		} else if c.pid > 0 {
			syscall.Kill(-c.pid, sig)
		}
	}
	for _, c := range n.ranks {
		if !slices.Contains(last, c) {
			send(c)
		}
	}
	for _, c := range n.agents {
		if !slices.Contains(last, c) {
			send(c)
		}
	}
	for _, c := range last {
		send(c)
	}
	if sig == syscall.SIGKILL {
		n.killing.Store(true)
	}
	if sig != syscall.SIGKILL && n.killer == nil {
		n.killer = time.AfterFunc(n.spec.KillGrace, func() { n.signalAll(syscall.SIGKILL) })
	}
}

// stopping says whether the reaping loop still waits for job jb: for each agent's end
// when it has agents (a subtree whose agent is gone has no ranks left: they die with
// their parent, reported or not), else for each local rank's exit.
func (jb *Job) stopping() bool {
	if len(jb.agents) > 0 {
		return jb.agentsGone < len(jb.agents)
	}
	return jb.exited < len(jb.ranks)
}

// reapAll waits until every rank of every job started has been reported gone and
// every agent has ended, then kills whatever the ranks left in their process groups;
// a signal to the launcher meanwhile kills them at once. sent is the signal the
// run was stopped with: a rank found killed by another one (a SIGKILL before the
// stop's own) died on its own, perhaps before the failure that stopped the run (its
// end and a survivor's reach the launcher in either order), so it is reported too.
// With stopAt (the number of the end of the rank whose failure stopped the run, in
// exitOrder), it also returns the earliest local rank that exited with an error code
// before it.
// Requests that come meanwhile are refused.
func (j *Job) reapAll(sent syscall.Signal, stopAt uint64) (first event, ok bool) {
	for {
		left := false
		for _, jb := range j.all {
			left = left || jb.stopping()
		}
		if !left {
			break
		}
		var ev event
		select {
		case ev = <-j.events:
		case s := <-j.sigs:
			if !j.killing.Load() {
				j.diag("received %v while stopping the job; killing its ranks", s)
				j.signalJobs(syscall.SIGKILL)
			}
			continue
		}
		if ev.job < 0 || ev.job >= len(j.all) {
			continue
		}
		jb := j.all[ev.job]
		switch {
		case ev.req != nil:
			ev.req.reply(wireup.EncodeAnswer(ev.req.id, &wireup.Answer{Err: "the mpigo run is stopping"}))
		case ev.started != nil && jb.pending != nil:
			jb.abortStart("the mpigo run is stopping")
		case ev.exited && ev.rank >= 0 && ev.rank < len(jb.finished) && !jb.finished[ev.rank]:
			jb.finished[ev.rank] = true
			jb.exited++
			if ws := ev.status; !jb.aborted && ws.Signaled() && ws.Signal() != sent && (ws.Signal() != syscall.SIGKILL || !jb.killing.Load()) {
				_, why := exitCode(ev)
				j.diag("%s also %s", jb.rankName(ev.rank, ev.pid, ev.host), why)
			}
			if ws := ev.status; !jb.aborted && ws.Exited() && ws.ExitStatus() != 0 && stopAt != 0 && ev.order != 0 &&
				ev.order < stopAt && (!ok || ev.order < first.order) {
				first, ok = ev, true
			}
		case ev.lost != nil:
			jb.agentsGone++
		}
	}
	for _, jb := range j.all {
		if jb.pending != nil {
			jb.abortStart("the mpigo run is stopping")
		}
		if jb.killer != nil {
			jb.killer.Stop()
		}
		for _, r := range jb.ranks {
			syscall.Kill(-r.pid, syscall.SIGKILL)
		}
		jb.drainOutput()
	}
	return first, ok
}

// drainOutput waits for the output forwarders, bounded: a background process a rank
// started may hold its pipe open.
func (n *node) drainOutput() {
	done := make(chan struct{})
	go func() {
		for _, r := range n.children {
			r.outDone.Wait()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
}

// startRank launches global rank r as child number idx, its output going to out and errw.
func (n *node) startRank(r, idx int, out, errw *lineWriter, tag string) error {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	// Non-blocking, so that its reader waits on the poller, not in a thread (exitwait.go).
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return err
	}
	mine := os.NewFile(uintptr(fds[0]), "pm")
	theirs := os.NewFile(uintptr(fds[1]), "pm-child")
	defer theirs.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		mine.Close()
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		mine.Close()
		outR.Close()
		outW.Close()
		return err
	}
	defer outW.Close()
	defer errW.Close()

	app := &n.spec.Apps[n.spec.appOf(r)]
	cmd := exec.Command(app.Program, app.Args...)
	cmd.Dir = app.Dir
	cmd.Env = n.rankEnv(r)
	cmd.ExtraFiles = []*os.File{theirs} // fd 3
	cmd.Stdout, cmd.Stderr = outW, errW
	if r == 0 && n.spec.Stdin != nil {
		cmd.Stdin = n.spec.Stdin
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	local, nlocal := n.lay.LocalRank(r)
	if err := rankSchedOf(n.spec, nlocal).start(cmd); err != nil {
		mine.Close()
		outR.Close()
		errR.Close()
		return err
	}
	c := &child{idx: idx, conn: mine, cmd: cmd, pid: cmd.Process.Pid, rank: r, host: int(n.lay.NodeOf[r]),
		pmDone: make(chan struct{}), errDone: make(chan struct{}), stdoutDone: make(chan struct{})}
	n.children = append(n.children, c)
	n.ranks = append(n.ranks, c)
	c.outDone.Add(2)
	go func() { forward(outR, out, tag, nil); outR.Close(); close(c.stdoutDone); c.outDone.Done() }()
	go func() {
		forward(errR, errw, tag, func(lines []byte) { n.noteCrash(c, lines) })
		errR.Close()
		close(c.errDone)
		c.outDone.Done()
	}()
	go n.serveRank(c)
	watch := watchExit(c.pid)
	watched, auto := watches(n.spec, nlocal)
	if watched {
		watchCPUs(c.pid, local, auto, c.tellShared)
	}
	go func() {
		order := watch.waitRank(cmd)
		if watched {
			unwatchCPUs(c.pid)
		}
		// Let the wire-up reader drain what the rank sent last (an Abort or Finalize),
		// and the output forwarders what it wrote last (a panic, its last lines:
		// under an agent, its exit must not overtake them on the way up), before its
		// end is judged; bounded, as a child of the rank may hold the socket or a pipe.
		late := make(chan struct{})
		t := time.AfterFunc(200*time.Millisecond, func() { close(late) })
		for _, done := range []chan struct{}{c.pmDone, c.errDone, c.stdoutDone} {
			select {
			case <-done:
			case <-late:
			}
		}
		t.Stop()
		n.fmu.Lock()
		unsaid := c.hello && !c.finalized
		n.fmu.Unlock()
		if unsaid && cmd.ProcessState.Success() {
			// A clean exit after Init is judged by whether the rank said Finalize:
			// under heavy load the reader may not have read it within the bound above,
			// so wait for the connection's end (the rank's is gone; only a child
			// of it could still hold the socket, hence a bound here too).
			select {
			case <-c.pmDone:
			case <-time.After(5 * time.Second):
			}
		}
		n.fmu.Lock()
		ev := event{rank: r, pid: c.pid, host: c.host, exited: true, hello: c.hello, finalized: c.finalized,
			crash: c.crash, status: cmd.ProcessState.Sys().(syscall.WaitStatus), order: order}
		if c.mpiPid != 0 {
			ev.pid = c.mpiPid
		}
		n.fmu.Unlock()
		n.emit(ev)
	}()
	return nil
}

// noteCrash keeps the first line of a Go panic or fatal error that rank c wrote on
// its stderr (lines, whole lines as forwarded), for the judgement of its end.
func (n *node) noteCrash(c *child, lines []byte) {
	line := crashLine(lines)
	if line == "" {
		return
	}
	n.fmu.Lock()
	if c.crash == "" {
		c.crash = line
	}
	n.fmu.Unlock()
}

// crashLine is the first line of lines that begins as the Go runtime begins its
// report of a panic ("panic: ") or of a fatal error ("fatal error: "), or "".
func crashLine(lines []byte) string {
	if !bytes.Contains(lines, []byte("panic: ")) && !bytes.Contains(lines, []byte("fatal error: ")) {
		return ""
	}
	for len(lines) > 0 {
		line, rest, _ := bytes.Cut(lines, []byte("\n"))
		if bytes.HasPrefix(line, []byte("panic: ")) || bytes.HasPrefix(line, []byte("fatal error: ")) {
			return string(line)
		}
		lines = rest
	}
	return ""
}

func (n *node) rankEnv(r int) []string {
	local, nlocal := n.lay.LocalRank(r)
	env := os.Environ()
	env = append(env,
		wireup.EnvRank+"="+strconv.Itoa(r),
		wireup.EnvSize+"="+strconv.Itoa(n.lay.Size()),
		wireup.EnvLocalRank+"="+strconv.Itoa(local),
		wireup.EnvLocalSize+"="+strconv.Itoa(nlocal),
		wireup.EnvJobID+"="+n.id,
		wireup.EnvNodeMap+"="+n.lay.EncodeNodeMap(),
		wireup.EnvHosts+"="+strings.Join(n.lay.Hosts, ","),
		wireup.EnvFD+"=3",
		wireup.EnvAppNum+"="+strconv.Itoa(n.spec.appOf(r)),
		wireup.EnvUniverseSize+"="+strconv.Itoa(n.universe),
		// Always set, empty when not spawned: a launcher started by a spawned rank
		// must not pass its parent's port on to its own ranks.
		wireup.EnvParentPort+"="+n.parentPort,
	)
	if len(n.spec.Settings) > 0 {
		var names []string
		for k, v := range n.spec.Settings {
			env = append(env, config.EnvPrefix+strings.ToUpper(k)+"="+v)
			names = append(names, k)
		}
		env = append(env, config.FlagsVar+"="+strings.Join(names, ","))
	}
	return append(env, n.spec.Env...)
}

// serveRank reads a local rank's wire-up messages until its connection ends.
func (n *node) serveRank(c *child) {
	defer close(c.pmDone)
	var buf []byte
	for {
		typ, body, err := wireup.ReadFrame(c.conn, buf)
		buf = body[:0]
		if err != nil {
			return
		}
		switch typ {
		case wireup.MsgHello:
			pid, k := binary.Uvarint(body)
			var free uint64
			if k > 0 { // a rank older than the CPU watch sends the pid only
				free, _ = binary.Uvarint(body[k:])
			}
			helloCPUs(c.pid, free == 1)
			n.fmu.Lock()
			c.hello = true
			c.mpiPid = int(pid)
			n.fmu.Unlock()
		case wireup.MsgFenceUp:
			n.fence(c, body)
		case wireup.MsgAbort:
			ab, ok := parseAbort(body)
			if !ok {
				ab = &abortMsg{code: 1, fatal: true, msg: "a malformed abort message"}
			}
			n.fmu.Lock()
			c.abort, c.aborted = ab, true
			n.fmu.Unlock()
			n.emit(event{rank: c.rank, pid: c.pid, host: c.host, abort: ab})
		case wireup.MsgFinalize:
			n.fmu.Lock()
			c.finalized = true
			n.fmu.Unlock()
		case wireup.MsgReport, wireup.MsgState:
			n.answered(c.rank, typ, body)
		case wireup.MsgRequest:
			n.request(c.rank, body, func(b []byte) { c.write(wireup.MsgAnswer, b) })
		default:
			n.emit(event{rank: c.rank, pid: c.pid, host: c.host,
				err: fmt.Errorf("sent an unknown wire-up message type %d", typ)})
			return
		}
	}
}

// request passes a rank's request (a MsgRequest body) to the supervising loop, with
// reply to answer it; in an agent, up to the launcher with the rank.
func (n *node) request(rank int, body []byte, reply func([]byte)) {
	if n.rankNews != nil {
		n.rankNews(rank, wireup.MsgRequest, body)
		return
	}
	id, req, err := wireup.DecodeRequest(body)
	if err != nil {
		reply(wireup.EncodeAnswer(id, &wireup.Answer{Err: err.Error()}))
		return
	}
	n.emit(event{rank: rank, req: &rankRequest{id: id, req: req, reply: reply}})
}

// fence records child c's contribution; the last one completes the fence.
func (n *node) fence(c *child, body []byte) {
	n.fmu.Lock()
	complete, err := n.coll.Add(c.idx, body)
	var msg []byte
	if err == nil && complete {
		msg = n.done(n.coll)
	}
	n.fmu.Unlock()
	if err != nil {
		n.emit(event{rank: c.rank, pid: c.pid, host: c.host, err: fmt.Errorf("bad fence message: %v", err)})
		return
	}
	if msg == nil {
		return
	}
	if n.up != nil {
		n.fmu.Lock()
		n.upBytes += int64(len(msg) + 5)
		n.fmu.Unlock()
		n.up(msg)
		return
	}
	n.down(msg)
}

// down sends a fence result to every child.
func (n *node) down(msg []byte) {
	n.fmu.Lock()
	n.fences++
	n.downBytes += int64(len(msg) + 5)
	n.fmu.Unlock()
	for _, c := range n.children {
		c.write(wireup.MsgFenceDn, msg)
	}
}

// cleanupAll removes what the run's jobs may have left, and the names they published.
func (j *Job) cleanupAll() {
	for _, jb := range j.all {
		jb.cleanup()
	}
	j.names.removeAll()
}

// cleanup removes what the job may have left: connections and shared-memory files.
func (n *node) cleanup() {
	for _, c := range n.children {
		c.conn.Close()
	}
	if n.id == "" {
		return
	}
	shm.RemoveLeftovers(n.id) // what ranks killed with -9 could not remove
}

// printStats reports each agent's fence traffic (--wireup-stats).
func (j *Job) printStats() {
	if !j.spec.WireupStats || len(j.agents) == 0 {
		return
	}
	j.drainAgents()
	var up, down, fences int64
	for _, s := range j.stats {
		up += s.up
		down += s.down
		fences = max(fences, s.fences)
	}
	n := int64(len(j.stats))
	if n == 0 || fences == 0 {
		j.diag("wire-up: no agent reported its traffic")
		return
	}
	j.diag("wire-up: %d agents, %d fences; per node per fence %.0f bytes up, %.0f bytes down (%.0f in all)",
		n, fences, float64(up)/float64(n*fences), float64(down)/float64(n*fences), float64(up+down)/float64(n*fences))
}

// drainAgents waits (bounded) until every agent has ended, so that their last
// messages, the statistics, have been read.
func (j *Job) drainAgents() {
	deadline := time.After(2 * time.Second)
	for _, a := range j.agents {
		select {
		case <-a.pmDone:
		case <-deadline:
			return
		}
	}
}
