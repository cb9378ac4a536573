package pmi

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/pm"
)

var testOpts = Options{Timeout: 10 * time.Second, FenceTimeout: 10 * time.Second}

// TestFakeJobs runs whole jobs of ranks against fake servers in each dialect's styles.
func TestFakeJobs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		st      style
		version int
		port    bool
		mapping string
		size    int
		nodes   int
	}{
		{"hydra40-pmi1", hydra40, 1, false, "(vector,(0,2,2))", 3, 2},
		{"hydra41-pmi1", hydra41, 1, false, "(vector,(0,1,3))", 3, 1},
		{"slurm-pmi1", slurm, 1, false, "(vector,(0,2,1))", 4, 2},
		{"hydra40-pmi1-port", hydra40, 1, true, "(vector,(0,2,2))", 4, 2},
		{"hydra40-pmi1-no-mapping", hydra40, 1, false, "", 3, 1},
		{"hydra-pmi2", hydra41, 2, false, "(vector,(0,2,2))", 3, 2},
		{"slurm-pmi2", slurm, 2, false, "(vector,(0,2,1),(0,2,1))", 4, 2},
		{"slurm-pmi2-no-mapping", slurm, 2, false, "", 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := newFakeJob(t, tc.st, tc.size, tc.mapping)
			j.port = tc.port
			var wg sync.WaitGroup
			errs := make([]error, tc.size)
			for r := 0; r < tc.size; r++ {
				cl, _, srv := socketpair(t, false)
				j.serve(srv, r)
				env := Env{Rank: r, Size: tc.size}
				if tc.st == slurm {
					env.JobID = "7.0"
				}
				if tc.port {
					env = Env{Rank: -1, Size: -1, PortID: strconv.Itoa(r)}
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					o := testOpts
					o.Version = tc.version
					c, err := Start(cl, o, env)
					if err == nil {
						err = checkLayout(c, r, tc.size, tc.nodes, j.nodeOf)
					}
					if err == nil {
						err = checkJobInfo(c, tc.size, tc.version == 1 && tc.st != slurm)
					}
					if err == nil {
						err = exercise(c)
					}
					if err == nil {
						err = c.Finalize()
					}
					errs[r] = err
				}()
			}
			wg.Wait()
			j.wait()
			for r, err := range errs {
				if err != nil {
					t.Errorf("rank %d: %v", r, err)
				}
			}
		})
	}
}

// checkJobInfo checks what the client says of the job beyond its ranks: the fake
// servers give the job's size as its universe size, and an appnum of 0 (Hydra's
// PMI-1) or -1 (Slurm, and every fake PMI-2 server), which is no appnum.
func checkJobInfo(c *Client, size int, hasAppnum bool) error {
	var ji pm.JobInfo = c
	if n, ok := ji.UniverseSize(); !ok || n != size {
		return fmt.Errorf("UniverseSize() = %d, %v; want %d, true", n, ok, size)
	}
	if n, ok := ji.AppNum(); ok != hasAppnum || ok && n != 0 {
		return fmt.Errorf("AppNum() = %d, %v; want 0, %v", n, ok, hasAppnum)
	}
	if p := ji.ParentPort(); p != "" {
		return fmt.Errorf("ParentPort() = %q; want none under PMI", p)
	}
	if _, ok := ji.(pm.Spawner); ok {
		return fmt.Errorf("the PMI client claims to spawn")
	}
	if _, ok := ji.(pm.NameService); ok {
		return fmt.Errorf("the PMI client claims a name service")
	}
	return nil
}

func checkLayout(c *Client, rank, size, nodes int, nodeOf []int32) error {
	if c.Rank() != rank || c.Size() != size || c.NumNodes() != nodes {
		return fmt.Errorf("rank %d of %d on %d nodes; want %d of %d on %d", c.Rank(), c.Size(), c.NumNodes(), rank, size, nodes)
	}
	local, nlocal := 0, 0
	for r := 0; r < size; r++ {
		if c.NodeOf(r) != int(nodeOf[r]) {
			return fmt.Errorf("NodeOf(%d) = %d; want %d", r, c.NodeOf(r), nodeOf[r])
		}
		if nodeOf[r] == nodeOf[rank] {
			if r < rank {
				local++
			}
			nlocal++
		}
	}
	if c.LocalRank() != local || c.LocalSize() != nlocal {
		return fmt.Errorf("local rank %d of %d; want %d of %d", c.LocalRank(), c.LocalSize(), local, nlocal)
	}
	return nil
}

// pmi1Intro is a PMI-1 server's answers to the client's start-up, in Hydra 4.0's words.
var pmi1Intro = []step{
	{"cmd=init pmi_version=1 pmi_subversion=1", "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"},
	{"cmd=get_maxes", "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n"},
	{"cmd=get_appnum", "cmd=appnum appnum=0\n"},
	{"cmd=get_my_kvsname", "cmd=my_kvsname kvsname=kvs_1_0\n"},
	{"cmd=get_universe_size", "cmd=universe_size size=-1\n"},
	{"cmd=get kvsname=kvs_1_0 key=PMI_process_mapping", "cmd=get_result rc=0 msg=success value=(vector,(0,1,1))\n"},
}

var pmi2Intro = []step{
	{"cmd=init pmi_version=2 pmi_subversion=0", "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n"},
	{"cmd=fullinit;pmirank=0;threaded=FALSE;", frame2("cmd=fullinit-response;rc=0;rank=0;size=1;")},
	{"cmd=job-getid;", frame2("cmd=job-getid-response;rc=0;jobid=j1;")},
	{"cmd=info-getjobattr;key=PMI_process_mapping;", frame2("cmd=info-getjobattr-response;rc=0;found=FALSE;")},
}

const pmi2FenceGet = "cmd=kvs-get;jobid=j1;srcid=-1;key=mpigo-fence;"

func frame2(body string) string { return fmt.Sprintf("%-6d%s", len(body), body) }

// step is one request a scripted server expects and its raw answer ("" for none:
// the server then stops answering; "close" hangs up).
type step struct{ want, reply string }

// scripted serves steps in order on conn; after the last it keeps the connection open
// and silent until the test ends.
func scripted(t *testing.T, srv net.Conn, steps []step) {
	done := make(chan struct{})
	t.Cleanup(func() { srv.Close(); <-done })
	go func() {
		defer close(done)
		br := bufio.NewReader(srv)
		for _, s := range steps {
			var got string
			if strings.HasPrefix(s.want, "cmd=init") || !strings.Contains(s.want, ";") {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				got = strings.TrimSuffix(line, "\n")
			} else {
				head := make([]byte, 6)
				if _, err := ioReadFull(br, head); err != nil {
					return
				}
				n, _ := strconv.Atoi(strings.TrimSpace(string(head)))
				body := make([]byte, n)
				if _, err := ioReadFull(br, body); err != nil {
					return
				}
				got = string(body)
			}
			if got != s.want {
				t.Errorf("scripted server: got %q, want %q", got, s.want)
				return
			}
			switch s.reply {
			case "":
				return
			case "close":
				srv.Close()
				return
			}
			srv.Write([]byte(s.reply))
		}
		// Keep reading so the client's writes never block; stop at Cleanup's Close.
		buf := make([]byte, 4096)
		for {
			if _, err := br.Read(buf); err != nil {
				return
			}
		}
	}()
}

func ioReadFull(br *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := br.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func concat(s ...[]step) []step {
	var out []step
	for _, x := range s {
		out = append(out, x...)
	}
	return out
}

// TestServerErrors checks that every kind of failure ends in an error that says what
// was wrong, within the deadline, never a hang.
func TestServerErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version int
		steps   []step
		act     func(*Client) error // after a successful Start; nil: Start must fail
		want    string
	}{
		{"closed at start", 1, []step{pmi1Intro[0], {"cmd=get_maxes", "close"}}, nil,
			"closed the connection while cmd=get_maxes"},
		{"silent at start", 1, []step{pmi1Intro[0], {"cmd=get_maxes", ""}}, nil,
			"no answer to cmd=get_maxes within 200ms"},
		{"wrong reply", 1, []step{pmi1Intro[0], {"cmd=get_maxes", "cmd=appnum appnum=0\n"}}, nil,
			`server answered "cmd=appnum appnum=0" to cmd=get_maxes; expected cmd=maxes`},
		{"init refused", 1, []step{{pmi1Intro[0].want, "cmd=response_to_init rc=1 msg=no\n"}}, nil,
			"server answered cmd=response_to_init rc=1 msg=no to init"},
		{"init answers version 2", 1, []step{{pmi1Intro[0].want, "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n"}}, nil,
			"it speaks PMI version 2"},
		{"rc not a number", 1, []step{pmi1Intro[0], {"cmd=get_maxes", "cmd=maxes rc=zero\n"}}, nil,
			`rc="zero" is not a number`},
		{"kvsname missing", 1, concat(pmi1Intro[:3], []step{{"cmd=get_my_kvsname", "cmd=my_kvsname rc=0\n"}}), nil,
			"without a kvsname"},
		{"bad mapping", 1, concat(pmi1Intro[:5], []step{{pmi1Intro[5].want, "cmd=get_result rc=0 value=(vector,(0,1))\n"}}), nil,
			`PMI_process_mapping "(vector,(0,1))"`},
		{"put refused", 1, concat(pmi1Intro, []step{{"cmd=put kvsname=kvs_1_0 key=mpigo-tcp-0 value=x61", "cmd=put_result rc=1 msg=duplicate_key\n"}}),
			func(c *Client) error { c.Put(pm.Proc, pm.KeyTCP, []byte("a")); return c.Fence() },
			"server answered cmd=put_result rc=1 msg=duplicate_key for key mpigo-tcp-0 (putting proc tcp)"},
		{"barrier never ends", 1, concat(pmi1Intro, []step{{"cmd=barrier_in", ""}}),
			func(c *Client) error { return c.Fence() }, "no answer to cmd=barrier_in within 200ms"},
		{"barrier fails", 1, concat(pmi1Intro, []step{{"cmd=barrier_in", "cmd=barrier_out rc=1 msg=failed_to_send_temp_kvs\n"}}),
			func(c *Client) error { return c.Fence() }, "server answered cmd=barrier_out rc=1 msg=failed_to_send_temp_kvs to barrier_in"},
		{"get breaks", 1, concat(pmi1Intro, []step{{"cmd=barrier_in", "cmd=barrier_out\n"}, {"cmd=get kvsname=kvs_1_0 key=mpigo-tcp-j", "close"}}),
			func(c *Client) error {
				if err := c.Fence(); err != nil {
					return err
				}
				if _, ok := c.Get(pm.Job, pm.KeyTCP, 0); ok {
					return fmt.Errorf("Get on a broken connection found a value")
				}
				return c.Err()
			}, "closed the connection while cmd=get for key mpigo-tcp-j"},
		{"not mpigo's value", 1, concat(pmi1Intro, []step{{"cmd=barrier_in", "cmd=barrier_out\n"}, {"cmd=get kvsname=kvs_1_0 key=mpigo-tcp-j", "cmd=get_result rc=0 value=zz\n"}}),
			func(c *Client) error {
				c.Fence()
				c.Get(pm.Job, pm.KeyTCP, 0)
				return c.Err()
			}, "value of key mpigo-tcp-j is not mpigo's encoding"},
		{"pmi2 refused", 2, []step{{pmi2Intro[0].want, "cmd=response_to_init rc=1 pmi_version=1 pmi_subversion=1\n"}}, nil,
			"it does not take PMI-2"},
		{"pmi2 bad length", 2, concat(pmi2Intro[:1], []step{{pmi2Intro[1].want, "12x   cmd=fullinit-response;"}}), nil,
			`bad PMI-2 length field "12x   "`},
		{"pmi2 fullinit refused", 2, concat(pmi2Intro[:1], []step{{pmi2Intro[1].want, frame2("cmd=fullinit-response;rc=3;")}}), nil,
			"server answered cmd=fullinit-response rc=3 to fullinit"},
		{"pmi2 put refused", 2, concat(pmi2Intro, []step{{"cmd=kvs-put;key=mpigo-shm-0;value=x00;", frame2("cmd=kvs-put-response;rc=1;errmsg=full;")}}),
			func(c *Client) error { c.Put(pm.Proc, pm.KeyShm, []byte{0}); return c.Fence() },
			"server answered cmd=kvs-put-response rc=1 errmsg=full to kvs-put for key mpigo-shm-0"},
		{"pmi2 fence never ends", 2, concat(pmi2Intro, []step{{"cmd=kvs-fence;", ""}}),
			func(c *Client) error { return c.Fence() }, "no answer to kvs-fence within 200ms"},
		{"pmi2 fence's wait never ends", 2, concat(pmi2Intro, []step{
			{"cmd=kvs-fence;", frame2("cmd=kvs-fence-response;rc=0;")}, {pmi2FenceGet, ""}}),
			func(c *Client) error { return c.Fence() }, "no answer to kvs-get for key mpigo-fence within 200ms"},
		{"pmi2 fence key exists", 2, concat(pmi2Intro, []step{
			{"cmd=kvs-fence;", frame2("cmd=kvs-fence-response;rc=0;")},
			{pmi2FenceGet, frame2("cmd=kvs-get-response;rc=0;found=TRUE;value=1;")}}),
			func(c *Client) error { return c.Fence() }, "has a value for mpigo-fence, which nobody puts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, _, srv := socketpair(t, false)
			steps := tc.steps
			if tc.version == 2 && tc.act != nil {
				// No mapping: the client exchanges host names (one rank) before act.
				steps = concat(steps[:len(pmi2Intro)], []step{
					{"cmd=kvs-put;key=mpigo-host-0;value=x" + hexHost(t) + ";", frame2("cmd=kvs-put-response;rc=0;")},
					{"cmd=kvs-fence;", frame2("cmd=kvs-fence-response;rc=0;")},
					{pmi2FenceGet, frame2("cmd=kvs-get-response;rc=0;found=FALSE;")},
					{"cmd=kvs-get;jobid=j1;srcid=-1;key=mpigo-host-0;", frame2("cmd=kvs-get-response;rc=0;found=TRUE;value=x" + hexHost(t) + ";")},
				}, steps[len(pmi2Intro):])
			}
			scripted(t, srv, steps)
			// Short deadlines only where the server is silent: elsewhere a slow machine
			// must not turn a prompt answer into a timeout.
			o := Options{Version: tc.version, Timeout: 10 * time.Second, FenceTimeout: 10 * time.Second}
			if strings.Contains(tc.want, "no answer") {
				o.Timeout, o.FenceTimeout = 200*time.Millisecond, 200*time.Millisecond
			}
			c, err := Start(cl, o, Env{Rank: 0, Size: 1})
			if tc.act != nil {
				if err != nil {
					t.Fatalf("Start: %v", err)
				}
				err = tc.act(c)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
}

func hexHost(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h)
}

// TestAbortDuringFence: Abort is sent even while another goroutine waits in a fence.
func TestAbortDuringFence(t *testing.T) {
	pmi2Mapped := concat(pmi2Intro[:3], []step{{pmi2Intro[3].want,
		frame2("cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,1,2));")}})
	pmi2Mapped[1].reply = frame2("cmd=fullinit-response;rc=0;rank=0;size=2;")
	pmi1Mapped := concat(pmi1Intro[:5], []step{{pmi1Intro[5].want, "cmd=get_result rc=0 value=(vector,(0,1,2))\n"}})
	for _, tc := range []struct {
		version     int
		intro       []step
		fence, want string
	}{
		{1, pmi1Mapped, "cmd=barrier_in", "cmd=abort exitcode=3"},
		{2, pmi2Mapped, "cmd=kvs-fence;", "cmd=abort;isworld=TRUE;msg=rank 0  gave up;"},
	} {
		t.Run(strconv.Itoa(tc.version), func(t *testing.T) {
			cl, _, srv := socketpair(t, false)
			cmds := recorder(t, srv, tc.intro, tc.version == 2)
			c, err := Start(cl, Options{Version: tc.version, Timeout: 10 * time.Second, FenceTimeout: time.Minute},
				Env{Rank: 0, Size: 2})
			if err != nil {
				t.Fatal(err)
			}
			fenced := make(chan error, 1)
			go func() { fenced <- c.Fence() }() // rank 1 never comes: no answer
			if got := <-cmds; got != tc.fence {
				t.Fatalf("server got %q; want %q", got, tc.fence)
			}
			if err := c.Abort(3, "rank 0; gave up"); err != nil {
				t.Fatal(err)
			}
			if got := <-cmds; got != tc.want {
				t.Fatalf("server got %q; want %q", got, tc.want)
			}
			srv.Close() // the process manager ends the job
			if err := <-fenced; err == nil || !strings.Contains(err.Error(), "closed the connection") {
				t.Fatalf("fence after the server hung up: %v", err)
			}
		})
	}
}

// recorder answers intro, then passes every further command to the channel without
// answering, until the connection closes.
func recorder(t *testing.T, srv net.Conn, intro []step, framed bool) <-chan string {
	cmds := make(chan string, 8)
	done := make(chan struct{})
	t.Cleanup(func() { srv.Close(); <-done })
	go func() {
		defer close(done)
		br := bufio.NewReader(srv)
		for i := 0; ; i++ {
			var got string
			if !framed || i == 0 {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				got = strings.TrimSuffix(line, "\n")
			} else {
				head := make([]byte, 6)
				if _, err := ioReadFull(br, head); err != nil {
					return
				}
				n, _ := strconv.Atoi(strings.TrimSpace(string(head)))
				body := make([]byte, n)
				if _, err := ioReadFull(br, body); err != nil {
					return
				}
				got = string(body)
			}
			if i < len(intro) {
				if got != intro[i].want {
					t.Errorf("server got %q; want %q", got, intro[i].want)
					return
				}
				srv.Write([]byte(intro[i].reply))
				continue
			}
			cmds <- got
		}
	}()
	return cmds
}

func TestEncode(t *testing.T) {
	for _, tc := range []struct {
		name  string
		val   []byte
		chunk int
		parts int
	}{
		{"empty", nil, 10, 1},
		{"short", []byte("ab c;d=e\n"), 100, 1},
		{"exactly one", bytes.Repeat([]byte{7}, 4), 9, 1}, // "x" + 8 hex
		{"one over", bytes.Repeat([]byte{7}, 5), 9, 3},    // 10 hex: 2 segments + head
		{"many", bytes.Repeat([]byte("mpigo"), 1000), 900, 13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := encode("k", tc.val, tc.chunk)
			if len(es) != tc.parts {
				t.Fatalf("%d entries; want %d: %v", len(es), tc.parts, es)
			}
			m := map[string]string{}
			for _, e := range es {
				if len(e.v) > tc.chunk || e.v == "" || strings.ContainsAny(e.v, " ;=\n") {
					t.Fatalf("entry %q=%q: empty, longer than %d or has separators", e.k, e.v, tc.chunk)
				}
				m[e.k] = e.v
			}
			got, err := decode("k", m["k"], func(k string) (string, bool, error) { v, ok := m[k]; return v, ok, nil })
			if err != nil || !bytes.Equal(got, tc.val) {
				t.Fatalf("decode = %q, %v; want %q", got, err, tc.val)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	none := func(string) (string, bool, error) { return "", false, nil }
	for _, tc := range []struct{ head, want string }{
		{"", "is empty"},
		{"xzz", "is not hex"},
		{"s0", "bad segment count"},
		{"s2", "segment k.0 is missing"},
		{"(vector", "not mpigo's encoding"},
	} {
		if _, err := decode("k", tc.head, none); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("decode(%q): %v; want %q", tc.head, err, tc.want)
		}
	}
}

func TestServerKey(t *testing.T) {
	dyn, err := pm.Register("pmi-test-dynamic")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    pm.Scope
		k    pm.Key
		idx  int
		want string
	}{
		{pm.Proc, pm.KeyShm, 12, "mpigo-shm-12"},
		{pm.Node, pm.KeyNodeTopo, 3, "mpigo-node-topo-n3"},
		{pm.Job, pm.KeySecret, 0, "mpigo-secret-j"},
		{pm.Proc, dyn, 1, "mpigo-key" + strconv.Itoa(int(dyn)) + "-1"}, // by number: names are process-local
	} {
		if got := serverKey(tc.s, tc.k, tc.idx); got != tc.want {
			t.Errorf("serverKey(%v, %v, %d) = %q; want %q", tc.s, tc.k, tc.idx, got, tc.want)
		}
	}
}

func TestParseFields(t *testing.T) {
	for _, tc := range []struct {
		in   string
		sep  byte
		want string
	}{
		{"cmd=get_result rc=-1 msg=key_a_not_found value=unknown", ' ', "cmd=get_result rc=-1 msg=key_a_not_found value=unknown"},
		{"cmd=barrier_out", ' ', "cmd=barrier_out"},
		{"cmd=x  a=b=c  flag", ' ', "cmd=x a=b=c flag="},
		{"cmd=kvs-get-response;rc=0;found=TRUE;value=x1;", ';', "cmd=kvs-get-response rc=0 found=TRUE value=x1"},
	} {
		if got := parseFields(tc.in, tc.sep).String(); got != tc.want {
			t.Errorf("parseFields(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestGetBeforeFence: before the first fence only a rank's own values are visible, and
// the server is not asked (Hydra's PMI-2 would wait for the fence).
func TestGetBeforeFence(t *testing.T) {
	cl, _, srv := socketpair(t, false)
	scripted(t, srv, pmi1Intro)
	c, err := Start(cl, Options{Version: 1, Timeout: time.Second}, Env{Rank: 0, Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(pm.Job, pm.KeySecret, 0); ok {
		t.Fatal("found a job value nobody put")
	}
	c.Put(pm.Job, pm.KeySecret, []byte("s"))
	if v, ok := c.Get(pm.Job, pm.KeySecret, 0); !ok || string(v) != "s" {
		t.Fatalf("own job value: %q, %v", v, ok)
	}
	for _, r := range []int{-1, 1} {
		if _, ok := c.Get(pm.Proc, pm.KeySecret, r); ok {
			t.Fatalf("Get of rank %d of 1 found a value", r)
		}
	}
	if err := c.Put(3, pm.KeyTCP, nil); err == nil {
		t.Fatal("Put with scope 3 succeeded")
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestFenceRetry: a fence that fails keeps its puts, and the next one sends those the
// server did not take (and not again those it took).
func TestFenceRetry(t *testing.T) {
	cl, _, srv := socketpair(t, false)
	scripted(t, srv, concat(pmi1Intro, []step{
		{"cmd=put kvsname=kvs_1_0 key=mpigo-pid-0 value=x01", "cmd=put_result rc=0\n"},
		{"cmd=put kvsname=kvs_1_0 key=mpigo-tcp-0 value=x02", "cmd=put_result rc=1 msg=busy\n"},
		{"cmd=put kvsname=kvs_1_0 key=mpigo-tcp-0 value=x02", "cmd=put_result rc=0\n"},
		{"cmd=barrier_in", "cmd=barrier_out rc=0\n"},
		{"cmd=finalize", "cmd=finalize_ack\n"},
	}))
	o := testOpts
	o.Version = 1
	c, err := Start(cl, o, Env{Rank: 0, Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	c.Put(pm.Proc, pm.KeyPID, []byte{1})
	c.Put(pm.Proc, pm.KeyTCP, []byte{2})
	if err := c.Fence(); err == nil || !strings.Contains(err.Error(), "msg=busy for key mpigo-tcp-0") {
		t.Fatalf("first fence: %v", err)
	}
	if err := c.Fence(); err != nil {
		t.Fatalf("second fence: %v", err)
	}
	if err := c.Put(pm.Proc, pm.KeyTCP, []byte{3}); err == nil {
		t.Fatal("changing a published value was accepted")
	}
	if err := c.Finalize(); err != nil {
		t.Fatal(err)
	}
	if err := c.Finalize(); err == nil {
		t.Fatal("second Finalize succeeded")
	}
}

// TestFenceIsBarrier: Fence returns only after every rank has called it, also over
// Hydra's PMI-2, whose kvs-fence answers at once: rank 0's Fence must be held by the
// server, not return, until rank 1 fences.
func TestFenceIsBarrier(t *testing.T) {
	for _, tc := range []struct {
		name    string
		st      style
		version int
	}{
		{"hydra-pmi1", hydra40, 1},
		{"slurm-pmi1", slurm, 1},
		{"hydra-pmi2", hydra41, 2},
		{"slurm-pmi2", slurm, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := newFakeJob(t, tc.st, 2, "(vector,(0,1,2))")
			held := make(chan int, 4)
			j.onHold = held
			cs := make([]*Client, 2)
			for r := range cs {
				cl, _, srv := socketpair(t, false)
				j.serve(srv, r)
				o := testOpts
				o.Version = tc.version
				c, err := Start(cl, o, Env{Rank: r, Size: 2, JobID: "7.0"})
				if err != nil {
					t.Fatal(err)
				}
				cs[r] = c
			}
			done := make(chan error, 1)
			go func() { done <- cs[0].Fence() }()
			select {
			case r := <-held:
				if r != 0 {
					t.Fatalf("the server holds rank %d", r)
				}
			case err := <-done:
				t.Fatalf("rank 0's Fence returned (%v) before rank 1 called Fence", err)
			}
			if err := cs[1].Fence(); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			for _, c := range cs {
				if err := c.Finalize(); err != nil {
					t.Fatal(err)
				}
			}
			j.wait()
		})
	}
}
