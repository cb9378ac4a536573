package mpi_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mpigo/mpigo/mpi"
)

// FileOpen opens one file on every rank: each writes its own line at its own offset,
// all at once (FileWriteAtAll), and rank 0 reads the whole file back through the io
// interfaces of its bytes. (TestExamplesInJobs runs this example as a job of 3 ranks.)
func ExampleFileOpen() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	rank := mpi.World.Rank()
	// Rank 0 names the file; the ranks must open the same one.
	var dir string
	if rank == 0 {
		dir, _ = os.MkdirTemp("", "example")
	}
	dir, err := mpi.BcastValue(mpi.World, dir, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	f, err := mpi.FileOpen(mpi.World, filepath.Join(dir, "lines"), mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	line := fmt.Sprintf("line of rank %d\n", rank) // 16 bytes on every rank
	if _, err := mpi.FileWriteAtAll(f, int64(rank*len(line)), []byte(line)); err != nil {
		fmt.Println(err)
		return
	}
	f.Sync() // every rank's data written through, and seen by the others after a barrier
	mpi.World.Barrier()
	if rank == 0 {
		all, _ := io.ReadAll(f.Bytes())
		fmt.Print(string(all))
	}
	if err := f.Close(); err != nil {
		fmt.Println(err)
	}
}

// FileWriteOrdered appends each rank's record to a log in rank order, whatever its
// length, from the shared file pointer: no rank needs to know where the others'
// records end. (TestExamplesInJobs runs this example as a job of 3 ranks.)
func ExampleFileWriteOrdered() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	rank := mpi.World.Rank()
	var dir string
	if rank == 0 {
		dir, _ = os.MkdirTemp("", "example")
	}
	dir, err := mpi.BcastValue(mpi.World, dir, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	f, err := mpi.FileOpen(mpi.World, filepath.Join(dir, "log"), mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	record := fmt.Sprintf("rank %d says %s\n", rank, strings.Repeat("hi ", rank+1))
	if _, err := mpi.FileWriteOrdered(f, []byte(record)); err != nil {
		fmt.Println(err)
		return
	}
	f.Sync()
	mpi.World.Barrier()
	if rank == 0 {
		all, _ := io.ReadAll(f.Bytes())
		fmt.Print(string(all))
	}
	if err := f.Close(); err != nil {
		fmt.Println(err)
	}
}
