package pmi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// style is the wording of a fake server: the reply variants of real ones.
type style int

const (
	hydra40 style = iota // rc last, msg=success, bare barrier_out, miss rc=-1 ... value=unknown
	hydra41              // subversion 2, miss rc=1
	slurm                // rc=0 everywhere, appnum=-1, kvsname jobid.step; one read(64)/read(1024) per command; PMI-2 length and body in two writes
)

func (s style) String() string { return [...]string{"hydra40", "hydra41", "slurm"}[s] }

// socketpair returns the two ends of a Unix stream socket pair, as the process
// managers give their ranks. If rawClient, the client end is returned as a file
// descriptor number (for PMI_FD) and the first conn is nil.
func socketpair(t *testing.T, rawClient bool) (net.Conn, int, net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) net.Conn {
		f := os.NewFile(uintptr(fd), "fake")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	srv := conn(fds[1])
	t.Cleanup(func() { srv.Close() })
	if rawClient {
		return nil, fds[0], srv
	}
	cl := conn(fds[0])
	t.Cleanup(func() { cl.Close() })
	return cl, -1, srv
}

// fakeJob is a process manager for size ranks that speaks PMI-1 and PMI-2 in one of
// the styles, with one shared KVS, per-node attributes, and a barrier.
type fakeJob struct {
	t       *testing.T
	st      style
	size    int
	mapping string
	nodeOf  []int32 // from mapping (all on node 0 if none)
	port    bool    // expect port mode's initack

	mu       sync.Mutex
	cond     *sync.Cond
	kvs      map[string]string
	nodeAttr map[int32]map[string]string
	arrived  int
	gen      int
	epochs   []int      // PMI-2 fences each rank made (Hydra style)
	onHold   chan<- int // if set, told the rank whenever the server holds a rank's fence
	aborted  []string
	wg       sync.WaitGroup
}

func newFakeJob(t *testing.T, st style, size int, mapping string) *fakeJob {
	j := &fakeJob{t: t, st: st, size: size, mapping: mapping, kvs: map[string]string{},
		nodeAttr: map[int32]map[string]string{}}
	j.cond = sync.NewCond(&j.mu)
	j.nodeOf = make([]int32, size)
	j.epochs = make([]int, size)
	if mapping != "" {
		n, _, err := ParseMapping(mapping, size)
		if err != nil {
			t.Fatal(err)
		}
		j.nodeOf = n
	}
	return j
}

func (j *fakeJob) kvsname() string {
	if j.st == slurm {
		return "7.0"
	}
	return "kvs_4242_0"
}

// serve answers one rank on conn until it finalizes, aborts or hangs up.
func (j *fakeJob) serve(conn net.Conn, rank int) {
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		defer conn.Close()
		if err := j.session(conn, rank); err != nil && err != io.EOF {
			j.t.Errorf("fake %s server, rank %d: %v", j.st, rank, err)
		}
	}()
}

// serveAccept answers rank on the first connection ln accepts.
func (j *fakeJob) serveAccept(ln net.Listener, rank int) {
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		conn, err := ln.Accept()
		if err != nil {
			j.t.Errorf("fake server: accept: %v", err)
			return
		}
		defer conn.Close()
		if err := j.session(conn, rank); err != nil && err != io.EOF {
			j.t.Errorf("fake %s server, rank %d: %v", j.st, rank, err)
		}
	}()
}

func (j *fakeJob) wait() { j.wg.Wait() }

// readCmd reads one PMI-1 command. In Slurm style it is one read(2) of at most max
// bytes that must hold exactly one whole line, as Slurm's agent assumes.
func (j *fakeJob) readCmd(conn net.Conn, br *bufio.Reader, max int) (string, error) {
	if j.st != slurm {
		line, err := br.ReadString('\n')
		return strings.TrimSuffix(line, "\n"), err
	}
	buf := make([]byte, max)
	n, err := conn.Read(buf)
	if err != nil {
		return "", err
	}
	s := string(buf[:n])
	if !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
		return "", fmt.Errorf("one read(%d) got %q: not exactly one whole command", max, s)
	}
	return strings.TrimSuffix(s, "\n"), nil
}

func (j *fakeJob) session(conn net.Conn, rank int) error {
	br := bufio.NewReader(conn)
	write := func(s string) error { _, err := io.WriteString(conn, s); return err }
	if j.port {
		line, err := j.readCmd(conn, br, 1024)
		if err != nil {
			return err
		}
		if line != "cmd=initack pmiid="+strconv.Itoa(rank) {
			return fmt.Errorf("port mode: got %q, want initack", line)
		}
		// Hydra 4.0's handshake, in one write: the client must keep the leftover.
		if err := write(fmt.Sprintf("cmd=initack\ncmd=set size=%d\ncmd=set rank=%d\ncmd=set debug=0\n", j.size, rank)); err != nil {
			return err
		}
	}
	line, err := j.readCmd(conn, br, 64)
	if err != nil {
		return err
	}
	f := parseFields(line, ' ')
	if cmd, _ := f.get("cmd"); cmd != "init" {
		return fmt.Errorf("first command %q is not init", line)
	}
	switch v, _ := f.get("pmi_version"); v {
	case "1":
		switch j.st {
		case hydra40:
			err = write("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n")
		case hydra41:
			err = write("cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=2\n")
		default:
			err = write("cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n")
		}
		if err != nil {
			return err
		}
		return j.pmi1(conn, br, rank)
	case "2":
		if err := write("cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n"); err != nil {
			return err
		}
		return j.pmi2(conn, br, rank)
	}
	return fmt.Errorf("init %q asks for an unknown version", line)
}

// barrier returns once all ranks have called it.
func (j *fakeJob) barrier(rank int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	g := j.gen
	j.arrived++
	if j.arrived == j.size {
		j.arrived = 0
		j.gen++
		j.cond.Broadcast()
		return
	}
	if j.onHold != nil {
		j.onHold <- rank
	}
	for j.gen == g {
		j.cond.Wait()
	}
}

// epochReached reports whether every rank has made as many fences as rank; j.mu held.
func (j *fakeJob) epochReached(rank int) bool {
	for _, e := range j.epochs {
		if e < j.epochs[rank] {
			return false
		}
	}
	return true
}

func (j *fakeJob) lookup(key string) (string, bool) {
	if key == "PMI_process_mapping" {
		return j.mapping, j.mapping != ""
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	v, ok := j.kvs[key]
	return v, ok
}

func (j *fakeJob) pmi1(conn net.Conn, br *bufio.Reader, rank int) error {
	rc0 := " rc=0"
	if j.st == hydra40 {
		rc0 = ""
	}
	for {
		line, err := j.readCmd(conn, br, 1024)
		if err != nil {
			return err
		}
		f := parseFields(line, ' ')
		cmd, _ := f.get("cmd")
		var reply string
		switch cmd {
		case "get_maxes":
			reply = "cmd=maxes" + rc0 + " kvsname_max=256 keylen_max=64 vallen_max=1024"
		case "get_appnum":
			reply = "cmd=appnum" + rc0 + " appnum=0"
			if j.st == slurm {
				reply = "cmd=appnum rc=0 appnum=-1"
			}
		case "get_my_kvsname":
			reply = "cmd=my_kvsname" + rc0 + " kvsname=" + j.kvsname()
		case "get_universe_size":
			reply = "cmd=universe_size" + rc0 + " size=" + strconv.Itoa(j.size)
		case "put", "get":
			if k, _ := f.get("kvsname"); k != j.kvsname() {
				return fmt.Errorf("%q: kvsname is not %s", line, j.kvsname())
			}
			key, _ := f.get("key")
			if len(key) > 64 {
				return fmt.Errorf("%q: key longer than keylen_max", line)
			}
			if cmd == "put" {
				val, _ := f.get("value")
				if len(val) > 1024 || len(f) != 8 {
					return fmt.Errorf("%q: value too long or has spaces", line)
				}
				j.mu.Lock()
				j.kvs[key] = val
				j.mu.Unlock()
				reply = "cmd=put_result rc=0"
				if j.st == hydra40 {
					reply += " msg=success"
				}
				break
			}
			v, ok := j.lookup(key)
			switch {
			case ok && j.st == hydra40:
				reply = "cmd=get_result rc=0 msg=success value=" + v
			case ok:
				reply = "cmd=get_result rc=0 value=" + v
			case j.st == hydra40:
				reply = "cmd=get_result rc=-1 msg=key_" + key + "_not_found value=unknown"
			case j.st == hydra41:
				reply = "cmd=get_result rc=1 msg=key_" + key + "_not_found"
			default:
				reply = "cmd=get_result rc=1"
			}
		case "barrier_in":
			j.barrier(rank)
			reply = "cmd=barrier_out" + rc0
		case "finalize":
			reply = "cmd=finalize_ack" + rc0
			io.WriteString(conn, reply+"\n")
			return nil
		case "abort":
			j.mu.Lock()
			j.aborted = append(j.aborted, line)
			j.mu.Unlock()
			return nil
		default:
			return fmt.Errorf("unknown command %q", line)
		}
		if _, err := io.WriteString(conn, reply+"\n"); err != nil {
			return err
		}
	}
}

func (j *fakeJob) pmi2(conn net.Conn, br *bufio.Reader, rank int) error {
	send := func(body string) error {
		if j.st == slurm { // Slurm: "%-6d", length and body in two writes
			if _, err := fmt.Fprintf(conn, "%-6d", len(body)); err != nil {
				return err
			}
			_, err := io.WriteString(conn, body)
			return err
		}
		_, err := fmt.Fprintf(conn, "%6d%s", len(body), body) // MPICH: "%6u", one write
		return err
	}
	node := j.nodeOf[rank]
	for {
		head := make([]byte, 6)
		if _, err := io.ReadFull(br, head); err != nil {
			return err
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(head)))
		if err != nil {
			return fmt.Errorf("bad length field %q", head)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return err
		}
		text := string(body)
		if !strings.HasSuffix(text, ";") {
			return fmt.Errorf("command %q does not end in ';'", text)
		}
		f := parseFields(text, ';')
		cmd, _ := f.get("cmd")
		key, _ := f.get("key")
		val, _ := f.get("value")
		var reply string
		switch cmd {
		case "fullinit":
			r, _ := f.get("pmirank")
			_, hasJob := f.get("pmijobid")
			_, hasThr := f.get("threaded")
			if r != strconv.Itoa(rank) || j.st == slurm && (!hasJob || !hasThr) {
				reply = "cmd=fullinit-response;rc=3;"
				break
			}
			reply = fmt.Sprintf("cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=%d;size=%d;appnum=-1;debugged=FALSE;pmiverbose=FALSE;", rank, j.size)
		case "job-getid":
			reply = "cmd=job-getid-response;rc=0;jobid=" + j.kvsname() + ";"
		case "info-getjobattr":
			if key == "universeSize" {
				reply = "cmd=info-getjobattr-response;rc=0;found=TRUE;value=" + strconv.Itoa(j.size) + ";"
			} else if v, ok := j.lookup(key); ok && key == "PMI_process_mapping" {
				reply = "cmd=info-getjobattr-response;rc=0;found=TRUE;value=" + v + ";"
			} else {
				reply = "cmd=info-getjobattr-response;rc=0;found=FALSE;"
			}
		case "kvs-put":
			j.mu.Lock()
			j.kvs[key] = val
			j.cond.Broadcast()
			j.mu.Unlock()
			reply = "cmd=kvs-put-response;rc=0;"
		case "kvs-fence":
			if j.st == slurm {
				j.barrier(rank)
			} else {
				// Hydra: the fence answers at once; gets wait for the epoch instead.
				j.mu.Lock()
				j.epochs[rank]++
				j.cond.Broadcast()
				j.mu.Unlock()
			}
			reply = "cmd=kvs-fence-response;rc=0;"
		case "kvs-get":
			v, ok := j.lookup(key)
			if !ok && j.st != slurm {
				// Hydra holds a get of a missing key until every rank has reached
				// the getter's epoch.
				j.mu.Lock()
				for held := false; ; held = true {
					if v, ok = j.kvs[key]; ok || j.epochReached(rank) {
						break
					}
					if !held && j.onHold != nil {
						j.onHold <- rank
					}
					j.cond.Wait()
				}
				j.mu.Unlock()
			}
			if ok {
				reply = "cmd=kvs-get-response;rc=0;found=TRUE;value=" + v + ";"
			} else {
				reply = "cmd=kvs-get-response;rc=0;found=FALSE;"
			}
		case "info-putnodeattr":
			j.mu.Lock()
			if j.nodeAttr[node] == nil {
				j.nodeAttr[node] = map[string]string{}
			}
			j.nodeAttr[node][key] = val
			j.mu.Unlock()
			reply = "cmd=info-putnodeattr-response;rc=0;"
		case "info-getnodeattr":
			j.mu.Lock()
			v, ok := j.nodeAttr[node][key]
			j.mu.Unlock()
			if ok {
				reply = "cmd=info-getnodeattr-response;rc=0;found=TRUE;value=" + v + ";"
			} else {
				reply = "cmd=info-getnodeattr-response;rc=0;found=FALSE;"
			}
		case "finalize":
			return send("cmd=finalize-response;rc=0;")
		case "abort":
			j.mu.Lock()
			j.aborted = append(j.aborted, text)
			j.mu.Unlock()
			return nil
		default:
			return fmt.Errorf("unknown command %q", text)
		}
		if err := send(reply); err != nil {
			return err
		}
	}
}
