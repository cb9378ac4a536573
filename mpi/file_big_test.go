package mpi_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// bigTests gates the tests of files larger than 2 GiB (CI sets it): they write
// gigabytes' worth of offsets, if little data (abi's TestFileBig moves 2 GiB).
func bigTests(t *testing.T) {
	if os.Getenv("MPIGO_TEST_BIG") != "1" {
		t.Skip("MPIGO_TEST_BIG=1 runs the tests of files larger than 2 GiB")
	}
}

// TestFileBig: 2 ranks write interleaved blocks of int64s across byte 2^31 through
// a strided view, collectively, and an int64 each at etype 2^30 (byte 2^33) of a
// view of int64s; the file's size, its bytes read with plain Go calls, and each
// rank's blocks read back by the other agree.
func TestFileBig(t *testing.T) {
	bigTests(t)
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		name := filepath.Join(dir, "big")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		const blk, nblk = 1 << 17, 4 // 1 MiB blocks, 4 a rank
		const disp = 1<<31 - 3<<20   // the blocks straddle 2^31
		ft, err := mpi.TypeVector(nblk, blk, blk*size, mpi.Int64)
		must(t, err)
		must(t, ft.Commit())
		must(t, f.SetView(disp+int64(rank*blk*8), mpi.Int64, ft, "native", nil))
		vals := make([]int64, blk*nblk)
		for i := range vals {
			vals[i] = disp + int64((i/blk*size+rank)*blk+i%blk)*8 // its byte offset
		}
		_, err = mpi.FileWriteAtAll(f, 0, vals)
		must(t, err)
		if b, err := f.ByteOffset(int64(len(vals) - 1)); err != nil || b != vals[len(vals)-1] {
			t.Errorf("ByteOffset of the last etype = %d, %v; want %d", b, err, vals[len(vals)-1])
		}
		must(t, f.SetView(0, mpi.Int64, mpi.Int64, "native", nil))
		const far = 1 << 30 // etypes: byte 2^33
		_, err = mpi.FileWriteAt(f, far+int64(rank), []int64{-int64(rank) - 1})
		must(t, err)
		must(t, mpi.World.Barrier())
		if n, err := f.Size(); err != nil || n != (far+int64(size))*8 {
			t.Errorf("the file's size is %d, %v; want %d", n, err, (far+size)*8)
		}
		if rank == 0 {
			osf, err := os.Open(name)
			must(t, err)
			raw := make([]byte, size*blk*nblk*8)
			_, err = osf.ReadAt(raw, disp)
			must(t, err)
			for i := range len(raw) / 8 {
				if v := int64(binary.LittleEndian.Uint64(raw[8*i:])); v != disp+int64(i)*8 {
					t.Fatalf("int64 at byte %d of the file is %d", disp+int64(i)*8, v)
				}
			}
			_, err = osf.ReadAt(raw[:16], far*8)
			must(t, err)
			if a, b := int64(binary.LittleEndian.Uint64(raw)), int64(binary.LittleEndian.Uint64(raw[8:])); a != -1 || b != -2 {
				t.Errorf("the int64s at byte 2^33 are %d, %d; want -1, -2", a, b)
			}
			must(t, osf.Close())
		}
		peer := (rank + 1) % size
		must(t, f.SetView(disp+int64(peer*blk*8), mpi.Int64, ft, "native", nil))
		got := make([]int64, len(vals))
		_, err = mpi.FileReadAtAll(f, 0, got)
		must(t, err)
		for i := range got {
			if want := disp + int64((i/blk*size+peer)*blk+i%blk)*8; got[i] != want {
				t.Fatalf("rank %d's int64 %d read back is %d, want %d", peer, i, got[i], want)
			}
		}
		must(t, f.SetView(0, mpi.Int64, mpi.Int64, "native", nil))
		one := make([]int64, 1)
		_, err = mpi.FileReadAt(f, far+int64(peer), one)
		must(t, err)
		if !slices.Equal(one, []int64{-int64(peer) - 1}) {
			t.Errorf("the int64 at etype 2^30+%d is %d", peer, one[0])
		}
		must(t, f.Close())
		must(t, ft.Free())
	})
}
