package wireup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/mpigo/mpigo/internal/pm"
)

// Environment variables by which mpigo's launcher describes the job to each process.
// MPIGO_RANK, MPIGO_SIZE, MPIGO_LOCAL_RANK and MPIGO_LOCAL_SIZE are also meant for
// scripts and programs that do not use MPI.
const (
	EnvRank      = "MPIGO_RANK"
	EnvSize      = "MPIGO_SIZE"
	EnvLocalRank = "MPIGO_LOCAL_RANK"
	EnvLocalSize = "MPIGO_LOCAL_SIZE"
	EnvJobID     = "MPIGO_JOBID"
	EnvNodeMap   = "MPIGO_NODEMAP"
	EnvHosts     = "MPIGO_HOSTS"
	EnvFD        = "MPIGO_PM_FD"
)

type put struct {
	key   pm.Key
	scope pm.Scope
	val   []byte
}

// Client is a rank's pm.Client over its connection to the launcher.
type Client struct {
	rank, size int
	lay        *Layout
	local      int
	nlocal     int
	jobID      string
	conn       io.ReadWriteCloser

	wmu sync.Mutex // one frame at a time on the connection

	fmu   sync.Mutex // one fence at a time
	mu    sync.Mutex // pending and table
	pend  []put
	table Table
	down  chan []byte // fence results, from the reader
	dead  chan struct{}
	err   error // why dead is closed

	finalized bool
	aborting  bool            // Abort was called: the connection's end is expected
	onLost    func(err error) // OnLost's function
	onQuery   func() []byte   // OnQuery's function
	onShared  func(bool)      // OnShared's function

	// Requests out to the launcher (dynamic.go), by id, under mu.
	nextID  uint64
	waiting map[uint64]chan *Answer

	// The job's facts from the environment (jobFacts); -1: not told.
	parentPort       string
	appnum, universe int
}

// FromEnv returns a client if this process was started by mpigo's launcher, (nil, nil)
// if it was not.
func FromEnv() (*Client, error) {
	fdText, ok := os.LookupEnv(EnvFD)
	if !ok {
		return nil, nil
	}
	get := func(name string) (int, error) {
		v, err := strconv.Atoi(os.Getenv(name))
		if err != nil {
			return 0, fmt.Errorf("mpigo launcher environment: %s=%q is not a number", name, os.Getenv(name))
		}
		return v, nil
	}
	fd, err := strconv.Atoi(fdText)
	if err != nil {
		return nil, fmt.Errorf("mpigo launcher environment: %s=%q is not a number", EnvFD, fdText)
	}
	rank, err := get(EnvRank)
	if err != nil {
		return nil, err
	}
	lay, err := ParseLayout(os.Getenv(EnvNodeMap), os.Getenv(EnvHosts))
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= lay.Size() {
		return nil, fmt.Errorf("mpigo launcher environment: rank %d out of range [0,%d)", rank, lay.Size())
	}
	f := os.NewFile(uintptr(fd), "mpigo-pm")
	if f == nil {
		return nil, fmt.Errorf("mpigo launcher environment: %s=%d is not an open file", EnvFD, fd)
	}
	closeOnExec(fd)
	c := NewClient(f, rank, lay, os.Getenv(EnvJobID))
	if err := c.jobFacts(); err != nil {
		c.conn.Close()
		return nil, err
	}
	return c, nil
}

// NewClient makes a client for rank over conn; it starts reading conn at once.
func NewClient(conn io.ReadWriteCloser, rank int, lay *Layout, jobID string) *Client {
	c := &Client{rank: rank, size: lay.Size(), lay: lay, jobID: jobID, conn: conn,
		down: make(chan []byte, 1), dead: make(chan struct{}), appnum: -1, universe: -1}
	c.local, c.nlocal = lay.LocalRank(rank)
	go c.read()
	return c
}

// ErrLauncherGone is reported when the connection to the launcher breaks.
var ErrLauncherGone = errors.New("the mpigo launcher is gone")

// OnLost makes f be called once when the connection to the launcher breaks before
// Finalize (at once, if it already has). The device ends the process there: a rank
// must not outlive its job.
func (c *Client) OnLost(f func(err error)) {
	c.mu.Lock()
	c.onLost = f
	lost := c.err != nil && !c.finalized
	c.mu.Unlock()
	if lost {
		f(c.err)
	}
}

func (c *Client) read() {
	var buf []byte
	for {
		typ, body, err := ReadFrame(c.conn, buf)
		buf = body[:0]
		if err != nil {
			c.die(fmt.Errorf("%w: %v", ErrLauncherGone, err))
			return
		}
		switch typ {
		case MsgFenceDn:
			c.down <- append([]byte(nil), body...)
		case MsgAnswer:
			c.answer(body)
		case MsgError:
			c.die(errors.New(string(body)))
			return
		case MsgShared:
			on, _ := binary.Uvarint(body)
			c.mu.Lock()
			f := c.onShared
			c.mu.Unlock()
			if f != nil {
				f(on == 1)
			}
		case MsgQuery:
			c.mu.Lock()
			f := c.onQuery
			c.mu.Unlock()
			if f != nil {
				// Off the reader, which must go on delivering fence results.
				go func() { c.send(MsgState, f()) }()
			}
		}
	}
}

func (c *Client) die(err error) {
	c.mu.Lock()
	c.err = err
	fin, f := c.finalized || c.aborting, c.onLost
	c.mu.Unlock()
	close(c.dead)
	if !fin && f != nil {
		f(err)
	}
}

func (c *Client) send(typ byte, body []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := WriteFrame(c.conn, typ, body); err != nil {
		return fmt.Errorf("%w: %v", ErrLauncherGone, err)
	}
	return nil
}

// Hello tells the launcher this rank has started MPI, and whether it may use every CPU
// of its machine as it starts: nobody bound it, so that a binding it has later is its
// own (the launcher's CPU watch frees only such ranks). A launcher that reads only the
// pid ignores the rest.
func (c *Client) Hello(free bool) error {
	b := binary.AppendUvarint(nil, uint64(os.Getpid()))
	if free {
		return c.send(MsgHello, binary.AppendUvarint(b, 1))
	}
	return c.send(MsgHello, binary.AppendUvarint(b, 0))
}

func (c *Client) Rank() int                { return c.rank }
func (c *Client) Size() int                { return c.size }
func (c *Client) NodeOf(r int) int         { return int(c.lay.NodeOf[r]) }
func (c *Client) NumNodes() int            { return c.lay.NumNodes() }
func (c *Client) LocalRank() int           { return c.local }
func (c *Client) LocalSize() int           { return c.nlocal }
func (c *Client) HostName(node int) string { return c.lay.Hosts[node] }
func (c *Client) JobID() string            { return c.jobID }

// Put records a value; it travels with this rank's next Fence.
func (c *Client) Put(s pm.Scope, k pm.Key, v []byte) error {
	if s > pm.Job {
		return fmt.Errorf("Put: scope %d is not proc, node or job", s)
	}
	if k == pm.KeyInvalid {
		return fmt.Errorf("Put: key 0 is not a key")
	}
	c.mu.Lock()
	c.pend = append(c.pend, put{k, s, append([]byte(nil), v...)})
	c.mu.Unlock()
	return nil
}

// Fence sends this rank's puts up in one message and waits for the one message down.
func (c *Client) Fence() error {
	c.fmu.Lock()
	defer c.fmu.Unlock()
	c.mu.Lock()
	body := encodePuts(c.pend)
	c.pend = c.pend[:0]
	c.mu.Unlock()
	if err := c.send(MsgFenceUp, body); err != nil {
		return err
	}
	var msg []byte
	select {
	case msg = <-c.down:
	case <-c.dead:
		return c.err
	}
	t, err := decodeDown(msg, c.lay.All(), c.size, c.lay.NumNodes())
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.table.merge(t, c.size, c.lay.NumNodes())
	c.mu.Unlock()
	return nil
}

// encodePuts writes a rank's puts in the column encoding over its own span: each put is
// a column with a single entry. Repeated puts of one key keep the last.
func encodePuts(ps []put) []byte {
	last := make(map[[2]int]int, len(ps)) // only at fences, never on a data path
	var order []int
	for i, p := range ps {
		k := [2]int{int(p.key), int(p.scope)}
		if j, ok := last[k]; ok {
			order[j] = i
			continue
		}
		last[k] = len(order)
		order = append(order, i)
	}
	b := binary.AppendUvarint(nil, uint64(len(order)))
	for _, i := range order {
		p := ps[i]
		b = binary.LittleEndian.AppendUint16(b, uint16(p.key))
		b = append(b, byte(p.scope))
		b = binary.AppendUvarint(b, uint64(len(p.val))+entryValue)
		b = append(b, p.val...)
	}
	return b
}

// Get reads a value as of the last fence.
func (c *Client) Get(s pm.Scope, k pm.Key, r int) ([]byte, bool) {
	i := r
	switch s {
	case pm.Node:
		if r < 0 || r >= c.size {
			return nil, false
		}
		i = int(c.lay.NodeOf[r])
	case pm.Job:
		i = 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.table.Get(k, s, i)
}

// abortWait bounds how long Abort waits for the launcher to end this process. The
// launcher signals the job's ranks as soon as it reads the abort, so the bound is met
// only when the launcher is stuck.
const abortWait = 10 * time.Second

// Abort asks the launcher to end the job, and returns only when the connection to the
// launcher ends or abortWait has passed: the launcher, stopping the job, ends this
// process before either. Were the process to exit at once, its peers would see its
// connections close before the launcher knew why: each would take it for a failure of
// its own, report it (under MPI_ERRORS_ARE_FATAL, abort with MPIX_ERR_PROC_FAILED), and
// whichever report reached the launcher first would name the job's end and its code.
func (c *Client) Abort(code int, msg string) error { return c.abort(code, AbortCall, msg) }

// Fail ends the job as Abort does, for an error the program did not handle (under
// MPI_ERRORS_ARE_FATAL or MPI_ERRORS_ABORT, or one mpigo cannot go on from): the
// launcher says the rank failed with msg, not that it called MPI_Abort.
func (c *Client) Fail(code int, msg string) error { return c.abort(code, AbortError, msg) }

// How a rank ends the job (MsgAbort's kind): by a call to MPI_Abort, or by an error.
const (
	AbortCall  byte = 0
	AbortError byte = 1
)

// ExitStatus is the exit status of a job that a rank ended with code, by MPI_Abort or
// an error: what the shell shows of exit(code), its low 8 bits, as MPI asks ("a UNIX
// or POSIX environment should handle this as a return errorcode from the main
// program", says MPI_ABORT's definition), but never 0, which would say the job succeeded: a
// code of 0 or a multiple of 256 gives 1.
func ExitStatus(code int) int {
	if s := code & 255; s != 0 {
		return s
	}
	return 1
}

func (c *Client) abort(code int, kind byte, msg string) error {
	c.mu.Lock()
	c.aborting = true
	c.mu.Unlock()
	if err := c.send(MsgAbort, append(append(binary.AppendVarint(nil, int64(code)), kind), msg...)); err != nil {
		return err
	}
	t := time.NewTimer(abortWait)
	defer t.Stop()
	select {
	case <-c.dead:
	case <-t.C:
	}
	return nil
}

// OnQuery makes f answer the launcher's question about this rank (MsgQuery): what it
// returns goes up as MsgState. f runs in a goroutine of its own.
func (c *Client) OnQuery(f func() []byte) {
	c.mu.Lock()
	c.onQuery = f
	c.mu.Unlock()
}

// OnShared makes f take the launcher's word on whether other processes keep the node's
// CPUs busy (MsgShared; internal/idle.SetShared). f runs on the connection's reader
// and must not block.
func (c *Client) OnShared(f func(bool)) {
	c.mu.Lock()
	c.onShared = f
	c.mu.Unlock()
}

// Report sends the rank's account (MsgReport) to the launcher, before Finalize.
func (c *Client) Report(b []byte) error { return c.send(MsgReport, b) }

// Finalize tells the launcher this rank is done; its exit is then not a failure.
func (c *Client) Finalize() error {
	c.mu.Lock()
	c.finalized = true
	c.mu.Unlock()
	return c.send(MsgFinalize, nil)
}
