// Command iocost runs one file access in a loop, for bench/iocost.sh to count its
// instructions under callgrind: "ordered" is bench/io's write_ordered (one record
// of SIZE bytes per rank per MPI_File_write_ordered), "small" its write_small (each
// rank's independent SIZE-byte write_at, interleaved by rank). The file is in
// ANCHOR_IODIR (default /dev/shm) and deleted on close.
//
// usage: mpigo run -n NP iocost ordered|small ITERS SIZE
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mpigo/mpigo/mpi"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: iocost ordered|small ITERS SIZE")
		os.Exit(2)
	}
	mode := os.Args[1]
	iters, err1 := strconv.Atoi(os.Args[2])
	size, err2 := strconv.Atoi(os.Args[3])
	if err1 != nil || err2 != nil || (mode != "ordered" && mode != "small") {
		fmt.Fprintln(os.Stderr, "usage: iocost ordered|small ITERS SIZE")
		os.Exit(2)
	}
	must(mpi.Init())
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

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "iocost:", err)
		os.Exit(1)
	}
}
