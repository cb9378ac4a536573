package mpi_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

const tmpfsMagic = 0x01021994

// inMemory reports whether dir lies on tmpfs.
func inMemory(dir string) bool {
	var fs syscall.Statfs_t
	return syscall.Statfs(dir, &fs) == nil && fs.Type == tmpfsMagic
}

// ioJobsInMemoryAndTemp runs body as a job of o (ioJobIn) twice: in /dev/shm, where
// it is tmpfs, and in the test's directory, as subtests shm and tempdir.
func ioJobsInMemoryAndTemp(t *testing.T, o mpitest.Options, body func(t *testing.T, dir string, rank, size int)) {
	for _, c := range []struct{ name, base string }{{"shm", "/dev/shm"}, {"tempdir", ""}} {
		t.Run(c.name, func(t *testing.T) {
			if c.base != "" && !inMemory(c.base) {
				t.Skip(c.base, " is not tmpfs here")
			}
			ioJobIn(t, o, c.base, body)
		})
	}
}

// checkRef makes every rank's writes to f visible (syncAll) and has rank 0 compare
// the file name with ref byte for byte; the ranks of World call it together.
func checkRef(t *testing.T, f *mpi.File, name string, ref []byte, rank int, what string) {
	t.Helper()
	syncAll(t, f)
	if rank == 0 {
		raw, err := os.ReadFile(name)
		must(t, err)
		if !bytes.Equal(raw, ref) {
			t.Errorf("%s: the file differs from the reference (%d bytes, want %d)", what, len(raw), len(ref))
		}
	}
	must(t, mpi.World.Barrier())
}

// TestFileWriteAllMapped checks the collective writes whose ranks each write their
// own part, on a file in memory (/dev/shm) and on the test's directory: the file is
// the reference byte for byte after each, and on tmpfs the bytes a rank writes
// before the file's end are copied into the file's mapping, the rest written
// (contiguous blocks, once to make the file and once over it; a strided view with
// holes from a strided memory type; a nonblocking write across the end), and none in
// atomic mode. Elsewhere nothing is copied.
func TestFileWriteAllMapped(t *testing.T) {
	ioJobsInMemoryAndTemp(t, mpitest.Options{N: 3}, writeAllMapped)
}

func writeAllMapped(t *testing.T, dir string, rank, size int) {
	const block = 100_000 // not a whole number of pages
	const blk, tiles = 100, 50
	mapped := inMemory(dir)
	name := filepath.Join(dir, "mapped")
	f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeDeleteOnClose, nil)
	must(t, err)
	ref := make([]byte, size*block)
	copied := func(what string, want int64) {
		t.Helper()
		if !mapped {
			want = 0
		}
		if got := mpi.FileCopied(f); got != want {
			t.Errorf("%s: rank %d copied %d bytes in all, want %d", what, rank, got, want)
		}
	}
	checkFile := func(what string) {
		t.Helper()
		checkRef(t, f, name, ref, rank, what)
	}

	// Contiguous blocks: the first write makes the file (which of its bytes a rank
	// finds there depends on the others' speed), the second copies every block.
	var before int64
	for round := range 2 {
		before = mpi.FileCopied(f)
		if mapped && (before < 0 || before > block) {
			t.Errorf("rank %d copied %d bytes of its first block, at most %d", rank, before, block)
		}
		for r := range size {
			for i := range block {
				ref[r*block+i] = byte(r*31 + i*7 + i>>9 + round)
			}
		}
		_, err = mpi.FileWriteAtAll(f, int64(rank*block), ref[rank*block:(rank+1)*block])
		must(t, err)
		checkFile("contiguous blocks")
	}
	before += block // how much of the first round's block was copied is the race's
	copied("blocks written over", before)

	// A strided view with a hole of a block per tile, from every other int32 of the
	// memory: runs of blk bytes, the holes keep the blocks' bytes.
	bt, err := mpi.TypeContiguous(blk, mpi.Byte)
	must(t, err)
	ft, err := mpi.TypeResized(bt, 0, blk*(size+1))
	must(t, err)
	must(t, ft.Commit())
	must(t, f.SetView(int64(rank*blk), mpi.Byte, ft, "native", nil))
	mem, err := mpi.TypeVector(blk*tiles/4, 1, 2, mpi.Int32)
	must(t, err)
	must(t, mem.Commit())
	src := make([]int32, 2*blk*tiles/4)
	for r := range size {
		for i := range blk * tiles / 4 {
			v := int32(r<<24 | i*3 + 1)
			if r == rank {
				src[2*i] = v
			}
			k := i * 4 / blk
			at := k*blk*(size+1) + r*blk + i*4%blk
			ref[at], ref[at+1], ref[at+2], ref[at+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
	}
	_, err = mpi.FileWriteAllBuf(f, mpi.Typed(src, 1, mem))
	must(t, err)
	checkFile("a strided view")
	before += blk * tiles
	copied("a strided view", before)
	must(t, f.SetView(0, mpi.Byte, mpi.Byte, "native", nil))

	// Across the end, nonblocking, by rank 0 alone: the part before the end copied.
	var part []byte
	end := int64(len(ref))
	across := bytes.Repeat([]byte{0x5C}, block)
	if rank == 0 {
		part = across
		before += 10_000
	}
	ref = append(ref[:end-10_000], across...)
	req, err := mpi.FileIwriteAtAll(f, end-10_000, part)
	must(t, err)
	_, err = req.Wait()
	must(t, err)
	checkFile("a nonblocking write across the end")
	copied("a nonblocking write across the end", before)

	// Atomic mode: every write under its lock, none copied.
	must(t, f.SetAtomicity(true))
	for i := range size * block {
		ref[i] ^= 0xFF
	}
	_, err = mpi.FileWriteAtAll(f, int64(rank*block), ref[rank*block:(rank+1)*block])
	must(t, err)
	checkFile("atomic mode")
	copied("atomic mode", before)
	must(t, f.Close())
	must(t, ft.Free())
	must(t, bt.Free())
	must(t, mem.Free())
}

// TestFileOrderedMapped checks ordered writes of a file in memory (/dev/shm) and of
// the test's directory, on one node (the board) and across pretended hosts (the
// messages): the file is the reference byte for byte after each pass, and on tmpfs
// the records are copied into the file's mapping where they land inside the file (a
// rewrite from the start, blocking and nonblocking), by member 0 where the records
// come to it in messages, by each member its own on the board, and written where they
// make the file grow, after set_size cut it short and in atomic mode; the copies set
// the file's modification time by the sync.
func TestFileOrderedMapped(t *testing.T) {
	for _, c := range []struct {
		name, base string
		o          mpitest.Options
	}{
		{"shm", "/dev/shm", mpitest.Options{N: 3}},
		{"shm-hosts", "/dev/shm", mpitest.Options{N: 4, Hosts: pretendHosts}},
		{"tempdir", "", mpitest.Options{N: 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.base != "" && !inMemory(c.base) {
				t.Skip(c.base, " is not tmpfs here")
			}
			ioJobIn(t, c.o, c.base, orderedMapped)
		})
	}
}

// orderedLen is rank r's record length in round i of orderedMapped's passes.
func orderedLen(i, r int) int {
	if i%5 == 2 {
		return 4096
	}
	return 100 + (i*37+r*91)%900
}

func orderedMapped(t *testing.T, dir string, rank, size int) {
	mapped := inMemory(dir)
	name := filepath.Join(dir, "ordered")
	f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeDeleteOnClose, nil)
	must(t, err)
	var ref []byte // the file as plain Go's writes of the same records make it
	var want int64 // the bytes rank 0 copied, where the records come to it
	var all int64  // the bytes of every record so far
	// pass writes rounds of ordered records from byte from, one round in three
	// nonblocking, and returns their bytes.
	pass := func(k int, from int64, rounds int) int64 {
		t.Helper()
		_, err := f.SeekShared(from, io.SeekStart)
		must(t, err)
		pos := from
		for i := range rounds {
			for r := range size {
				rec := bytes.Repeat([]byte{byte(k*50 + i*7 + r)}, orderedLen(i, r))
				if end := pos + int64(len(rec)); end > int64(len(ref)) {
					ref = append(ref, make([]byte, end-int64(len(ref)))...)
				}
				copy(ref[pos:], rec)
				pos += int64(len(rec))
				if r != rank {
					continue
				}
				if i%3 == 1 {
					req, err := mpi.FileIwriteOrdered(f, rec)
					must(t, err)
					_, err = req.Wait()
					must(t, err)
				} else {
					_, err := mpi.FileWriteOrdered(f, rec)
					must(t, err)
				}
			}
		}
		all += pos - from
		return pos - from
	}
	check := func(what string) {
		t.Helper()
		checkRef(t, f, name, ref, rank, what)
		got := mpi.FileCopied(f)
		var sum [1]int64
		must(t, mpi.Allreduce(mpi.World, []int64{got}, sum[:], mpi.Sum))
		switch {
		case mapped && mpi.FileHasBoard(f):
			// Each member copies its own records, where they land inside the size it
			// knows the file to have, which other members' records may have grown
			// (it writes the others, and atomic mode's).
			if sum[0] > all || want > 0 && got == 0 {
				t.Errorf("%s: rank %d copied %d bytes in all, the ranks %d, want some and at most %d in all", what, rank, got, sum[0], all)
			}
		case rank == 0 && mapped && got != want || (rank != 0 || !mapped) && got != 0:
			t.Errorf("%s: rank %d copied %d bytes in all, want %d", what, rank, got, want)
		}
	}

	pass(0, 0, 30)
	check("records that make the file grow")
	want += pass(1, 0, 30)
	check("records over the file's bytes")

	// set_size cuts the file within a page: the records from just before the new
	// end are written, the file grown again.
	mid := int64(4096*3 + 1000)
	must(t, f.SetSize(mid))
	ref = ref[:mid]
	pass(2, mid-50, 5)
	check("records across the end after set_size")

	long := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if rank == 0 {
		must(t, os.Chtimes(name, long, long))
	}
	must(t, mpi.World.Barrier())
	want += pass(3, 0, 3)
	check("records after the time was set back")
	if rank == 0 {
		if st, err := os.Stat(name); err != nil || !st.ModTime().After(long) {
			t.Errorf("the ordered writes and the sync left the modification time at %v", st.ModTime())
		}
	}

	must(t, f.SetAtomicity(true))
	pass(4, 0, 3)
	check("atomic mode")
	must(t, f.Close())
}

// TestFileWriteAtMapped checks independent write_at of small records interleaved by
// rank, on a file in memory (/dev/shm) and on the test's directory: the file is the
// reference byte for byte, and on tmpfs the records that land before the file's end
// are copied into the file's mapping, those that make it grow written; elsewhere
// nothing is copied.
func TestFileWriteAtMapped(t *testing.T) {
	ioJobsInMemoryAndTemp(t, mpitest.Options{N: 2}, writeAtMapped)
}

func writeAtMapped(t *testing.T, dir string, rank, size int) {
	const rec, n = 64, 500
	mapped := inMemory(dir)
	name := filepath.Join(dir, "small")
	f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeDeleteOnClose, nil)
	must(t, err)
	ref := make([]byte, size*n*rec)
	buf := make([]byte, rec)
	// The first pass makes the file grow (every record past its end when written,
	// but for the other ranks' that land before it), the second rewrites it.
	for pass := range 2 {
		before := mpi.FileCopied(f)
		for i := range n {
			at := (i*size + rank) * rec
			for j := range buf {
				buf[j] = byte(pass*31 + i + rank*7 + j)
			}
			_, err := mpi.FileWriteAt(f, int64(at), buf)
			must(t, err)
		}
		for r := range size {
			for i := range n {
				for j := range rec {
					ref[(i*size+r)*rec+j] = byte(pass*31 + i + r*7 + j)
				}
			}
		}
		checkRef(t, f, name, ref, rank, "write_at")
		copied := mpi.FileCopied(f) - before
		switch {
		case pass == 1 && mapped && copied != n*rec:
			t.Errorf("rewrite: %d bytes copied into the mapping, want all %d", copied, n*rec)
		case !mapped && copied != 0:
			t.Errorf("%d bytes copied into a file not in memory", copied)
		}
	}
	must(t, f.Close())
}
