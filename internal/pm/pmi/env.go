package pmi

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/mpigo/mpigo/internal/pm"
)

// Options tune the client. The zero value is the defaults.
type Options struct {
	// Version forces PMI-1 or PMI-2 (0: detect; see FromEnv).
	Version int
	// Timeout bounds the wait for each reply other than a fence's (default 60 s).
	Timeout time.Duration
	// FenceTimeout bounds a fence, which waits for the slowest rank to reach it
	// (default 30 min). A process manager that loses a rank ends the job (and closes
	// our connection) long before.
	FenceTimeout time.Duration
}

const (
	defaultTimeout      = 60 * time.Second
	defaultFenceTimeout = 30 * time.Minute
)

// Environment variables read besides the process managers' own.
const (
	// EnvVersion forces the protocol: "1" or "2".
	EnvVersion = "MPIGO_PMI"
	// EnvTimeout and EnvFenceTimeout set Options.Timeout and FenceTimeout (Go durations).
	EnvTimeout      = "MPIGO_PMI_TIMEOUT"
	EnvFenceTimeout = "MPIGO_PMI_FENCE_TIMEOUT"
)

// FromEnv connects to the PMI process manager that started this process, or returns
// (nil, nil) if none did. In order:
//
//   - PMI_FD (an inherited socket; PMI_RANK and PMI_SIZE set too): Hydra's default and
//     Slurm's --mpi=pmi2. PMI-2 is spoken when MPIGO_PMI=2 or PMI_VERSION=2, or when
//     Slurm's pmi2 plugin is recognised by PMI_JOBID (which Hydra does not set) or
//     SLURM_MPI_TYPE=pmi2; PMI-1 otherwise or when MPIGO_PMI=1. (Slurm's plugin
//     speaks both; PMI-2 has node attributes. Hydra speaks both too.)
//   - PMI_PORT=host:port and PMI_ID: connect over TCP (Hydra's -pmi-port), PMI-1
//     unless MPIGO_PMI=2.
func FromEnv() (pm.Client, error) {
	c, err := FromEnvOptions(Options{})
	if c == nil || err != nil {
		return nil, err
	}
	return c, nil
}

// FromEnvOptions is FromEnv with options; options left zero come from the environment
// (MPIGO_PMI, MPIGO_PMI_TIMEOUT, MPIGO_PMI_FENCE_TIMEOUT) or the defaults.
func FromEnvOptions(o Options) (*Client, error) {
	fdText, haveFD := os.LookupEnv("PMI_FD")
	port, havePort := os.LookupEnv("PMI_PORT")
	if !haveFD && !havePort {
		return nil, nil
	}
	if err := o.fromEnv(); err != nil {
		return nil, err
	}
	if haveFD {
		fd, err := strconv.Atoi(fdText)
		if err != nil || fd < 0 {
			return nil, fmt.Errorf("PMI: PMI_FD=%q is not a file descriptor number", fdText)
		}
		rank, err := envInt("PMI_RANK")
		if err != nil {
			return nil, err
		}
		size, err := envInt("PMI_SIZE")
		if err != nil {
			return nil, err
		}
		if o.Version == 0 {
			o.Version = 1
			if os.Getenv("PMI_VERSION") == "2" || os.Getenv("PMI_JOBID") != "" || os.Getenv("SLURM_MPI_TYPE") == "pmi2" {
				o.Version = 2
			}
		}
		conn, err := fdConn(fd)
		if err != nil {
			return nil, err
		}
		return Start(conn, o, Env{Rank: rank, Size: size, JobID: os.Getenv("PMI_JOBID")})
	}
	id, ok := os.LookupEnv("PMI_ID")
	if !ok {
		return nil, fmt.Errorf("PMI: PMI_PORT=%q is set but PMI_ID is not", port)
	}
	if _, err := strconv.Atoi(id); err != nil {
		return nil, fmt.Errorf("PMI: PMI_ID=%q is not a number", id)
	}
	if o.Version == 0 {
		o.Version = 1
	}
	conn, err := net.DialTimeout("tcp", port, o.Timeout)
	if err != nil {
		return nil, fmt.Errorf("PMI: connecting to the process manager at PMI_PORT=%s: %w", port, err)
	}
	return Start(conn, o, Env{Rank: -1, Size: -1, PortID: id})
}

func (o *Options) fromEnv() error {
	if o.Version == 0 {
		switch v := os.Getenv(EnvVersion); v {
		case "":
		case "1", "2":
			o.Version = int(v[0] - '0')
		default:
			return fmt.Errorf("PMI: %s=%q: must be 1 or 2", EnvVersion, v)
		}
	}
	for _, d := range []struct {
		name string
		p    *time.Duration
		def  time.Duration
	}{{EnvTimeout, &o.Timeout, defaultTimeout}, {EnvFenceTimeout, &o.FenceTimeout, defaultFenceTimeout}} {
		if *d.p != 0 {
			continue
		}
		*d.p = d.def
		if s := os.Getenv(d.name); s != "" {
			v, err := time.ParseDuration(s)
			if err != nil || v <= 0 {
				return fmt.Errorf("PMI: %s=%q is not a positive duration (like 90s or 10m)", d.name, s)
			}
			*d.p = v
		}
	}
	return nil
}

func envInt(name string) (int, error) {
	s, ok := os.LookupEnv(name)
	if !ok {
		return 0, fmt.Errorf("PMI: PMI_FD is set but %s is not", name)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("PMI: %s=%q is not a non-negative number", name, s)
	}
	return n, nil
}

// fdConn makes a net.Conn of the inherited socket (which gives read deadlines) and
// closes the inherited descriptor: the conn holds a close-on-exec duplicate, so
// programs this rank starts do not inherit the process manager's socket.
func fdConn(fd int) (net.Conn, error) {
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), "pmi")
	if f == nil {
		return nil, fmt.Errorf("PMI: PMI_FD=%d is not an open file", fd)
	}
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("PMI: PMI_FD=%d is not a socket: %w", fd, err)
	}
	return c, nil
}

// Env is what the environment says about this process, for Start.
type Env struct {
	Rank, Size int    // PMI_RANK, PMI_SIZE; -1 in port mode (the server says)
	JobID      string // PMI_JOBID (Slurm); may be empty
	PortID     string // PMI_ID in port mode; else empty
}

// Start speaks PMI over conn (o.Version 1 or 2) until the job's layout is known, and
// returns the client. Tests use it with a fake server; FromEnv with the real one. On
// error conn is closed.
func Start(conn net.Conn, o Options, env Env) (c *Client, err error) {
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.FenceTimeout <= 0 {
		o.FenceTimeout = defaultFenceTimeout
	}
	l := &link{c: conn, timeout: o.Timeout}
	defer func() {
		if err != nil {
			conn.Close()
		}
	}()
	c = &Client{l: l, version: o.Version, sent: map[string]string{}}
	var mapping string
	switch o.Version {
	case 1:
		w := &pmi1{l: l, fenceTimeout: o.FenceTimeout}
		if env.PortID != "" {
			if err := w.initack(env.PortID, o.Timeout); err != nil {
				return nil, err
			}
			env.Rank, env.Size = w.rank, w.size
		}
		if err := w.start(o.Timeout); err != nil {
			return nil, err
		}
		c.d, c.rank, c.size, c.appnum, mapping = w, env.Rank, env.Size, w.appnum, w.mapping
	case 2:
		w := &pmi2{l: l, fenceTimeout: o.FenceTimeout}
		if err := w.start(env.Rank, env.JobID, env.PortID, o.Timeout); err != nil {
			return nil, err
		}
		if env.Rank >= 0 && (w.rank != env.Rank || w.size != env.Size) {
			return nil, fmt.Errorf("PMI: the environment says rank %d of %d, the server's fullinit rank %d of %d", env.Rank, env.Size, w.rank, w.size)
		}
		c.d, c.rank, c.size, c.appnum, mapping = w, w.rank, w.size, w.appnum, w.mapping
	default:
		return nil, fmt.Errorf("PMI: protocol version %d: mpigo speaks PMI-1 and PMI-2", o.Version)
	}
	if c.size <= 0 || c.rank < 0 || c.rank >= c.size {
		return nil, fmt.Errorf("PMI: rank %d of %d is not a rank of the job", c.rank, c.size)
	}
	c.jobID = c.d.jobID()
	c.nodeOf, c.nnodes, err = ParseMapping(mapping, c.size)
	if errors.Is(err, errNoMapping) {
		err = c.exchangeHosts()
	}
	if err != nil {
		return nil, err
	}
	c.local, c.nlocal = localRanks(c.nodeOf, c.rank)
	return c, nil
}

// exchangeHosts builds the node map when the server gives no PMI_process_mapping:
// every rank publishes its host name, and ranks with the same name share a node
// (numbered in order of their first rank). It costs a fence and size gets per rank,
// which is why the mapping is preferred.
func (c *Client) exchangeHosts() error {
	h, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("PMI: no process mapping from the server, and no host name: %w", err)
	}
	key := func(r int) string { return "mpigo-host-" + strconv.Itoa(r) }
	if err := c.d.put(key(c.rank), "x"+hex.EncodeToString([]byte(h))); err != nil {
		return err
	}
	if err := c.d.fence(); err != nil {
		return err
	}
	c.nodeOf = make([]int32, c.size)
	ids := map[string]int32{} // once, at start-up
	for r := 0; r < c.size; r++ {
		v, ok, err := c.d.get(key(r))
		if err == nil && !ok {
			err = fmt.Errorf("PMI: rank %d published no host name", r)
		}
		if err != nil {
			return err
		}
		name, err := decode(key(r), v, nil)
		if err != nil {
			return err
		}
		id, ok := ids[string(name)]
		if !ok {
			id = int32(len(c.hosts))
			ids[string(name)] = id
			c.hosts = append(c.hosts, string(name))
		}
		c.nodeOf[r] = id
	}
	c.nnodes = len(c.hosts)
	return nil
}
