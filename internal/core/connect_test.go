package core

import (
	"errors"

	"strings"
	"testing"

	"github.com/mpigo/mpigo/internal/pm"
)

// TestPortNames: a port's name says how to reach it; a name that is not one, or one
// nobody listens on, is an error of class MPI_ERR_PORT, never a hang.
func TestPortNames(t *testing.T) {
	name, err := OpenPortCore("Open_port")
	must(t, err)
	if !strings.HasPrefix(name, portPrefix) || len(name) > MaxPortName {
		t.Fatalf("port name %q: want the prefix %q and at most %d bytes", name, portPrefix, MaxPortName)
	}
	host, tok, addrs, err := parsePort("Comm_connect", name)
	must(t, err)
	if host != hostName() || len(tok) != 32 || len(addrs) == 0 {
		t.Errorf("parsed %q as host %q, token %q, addresses %v", name, host, tok, addrs)
	}
	must(t, ClosePortCore("Close_port", name))
	wantClass(t, "closing it twice", ClosePortCore("Close_port", name), ClassPort)
	_, err = dialPort("Comm_connect", name)
	wantClass(t, "connecting to a closed port", err, ClassPort)
	for _, bad := range []string{"", "tcp://x:1", portPrefix + "h:", portPrefix + "h:tok:"} {
		_, err := dialPort("Comm_connect", bad)
		wantClass(t, "connecting to "+bad, err, ClassPort)
	}
	_, err = acceptOn("Comm_accept", name)
	wantClass(t, "accepting on a closed port", err, ClassPort)
}

// TestProcRecords: the records the roots swap survive the trip, and garbage is
// refused rather than read past its end.
func TestProcRecords(t *testing.T) {
	in := []procRec{{procName{"job1", 0}, []byte("card0")}, {procName{"j", 70000}, nil}}
	out, err := decodeRecs(encodeRecs(in))
	must(t, err)
	if len(out) != 2 || out[0].name != in[0].name || string(out[0].card) != "card0" || out[1].name != in[1].name || len(out[1].card) != 0 {
		t.Errorf("records came back as %+v", out)
	}
	b := encodeRecs(in)
	for n := 0; n < len(b); n++ {
		if _, err := decodeRecs(b[:n]); err == nil {
			t.Errorf("%d of %d bytes decoded without error", n, len(b))
		}
	}
}

// TestSpawnWord: what a spawn's root tells its members: one error per process asked
// for, and a failure of the whole request for every process.
func TestSpawnWord(t *testing.T) {
	errs, started, whole := decodeSpawn(encodeSpawn(3, []error{nil, errors.New("no such program"), nil}, ""))
	if started != 2 || whole != "" || len(errs) != 3 || errs[0] != nil || errs[2] != nil || ClassOf(errs[1]) != ClassSpawn || !strings.Contains(errs[1].Error(), "no such program") {
		t.Errorf("got errs %v, started %d, whole %q", errs, started, whole)
	}
	b := encodeSpawn(3, []error{nil, errors.New("no such program"), nil}, "")
	for n := 0; n < len(b); n++ {
		if errs, started, whole := decodeSpawn(b[:n]); whole == "" || started != 0 || errs != nil {
			t.Errorf("%d of %d bytes decoded as %v, %d started, %q", n, len(b), errs, started, whole)
		}
	}
	errs, started, whole = decodeSpawn(encodeSpawn(2, nil, "cannot start"))
	if started != 0 || whole != "cannot start" || len(errs) != 2 || errs[0] == nil || errs[1] == nil {
		t.Errorf("a failed request: errs %v, started %d, whole %q", errs, started, whole)
	}
}

// TestProcOrder: within the job, processes are ordered by rank; across jobs, by job
// and then rank, alike in every process.
func TestProcOrder(t *testing.T) {
	if procBefore(0, 0) {
		t.Error("a process is before itself")
	}
	a, b := procName{"a", 5}, procName{"b", 0}
	if !a.less(b) || b.less(a) || !(procName{"a", 1}).less(a) {
		t.Error("names do not order by job, then rank")
	}
}

// TestJoinBadSocket: MPI_Comm_join over something that is not a socket to another
// process in Comm_join fails with a clear error.
func TestJoinBadSocket(t *testing.T) {
	_, err := JoinCore("Comm_join", -1)
	wantClass(t, "join on fd -1", err, ClassArg)
}

// TestNamesWithoutService: a singleton has no launcher and so no name service.
func TestNamesWithoutService(t *testing.T) {
	wantClass(t, "publish", PublishCore("Publish_name", "svc", "port"), ClassService)
	_, err := LookupCore("Lookup_name", "svc")
	wantClass(t, "lookup", err, ClassService)
}

// TestSpawnWithoutLauncher: a singleton's process manager starts nothing: the spawn
// fails with MPI_ERR_SPAWN and an error for each process asked for.
func TestSpawnWithoutLauncher(t *testing.T) {
	c, errs, err := SpawnCore("Comm_spawn", []pm.SpawnCmd{{Program: "true", MaxProcs: 2}}, nil, nil, 0, Self)
	wantClass(t, "spawn", err, ClassSpawn)
	if c != nil || len(errs) != 2 || errs[0] == nil || errs[1] == nil {
		t.Errorf("got %v, errcodes %v", c, errs)
	}
	_, _, err = SpawnCore("Comm_spawn", nil, nil, nil, 1, Self)
	wantClass(t, "root 1 of Self", err, ClassRoot)
}
