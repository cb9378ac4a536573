package mpi_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// memAvailable is the kernel's estimate of the memory available to new work, in
// bytes (0 when unknown).
func memAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		var kb int64
		if n, _ := fmt.Sscanf(s.Text(), "MemAvailable: %d kB", &kb); n == 1 {
			return kb << 10
		}
	}
	return 0
}

type bigValue struct {
	Name string
	Data []byte
}

// TestValue3GiB sends a value holding a 3 GiB slice between two ranks (past every
// 32-bit length) and checks it, sampled every 4 KiB and at the end. Skipped with
// -short or when less than 10 GiB of memory is available (the two ranks hold 6).
func TestValue3GiB(t *testing.T) {
	if testing.Short() && !mpitest.IsRank(t) {
		t.Skip("3 GiB value: skipped with -short")
	}
	if avail := memAvailable(); avail < 10<<30 && !mpitest.IsRank(t) {
		t.Skipf("3 GiB value: %d MiB of memory available, want 10 GiB", avail>>20)
	}
	const n = 3 << 30
	mpitest.Job(t, mpitest.Options{N: 2, Timeout: 3 * time.Minute}, func(t *testing.T) {
		must(t, mpi.Init())
		defer mpi.Finalize()
		w := mpi.World
		pat := func(i int) byte { return byte(i>>12) ^ byte(i) }
		if w.Rank() == 0 {
			v := bigValue{Name: strings.Repeat("b", 3), Data: make([]byte, n)}
			for i := 0; i < n; i += 4096 {
				v.Data[i] = pat(i)
			}
			v.Data[n-1] = 0x5a
			must(t, mpi.SendValue(w, v, 1, 0))
			return
		}
		v, st, err := mpi.RecvValue[bigValue](w, 0, 0)
		must(t, err)
		if len(v.Data) != n || v.Name != "bbb" || st.Bytes() < n {
			t.Fatalf("got %d bytes (status %d), name %q", len(v.Data), st.Bytes(), v.Name)
		}
		for i := 0; i < n; i += 4096 {
			if v.Data[i] != pat(i) {
				t.Fatalf("byte %d: %#x, want %#x", i, v.Data[i], pat(i))
			}
		}
		if v.Data[n-1] != 0x5a {
			t.Fatal("last byte wrong")
		}
	})
}
