package mpi_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// BenchmarkFile measures the software path of file accesses on a job of one rank, the
// file in /dev/shm (tmpfs), so that what is measured is the call's checks and dispatch
// plus the system call: WriteAt64 and ReadAt64 are bench/io's write_small record,
// WriteOrdered4K its write_ordered record, ReadStrided the strided read of 16 MiB
// through a view of 4 KiB blocks with every other block a hole. Run it alone (go test
// -run XXX -bench File): the process must not have finalised MPI.
func BenchmarkFile(b *testing.B) {
	if !mpi.Initialized() {
		if err := mpi.Init(); err != nil {
			b.Fatal(err)
		}
	}
	if mpi.Finalized() {
		b.Skip("MPI was finalised by an earlier test")
	}
	dir, err := os.MkdirTemp("/dev/shm", "mpigo-filebench-")
	if err != nil {
		b.Skip("no /dev/shm:", err)
	}
	defer os.RemoveAll(dir)
	f, err := mpi.FileOpen(mpi.World, filepath.Join(dir, "f"), mpi.ModeCreate|mpi.ModeRdwr, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	check := func(b *testing.B, err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	run := func(name string, body func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			body(b)
		})
	}
	rec := make([]byte, 64)
	run("WriteAt64", func(b *testing.B) {
		i := int64(0)
		for b.Loop() {
			_, err := mpi.FileWriteAt(f, (i%4096)*128, rec)
			check(b, err)
			i++
		}
	})
	run("ReadAt64", func(b *testing.B) {
		i := int64(0)
		for b.Loop() {
			_, err := mpi.FileReadAt(f, (i%4096)*128, rec)
			check(b, err)
			i++
		}
	})
	blk := make([]byte, 4096)
	run("WriteOrdered4K", func(b *testing.B) {
		b.SetBytes(4096)
		i := 0
		for b.Loop() {
			if i%1024 == 0 { // rewrite the first 4 MiB, as bench/io does its records
				_, err := f.SeekShared(0, io.SeekStart)
				check(b, err)
			}
			_, err := mpi.FileWriteOrdered(f, blk)
			check(b, err)
			i++
		}
	})
	big := make([]byte, 16<<20)
	_, err = mpi.FileWriteAt(f, 0, make([]byte, 32<<20))
	check(b, err)
	bt, err := mpi.TypeContiguous(4096, mpi.Byte)
	check(b, err)
	ft, err := mpi.TypeResized(bt, 0, 8192)
	check(b, err)
	check(b, ft.Commit())
	check(b, f.SetView(0, mpi.Byte, ft, "native", nil))
	run("ReadStrided", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		for b.Loop() {
			_, err := mpi.FileReadAtAll(f, 0, big)
			check(b, err)
		}
	})
	check(b, f.SetView(0, mpi.Byte, mpi.Byte, "native", nil))
	check(b, ft.Free())
	check(b, bt.Free())
}

// TestFileAccessAllocatesNothing: on two ranks, independent FileWriteAt and FileReadAt
// of a 64-byte record (bench/io's write_small) allocate nothing per call.
func TestFileAccessAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		f, err := mpi.FileOpen(mpi.World, filepath.Join(dir, "small"), mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		rec := make([]byte, 64)
		i := int64(0)
		for name, op := range map[string]func(){
			"FileWriteAt": func() { _, err := mpi.FileWriteAt(f, (i*2+int64(rank))*64, rec); must(t, err); i++ },
			"FileReadAt":  func() { _, err := mpi.FileReadAt(f, (i*2+int64(rank))*64, rec); must(t, err); i++ },
		} {
			i = 0
			if n := testing.AllocsPerRun(500, op); n != 0 {
				t.Errorf("rank %d: %s of 64 bytes: %v allocations per call, want 0", rank, name, n)
			}
		}
		must(t, f.Close())
	})
}

// TestFileOrderedAllocatesNothing: on two ranks of one node, FileWriteOrdered of a
// 4 KiB record (bench/io's write_ordered, through the file's board) allocates nothing
// per call once the board is made.
func TestFileOrderedAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		f, err := mpi.FileOpen(mpi.World, filepath.Join(dir, "ordered"), mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		rec := make([]byte, 4096)
		op := func() { _, err := mpi.FileWriteOrdered(f, rec); must(t, err) }
		op() // makes the board
		if n := testing.AllocsPerRun(500, op); n != 0 {
			t.Errorf("rank %d: FileWriteOrdered of 4 KiB: %v allocations per call, want 0", rank, n)
		}
		must(t, f.Close())
	})
}

// TestFileTwoPhaseKeepsBuffers: on two ranks, a two-phase FileWriteAll and
// FileReadAll of 1 MiB a rank in 4 KiB blocks interleaved by rank (bench/io's
// write_strided and read_strided on a disk) take their window and exchange buffers
// from the last access's instead of allocating them, and read back what they wrote;
// the buffers are let go when the process's last open file closes.
func TestFileTwoPhaseKeepsBuffers(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		const blk, n = 4096, 1 << 20
		in := mpi.InfoCreate()
		must(t, in.Set("romio_cb_write", "enable"))
		must(t, in.Set("romio_cb_read", "enable"))
		f, err := mpi.FileOpen(mpi.World, filepath.Join(dir, "strided"), mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, in)
		must(t, err)
		must(t, in.Free())
		bt, ft := setStridedView(t, f, blk, rank, size)
		data, back := make([]byte, n), make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + rank)
		}
		for _, c := range []struct {
			name string
			op   func()
		}{
			{"FileWriteAtAll", func() { _, err := mpi.FileWriteAtAll(f, 0, data); must(t, err) }},
			{"FileReadAtAll", func() { _, err := mpi.FileReadAtAll(f, 0, back); must(t, err) }},
		} {
			name, op := c.name, c.op // the same order on every rank: they are collective
			op()                     // the first access makes the buffers
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range 4 {
				op()
			}
			runtime.ReadMemStats(&after)
			if per := (after.TotalAlloc - before.TotalAlloc) / 4; per > n/8 {
				t.Errorf("rank %d: %s of %d bytes allocated %d bytes per call, want at most %d", rank, name, n, per, n/8)
			}
		}
		if !bytes.Equal(back, data) {
			t.Errorf("rank %d: read back other data than it wrote", rank)
		}
		if !mpi.FileTwoPhaseBuffersKept() {
			t.Errorf("rank %d: no two-phase buffers kept while the file is open", rank)
		}
		must(t, f.Close())
		if mpi.FileTwoPhaseBuffersKept() {
			t.Errorf("rank %d: the two-phase buffers are still kept after the last file closed", rank)
		}
		must(t, ft.Free())
		must(t, bt.Free())
	})
}
