package pmi

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// pmi1 speaks the PMI-1 line protocol: one "cmd=NAME k=v ...\n" line per message,
// space-separated tokens, strictly one request and its reply at a time.
type pmi1 struct {
	l            *link
	fenceTimeout time.Duration
	kvs          string // the job's KVS name, opaque
	keyMax       int    // longest key the server takes
	valMax       int    // longest value the server takes
	appnum       int
	universe     int
	mapping      string // PMI_process_mapping; empty if the server has none

	// Only from port mode's initack; else the environment says.
	rank, size int
}

// slurmLine is the size of Slurm's read(2) of a PMI-1 command: a command as long or
// longer would be cut, so no line we send reaches it.
const slurmLine = 1024

// call sends req (one line, without its '\n') and returns the reply, which must be
// cmd=want (its rc is the caller's to judge); about names the subject for errors.
func (w *pmi1) call(req, want, about string, d time.Duration) (fields, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	name := req
	if i := strings.IndexByte(req, ' '); i >= 0 {
		name = req[:i]
	}
	if err := w.l.write([]byte(req + "\n")); err != nil {
		return nil, fmt.Errorf("PMI: sending %s%s: %w", name, about, err)
	}
	var line string
	var f fields
	for {
		var err error
		if line, err = w.l.readLine(d); err != nil {
			return nil, readErr(name+about, d, err)
		}
		f = parseFields(line, ' ')
		// Port mode servers may repeat the handshake's "cmd=set" lines after it.
		if cmd, _ := f.get("cmd"); cmd != "set" || want == "set" {
			break
		}
	}
	if cmd, _ := f.get("cmd"); cmd != want {
		return f, fmt.Errorf("PMI: server answered %q to %s%s; expected cmd=%s", line, name, about, want)
	}
	return f, nil
}

// check turns a reply with a non-zero rc into an error.
func check(f fields, about string) error {
	rc, err := f.rc()
	if err != nil {
		return fmt.Errorf("PMI: server answered %s%s: %v", f, about, err)
	}
	if rc != 0 {
		return fmt.Errorf("PMI: server answered %s%s", f, about)
	}
	return nil
}

func atoiField(f fields, k, about string) (int, error) {
	v, ok := f.get(k)
	if !ok {
		return 0, fmt.Errorf("PMI: server answered %s%s without %s", f, about, k)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("PMI: server answered %s%s: %s=%q is not a number", f, about, k, v)
	}
	return n, nil
}

// initack is port mode's first exchange: the server learns which process connected
// and answers with its rank and size, in the initack line itself or in "cmd=set"
// lines after it (Hydra sends size, rank and debug, in one write or several).
func (w *pmi1) initack(id string, d time.Duration) error {
	const about = " (port mode handshake)"
	f, err := w.call("cmd=initack pmiid="+id, "initack", about, d)
	if err != nil {
		return err
	}
	if err := check(f, about); err != nil {
		return err
	}
	w.rank, w.size = -1, -1
	debugSeen := false
	take := func(f fields) error {
		for _, k := range []string{"rank", "size"} {
			if _, ok := f.get(k); !ok {
				continue
			}
			n, err := atoiField(f, k, about)
			if err != nil {
				return err
			}
			if k == "rank" {
				w.rank = n
			} else {
				w.size = n
			}
		}
		if _, ok := f.get("debug"); ok {
			debugSeen = true
		}
		return nil
	}
	if err := take(f); err != nil {
		return err
	}
	// Hydra 4.0 sends a bare initack, then set size, set rank and set debug (last).
	// Stray set lines after these are skipped by callLocked.
	for w.rank < 0 || w.size < 0 || !debugSeen {
		line, err := w.l.readLine(d)
		if err != nil {
			return readErr("initack", d, err)
		}
		s := parseFields(line, ' ')
		if cmd, _ := s.get("cmd"); cmd != "set" {
			return fmt.Errorf("PMI: server sent %q during the port mode handshake; expected cmd=set", line)
		}
		if err := take(s); err != nil {
			return err
		}
	}
	return nil
}

// start runs PMI-1 initialisation: version handshake, limits, KVS name, and the process
// mapping.
func (w *pmi1) start(d time.Duration) error {
	// Sent alone and short: Slurm reads the init line with one read(64).
	f, err := w.call("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init", "", d)
	if err != nil {
		return err
	}
	if err := check(f, " to init"); err != nil {
		return err
	}
	// Hydra 4.1+ answers subversion 2 to any 1.x request; mpigo uses only 1.1 commands.
	if v, _ := f.get("pmi_version"); v != "" && v != "1" {
		return fmt.Errorf("PMI: server answered %s to a PMI-1 init; it speaks PMI version %s", f, v)
	}
	if f, err = w.call("cmd=get_maxes", "maxes", "", d); err != nil {
		return err
	}
	if err := check(f, ""); err != nil {
		return err
	}
	if w.keyMax, err = atoiField(f, "keylen_max", ""); err != nil {
		return err
	}
	if w.valMax, err = atoiField(f, "vallen_max", ""); err != nil {
		return err
	}
	// Slurm answers appnum=-1; some servers may not know the command: not needed by
	// mpigo, so a failure is not fatal.
	w.appnum = -1
	if f, err = w.call("cmd=get_appnum", "appnum", "", d); err != nil {
		return err
	}
	if check(f, "") == nil {
		if n, err := atoiField(f, "appnum", ""); err == nil {
			w.appnum = n
		}
	}
	if f, err = w.call("cmd=get_my_kvsname", "my_kvsname", "", d); err != nil {
		return err
	}
	if err := check(f, ""); err != nil {
		return err
	}
	var ok bool
	if w.kvs, ok = f.get("kvsname"); !ok || w.kvs == "" {
		return fmt.Errorf("PMI: server answered %s to get_my_kvsname without a kvsname", f)
	}
	w.universe = -1
	if f, err = w.call("cmd=get_universe_size", "universe_size", "", d); err != nil {
		return err
	}
	if check(f, "") == nil {
		if n, err := atoiField(f, "size", ""); err == nil {
			w.universe = n
		}
	}
	m, found, err := w.getTimeout("PMI_process_mapping", d)
	if err != nil {
		return err
	}
	if found {
		w.mapping = m
	}
	return nil
}

func (w *pmi1) put(key, val string) error {
	about := " for key " + key
	line := "cmd=put kvsname=" + w.kvs + " key=" + key + " value=" + val
	if len(line)+1 > slurmLine || len(key) > w.keyMax || len(val) > w.valMax {
		return fmt.Errorf("PMI: put of key %s (%d bytes) and value (%d bytes) exceeds the server's limits (key %d, value %d, line %d)",
			key, len(key), len(val), w.keyMax, w.valMax, slurmLine-1)
	}
	f, err := w.call(line, "put_result", about, w.l.timeout)
	if err != nil {
		return err
	}
	return check(f, about)
}

func (w *pmi1) fence() error {
	f, err := w.call("cmd=barrier_in", "barrier_out", "", w.fenceTimeout)
	if err != nil {
		return err
	}
	// Hydra 4.0 sends a bare cmd=barrier_out (rc defaults to 0); Slurm reports a
	// failed fence as rc!=0 with msg=.
	return check(f, " to barrier_in")
}

func (w *pmi1) get(key string) (string, bool, error) { return w.getTimeout(key, w.l.timeout) }

// getTimeout asks for key. A miss is rc!=0 (Hydra 4.0: rc=-1 msg=key_K_not_found
// value=unknown; Hydra 4.1+ and Slurm: rc=1): PMI-1 has no separate code for other
// failures, so every rc!=0 is a miss.
func (w *pmi1) getTimeout(key string, d time.Duration) (string, bool, error) {
	about := " for key " + key
	f, err := w.call("cmd=get kvsname="+w.kvs+" key="+key, "get_result", about, d)
	if err != nil {
		return "", false, err
	}
	rc, err := f.rc()
	if err != nil {
		return "", false, fmt.Errorf("PMI: server answered %s%s: %v", f, about, err)
	}
	if rc != 0 {
		return "", false, nil
	}
	v, ok := f.get("value")
	if !ok {
		return "", false, fmt.Errorf("PMI: server answered %s%s without a value", f, about)
	}
	return v, true, nil
}

func (w *pmi1) nodeAttrs() bool                      { return false }
func (w *pmi1) putNode(string, string) error         { return errNoNodeAttrs }
func (w *pmi1) getNode(string) (string, bool, error) { return "", false, errNoNodeAttrs }

// abort asks the server to end the job; PMI-1 servers do not answer (they kill us).
func (w *pmi1) abort(code int, msg string) error {
	return w.l.write([]byte("cmd=abort exitcode=" + strconv.Itoa(code) + "\n"))
}

func (w *pmi1) finalize() error {
	f, err := w.call("cmd=finalize", "finalize_ack", "", w.l.timeout)
	if err != nil {
		return err
	}
	return check(f, " to finalize")
}

func (w *pmi1) jobID() string { return w.kvs }

// universeSize is what get_universe_size answered at start.
func (w *pmi1) universeSize() int { return w.universe }

// chunk is the longest value text sent in one put: the server's vallen_max, and short
// enough that the whole put line stays under Slurm's 1024-byte read with mpigo's longest
// key (maxKeyLen).
func (w *pmi1) chunk() int {
	c := w.valMax - 1 // vallen_max counts C's terminating NUL
	if lim := slurmLine - 1 - len("cmd=put kvsname= key= value=\n") - len(w.kvs) - maxKeyLen; lim < c {
		c = lim
	}
	return c
}
