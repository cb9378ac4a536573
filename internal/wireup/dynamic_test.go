package wireup

import (
	"errors"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/mpigo/mpigo/internal/pm"
)

// TestClientRequests runs the client's requests against a launcher end that answers
// them in the reverse order they came: each answer reaches its own request.
func TestClientRequests(t *testing.T) {
	srv, cl := net.Pipe()
	c := NewClient(cl, 0, blockLayout(1, 1), "job")
	const n = 3
	go func() {
		var reqs []uint64
		var bodies []*Request
		var buf []byte
		for len(reqs) < n {
			typ, body, err := ReadFrame(srv, buf)
			if err != nil {
				return
			}
			buf = body[:0]
			if typ != MsgRequest {
				continue
			}
			id, r, err := DecodeRequest(body)
			if err != nil {
				t.Error(err)
				return
			}
			reqs, bodies = append(reqs, id), append(bodies, r)
		}
		for i := n - 1; i >= 0; i-- {
			r := bodies[i]
			var a Answer
			switch r.Op {
			case OpLookup:
				a.Port = "port-of-" + r.Service
			case OpPublish:
				a.Err = "publish " + r.Service + ": the name is already published"
			case OpSpawn:
				if r.Port != "p0" || len(r.Cmds) != 2 || r.Cmds[1].Info["wdir"] != "/tmp" {
					a.Err = "bad spawn request"
				}
				a.ProcErrs = []string{"", "", "command 1: program not found"}
			}
			WriteFrame(srv, MsgAnswer, EncodeAnswer(reqs[i], &a))
		}
		// Then the launcher goes away.
		srv.Close()
	}()
	var wg sync.WaitGroup
	wg.Add(n)
	go func() {
		defer wg.Done()
		if p, err := c.Lookup("svc"); err != nil || p != "port-of-svc" {
			t.Errorf("Lookup = %q, %v", p, err)
		}
	}()
	go func() {
		defer wg.Done()
		if err := c.Publish("taken", "p"); err == nil || err.Error() != "publish taken: the name is already published" {
			t.Errorf("Publish = %v", err)
		}
	}()
	go func() {
		defer wg.Done()
		errs, err := c.Spawn([]pm.SpawnCmd{{Program: "a", MaxProcs: 2}, {Program: "b", MaxProcs: 1, Info: map[string]string{"wdir": "/tmp"}}}, "p0")
		if err != nil || len(errs) != 3 || errs[0] != nil || errs[1] != nil || errs[2] == nil {
			t.Errorf("Spawn = %v, %v", errs, err)
		}
	}()
	wg.Wait()
	<-c.dead
	if _, err := c.Lookup("svc"); !errors.Is(err, ErrLauncherGone) {
		t.Errorf("Lookup after the launcher's end = %v; want %v", err, ErrLauncherGone)
	}
}

// Without the launcher's environment the job's facts are unknown; with it they are
// what it says, and a bad value is an error naming the variable.
func TestJobFacts(t *testing.T) {
	srv, cl := net.Pipe()
	defer srv.Close()
	c := NewClient(cl, 0, blockLayout(1, 1), "job")
	if _, ok := c.UniverseSize(); ok {
		t.Error("a universe size without the launcher's word")
	}
	if _, ok := c.AppNum(); ok {
		t.Error("an appnum without the launcher's word")
	}
	t.Setenv(EnvUniverseSize, "8")
	t.Setenv(EnvAppNum, "1")
	t.Setenv(EnvParentPort, "tcp://h:1/x")
	if err := c.jobFacts(); err != nil {
		t.Fatal(err)
	}
	if n, ok := c.UniverseSize(); n != 8 || !ok {
		t.Errorf("UniverseSize = %d, %v", n, ok)
	}
	if n, ok := c.AppNum(); n != 1 || !ok {
		t.Errorf("AppNum = %d, %v", n, ok)
	}
	if p := c.ParentPort(); p != "tcp://h:1/x" {
		t.Errorf("ParentPort = %q", p)
	}
	t.Setenv(EnvAppNum, "x")
	if err := c.jobFacts(); err == nil || !strings.Contains(err.Error(), EnvAppNum) {
		t.Errorf("a bad %s gave %v", EnvAppNum, err)
	}
}
