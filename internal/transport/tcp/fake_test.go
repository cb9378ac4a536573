package tcp

import (
	"fmt"
	"sync"

	"github.com/mpigo/mpigo/internal/pm"
)

// store is the in-memory wire-up of a test job: what every fake client puts, every
// fake client sees. Fence does nothing: tests call New on every rank before Start.
type store struct {
	mu   sync.Mutex
	size int
	data map[string][]byte
}

func newStore(size int) *store { return &store{size: size, data: map[string][]byte{}} }

func key(scope pm.Scope, k pm.Key, rank int) string {
	if scope == pm.Job {
		rank = 0
	}
	return fmt.Sprintf("%v/%v/%d", scope, k, rank)
}

func (s *store) put(scope pm.Scope, k pm.Key, rank int, v []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data[key(scope, k, rank)] = append([]byte(nil), v...)
}

// fakeClient is one rank's pm.Client over a store; every rank is on node 0.
type fakeClient struct {
	s    *store
	rank int
}

func (c *fakeClient) Rank() int               { return c.rank }
func (c *fakeClient) Size() int               { return c.s.size }
func (c *fakeClient) NodeOf(int) int          { return 0 }
func (c *fakeClient) NumNodes() int           { return 1 }
func (c *fakeClient) LocalRank() int          { return c.rank }
func (c *fakeClient) LocalSize() int          { return c.s.size }
func (c *fakeClient) HostName(int) string     { return "localhost" }
func (c *fakeClient) JobID() string           { return "test" }
func (c *fakeClient) Fence() error            { return nil }
func (c *fakeClient) Abort(int, string) error { return nil }
func (c *fakeClient) Finalize() error         { return nil }
func (c *fakeClient) Put(scope pm.Scope, k pm.Key, v []byte) error {
	c.s.put(scope, k, c.rank, v)
	return nil
}
func (c *fakeClient) Get(scope pm.Scope, k pm.Key, rank int) ([]byte, bool) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	v, ok := c.s.data[key(scope, k, rank)]
	return v, ok
}

var _ pm.Client = (*fakeClient)(nil)
