package pmi

import (
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

var pmiEnv = []string{"PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_JOBID", "PMI_PORT", "PMI_ID", "PMI_VERSION",
	"SLURM_MPI_TYPE", EnvVersion, EnvTimeout, EnvFenceTimeout}

// setEnv clears the variables FromEnv reads, then sets kv (restored after the test).
func setEnv(t *testing.T, kv ...string) {
	for _, k := range pmiEnv {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		t.Setenv(kv[i], kv[i+1])
	}
}

func TestFromEnvNone(t *testing.T) {
	setEnv(t)
	c, err := FromEnv()
	if c != nil || err != nil {
		t.Fatalf("FromEnv() = %v, %v; want nil, nil", c, err)
	}
}

// TestFromEnvDetects: the protocol each environment leads to, over a real inherited
// descriptor or a loopback TCP connection.
func TestFromEnvDetects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		st      style
		port    bool
		env     []string
		version int
	}{
		{"hydra fd", hydra40, false, []string{"PMI_RANK", "0", "PMI_SIZE", "1"}, 1},
		{"slurm pmi2", slurm, false, []string{"PMI_RANK", "0", "PMI_SIZE", "1", "PMI_JOBID", "7.0"}, 2},
		{"slurm type", slurm, false, []string{"PMI_RANK", "0", "PMI_SIZE", "1", "PMI_JOBID", "7.0", "SLURM_MPI_TYPE", "pmi2"}, 2},
		{"PMI_VERSION=2", hydra41, false, []string{"PMI_RANK", "0", "PMI_SIZE", "1", "PMI_VERSION", "2"}, 2},
		{"forced 1 under slurm", slurm, false, []string{"PMI_RANK", "0", "PMI_SIZE", "1", "PMI_JOBID", "7.0", EnvVersion, "1"}, 1},
		{"forced 2 under hydra", hydra40, false, []string{"PMI_RANK", "0", "PMI_SIZE", "1", EnvVersion, "2"}, 2},
		{"hydra port", hydra40, true, []string{"PMI_ID", "0"}, 1},
		{"hydra port pmi2", hydra41, true, []string{"PMI_ID", "0", EnvVersion, "2"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := newFakeJob(t, tc.st, 1, "(vector,(0,1,1))")
			env := tc.env
			fd := -1
			if tc.port {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
				env = append(env, "PMI_PORT", ln.Addr().String())
				j.port = tc.version == 1 // PMI-2 has no initack
				j.serveAccept(ln, 0)
			} else {
				var srv net.Conn
				_, fd, srv = socketpair(t, true)
				env = append(env, "PMI_FD", strconv.Itoa(fd))
				j.serve(srv, 0)
			}
			setEnv(t, env...)
			c, err := FromEnvOptions(Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c.Version() != tc.version {
				t.Errorf("spoke PMI-%d; want PMI-%d", c.Version(), tc.version)
			}
			if fd >= 0 {
				// The inherited descriptor is closed: the client holds a close-on-exec copy.
				if _, err := fcntlGetFD(fd); err != syscall.EBADF {
					t.Errorf("PMI_FD %d still open after FromEnv (%v)", fd, err)
				}
			}
			if err := c.Finalize(); err != nil {
				t.Fatal(err)
			}
			j.wait()
		})
	}
}

func fcntlGetFD(fd int) (uintptr, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if e != 0 {
		return 0, e
	}
	return r, nil
}

func TestFromEnvErrors(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "notasocket")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"fd not a number", []string{"PMI_FD", "three"}, `PMI_FD="three" is not a file descriptor number`},
		{"no rank", []string{"PMI_FD", "3", "PMI_SIZE", "2"}, "PMI_FD is set but PMI_RANK is not"},
		{"bad size", []string{"PMI_FD", "3", "PMI_RANK", "0", "PMI_SIZE", "two"}, `PMI_SIZE="two" is not a non-negative number`},
		{"fd not a socket", []string{"PMI_FD", strconv.Itoa(int(dupFD(t, f))), "PMI_RANK", "0", "PMI_SIZE", "1"}, "is not a socket"},
		{"port without id", []string{"PMI_PORT", "127.0.0.1:1"}, "PMI_ID is not"},
		{"port id not a number", []string{"PMI_PORT", "127.0.0.1:1", "PMI_ID", "x"}, `PMI_ID="x" is not a number`},
		{"port refused", []string{"PMI_PORT", closedPort, "PMI_ID", "0"}, "connecting to the process manager at PMI_PORT=" + closedPort},
		{"bad version", []string{"PMI_PORT", "127.0.0.1:1", "PMI_ID", "0", EnvVersion, "3"}, "MPIGO_PMI=\"3\": must be 1 or 2"},
		{"bad timeout", []string{"PMI_PORT", "127.0.0.1:1", "PMI_ID", "0", EnvTimeout, "soon"}, `MPIGO_PMI_TIMEOUT="soon" is not a positive duration`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setEnv(t, tc.env...)
			c, err := FromEnv()
			if c != nil || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("FromEnv() = %v, %v; want an error containing %q", c, err, tc.want)
			}
		})
	}
}

// dupFD returns a descriptor FromEnv may take (and close) without closing f.
func dupFD(t *testing.T, f *os.File) uintptr {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return uintptr(fd)
}
