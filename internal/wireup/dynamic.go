package wireup

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/mpigo/mpigo/internal/pm"
)

// Dynamic processes over the wire-up connection: a rank asks its launcher to spawn a
// job or to publish, look up or withdraw a name (MsgRequest), and the launcher answers
// (MsgAnswer). Each request carries an id the client chose, and the answer the same
// id, so that requests from several threads of a rank may be out at once. A rank
// under an agent sends to its agent, which passes the request up with the rank and
// the answer back down. None of this is on a data path: the bodies are JSON.

// Environment variables for what the launcher knows of the job beyond its layout.
const (
	EnvParentPort   = "MPIGO_PARENT_PORT"   // a spawned job's ranks: the port their parents accept on
	EnvAppNum       = "MPIGO_APPNUM"        // the index of the rank's program in the job's command line (MPI_APPNUM)
	EnvUniverseSize = "MPIGO_UNIVERSE_SIZE" // how many processes the run may hold (MPI_UNIVERSE_SIZE)
)

// The operations of a Request.
const (
	OpSpawn     = "spawn"
	OpPublish   = "publish"
	OpLookup    = "lookup"
	OpUnpublish = "unpublish"
)

// Request is what a rank asks its launcher (MsgRequest, after the id).
type Request struct {
	Op      string
	Cmds    []pm.SpawnCmd `json:",omitempty"` // spawn
	Port    string        `json:",omitempty"` // spawn: the parents' port; publish, unpublish: the port named
	Service string        `json:",omitempty"` // publish, lookup, unpublish
}

// Answer is the launcher's answer to a Request (MsgAnswer, after the id).
type Answer struct {
	Err      string   `json:",omitempty"` // the request failed as a whole
	Port     string   `json:",omitempty"` // lookup: the port published
	ProcErrs []string `json:",omitempty"` // spawn: per process asked for, "" when it started
}

// EncodeRequest and EncodeAnswer write a message body: the id (uvarint), then the JSON.
func EncodeRequest(id uint64, r *Request) []byte { return encodeWithID(id, r) }
func EncodeAnswer(id uint64, a *Answer) []byte   { return encodeWithID(id, a) }

func encodeWithID(id uint64, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only strings and slices of them: cannot fail
	}
	return append(binary.AppendUvarint(nil, id), b...)
}

// DecodeRequest reads a MsgRequest body.
func DecodeRequest(body []byte) (uint64, *Request, error) {
	r := new(Request)
	id, err := decodeWithID(body, r)
	return id, r, err
}

// DecodeAnswer reads a MsgAnswer body.
func DecodeAnswer(body []byte) (uint64, *Answer, error) {
	a := new(Answer)
	id, err := decodeWithID(body, a)
	return id, a, err
}

func decodeWithID(body []byte, v any) (uint64, error) {
	id, k := binary.Uvarint(body)
	if k <= 0 {
		return 0, fmt.Errorf("request or answer without an id")
	}
	if err := json.Unmarshal(body[k:], v); err != nil {
		return id, fmt.Errorf("request or answer %d: %v", id, err)
	}
	return id, nil
}

// jobFacts reads the job's facts from the environment the launcher gave: absent
// variables (a launcher older than this client) leave them unknown.
func (c *Client) jobFacts() error {
	c.parentPort = os.Getenv(EnvParentPort)
	c.appnum, c.universe = -1, -1
	for _, v := range []struct {
		name string
		to   *int
	}{{EnvAppNum, &c.appnum}, {EnvUniverseSize, &c.universe}} {
		s, ok := os.LookupEnv(v.name)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return fmt.Errorf("mpigo launcher environment: %s=%q is not a count", v.name, s)
		}
		*v.to = n
	}
	return nil
}

// UniverseSize is MPI_UNIVERSE_SIZE as the launcher computed it (its hosts' slots,
// else this machine's CPUs, never fewer than the processes started; or its
// --universe-size).
func (c *Client) UniverseSize() (int, bool) { return c.universe, c.universe > 0 }

// AppNum is MPI_APPNUM: the index of this rank's program among the job's programs
// (the parts of an MPMD command line, or the commands of a spawn).
func (c *Client) AppNum() (int, bool) { return c.appnum, c.appnum >= 0 }

// ParentPort is the port a spawned job's ranks connect to; "" when not spawned.
func (c *Client) ParentPort() string { return c.parentPort }

// Spawn asks the launcher to start cmds as one new job whose ranks connect to port.
func (c *Client) Spawn(cmds []pm.SpawnCmd, port string) ([]error, error) {
	a, err := c.request(&Request{Op: OpSpawn, Cmds: cmds, Port: port})
	if err != nil {
		return nil, err
	}
	want := 0
	for _, cmd := range cmds {
		want += max(cmd.MaxProcs, 0)
	}
	if len(a.ProcErrs) != want {
		return nil, fmt.Errorf("spawn: the launcher answered for %d processes, %d were asked for", len(a.ProcErrs), want)
	}
	errs := make([]error, want)
	for i, e := range a.ProcErrs {
		if e != "" {
			errs[i] = errors.New(e)
		}
	}
	return errs, nil
}

// Publish publishes port under service in the launcher's name service.
func (c *Client) Publish(service, port string) error {
	_, err := c.request(&Request{Op: OpPublish, Service: service, Port: port})
	return err
}

// Lookup returns the port published under service.
func (c *Client) Lookup(service string) (string, error) {
	a, err := c.request(&Request{Op: OpLookup, Service: service})
	if err != nil {
		return "", err
	}
	return a.Port, nil
}

// Unpublish withdraws the name service, which this job published with port.
func (c *Client) Unpublish(service, port string) error {
	_, err := c.request(&Request{Op: OpUnpublish, Service: service, Port: port})
	return err
}

// request sends r and waits for its answer (or the launcher's end).
func (c *Client) request(r *Request) (*Answer, error) {
	ch := make(chan *Answer, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.nextID++
	id := c.nextID
	if c.waiting == nil {
		c.waiting = map[uint64]chan *Answer{}
	}
	c.waiting[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
	}()
	if err := c.send(MsgRequest, EncodeRequest(id, r)); err != nil {
		return nil, err
	}
	var a *Answer
	select {
	case a = <-ch:
	case <-c.dead:
		// The reader hands over every answer it read before it marks the launcher
		// gone, and select picks at random among ready cases: an answer that came
		// just before the end is still this request's.
		select {
		case a = <-ch:
		default:
			return nil, c.err
		}
	}
	if a.Err != "" {
		return nil, errors.New(a.Err)
	}
	return a, nil
}

// answer hands an answer from the launcher to the request waiting for it.
func (c *Client) answer(body []byte) {
	id, a, err := DecodeAnswer(body)
	if err != nil {
		a = &Answer{Err: err.Error()}
	}
	c.mu.Lock()
	ch := c.waiting[id]
	c.mu.Unlock()
	if ch != nil {
		ch <- a // buffered, and one answer per id
	}
}

var (
	_ pm.Spawner     = (*Client)(nil)
	_ pm.NameService = (*Client)(nil)
	_ pm.JobInfo     = (*Client)(nil)
)
