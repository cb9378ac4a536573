package mpi_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestFileExternal32 writes interleaved blocks of int32s and float64s through
// external32 views on 2 ranks, collectively and independently, checks the file's
// bytes are big-endian, and reads them back converted, through the view and with a
// derived memory type; get_type_extent gives external32's extents.
func TestFileExternal32(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		name := filepath.Join(dir, "x")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		const blk, nblk = 4, 8
		ft, err := mpi.TypeVector(nblk, blk, blk*size, mpi.Int32)
		must(t, err)
		must(t, ft.Commit())
		must(t, f.SetView(int64(rank*blk*4), mpi.Int32, ft, "EXTERNAL32", nil))
		if _, _, _, rep, err := f.View(); err != nil || rep != "external32" {
			t.Errorf("View's datarep = %q, %v; want external32", rep, err)
		}
		if n, err := f.TypeExtent(mpi.Float64); err != nil || n != 8 {
			t.Errorf("TypeExtent(Float64) = %d, %v; want 8", n, err)
		}
		vals := make([]int32, blk*nblk)
		for i := range vals {
			vals[i] = int32((i/blk*size+rank)*blk+i%blk) - 100 // the file's int32 index - 100
		}
		st, err := mpi.FileWriteAtAll(f, 0, vals[:len(vals)/2])
		must(t, err)
		if mpi.GetCount[int32](st) != len(vals)/2 {
			t.Errorf("wrote %d int32s, want %d", mpi.GetCount[int32](st), len(vals)/2)
		}
		_, err = mpi.FileWriteAt(f, int64(len(vals)/2), vals[len(vals)/2:])
		must(t, err)
		syncAll(t, f)
		if rank == 0 {
			raw, err := os.ReadFile(name)
			must(t, err)
			if len(raw) != size*blk*nblk*4 {
				t.Fatalf("the file has %d bytes, want %d", len(raw), size*blk*nblk*4)
			}
			for i := range len(raw) / 4 {
				if v := int32(binary.BigEndian.Uint32(raw[4*i:])); v != int32(i)-100 {
					t.Fatalf("big-endian int32 %d of the file is %d, want %d", i, v, i-100)
				}
			}
		}
		got := make([]int32, len(vals))
		st, err = mpi.FileReadAtAll(f, 0, got)
		must(t, err)
		if mpi.GetCount[int32](st) != len(vals) || !slices.Equal(got, vals) {
			t.Errorf("read back %d int32s %v, want %v", mpi.GetCount[int32](st), got, vals)
		}
		// A derived memory type: every other int32 of a buffer, read independently.
		mt, err := mpi.TypeVector(len(vals), 1, 2, mpi.Int32)
		must(t, err)
		must(t, mt.Commit())
		spread := make([]int32, 2*len(vals))
		st, err = mpi.FileReadAtBuf(f, 0, mpi.Typed(spread, 1, mt))
		must(t, err)
		for i, v := range vals {
			if spread[2*i] != v || spread[2*i+1] != 0 {
				t.Fatalf("read through a vector memory type: item %d is %d (hole %d), want %d", i, spread[2*i], spread[2*i+1], v)
			}
		}
		if st.Bytes() != int64(4*len(vals)) {
			t.Errorf("the status says %d bytes, want %d", st.Bytes(), 4*len(vals))
		}
		must(t, mt.Free())
		must(t, ft.Free())

		// float64s at the individual pointer, a byte view; a read past the end
		// converts what there is.
		must(t, f.SetView(0, mpi.Byte, mpi.Byte, "external32", nil))
		must(t, f.SetSize(0))
		if rank == 0 {
			xs := []float64{1.5, -2, math.Inf(1)}
			_, err = mpi.FileWrite(f, xs)
			must(t, err)
			raw, err := os.ReadFile(name)
			must(t, err)
			for i, x := range xs {
				if v := math.Float64frombits(binary.BigEndian.Uint64(raw[8*i:])); v != x {
					t.Errorf("big-endian float64 %d of the file is %v, want %v", i, v, x)
				}
			}
			back := make([]float64, 5)
			st, err := mpi.FileReadAt(f, 0, back)
			must(t, err)
			if mpi.GetCount[float64](st) != 3 || !slices.Equal(back[:3], xs) || back[3] != 0 {
				t.Errorf("read back %d float64s %v, want %v", mpi.GetCount[float64](st), back, xs)
			}
		}
		must(t, f.Close())
	})
}
