package pmi

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/mpigo/mpigo/internal/pm"
)

// dialect is one PMI protocol's commands, as the Client uses them. Keys and values
// are server strings here: mpigo's encoding is the Client's business.
type dialect interface {
	put(key, val string) error
	fence() error
	// get returns found=false for a key nobody put; err only when the exchange failed.
	get(key string) (val string, found bool, err error)
	// nodeAttrs reports whether the server keeps per-node attributes (PMI-2).
	nodeAttrs() bool
	putNode(key, val string) error
	getNode(key string) (val string, found bool, err error)
	abort(code int, msg string) error
	finalize() error
	jobID() string
	// universeSize is the server's universe size, or -1 when it gives none.
	universeSize() int
	// chunk is the longest value text one put may carry.
	chunk() int
}

var errNoNodeAttrs = errors.New("PMI: PMI-1 has no node attributes")

// maxKeyLen bounds the server keys mpigo makes ("mpigo-node-topo-n123456.7890").
const maxKeyLen = 40

// Client is a rank's pm.Client over a PMI-1 or PMI-2 process manager.
//
// Puts are kept until the next Fence, which sends them (each at most once: a value put
// again unchanged is not resent) and then runs the server's barrier. A value, once
// published at a fence, cannot change: Put refuses a different one, because servers
// differ on replacing values (Hydra's PMI-2 keeps the first). Get asks the server for
// a value the first time it is wanted after a fence and keeps the answer (found or
// not) until the next fence, in arrays indexed by rank or node.
type Client struct {
	d       dialect
	version int // 1 or 2
	l       *link

	rank, size    int
	nodeOf        []int32
	nnodes        int
	local, nlocal int
	hosts         []string // per node when the host-name exchange ran; else nil
	jobID         string
	appnum        int

	fmu  sync.Mutex        // one fence (or finalize) at a time
	sent map[string]string // server key -> value this rank sent; guarded by fmu

	mu    sync.Mutex // guards everything below
	pend  []entry    // puts since the last fence
	own   []entry    // this rank's own values, last put wins: visible to it at once
	cache table      // values fetched from the server since the last fence
	epoch int        // fences completed
	seq   uint64     // puts so far
	err   error      // first failed exchange in a Get (which cannot return it)
	done  bool       // finalized
}

type entry struct {
	scope     pm.Scope
	key       pm.Key
	val       []byte
	published bool   // sent at a completed fence (own entries only)
	seq       uint64 // order of puts, to tell which ones a fence sent
}

// Cached value states.
const (
	unknown uint8 = iota
	present
	absent
)

// column holds one (scope, key)'s values as fetched: one slot per rank, node, or one.
type column struct {
	vals  [][]byte
	state []uint8
}

// table finds a column by scope and key: static keys by indexing an array, the few
// dynamic ones through a map.
type table struct {
	static [3][256]*column
	dyn    map[[2]int]*column
}

func (t *table) col(s pm.Scope, k pm.Key, n int, create bool) *column {
	if k < 256 {
		c := t.static[s][k]
		if c == nil && create {
			c = &column{vals: make([][]byte, n), state: make([]uint8, n)}
			t.static[s][k] = c
		}
		return c
	}
	c := t.dyn[[2]int{int(s), int(k)}]
	if c == nil && create {
		if t.dyn == nil {
			t.dyn = map[[2]int]*column{}
		}
		c = &column{vals: make([][]byte, n), state: make([]uint8, n)}
		t.dyn[[2]int{int(s), int(k)}] = c
	}
	return c
}

func (c *Client) Rank() int        { return c.rank }
func (c *Client) Size() int        { return c.size }
func (c *Client) NodeOf(r int) int { return int(c.nodeOf[r]) }
func (c *Client) NumNodes() int    { return c.nnodes }
func (c *Client) LocalRank() int   { return c.local }
func (c *Client) LocalSize() int   { return c.nlocal }

// JobID is the process manager's name for the job (Hydra's KVS name, Slurm's
// jobid.stepid), which no other running job shares.
func (c *Client) JobID() string { return c.jobID }

// Version is the PMI protocol version spoken: 1 or 2.
func (c *Client) Version() int { return c.version }

// AppNum is the process manager's application number (MPI_APPNUM): false when it
// gave none (Slurm answers -1).
func (c *Client) AppNum() (int, bool) { return c.appnum, c.appnum >= 0 }

// UniverseSize is the number of processes the process manager says the job may hold
// (MPI_UNIVERSE_SIZE): PMI-1's get_universe_size, PMI-2's job attribute universeSize;
// false when the server gives none.
func (c *Client) UniverseSize() (int, bool) {
	n := c.d.universeSize()
	return n, n > 0
}

// ParentPort is always "": mpigo starts no job under PMI (it neither spawns nor
// is spawned there), so the Client implements pm.JobInfo but not pm.Spawner.
func (c *Client) ParentPort() string { return "" }

// HostName names a node for people. PMI says which ranks share a node, not the
// node's name, so only this rank's own node (and all of them when the node map came
// from exchanging host names) has its real name.
func (c *Client) HostName(node int) string {
	if node >= 0 && node < len(c.hosts) {
		return c.hosts[node]
	}
	if c.rank < len(c.nodeOf) && node == int(c.nodeOf[c.rank]) {
		if h, err := os.Hostname(); err == nil {
			return h
		}
	}
	return "node" + strconv.Itoa(node)
}

// Err returns the first failed exchange with the server in a Get (Get itself can only
// say "not found").
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// serverKey is the key under which a value lives in the server's KVS. Static keys are
// named (readable in server logs); dynamic keys by number, because a dynamic key's name
// is known only in the processes that registered it.
func serverKey(s pm.Scope, k pm.Key, idx int) string {
	name := "key" + strconv.Itoa(int(k))
	if k < 256 {
		name = k.String()
	}
	switch s {
	case pm.Node:
		return "mpigo-" + name + "-n" + strconv.Itoa(idx)
	case pm.Job:
		return "mpigo-" + name + "-j"
	}
	return "mpigo-" + name + "-" + strconv.Itoa(idx)
}

// encode turns a value into server entries: "x<hex>" under key when it fits in chunk,
// else a head "s<n>" under key and n hex segments under key.0 .. key.<n-1>. Hex because
// servers take neither spaces (PMI-1) nor ';' (PMI-2) nor, for some, '=' in values; the
// leading letter makes the empty value non-empty, which some servers refuse.
func encode(key string, v []byte, chunk int) []entry2 {
	h := hex.EncodeToString(v)
	if 1+len(h) <= chunk {
		return []entry2{{key, "x" + h}}
	}
	n := (len(h) + chunk - 1) / chunk
	out := make([]entry2, 0, n+1)
	// Segments first: a reader that sees the head finds its segments (they are all
	// visible after the same fence anyway).
	for i := 0; i < n; i++ {
		end := min((i+1)*chunk, len(h))
		out = append(out, entry2{key + "." + strconv.Itoa(i), h[i*chunk : end]})
	}
	return append(out, entry2{key, "s" + strconv.Itoa(n)})
}

type entry2 struct{ k, v string }

// decode undoes encode; more fetches segments (from the same place as the head).
func decode(key, head string, more func(string) (string, bool, error)) ([]byte, error) {
	if head == "" {
		return nil, fmt.Errorf("PMI: value of key %s is empty; mpigo's values start with x or s", key)
	}
	switch head[0] {
	case 'x':
		v, err := hex.DecodeString(head[1:])
		if err != nil {
			return nil, fmt.Errorf("PMI: value of key %s is not hex: %v", key, err)
		}
		return v, nil
	case 's':
		n, err := strconv.Atoi(head[1:])
		if err != nil || n <= 0 || n > maxMessage {
			return nil, fmt.Errorf("PMI: value of key %s: bad segment count %q", key, head)
		}
		var h []byte
		for i := 0; i < n; i++ {
			sk := key + "." + strconv.Itoa(i)
			part, ok, err := more(sk)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, fmt.Errorf("PMI: value of key %s has %d segments but segment %s is missing", key, n, sk)
			}
			h = append(h, part...)
		}
		v := make([]byte, len(h)/2)
		if _, err := hex.Decode(v, h); err != nil || len(h)%2 != 0 {
			return nil, fmt.Errorf("PMI: value of key %s (%d segments) is not hex", key, n)
		}
		return v, nil
	}
	return nil, fmt.Errorf("PMI: value of key %s is not mpigo's encoding: %.40q", key, head)
}

// index returns the slot of rank r's value in a column of scope s.
func (c *Client) index(s pm.Scope, r int) (int, bool) {
	if r < 0 || r >= c.size {
		return 0, false
	}
	switch s {
	case pm.Proc:
		return r, true
	case pm.Node:
		return int(c.nodeOf[r]), true
	case pm.Job:
		return 0, true
	}
	return 0, false
}

func (c *Client) slots(s pm.Scope) int {
	switch s {
	case pm.Proc:
		return c.size
	case pm.Node:
		return c.nnodes
	}
	return 1
}

// Put records a value; the next Fence sends it.
func (c *Client) Put(s pm.Scope, k pm.Key, v []byte) error {
	if s > pm.Job {
		return fmt.Errorf("PMI: Put: scope %d is not proc, node or job", s)
	}
	if k == pm.KeyInvalid {
		return errors.New("PMI: Put: key 0 is not a key")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	e := entry{scope: s, key: k, val: append([]byte(nil), v...), seq: c.seq}
	if c.done {
		return errors.New("PMI: Put after Finalize")
	}
	for i := range c.own {
		o := &c.own[i]
		if o.scope != s || o.key != k {
			continue
		}
		if o.published && !bytes.Equal(o.val, v) {
			return fmt.Errorf("PMI: Put(%s, %s): this rank published a different value at an earlier fence; "+
				"PMI servers do not all replace values (Hydra's PMI-2 keeps the first), so a published value cannot change", s, k)
		}
		e.published = o.published
		*o = e
		c.pend = append(c.pend, e)
		return nil
	}
	c.own = append(c.own, e)
	c.pend = append(c.pend, e)
	return nil
}

// Fence sends this rank's puts and waits at the server's barrier for every rank.
// Node-scoped values go to the KVS under the node's key, so that every node can read
// them, and under PMI-2 also to the node's attributes, where the node's own ranks read
// them without a trip beyond their node.
func (c *Client) Fence() error {
	c.fmu.Lock()
	defer c.fmu.Unlock()
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return errors.New("PMI: Fence after Finalize")
	}
	pend := c.pend
	c.pend = nil
	sentUpTo := c.seq
	c.mu.Unlock()
	ok := false
	defer func() {
		if !ok { // keep the puts for a retry; those sent are not sent again
			c.mu.Lock()
			c.pend = append(pend, c.pend...)
			c.mu.Unlock()
		}
	}()

	// The last put of a (scope, key) wins; earlier ones are not sent.
	for i, p := range pend {
		later := false
		for _, q := range pend[i+1:] {
			if q.scope == p.scope && q.key == p.key {
				later = true
				break
			}
		}
		if later {
			continue
		}
		idx := 0
		switch p.scope {
		case pm.Proc:
			idx = c.rank
		case pm.Node:
			idx = int(c.nodeOf[c.rank])
		}
		sk := serverKey(p.scope, p.key, idx)
		for _, e := range encode(sk, p.val, c.d.chunk()) {
			if old, seen := c.sent[e.k]; seen && old == e.v {
				continue
			}
			if err := c.d.put(e.k, e.v); err != nil {
				return fmt.Errorf("%w (putting %s %s)", err, p.scope, p.key)
			}
			if p.scope == pm.Node && c.d.nodeAttrs() {
				if err := c.d.putNode(e.k, e.v); err != nil {
					return fmt.Errorf("%w (putting %s %s)", err, p.scope, p.key)
				}
			}
			c.sent[e.k] = e.v
		}
	}
	if err := c.d.fence(); err != nil {
		return err
	}
	ok = true
	c.mu.Lock()
	for i := range c.own {
		if c.own[i].seq <= sentUpTo { // not put again while this fence ran
			c.own[i].published = true
		}
	}
	c.epoch++
	c.cache = table{} // a value may have been put again: ask anew
	c.mu.Unlock()
	return nil
}

// Get returns the value rank put (or rank's node, or the job) under key as of the last
// fence, fetching it from the server on first use. Before the first fence only this
// rank's own values are visible.
func (c *Client) Get(s pm.Scope, k pm.Key, r int) ([]byte, bool) {
	idx, ok := c.index(s, r)
	if !ok || k == pm.KeyInvalid {
		return nil, false
	}
	c.mu.Lock()
	if s == pm.Job || idx == c.ownIndex(s) {
		for _, e := range c.own {
			if e.scope == s && e.key == k {
				c.mu.Unlock()
				return e.val, true
			}
		}
	}
	if col := c.cache.col(s, k, 0, false); col != nil {
		switch col.state[idx] {
		case present:
			v := col.vals[idx]
			c.mu.Unlock()
			return v, true
		case absent:
			c.mu.Unlock()
			return nil, false
		}
	}
	epoch := c.epoch
	if epoch == 0 || c.done || c.err != nil {
		c.mu.Unlock()
		return nil, false
	}
	c.mu.Unlock()

	v, found, err := c.fetch(s, k, idx)

	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		return nil, false
	}
	if c.epoch == epoch { // no fence ran meanwhile: the answer is current
		col := c.cache.col(s, k, c.slots(s), true)
		col.vals[idx] = v
		col.state[idx] = absent
		if found {
			col.state[idx] = present
		}
	}
	return v, found
}

// ownIndex is the slot of this rank's own values in a column of scope s.
func (c *Client) ownIndex(s pm.Scope) int {
	switch s {
	case pm.Proc:
		return c.rank
	case pm.Node:
		return int(c.nodeOf[c.rank])
	}
	return 0
}

func (c *Client) fetch(s pm.Scope, k pm.Key, idx int) ([]byte, bool, error) {
	sk := serverKey(s, k, idx)
	if s == pm.Node && idx == int(c.nodeOf[c.rank]) && c.d.nodeAttrs() {
		// The node's own data, from the node's attributes. Hydra stores them
		// asynchronously (its proxy relays them through mpiexec), so a fence does not
		// guarantee they are there yet: on a miss, or a segment missing, read the KVS,
		// where the fence guarantees the value.
		var wireErr error
		getNode := func(key string) (string, bool, error) {
			v, ok, err := c.d.getNode(key)
			if err != nil {
				wireErr = err
			}
			return v, ok, err
		}
		head, found, err := getNode(sk)
		if err != nil {
			return nil, false, err
		}
		if found {
			v, err := decode(sk, head, getNode)
			if wireErr != nil {
				return nil, false, wireErr
			}
			if err == nil {
				return v, true, nil
			}
		}
	}
	head, found, err := c.d.get(sk)
	if err != nil || !found {
		return nil, false, err
	}
	v, err := decode(sk, head, c.d.get)
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// Abort asks the process manager to end the whole job. It does not wait for a fence
// that another goroutine may be in.
func (c *Client) Abort(code int, msg string) error {
	return c.d.abort(code, msg)
}

// Finalize tells the process manager this rank finished, and closes the connection.
func (c *Client) Finalize() error {
	c.fmu.Lock()
	defer c.fmu.Unlock()
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return errors.New("PMI: Finalize called twice")
	}
	c.done = true
	c.mu.Unlock()
	err := c.d.finalize()
	if cerr := c.l.c.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("PMI: closing the connection: %w", cerr)
	}
	return err
}

// The PMI client tells the job's facts; spawning and the name service are refused by
// the device under PMI (Hydra's and Slurm's PMI-2 spawn are not spoken).
var _ pm.JobInfo = (*Client)(nil)
