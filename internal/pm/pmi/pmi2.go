package pmi

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pmi2 speaks PMI-2: after a PMI-1-framed version handshake, every message is 6 ASCII
// characters of decimal length (MPICH pads on the left, Slurm on the right) followed
// by "cmd=NAME;k=v;...;". Values cannot contain ';' (there is no escaping).
type pmi2 struct {
	l            *link
	fenceTimeout time.Duration
	rank, size   int
	appnum       int
	jobid        string // job-getid's answer: the KVS's name
	mapping      string

	// The job attribute universeSize, asked for on first use only: most jobs never
	// read MPI_UNIVERSE_SIZE, and Init should not pay a round trip for it.
	univOnce sync.Once
	universe int
}

// pmi2Chunk is the longest value text sent in one command: both Slurm and MPICH's
// Hydra size their PMI-2 value buffers at 1024 bytes.
const pmi2Chunk = 900

// call sends "cmd=NAME;args" and returns the reply, which must be cmd=NAME-response.
func (w *pmi2) call(name, args, about string, d time.Duration) (fields, error) {
	w.l.mu.Lock()
	defer w.l.mu.Unlock()
	body := "cmd=" + name + ";" + args
	if len(body) > 999999 {
		return nil, fmt.Errorf("PMI: %s%s: command of %d bytes is too long for PMI-2's 6-digit length", name, about, len(body))
	}
	// One write for the length and the body: Slurm reads fixed-size pieces.
	msg := fmt.Sprintf("%-6d%s", len(body), body)
	if err := w.l.write([]byte(msg)); err != nil {
		return nil, fmt.Errorf("PMI: sending %s%s: %w", name, about, err)
	}
	head, err := w.l.readFull(6, d)
	if err != nil {
		return nil, readErr(name+about, d, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(head))
	if err != nil || n < 0 || n > maxMessage {
		return nil, fmt.Errorf("PMI: server answered %s%s with a bad PMI-2 length field %q", name, about, head)
	}
	text, err := w.l.readFull(n, d)
	if err != nil {
		return nil, readErr(name+about, d, err)
	}
	f := parseFields(text, ';')
	if cmd, _ := f.get("cmd"); cmd != name+"-response" {
		return f, fmt.Errorf("PMI: server answered %q to %s%s; expected cmd=%s-response", text, name, about, name)
	}
	rc, err := f.rc()
	if err != nil {
		return f, fmt.Errorf("PMI: server answered %s to %s%s: %v", f, name, about, err)
	}
	if rc != 0 {
		return f, fmt.Errorf("PMI: server answered %s to %s%s", f, name, about)
	}
	return f, nil
}

// start runs PMI-2 initialisation: version handshake (in PMI-1 framing), fullinit,
// the job id, and the process mapping. rank is this process's rank as the environment
// gives it (PMI_RANK), jobid the environment's PMI_JOBID (Slurm requires it back), and
// portID PMI_ID in port mode (where the environment gives no rank).
func (w *pmi2) start(rank int, envJobID, portID string, d time.Duration) error {
	l := w.l
	l.mu.Lock()
	// Short and alone: Slurm reads this line with one read(64).
	err := l.write([]byte("cmd=init pmi_version=2 pmi_subversion=0\n"))
	var line string
	if err == nil {
		line, err = l.readLine(d)
		if err != nil {
			err = readErr("init", d, err)
		}
	}
	l.mu.Unlock()
	if err != nil {
		return err
	}
	f := parseFields(line, ' ')
	if cmd, _ := f.get("cmd"); cmd != "response_to_init" {
		return fmt.Errorf("PMI: server answered %q to a PMI-2 init; expected cmd=response_to_init", line)
	}
	if rc, err := f.rc(); err != nil || rc != 0 {
		return fmt.Errorf("PMI: server answered %s to a PMI-2 init: it does not take PMI-2 (set MPIGO_PMI=1 to use PMI-1)", f)
	}
	if v, _ := f.get("pmi_version"); v != "2" {
		return fmt.Errorf("PMI: server answered %s to a PMI-2 init: it speaks PMI version %s (set MPIGO_PMI=1 to use PMI-1)", f, v)
	}

	args := ""
	if envJobID != "" {
		args += "pmijobid=" + envJobID + ";"
	}
	// In port mode the environment has no rank; Hydra's PMI_ID is the rank, and its
	// fullinit requires pmirank.
	id := strconv.Itoa(rank)
	if portID != "" {
		id = portID
	}
	args += "pmirank=" + id + ";threaded=FALSE;"
	if f, err = w.call("fullinit", args, "", d); err != nil {
		return err
	}
	if w.rank, err = atoiField(f, "rank", " to fullinit"); err != nil {
		return err
	}
	if w.size, err = atoiField(f, "size", " to fullinit"); err != nil {
		return err
	}
	w.appnum = -1
	if n, err := atoiField(f, "appnum", ""); err == nil {
		w.appnum = n
	}
	if f, err = w.call("job-getid", "", "", d); err != nil {
		return err
	}
	if w.jobid, _ = f.get("jobid"); w.jobid == "" {
		return fmt.Errorf("PMI: server answered %s to job-getid without a jobid", f)
	}
	if f, err = w.call("info-getjobattr", "key=PMI_process_mapping;", " for key PMI_process_mapping", d); err != nil {
		return err
	}
	if found(f) {
		w.mapping, _ = f.get("value")
	}
	return nil
}

// found reads a reply's found=TRUE|FALSE (booleans are compared without case, as
// Slurm does).
func found(f fields) bool {
	v, _ := f.get("found")
	return strings.EqualFold(v, "TRUE")
}

func (w *pmi2) put(key, val string) error {
	_, err := w.call("kvs-put", "key="+key+";value="+val+";", " for key "+key, w.l.timeout)
	return err
}

// fenceKey is a key nobody puts: getting it after kvs-fence is the barrier's wait.
const fenceKey = "mpigo-fence"

// fence is kvs-fence followed by a get of a key nobody puts. Slurm's kvs-fence is a
// barrier, and the get is answered found=FALSE at once by the node's slurmstepd. Hydra's
// kvs-fence is not: it answers at once, and its server instead holds a kvs-get of a
// missing key until every process has reached the getter's fence (its "epoch"); the
// get makes the barrier that pm.Client's Fence promises.
func (w *pmi2) fence() error {
	if _, err := w.call("kvs-fence", "", "", w.fenceTimeout); err != nil {
		return err
	}
	_, found, err := w.getTimeout(fenceKey, w.fenceTimeout)
	if err == nil && found {
		err = fmt.Errorf("PMI: the server has a value for %s, which nobody puts; the fence cannot wait on it", fenceKey)
	}
	return err
}

// get asks for a key after a fence. Slurm answers found=FALSE at once for a key nobody
// put; Hydra waits for the fence's epoch, which has passed (Fence waited for it).
func (w *pmi2) get(key string) (string, bool, error) { return w.getTimeout(key, w.l.timeout) }

func (w *pmi2) getTimeout(key string, d time.Duration) (string, bool, error) {
	about := " for key " + key
	f, err := w.call("kvs-get", "jobid="+w.jobid+";srcid=-1;key="+key+";", about, d)
	if err != nil {
		return "", false, err
	}
	if !found(f) {
		return "", false, nil
	}
	v, ok := f.get("value")
	if !ok {
		return "", false, fmt.Errorf("PMI: server answered %s%s with found=TRUE but no value", f, about)
	}
	return v, true, nil
}

func (w *pmi2) nodeAttrs() bool { return true }

func (w *pmi2) putNode(key, val string) error {
	_, err := w.call("info-putnodeattr", "key="+key+";value="+val+";", " for node key "+key, w.l.timeout)
	return err
}

// getNode reads a node attribute without waiting: it is asked for only after a fence,
// by which time the node's putter has stored it.
func (w *pmi2) getNode(key string) (string, bool, error) {
	about := " for node key " + key
	f, err := w.call("info-getnodeattr", "key="+key+";wait=FALSE;", about, w.l.timeout)
	if err != nil {
		return "", false, err
	}
	if !found(f) {
		return "", false, nil
	}
	v, ok := f.get("value")
	if !ok {
		return "", false, fmt.Errorf("PMI: server answered %s%s with found=TRUE but no value", f, about)
	}
	return v, true, nil
}

// abort asks the server to end the whole job. Slurm does not answer; the message must
// not contain ';' and is kept short.
func (w *pmi2) abort(code int, msg string) error {
	msg = strings.Map(func(r rune) rune {
		if r == ';' || r == '\n' || r < ' ' {
			return ' '
		}
		return r
	}, msg)
	if len(msg) > 512 {
		msg = msg[:512]
	}
	body := "cmd=abort;isworld=TRUE;msg=" + msg + ";"
	return w.l.write([]byte(fmt.Sprintf("%-6d%s", len(body), body)))
}

func (w *pmi2) finalize() error {
	_, err := w.call("finalize", "", "", w.l.timeout)
	return err
}

func (w *pmi2) jobID() string { return w.jobid }
func (w *pmi2) chunk() int    { return pmi2Chunk }

// universeSize asks the server once for the job attribute universeSize (PMI-2's
// name for it); -1 when it has none or the exchange fails.
func (w *pmi2) universeSize() int {
	w.univOnce.Do(func() {
		w.universe = -1
		f, err := w.call("info-getjobattr", "key=universeSize;", " for key universeSize", w.l.timeout)
		if err != nil || !found(f) {
			return
		}
		if v, _ := f.get("value"); v != "" {
			if n, err := strconv.Atoi(v); err == nil {
				w.universe = n
			}
		}
	})
	return w.universe
}
