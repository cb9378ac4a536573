package mpi_test

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

const tmpfsMagic = 0x01021994

// inMemory reports whether dir lies on tmpfs.
func inMemory(dir string) bool {
	var fs syscall.Statfs_t
	return syscall.Statfs(dir, &fs) == nil && fs.Type == tmpfsMagic
}

// TestFileWriteAllMapped checks the collective writes whose ranks each write their
// own part, on a file in memory (/dev/shm) and on the test's directory: the file is
// the reference byte for byte after each, and on tmpfs the bytes a rank writes
// before the file's end are copied into the file's mapping, the rest written
// (contiguous blocks, once to make the file and once over it; a strided view with
// holes from a strided memory type; a nonblocking write across the end), and none in
// atomic mode. Elsewhere nothing is copied.
func TestFileWriteAllMapped(t *testing.T) {
	for _, c := range []struct{ name, base string }{{"shm", "/dev/shm"}, {"tempdir", ""}} {
		t.Run(c.name, func(t *testing.T) {
			if c.base != "" && !inMemory(c.base) {
				t.Skip(c.base, " is not tmpfs here")
			}
			ioJobIn(t, mpitest.Options{N: 3}, c.base, writeAllMapped)
		})
	}
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
