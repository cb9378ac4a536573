// Command iocost runs one file access in a loop, for bench/iocost.sh to count its
// instructions under callgrind: "ordered" is bench/io's write_ordered (one record
// of SIZE bytes per rank per MPI_File_write_ordered), "small" its write_small (each
// rank's independent SIZE-byte write_at, interleaved by rank). The file is in
// ANCHOR_IODIR (default /dev/shm) and deleted on close. "strided" is its write_strided:
// SIZE bytes a rank in 4 KiB blocks interleaved by rank through a file view, one
// FileWriteAtAll and one Sync per call (two-phase where the file is on a disk).
//
// It starts MPI at bench/io's thread level, ThreadSingle (BENCH_THREAD=multiple:
// ThreadMultiple, mpi.Init's).
//
// usage: mpigo run -n NP iocost ordered|small|strided ITERS SIZE
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: iocost ordered|small|strided ITERS SIZE")
		os.Exit(2)
	}
	mode := os.Args[1]
	iters, err1 := strconv.Atoi(os.Args[2])
	size, err2 := strconv.Atoi(os.Args[3])
	if err1 != nil || err2 != nil || (mode != "ordered" && mode != "small" && mode != "strided") {
		fmt.Fprintln(os.Stderr, "usage: iocost ordered|small|strided ITERS SIZE")
		os.Exit(2)
	}
	osu.Init()
	defer mpi.Finalize()
	rank, np := mpi.World.Rank(), mpi.World.Size()
	dir := os.Getenv("ANCHOR_IODIR")
	if dir == "" {
		dir = "/dev/shm"
	}
	name := filepath.Join(dir, fmt.Sprintf("iocost-%d.dat", os.Getppid()))
	f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
	must(err)
	rec := make([]byte, size)
	for i := range rec {
		rec[i] = byte(rank + 1)
	}
	if mode == "strided" {
		strided(f, rec, iters)
		iters = 0
	}
	for i := range iters {
		switch mode {
		case "ordered":
			if i%1024 == 0 {
				_, err := f.SeekShared(0, io.SeekStart)
				must(err)
			}
			_, err = mpi.FileWriteOrdered(f, rec)
		case "small":
			_, err = mpi.FileWriteAt(f, int64((i%4096)*np+rank)*int64(size), rec)
		}
		must(err)
	}
	must(f.Close())
}

// strided writes rec through a view of 4 KiB blocks interleaved by rank, iters times,
// each write followed by a sync.
func strided(f *mpi.File, rec []byte, iters int) {
	const blk = 4096
	rank, np := mpi.World.Rank(), mpi.World.Size()
	bt, err := mpi.TypeContiguous(blk, mpi.Byte)
	must(err)
	ft, err := mpi.TypeResized(bt, 0, blk*np)
	must(err)
	must(ft.Commit())
	must(f.SetView(int64(rank*blk), mpi.Byte, ft, "native", nil))
	for range iters {
		_, err := mpi.FileWriteAtAll(f, 0, rec)
		must(err)
		must(f.Sync())
	}
	must(ft.Free())
	must(bt.Free())
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "iocost:", err)
		os.Exit(1)
	}
}
