package launch

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mpigo/mpigo/internal/wireup"
)

// The launcher reaches other machines through agents: one `mpigo agent` per host,
// started by the launch agent command (ssh by default, --launch-agent for anything
// else: a container exec, srun, ip netns exec). Agents start agents in a tree, so the
// launch takes log(hosts) steps. Each agent starts its host's ranks, forwards their
// output, exits and aborts up the tree, and collects the fence for its subtree, so that
// node-scoped data crosses the network once per node (seeds 001, 002). The channel is
// the agent's standard input and output: nothing listens, nothing needs cleaning.

// span lists the ranks and nodes of a set of nodes, ascending.
func spanOf(lay *wireup.Layout, nodes []int) wireup.Span {
	in := make(map[int32]bool, len(nodes))
	sp := wireup.Span{}
	for _, n := range nodes {
		in[int32(n)] = true
		sp.Nodes = append(sp.Nodes, int32(n))
	}
	for r, n := range lay.NodeOf {
		if in[n] {
			sp.Ranks = append(sp.Ranks, int32(r))
		}
	}
	return sp
}

// mapApps returns the host of every rank, as indices into hosts: the job's hosts,
// with the hosts of applications that name their own (a spawn's host key) added.
// An application without hosts of its own is mapped with the others on the job's
// hosts; one with hosts of its own is placed on them alone, by slot, and may
// oversubscribe them (as --host places a spawn's processes where it says).
func mapApps(spec *Spec) (nodeOf []int32, hosts []Host, err error) {
	hosts = append(hosts, spec.Hosts...)
	index := func(name string) int32 {
		for i, h := range hosts {
			if h.Name == name {
				return int32(i)
			}
		}
		hosts = append(hosts, Host{Name: name, Slots: 1})
		return int32(len(hosts) - 1)
	}
	shared := 0
	for _, a := range spec.Apps {
		if a.Hosts == nil {
			shared += a.N
		}
	}
	var onShared []int32
	if shared > 0 {
		if onShared, err = Map(shared, spec.Hosts, spec.Mapping); err != nil {
			return nil, nil, err
		}
	}
	for _, a := range spec.Apps {
		if a.Hosts == nil {
			nodeOf, onShared = append(nodeOf, onShared[:a.N]...), onShared[a.N:]
			continue
		}
		own, err := Map(a.N, a.Hosts, Mapping{Oversubscribe: true})
		if err != nil {
			return nil, nil, err
		}
		for _, h := range own {
			nodeOf = append(nodeOf, index(a.Hosts[h].Name))
		}
	}
	return nodeOf, hosts, nil
}

// startAgents maps the ranks on the hosts and starts the top of the agent tree. An
// error with usage true is the user's (the mapping), else a host could not be reached.
func (j *Job) startAgents() (usage bool, err error) {
	nodeOf, hostList, err := mapApps(j.spec)
	if err != nil {
		return true, err
	}
	// Only hosts that got ranks become nodes; node ids are dense.
	id := make([]int32, len(hostList))
	for i := range id {
		id[i] = -1
	}
	j.lay = &wireup.Layout{NodeOf: make([]int32, len(nodeOf))}
	for r, h := range nodeOf {
		if id[h] < 0 {
			id[h] = int32(len(j.lay.Hosts))
			j.lay.Hosts = append(j.lay.Hosts, hostList[h].Name)
		}
		j.lay.NodeOf[r] = id[h]
	}
	if j.spec.Fanout <= 0 {
		j.spec.Fanout = 32
	}
	if len(j.spec.Agent) == 0 {
		j.spec.Agent = []string{"ssh"}
	}
	if j.spec.AgentPath == "" {
		j.spec.AgentPath, _ = os.Executable()
	}
	hosts := j.lay.NumNodes()
	tops := treeChildren(-1, hosts, j.spec.Fanout)
	spans := make([]wireup.Span, len(tops))
	for i, h := range tops {
		spans[i] = spanOf(j.lay, subtree(h, hosts, j.spec.Fanout))
	}
	j.coll = wireup.NewCollector(j.lay, spans)
	j.done = (*wireup.Collector).Result
	spec := agentSpec{JobID: j.id, Apps: j.spec.Apps, Env: j.spec.Env,
		Settings: j.spec.Settings, NodeMap: j.lay.EncodeNodeMap(), Hosts: j.lay.Hosts,
		Fanout: j.spec.Fanout, Agent: j.spec.Agent, AgentPath: j.spec.AgentPath, KillGrace: int64(j.spec.KillGrace),
		Universe: j.universe, ParentPort: j.parentPort}
	for i, h := range tops {
		if err := j.startAgent(i, h, spec, spans[i]); err != nil {
			return false, fmt.Errorf("cannot reach host %s: %v", j.lay.Hosts[h], err)
		}
	}
	return false, nil
}

// startAgent starts the agent of host h as child idx, covering span.
func (n *node) startAgent(idx, h int, spec agentSpec, span wireup.Span) error {
	argv := append(append([]string{}, spec.Agent...), n.lay.Hosts[h], spec.AgentPath, "agent")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = n.stderr.w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	c := &child{idx: idx, conn: pipeConn{out, in}, cmd: cmd, pid: cmd.Process.Pid, rank: -1, host: h,
		pmDone: make(chan struct{})}
	c.spanRanks = span.Ranks
	n.children = append(n.children, c)
	n.agents = append(n.agents, c)
	// Serve before writing: an agent that dies at once must still be reported gone, or
	// the launcher would wait for it forever.
	go n.serveAgent(c)
	spec.Host = h
	if err := writeJSON(c.conn, msgSpec, spec); err != nil {
		return fmt.Errorf("%q ended before the agent took the job (is mpigo installed as %s there?)",
			strings.Join(argv, " "), spec.AgentPath)
	}
	return nil
}

type pipeConn struct {
	io.Reader
	io.WriteCloser
}

// serveAgent turns an agent's messages into events (or passes them on, in an agent).
func (n *node) serveAgent(c *child) {
	defer func() {
		c.cmd.Wait()
		close(c.pmDone)
		n.emit(event{rank: -1, host: c.host, lost: c})
	}()
	var buf []byte
	var scratch []byte
	for {
		typ, body, err := wireup.ReadFrame(c.conn, buf)
		buf = body[:0]
		if err != nil {
			return
		}
		if typ == msgAbort {
			n.fmu.Lock()
			c.aborted = true
			n.fmu.Unlock()
		}
		if n.relay != nil && typ != wireup.MsgFenceUp {
			n.relay(typ, body) // an agent passes its subtree's news up as it came
			if typ == msgExit {
				if v, _, err := uvarints(body, 1); err == nil {
					n.markFinished(int(v[0]))
				}
			}
			continue
		}
		switch typ {
		case wireup.MsgFenceUp:
			n.fence(c, body)
		case msgOutput:
			v, rest, err := uvarints(body, 2)
			if err != nil {
				break
			}
			lw := n.stdout
			if v[1] == 2 {
				lw = n.stderr
			}
			scratch = lw.writeTagged(n.tag(int(v[0])), rest, scratch)
		case msgExit:
			v, rest, err := uvarints(body, 3)
			if err != nil || len(rest) < 1 {
				break
			}
			r := int(v[0])
			n.emit(event{rank: r, pid: int(v[1]), host: int(n.lay.NodeOf[r]), exited: true,
				status: syscall.WaitStatus(v[2]), hello: rest[0]&1 != 0, finalized: rest[0]&2 != 0, crash: string(rest[1:])})
		case msgAbort:
			v, rest, err := uvarints(body, 2)
			if err != nil {
				break
			}
			ab, ok := parseAbort(rest)
			if !ok {
				break
			}
			r := int(v[0])
			n.emit(event{rank: r, pid: int(v[1]), host: int(n.lay.NodeOf[r]), abort: ab})
		case msgFailure:
			n.emit(event{rank: -1, host: c.host, failure: string(body)})
		case msgStarted:
			if v, rest, err := uvarints(body, 1); err == nil {
				n.emit(event{rank: -1, host: c.host, started: &startNews{node: int(v[0]), err: string(rest)}})
			}
		case msgRank:
			if v, rest, err := uvarints(body, 2); err == nil {
				if byte(v[1]) == wireup.MsgRequest {
					r := v[0]
					n.request(int(r), rest, func(b []byte) { c.write(msgAnswer, append(appendUvarints(nil, r), b...)) })
					break
				}
				n.answered(int(v[0]), byte(v[1]), rest)
			}
		case msgAsked:
			n.agentAsked(body)
		case msgStats:
			if v, _, err := uvarints(body, 4); err == nil {
				n.fmu.Lock()
				n.stats = append(n.stats, agentStats{int64(v[0]), int64(v[1]), int64(v[2]), int64(v[3])})
				n.fmu.Unlock()
			}
		}
	}
}

// RunAgent is `mpigo agent`: it reads its part of the job from in, runs it, and
// reports on out until its ranks and its child agents are done. It returns the exit code.
func RunAgent(in io.Reader, out io.Writer) int {
	spec, err := readSpec(in)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpigo agent: %v\n", err)
		return 1
	}
	lay, err := wireup.ParseLayout(spec.NodeMap, strings.Join(spec.Hosts, ","))
	if err != nil {
		fmt.Fprintf(os.Stderr, "mpigo agent: %v\n", err)
		return 1
	}
	parent := &child{conn: pipeConn{in, nopCloser{out}}, rank: -1}
	a := &node{
		spec: &Spec{Apps: spec.Apps, Env: spec.Env, Settings: spec.Settings,
			KillGrace: time.Duration(spec.KillGrace)},
		id:         spec.JobID,
		lay:        lay,
		universe:   spec.Universe,
		parentPort: spec.ParentPort,
		events:     make(chan event, 4*lay.Size()+16),
		stderr:     &lineWriter{w: os.Stderr},
	}
	a.stdout = a.stderr
	a.spec.normalize()
	a.relay = func(typ byte, body []byte) { parent.write(typ, body) }
	// A local rank's answer or report goes up with its rank (the launcher keeps them).
	a.rankNews = func(rank int, typ byte, body []byte) {
		parent.write(msgRank, append(appendUvarints(nil, uint64(rank), uint64(typ)), body...))
	}
	defer a.cleanup()

	// The subtree's layout: its ranks and nodes renumbered from 0 in container order, so
	// what this agent sends up is exactly the subtree's part of the job.
	hosts, k := lay.NumNodes(), spec.Fanout
	nodes := subtree(spec.Host, hosts, k)
	whole := spanOf(lay, nodes)
	pos := make(map[int32]int, len(whole.Ranks))
	npos := make(map[int32]int32, len(nodes))
	sub := &wireup.Layout{NodeOf: make([]int32, len(whole.Ranks))}
	for i, nd := range whole.Nodes {
		npos[nd] = int32(i)
		sub.Hosts = append(sub.Hosts, lay.Hosts[nd])
	}
	for i, r := range whole.Ranks {
		pos[r] = i
		sub.NodeOf[i] = npos[lay.NodeOf[r]]
	}
	relabel := func(sp wireup.Span) wireup.Span {
		out := wireup.Span{}
		for _, r := range sp.Ranks {
			out.Ranks = append(out.Ranks, int32(pos[r]))
		}
		for _, nd := range sp.Nodes {
			out.Nodes = append(out.Nodes, npos[nd])
		}
		return out
	}
	var spans []wireup.Span
	local := spanOf(lay, []int{spec.Host})
	for _, r := range local.Ranks {
		spans = append(spans, relabel(lay.RankSpan(int(r))))
	}
	kids := treeChildren(spec.Host, hosts, k)
	kidSpans := make([]wireup.Span, len(kids))
	for i, h := range kids {
		kidSpans[i] = spanOf(lay, subtree(h, hosts, k))
		spans = append(spans, relabel(kidSpans[i]))
	}
	a.coll = wireup.NewCollector(sub, spans)
	a.done = func(c *wireup.Collector) []byte { return c.Up(sub.All()) }
	a.up = func(msg []byte) { parent.write(wireup.MsgFenceUp, msg) }
	a.finishedSet = map[int]bool{}

	fail := func(format string, args ...any) {
		parent.write(msgFailure, []byte(fmt.Sprintf("host %s: ", lay.Hosts[spec.Host])+fmt.Sprintf(format, args...)))
	}
	// A spawned job's agents say whether their ranks started (msgStarted): the
	// spawn's answer waits for every host's word, and a start that failed is an error
	// of the spawn's processes, not the end of the run.
	spawned := spec.ParentPort != ""
	startFailed := func(format string, args ...any) int {
		if spawned {
			msg := fmt.Sprintf("host %s: ", lay.Hosts[spec.Host]) + fmt.Sprintf(format, args...)
			parent.write(msgStarted, append(appendUvarints(nil, uint64(spec.Host)), msg...))
		} else {
			fail(format, args...)
		}
		a.signalAll(syscall.SIGKILL)
		return 1
	}
	for i, r := range local.Ranks {
		ow := &lineWriter{w: &frameWriter{parent, int(r), 1}}
		ew := &lineWriter{w: &frameWriter{parent, int(r), 2}}
		if err := a.startRank(int(r), i, ow, ew, ""); err != nil {
			return startFailed("cannot start rank %d (%s): %v", r, a.spec.Apps[a.spec.appOf(int(r))].Program, err)
		}
	}
	if spawned {
		parent.write(msgStarted, appendUvarints(nil, uint64(spec.Host)))
	}
	for i, h := range kids {
		if err := a.startAgent(len(local.Ranks)+i, h, *spec, kidSpans[i]); err != nil {
			return startFailed("cannot start the agent for host %s: %v", lay.Hosts[h], err)
		}
	}

	// Orders from the parent. Its end means the launcher is gone: end everything.
	go func() {
		var buf []byte
		for {
			typ, body, err := wireup.ReadFrame(in, buf)
			buf = body[:0]
			if err != nil {
				a.signalAll(syscall.SIGKILL)
				return
			}
			switch typ {
			case wireup.MsgFenceDn:
				a.down(body)
			case msgSignal:
				if v, _, err := uvarints(body, 1); err == nil {
					a.signalAll(syscall.Signal(v[0]))
				}
			case msgAnswer:
				a.passAnswer(body)
			case msgQuery:
				// Ask this host's ranks and pass the question down; say whom.
				asked := appendUvarints(nil, uint64(spec.Host))
				for _, r := range a.askRanks() {
					asked = appendUvarints(asked, uint64(r))
				}
				for _, c := range a.agents {
					c.write(msgQuery, nil)
				}
				parent.write(msgAsked, asked)
			}
		}
	}()

	ranksLeft, agentsLeft := len(local.Ranks), len(kids)
	for ranksLeft > 0 || agentsLeft > 0 {
		ev := <-a.events
		switch {
		case ev.exited:
			ranksLeft--
			a.markFinished(ev.rank)
			flags := byte(0)
			if ev.hello {
				flags |= 1
			}
			if ev.finalized {
				flags |= 2
			}
			parent.write(msgExit, append(append(appendUvarints(nil, uint64(ev.rank), uint64(ev.pid), uint64(ev.status)), flags), ev.crash...))
		case ev.abort != nil:
			parent.write(msgAbort, appendAbort(appendUvarints(nil, uint64(ev.rank), uint64(ev.pid)), ev.abort))
		case ev.err != nil:
			fail("rank %d (pid %d): %v", ev.rank, ev.pid, ev.err)
		case ev.lost != nil:
			agentsLeft--
			if !a.allFinished(ev.lost.spanRanks) {
				fail("lost the agent on host %s (%v) with ranks still running", lay.Hosts[ev.lost.host], exitOf(ev.lost))
			}
		}
	}
	a.drainOutput()
	a.fmu.Lock()
	stats := appendUvarints(nil, uint64(spec.Host), uint64(a.fences), uint64(a.upBytes), uint64(a.downBytes))
	a.fmu.Unlock()
	parent.write(msgStats, stats)
	return 0
}

// passAnswer delivers an answer to a rank's request (msgAnswer: rank, then the
// wireup.MsgAnswer body) to the rank, if it is local, else to the child agent whose
// subtree has it.
func (n *node) passAnswer(body []byte) {
	v, rest, err := uvarints(body, 1)
	if err != nil {
		return
	}
	r := int32(v[0])
	for _, c := range n.ranks {
		if int32(c.rank) == r {
			c.write(wireup.MsgAnswer, rest)
			return
		}
	}
	for _, c := range n.agents {
		if slices.Contains(c.spanRanks, r) {
			c.write(msgAnswer, body)
			return
		}
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// frameWriter sends a local rank's output up as frames of whole lines.
type frameWriter struct {
	p      *child
	rank   int
	stream byte
}

func (f *frameWriter) Write(b []byte) (int, error) {
	msg := appendUvarints(make([]byte, 0, len(b)+8), uint64(f.rank), uint64(f.stream))
	if err := f.p.write(msgOutput, append(msg, b...)); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (n *node) markFinished(r int) {
	n.fmu.Lock()
	if n.finishedSet != nil {
		n.finishedSet[r] = true
	}
	n.fmu.Unlock()
}

func (n *node) allFinished(ranks []int32) bool {
	n.fmu.Lock()
	defer n.fmu.Unlock()
	for _, r := range ranks {
		if !n.finishedSet[int(r)] {
			return false
		}
	}
	return true
}
