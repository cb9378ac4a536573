package launch

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The name service (MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name) is shared
// by every launcher of one user on one machine, so that two separately started jobs
// meet through it. It is a directory: one file per published name, created
// exclusively (a second publish of the name fails), holding the port, the publishing
// launcher's pid and start time, and the job that published it. A file whose
// launcher is gone (or whose pid now belongs to another process) is stale: ignored
// and removed by whoever finds it. A launcher removes its names at its end, and the
// directory too when that leaves it empty.

// EnvNamesDir overrides the name service's directory (tests use their own).
const EnvNamesDir = "MPIGO_NAMES_DIR"

// maxServiceLen bounds a service name: its file name (base64) must fit in 255 bytes.
const maxServiceLen = 180

type names struct {
	dir   string
	mine  map[string]string // service -> publishing job id, for this launcher's names
	stamp string            // this launcher's pid and start time, as written in its files
}

func newNames() *names {
	return &names{mine: map[string]string{}, stamp: procStamp(os.Getpid())}
}

// namesDir returns the name service's directory, made (mode 0700) if need be; it
// refuses a directory another user owns or others may write. It is in /tmp, not
// $TMPDIR: two launchers of the user must meet whatever their environments.
func namesDir() (string, error) {
	dir := os.Getenv(EnvNamesDir)
	if dir == "" {
		dir = filepath.Join("/tmp", "mpigo-names-"+strconv.Itoa(os.Getuid()))
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("name service directory %s: %v", dir, err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("name service directory %s: %v", dir, err)
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || sys != nil && int(sys.Uid) != os.Getuid() || st.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("name service directory %s is not a directory of this user's that only it may write", dir)
	}
	return dir, nil
}

// procStamp names a process for as long as it lives: its pid and its start time (the
// 22nd field of /proc/PID/stat), so that a reused pid is not taken for the publisher.
func procStamp(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return strconv.Itoa(pid)
	}
	// The command name (field 2) may hold spaces; the fields after it do not.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 20 {
		return strconv.Itoa(pid)
	}
	return strconv.Itoa(pid) + "@" + f[19]
}

// alive reports whether the launcher that wrote stamp still runs.
func alive(stamp string) bool {
	pidText, _, _ := strings.Cut(stamp, "@")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	return procStamp(pid) == stamp
}

// entry is a name's file: port, the publisher's stamp, the publishing job.
type entry struct{ port, stamp, job string }

func (e entry) encode() []byte { return []byte(e.port + "\n" + e.stamp + "\n" + e.job + "\n") }

func decodeEntry(b []byte) (entry, bool) {
	f := strings.Split(string(b), "\n")
	if len(f) != 4 || f[3] != "" {
		return entry{}, false
	}
	return entry{f[0], f[1], f[2]}, true
}

func (n *names) path(service string) (string, error) {
	if service == "" {
		return "", fmt.Errorf("the service name is empty")
	}
	if len(service) > maxServiceLen {
		return "", fmt.Errorf("the service name is %d bytes long; mpigo's name service takes at most %d", len(service), maxServiceLen)
	}
	if n.dir == "" {
		d, err := namesDir()
		if err != nil {
			return "", err
		}
		n.dir = d
	}
	return filepath.Join(n.dir, base64.RawURLEncoding.EncodeToString([]byte(service))), nil
}

// read returns the live entry published under service; a stale one is removed.
func (n *names) read(path string) (entry, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return entry{}, false
	}
	e, ok := decodeEntry(b)
	if ok && alive(e.stamp) {
		return e, true
	}
	// Stale, or not a name file; remove it only if it is still the file read.
	if b2, err := os.ReadFile(path); err == nil && string(b2) == string(b) {
		os.Remove(path)
	}
	return entry{}, false
}

// publish publishes port under service for job.
func (n *names) publish(service, port, job string) error {
	path, err := n.path(service)
	if err != nil {
		return fmt.Errorf("publish %q: %v", service, err)
	}
	if port == "" {
		return fmt.Errorf("publish %q: the port name is empty", service)
	}
	// Written whole under a private name, then linked to the service's name, which
	// fails if the name exists: no reader ever sees a half-written file.
	tmp, err := os.CreateTemp(n.dir, ".publish-*")
	if errors.Is(err, fs.ErrNotExist) {
		// Another launcher removed the directory, empty, at its end: make it again.
		n.dir = ""
		if path, err = n.path(service); err == nil {
			tmp, err = os.CreateTemp(n.dir, ".publish-*")
		}
	}
	if err != nil {
		return fmt.Errorf("publish %q: %v", service, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(entry{port, n.stamp, job}.encode())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("publish %q: %v", service, err)
	}
	for try := 0; ; try++ {
		err := os.Link(tmp.Name(), path)
		if err == nil {
			n.mine[service] = job
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("publish %q: %v", service, err)
		}
		e, live := n.read(path)
		if live || try > 0 {
			who := "another job"
			if pid, _, _ := strings.Cut(e.stamp, "@"); pid == strconv.Itoa(os.Getpid()) {
				who = "a job of this run"
			} else if pid != "" {
				who = "the job of launcher pid " + pid
			}
			return fmt.Errorf("publish %q: the name is already published (by %s); unpublish it first", service, who)
		}
	}
}

// lookup returns the port published under service.
func (n *names) lookup(service string) (string, error) {
	path, err := n.path(service)
	if err != nil {
		return "", fmt.Errorf("lookup %q: %v", service, err)
	}
	e, ok := n.read(path)
	if !ok {
		return "", fmt.Errorf("lookup %q: no job has published that name", service)
	}
	return e.port, nil
}

// unpublish withdraws service, which job must have published with port.
func (n *names) unpublish(service, port, job string) error {
	path, err := n.path(service)
	if err != nil {
		return fmt.Errorf("unpublish %q: %v", service, err)
	}
	e, ok := n.read(path)
	switch {
	case !ok:
		return fmt.Errorf("unpublish %q: the name is not published", service)
	case e.stamp != n.stamp || e.job != job:
		return fmt.Errorf("unpublish %q: the name was published by another job; only it may unpublish it", service)
	case e.port != port:
		return fmt.Errorf("unpublish %q: the name is published with port %q, not %q", service, e.port, port)
	}
	delete(n.mine, service)
	return os.Remove(path)
}

// removeAll withdraws every name this launcher's jobs published and did not unpublish.
func (n *names) removeAll() {
	for service, job := range n.mine {
		if path, err := n.path(service); err == nil {
			if e, ok := n.read(path); ok && e.stamp == n.stamp && e.job == job {
				os.Remove(path)
			}
		}
	}
	clear(n.mine)
	if n.dir != "" {
		os.Remove(n.dir) // fails, as it should, while others' names are in it
	}
}
