package mpi_test

import (
	"testing"
	"time"

	"github.com/mpigo/mpigo/mpi"
)

func TestTmpDimsSpeed(t *testing.T) {
	for _, c := range []struct{ n, k int }{{720720, 6}, {720720, 12}, {1 << 40, 20}, {1 << 62, 30}, {963761198400, 8}, {963761198400, 3}, {2 * 3 * 5 * 7 * 11 * 13 * 17 * 19 * 23, 9}, {1 << 20, 60}} {
		d := make([]int, c.k)
		t0 := time.Now()
		err := mpi.DimsCreate(c.n, d)
		t.Logf("%d %d: %v %v %v", c.n, c.k, d, err, time.Since(t0))
	}
}
