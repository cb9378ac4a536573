package p2p

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/mpigo/mpigo/internal/transport"
)

// TestShmAdaptive: large messages over shared memory in auto mode are offered for get
// and the receiver chooses; over enough of them it tries both protocols, and every
// message arrives whole, including into a smaller (truncating) buffer.
func TestShmAdaptive(t *testing.T) {
	es := shmEngines(t, 2, Options{Spin: 200, Yield: 20})
	tab, err := es[1].Protocols(0) // the receiver's route to the sender: single copy
	if err != nil {
		t.Fatal(err)
	}
	if !tab.SingleCopy || !es[1].adaptive {
		t.Skip("no single copy between the ranks: nothing to choose")
	}
	sizes := []int{adaptMin, 100000, 1 << 20}
	const rounds = 3 * adaptProbe
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range rounds {
			for j, n := range sizes {
				if err := es[0].Send(Bytes(pattern(i+j, n)), 1, j, 0, Standard); err != nil {
					t.Error(err)
					return
				}
			}
		}
		// A truncating receive of an offered message, either way.
		for i := range 2 * adaptProbe {
			if err := es[0].Send(Bytes(pattern(i, 1<<20)), 1, 9, 0, Standard); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range rounds {
		for j, n := range sizes {
			buf := make([]byte, n)
			st, err := es[1].Recv(Bytes(buf), 0, j, 0)
			if err != nil {
				t.Fatal(err)
			}
			if st.Count != int64(n) || !bytes.Equal(buf, pattern(i+j, n)) {
				t.Fatalf("round %d, %d bytes: count %d, data ok %v", i, n, st.Count, bytes.Equal(buf, pattern(i+j, n)))
			}
		}
	}
	for i := range 2 * adaptProbe {
		buf := make([]byte, 300000)
		st, err := es[1].Recv(Bytes(buf), 0, 9, 0)
		if !errors.Is(err, ErrTruncate) || st.Count != int64(len(buf)) || !bytes.Equal(buf, pattern(i, 1<<20)[:len(buf)]) {
			t.Fatalf("truncating receive %d: %v, count %d", i, err, st.Count)
		}
	}
	wg.Wait()
	es[1].mu.Lock()
	defer es[1].mu.Unlock()
	a := &es[1].peers[0].adapt
	if a.inflight != 0 {
		t.Errorf("%d adaptive receives still counted in flight", a.inflight)
	}
	for _, n := range sizes {
		c := a.class[adaptClass(int64(n))]
		if c.nsPerKB[protoIdx(transport.Pipeline)] == 0 || c.nsPerKB[protoIdx(transport.Get)] == 0 {
			t.Errorf("%d bytes: not both protocols timed: %v ns/KiB (pipeline, get)", n, c.nsPerKB)
		}
	}
}
