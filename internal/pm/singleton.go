package pm

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

// singleton is the process manager of a program started without a launcher: a job of
// one rank, so that `go run` and `go test` work on MPI code.
type singleton struct {
	mu   sync.Mutex
	vals map[[2]int][]byte // a handful of puts at Init; no hot path
	id   string
}

// Singleton returns the process manager of a one-rank job.
func Singleton() Client {
	return &singleton{vals: map[[2]int][]byte{}, id: "s" + strconv.FormatInt(int64(os.Getpid()), 36)}
}

func (s *singleton) Rank() int               { return 0 }
func (s *singleton) Size() int               { return 1 }
func (s *singleton) NodeOf(int) int          { return 0 }
func (s *singleton) NumNodes() int           { return 1 }
func (s *singleton) LocalRank() int          { return 0 }
func (s *singleton) LocalSize() int          { return 1 }
func (s *singleton) HostName(int) string     { h, _ := os.Hostname(); return h }
func (s *singleton) JobID() string           { return s.id }
func (s *singleton) Fence() error            { return nil }
func (s *singleton) Finalize() error         { return nil }
func (s *singleton) Abort(int, string) error { return nil }

func (s *singleton) Put(sc Scope, k Key, v []byte) error {
	if sc > Job {
		return fmt.Errorf("Put: scope %d is not proc, node or job", sc)
	}
	s.mu.Lock()
	s.vals[[2]int{int(sc), int(k)}] = append([]byte(nil), v...)
	s.mu.Unlock()
	return nil
}

func (s *singleton) Get(sc Scope, k Key, r int) ([]byte, bool) {
	if r != 0 && sc != Job {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vals[[2]int{int(sc), int(k)}]
	return v, ok
}

// A singleton's universe is itself: MPI_UNIVERSE_SIZE is 1, its program is
// application 0, and it has no parent. It cannot spawn (there is no process manager
// to start processes) and has no name service.
func (s *singleton) UniverseSize() (int, bool) { return 1, true }
func (s *singleton) AppNum() (int, bool)       { return 0, true }
func (s *singleton) ParentPort() string        { return "" }
