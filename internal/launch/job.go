package launch

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/wireup"
)

// Spec is what to run.
type Spec struct {
	N         int               // number of ranks
	Program   string            // resolved executable path (see Resolve)
	Args      []string          // arguments for the program
	Env       []string          // extra KEY=VALUE for every rank (-x)
	Settings  map[string]string // mpigo settings given as flags (--set NAME=VALUE)
	TagOutput bool              // prefix each output line with "[rank] "
	Timeout   time.Duration     // end the job after this long (0: never)
	KillGrace time.Duration     // between forwarding a signal and SIGKILL (0: 1s)

	Stdin          *os.File  // for rank 0 (nil: /dev/null)
	Stdout, Stderr io.Writer // nil: os.Stdout, os.Stderr
}

// Exit codes of the launcher itself, beyond those of the ranks.
const (
	ExitUsage   = 2   // bad command line
	ExitTimeout = 124 // --timeout expired (as timeout(1))
)

type rank struct {
	id        int
	cmd       *exec.Cmd
	pid       int
	conn      *os.File
	wmu       sync.Mutex
	hello     bool
	finalized bool
	abort     *abortMsg
	pmDone    chan struct{} // the wire-up reader has seen the end of the connection
	outDone   sync.WaitGroup
}

type event struct {
	rank  int
	state *os.ProcessState // exit
	abort *abortMsg
	err   error
}

type abortMsg struct {
	code int
	msg  string
}

// Job is one run of Spec.
type Job struct {
	spec   Spec
	id     string
	host   string
	lay    *wireup.Layout
	ranks  []*rank
	events chan event
	exited int         // exit events consumed
	killer *time.Timer // SIGKILL after the grace period
	stdout *lineWriter
	stderr *lineWriter

	fmu  sync.Mutex // the fence
	coll *wireup.Collector
}

// Run runs the job to its end and returns the launcher's exit code. Diagnostics go to
// spec.Stderr as single lines starting "mpigo: ".
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
	j := &Job{spec: spec, events: make(chan event, 4*spec.N+4),
		stdout: &lineWriter{w: spec.Stdout}, stderr: &lineWriter{w: spec.Stderr}}
	defer j.cleanup()
	return j.run()
}

func (j *Job) diag(format string, a ...any) {
	j.stderr.write([]byte("mpigo: " + fmt.Sprintf(format, a...) + "\n"))
}

func newJobID() string {
	var b [4]byte
	rand.Read(b[:])
	return strconv.FormatInt(int64(os.Getpid()), 36) + hex.EncodeToString(b[:])
}

func (j *Job) run() int {
	j.id = newJobID()
	j.host, _ = os.Hostname()
	if j.host == "" {
		j.host = "localhost"
	}
	j.lay = &wireup.Layout{NodeOf: make([]int32, j.spec.N), Hosts: []string{j.host}}
	spans := make([]wireup.Span, j.spec.N)
	for r := range spans {
		spans[r] = j.lay.RankSpan(r)
	}
	j.coll = wireup.NewCollector(j.lay, spans)

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	for r := 0; r < j.spec.N; r++ {
		if err := j.start(r); err != nil {
			j.diag("cannot start rank %d (%s): %v", r, j.spec.Program, err)
			j.stopAll(syscall.SIGKILL)
			j.reapAll()
			return 1
		}
	}
	var timeout <-chan time.Time
	if j.spec.Timeout > 0 {
		t := time.NewTimer(j.spec.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	running := j.spec.N
	for running > 0 {
		select {
		case ev := <-j.events:
			r := j.ranks[ev.rank]
			if ev.abort != nil {
				j.diag("rank %d (pid %d, host %s) called Abort with code %d%s; stopping the job",
					ev.rank, r.pid, j.host, ev.abort.code, colonMsg(ev.abort.msg))
				return j.fail(exitCodeOr1(ev.abort.code))
			}
			if ev.err != nil {
				j.diag("rank %d (pid %d, host %s): %v; stopping the job", ev.rank, r.pid, j.host, ev.err)
				return j.fail(1)
			}
			running--
			j.exited++
			// The rank is gone: let its wire-up reader drain what it sent last (an
			// Abort or Finalize) before judging how it ended.
			select {
			case <-r.pmDone:
			case <-time.After(200 * time.Millisecond):
			}
			if ab := j.abortOf(r); ab != nil {
				j.diag("rank %d (pid %d, host %s) called Abort with code %d%s; stopping the job",
					ev.rank, r.pid, j.host, ab.code, colonMsg(ab.msg))
				return j.fail(exitCodeOr1(ab.code))
			}
			if c, why := judge(ev.state, r); c != 0 {
				if running > 0 {
					j.diag("rank %d (pid %d, host %s) %s; stopping the job", ev.rank, r.pid, j.host, why)
				} else {
					j.diag("rank %d (pid %d, host %s) %s", ev.rank, r.pid, j.host, why)
				}
				return j.fail(c)
			}
		case s := <-sigs:
			sig := s.(syscall.Signal)
			j.diag("received %v; forwarding it to %d ranks", sig, running)
			j.stopAll(sig)
			j.reapAll()
			return 128 + int(sig)
		case <-timeout:
			j.diag("job timed out after %v; stopping %d ranks", j.spec.Timeout, running)
			return j.fail(ExitTimeout)
		}
	}
	j.drainOutput()
	return 0
}

func colonMsg(m string) string {
	if m == "" {
		return ""
	}
	return ": " + m
}

func exitCodeOr1(c int) int {
	if c <= 0 || c > 255 {
		return 1
	}
	return c
}

// judge returns the exit code a rank's end gives the job (0: fine) and why.
func judge(st *os.ProcessState, r *rank) (int, string) {
	ws, _ := st.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled():
		return 128 + int(ws.Signal()), fmt.Sprintf("was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	case ws.ExitStatus() != 0:
		return ws.ExitStatus(), fmt.Sprintf("exited with code %d", ws.ExitStatus())
	case r.hello && !r.finalized:
		return 1, "exited with code 0 without calling mpi.Finalize"
	}
	return 0, ""
}

// fail stops the job after a failure and returns code once every rank is gone.
func (j *Job) fail(code int) int {
	j.stopAll(syscall.SIGTERM)
	j.reapAll()
	return code
}

// stopAll sends sig to every rank's process group, then SIGKILL to whatever is left
// after the grace period; it returns at once, reapAll waits.
func (j *Job) stopAll(sig syscall.Signal) {
	for _, r := range j.ranks {
		if r.pid > 0 {
			syscall.Kill(-r.pid, sig)
		}
	}
	if sig == syscall.SIGKILL {
		return
	}
	if j.killer == nil {
		j.killer = time.AfterFunc(j.spec.KillGrace, func() { j.stopAll(syscall.SIGKILL) })
	}
}

// reapAll waits until every started rank has exited (their process groups were
// signalled; SIGKILL follows the grace period), then kills whatever they left behind
// in their process groups.
func (j *Job) reapAll() {
	for j.exited < len(j.ranks) {
		if ev := <-j.events; ev.state != nil {
			j.exited++
		}
	}
	if j.killer != nil {
		j.killer.Stop()
	}
	for _, r := range j.ranks {
		syscall.Kill(-r.pid, syscall.SIGKILL)
	}
	j.drainOutput()
}

// drainOutput waits for the output forwarders, bounded: a background process a rank
// started may hold its pipe open.
func (j *Job) drainOutput() {
	done := make(chan struct{})
	go func() {
		for _, r := range j.ranks {
			r.outDone.Wait()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
}

func (j *Job) abortOf(r *rank) *abortMsg {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	return r.abort
}

// start launches rank r.
func (j *Job) start(r int) error {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
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

	cmd := exec.Command(j.spec.Program, j.spec.Args...)
	cmd.Env = j.env(r)
	cmd.ExtraFiles = []*os.File{theirs} // fd 3
	cmd.Stdout, cmd.Stderr = outW, errW
	if r == 0 && j.spec.Stdin != nil {
		cmd.Stdin = j.spec.Stdin
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		mine.Close()
		outR.Close()
		errR.Close()
		return err
	}
	rk := &rank{id: r, cmd: cmd, pid: cmd.Process.Pid, conn: mine, pmDone: make(chan struct{})}
	j.ranks = append(j.ranks, rk)
	tag := ""
	if j.spec.TagOutput {
		tag = rankTag(r)
	}
	rk.outDone.Add(2)
	go func() { forward(outR, j.stdout, tag); outR.Close(); rk.outDone.Done() }()
	go func() { forward(errR, j.stderr, tag); errR.Close(); rk.outDone.Done() }()
	go j.serve(rk)
	go func() {
		cmd.Wait()
		j.events <- event{rank: r, state: cmd.ProcessState}
	}()
	return nil
}

func (j *Job) env(r int) []string {
	local, nlocal := j.lay.LocalRank(r)
	env := os.Environ()
	env = append(env,
		wireup.EnvRank+"="+strconv.Itoa(r),
		wireup.EnvSize+"="+strconv.Itoa(j.spec.N),
		wireup.EnvLocalRank+"="+strconv.Itoa(local),
		wireup.EnvLocalSize+"="+strconv.Itoa(nlocal),
		wireup.EnvJobID+"="+j.id,
		wireup.EnvNodeMap+"="+j.lay.EncodeNodeMap(),
		wireup.EnvHosts+"="+strings.Join(j.lay.Hosts, ","),
		wireup.EnvFD+"=3",
	)
	if len(j.spec.Settings) > 0 {
		var names []string
		for k, v := range j.spec.Settings {
			env = append(env, config.EnvPrefix+strings.ToUpper(k)+"="+v)
			names = append(names, k)
		}
		env = append(env, config.FlagsVar+"="+strings.Join(names, ","))
	}
	return append(env, j.spec.Env...)
}

// serve reads rank r's wire-up messages until its connection ends.
func (j *Job) serve(r *rank) {
	defer close(r.pmDone)
	var buf []byte
	for {
		typ, body, err := wireup.ReadFrame(r.conn, buf)
		buf = body[:0]
		if err != nil {
			return
		}
		switch typ {
		case wireup.MsgHello:
			pid, _ := binary.Uvarint(body)
			j.fmu.Lock()
			r.hello = true
			if pid != 0 {
				r.pid = int(pid)
			}
			j.fmu.Unlock()
		case wireup.MsgFenceUp:
			j.fence(r, body)
		case wireup.MsgAbort:
			code, n := binary.Varint(body)
			msg := ""
			if n > 0 {
				msg = string(body[n:])
			}
			j.fmu.Lock()
			r.abort = &abortMsg{int(code), msg}
			j.fmu.Unlock()
			j.events <- event{rank: r.id, abort: r.abort}
		case wireup.MsgFinalize:
			j.fmu.Lock()
			r.finalized = true
			j.fmu.Unlock()
		default:
			j.events <- event{rank: r.id, err: fmt.Errorf("sent an unknown wire-up message type %d", typ)}
			return
		}
	}
}

func (j *Job) fence(r *rank, body []byte) {
	j.fmu.Lock()
	done, err := j.coll.Add(r.id, body)
	var msg []byte
	if err == nil && done {
		msg = j.coll.Result()
	}
	j.fmu.Unlock()
	if err != nil {
		j.events <- event{rank: r.id, err: fmt.Errorf("bad fence message: %v", err)}
		return
	}
	if msg == nil {
		return
	}
	for _, q := range j.ranks {
		q.wmu.Lock()
		wireup.WriteFrame(q.conn, wireup.MsgFenceDn, msg)
		q.wmu.Unlock()
	}
}

// cleanup removes what the job may have left: connections and shared-memory files.
func (j *Job) cleanup() {
	for _, r := range j.ranks {
		r.conn.Close()
	}
	if j.id == "" {
		return
	}
	left, _ := filepath.Glob(filepath.Join(ShmDir, "mpigo-"+j.id+"*"))
	for _, f := range left {
		os.Remove(f)
	}
}

// ShmDir is where shared-memory files live; the shm transport names its files
// "mpigo-<jobid>-..." there, so the launcher can remove whatever a killed job left.
var ShmDir = "/dev/shm"
