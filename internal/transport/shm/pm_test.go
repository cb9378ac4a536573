package shm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/mpigo/mpigo/internal/pm"
)

// filePM is a test-only process manager: ranks exchange their puts through files in a
// directory, one file per rank and fence. All ranks are on node 0.
type filePM struct {
	dir        string
	job        string
	rank, size int

	mu     sync.Mutex
	puts   map[pm.Key][]byte
	vals   map[int]map[pm.Key][]byte
	fences int
}

func newFilePM(dir, job string, rank, size int) *filePM {
	return &filePM{dir: dir, job: job, rank: rank, size: size, puts: map[pm.Key][]byte{}, vals: map[int]map[pm.Key][]byte{}}
}

func (p *filePM) Rank() int               { return p.rank }
func (p *filePM) Size() int               { return p.size }
func (p *filePM) NodeOf(int) int          { return 0 }
func (p *filePM) NumNodes() int           { return 1 }
func (p *filePM) LocalRank() int          { return p.rank }
func (p *filePM) LocalSize() int          { return p.size }
func (p *filePM) HostName(int) string     { return "localhost" }
func (p *filePM) JobID() string           { return p.job }
func (p *filePM) Abort(int, string) error { return errors.New("abort") }
func (p *filePM) Finalize() error         { return nil }

func (p *filePM) Put(scope pm.Scope, key pm.Key, value []byte) error {
	if scope != pm.Proc {
		return fmt.Errorf("test pm: scope %v not supported", scope)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.puts[key] = append([]byte(nil), value...)
	return nil
}

func (p *filePM) Get(scope pm.Scope, key pm.Key, rank int) ([]byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.vals[rank][key]
	return v, ok
}

func (p *filePM) name(fence, rank int) string {
	return filepath.Join(p.dir, "fence"+strconv.Itoa(fence)+"-"+strconv.Itoa(rank))
}

// Fence publishes this rank's puts and waits (bounded, polling: test only) for
// everyone else's.
func (p *filePM) Fence() error {
	p.mu.Lock()
	var b []byte
	for k, v := range p.puts {
		b = binary.LittleEndian.AppendUint16(b, uint16(k))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	f := p.fences
	p.fences++
	p.mu.Unlock()
	tmp := p.name(f, p.rank) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, p.name(f, p.rank)); err != nil {
		return err
	}
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for r := 0; r < p.size; r++ {
		for {
			data, err := os.ReadFile(p.name(f, r))
			if err == nil {
				m := map[pm.Key][]byte{}
				for len(data) >= 6 {
					k := pm.Key(binary.LittleEndian.Uint16(data))
					n := int(binary.LittleEndian.Uint32(data[2:]))
					m[k] = data[6 : 6+n]
					data = data[6+n:]
				}
				p.mu.Lock()
				p.vals[r] = m
				p.mu.Unlock()
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("test pm: fence %d: rank %d never arrived", f, r)
			}
			<-tick.C
		}
	}
	return nil
}

// memJob is a test-only in-process job: ranks are goroutines or a single goroutine
// driving several transports. Fence needs no synchronisation there: tests call New for
// every rank, then Fence on every client, then Start.
type memJob struct {
	mu   sync.Mutex
	job  string
	size int
	vals map[int]map[pm.Key][]byte
}

type memPM struct {
	j    *memJob
	rank int
}

func newMemJob(job string, size int) []*memPM {
	j := &memJob{job: job, size: size, vals: map[int]map[pm.Key][]byte{}}
	out := make([]*memPM, size)
	for i := range out {
		out[i] = &memPM{j: j, rank: i}
		j.vals[i] = map[pm.Key][]byte{}
	}
	return out
}

func (p *memPM) Rank() int               { return p.rank }
func (p *memPM) Size() int               { return p.j.size }
func (p *memPM) NodeOf(int) int          { return 0 }
func (p *memPM) NumNodes() int           { return 1 }
func (p *memPM) LocalRank() int          { return p.rank }
func (p *memPM) LocalSize() int          { return p.j.size }
func (p *memPM) HostName(int) string     { return "localhost" }
func (p *memPM) JobID() string           { return p.j.job }
func (p *memPM) Abort(int, string) error { return errors.New("abort") }
func (p *memPM) Finalize() error         { return nil }
func (p *memPM) Fence() error            { return nil }

func (p *memPM) Put(scope pm.Scope, key pm.Key, value []byte) error {
	p.j.mu.Lock()
	defer p.j.mu.Unlock()
	p.j.vals[p.rank][key] = append([]byte(nil), value...)
	return nil
}

func (p *memPM) Get(scope pm.Scope, key pm.Key, rank int) ([]byte, bool) {
	p.j.mu.Lock()
	defer p.j.mu.Unlock()
	v, ok := p.j.vals[rank][key]
	return v, ok
}

var _ pm.Client = (*filePM)(nil)
var _ pm.Client = (*memPM)(nil)
