package pm

import (
	"fmt"
	"hash/fnv"
	"sync"
)

// Key names a wire-up value. The keys mpigo itself uses are fixed here, in one place,
// so that every process agrees on their numbers without exchanging names. Keys that a
// component defines at run time come from Register.
type Key uint16

// The schema.
const (
	KeyInvalid   Key = iota
	KeyPID           // proc: the process id, the thread id single-copy CMA calls name, the fd of its memory table (little-endian uint32s)
	KeyShm           // proc: the shared-memory transport's address of this rank
	KeyTCP           // proc: the TCP transport's listening address(es)
	KeyTopo          // proc: the cores this rank may run on
	KeyNodeTopo      // node: the node's cache and socket layout
	KeySecret        // job: the job's connection secret
	KeyBarrier       // job: unused value; fences with no data use it in tests
	firstDynamic Key = 256
)

var (
	dynMu    sync.Mutex
	dynNames = map[Key]string{}
)

// Register returns the key for a name a component defines at run time. The number is
// a pure function of the name, so processes agree without a round trip; two names that
// collide in one process are refused.
func Register(name string) (Key, error) {
	h := fnv.New32a()
	h.Write([]byte(name))
	k := firstDynamic + Key(h.Sum32()%uint32(1<<16-int(firstDynamic)))
	dynMu.Lock()
	defer dynMu.Unlock()
	if old, ok := dynNames[k]; ok && old != name {
		return 0, fmt.Errorf("key name %q collides with %q (key %d); choose another name", name, old, k)
	}
	dynNames[k] = name
	return k, nil
}

// String names a key for diagnostics.
func (k Key) String() string {
	switch k {
	case KeyPID:
		return "pid"
	case KeyShm:
		return "shm"
	case KeyTCP:
		return "tcp"
	case KeyTopo:
		return "topo"
	case KeyNodeTopo:
		return "node-topo"
	case KeySecret:
		return "secret"
	case KeyBarrier:
		return "barrier"
	}
	dynMu.Lock()
	defer dynMu.Unlock()
	if n, ok := dynNames[k]; ok {
		return n
	}
	return fmt.Sprintf("key%d", uint16(k))
}
