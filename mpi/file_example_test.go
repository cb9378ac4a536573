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

// RegisterDatarep defines a data representation that keeps int32s big-endian in the
// file; a view in it converts every access. (TestExamplesInJobs runs this example as
// a job of 1 rank.)
func ExampleRegisterDatarep() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	// The conversions get the access's datatype (here a slice's element type,
	// Int32) and convert count items from item position on.
	swap := func(dst, src []byte) {
		for i := 0; i+4 <= len(src); i += 4 {
			dst[i], dst[i+1], dst[i+2], dst[i+3] = src[i+3], src[i+2], src[i+1], src[i]
		}
	}
	write := func(mem []byte, dt *mpi.Datatype, count int, file []byte, position int) error {
		swap(file[:4*count], mem[4*position:4*(position+count)])
		return nil
	}
	read := func(mem []byte, dt *mpi.Datatype, count int, file []byte, position int) error {
		swap(mem[4*position:4*(position+count)], file[:4*count])
		return nil
	}
	extent := func(dt *mpi.Datatype) (int64, error) { return dt.Size() } // int32s keep their size
	if err := mpi.RegisterDatarep("int32-big-endian", read, write, extent); err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	f, err := mpi.FileOpen(mpi.Self, filepath.Join(dir, "ints"), mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	if err := f.SetView(0, mpi.Int32, mpi.Int32, "int32-big-endian", nil); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := mpi.FileWrite(f, []int32{1, 258}); err != nil {
		fmt.Println(err)
		return
	}
	raw := make([]byte, 8)
	f.Bytes().ReadAt(raw, 0)
	back := make([]int32, 2)
	if _, err := mpi.FileReadAt(f, 0, back); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("file % x, read back %v\n", raw, back)
}
