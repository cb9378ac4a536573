package mpi_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mpigo/mpigo/mpi"
)

// fsImmutable is the inode flag FS_IMMUTABLE_FL (linux/fs.h): nobody may write the
// file, root included.
const fsImmutable = 0x10

// denyWrite makes path refuse to be opened for writing, even to root (whom
// permissions do not stop): read-only permissions, and for root the immutable flag,
// cleared when the test ends. It reports false where neither can work (root on a file
// system without the flag).
func denyWrite(t *testing.T, path string) bool {
	t.Helper()
	must(t, os.Chmod(path, 0o444))
	if os.Geteuid() != 0 {
		return true
	}
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err != nil {
		return false
	}
	if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsImmutable)); err != nil {
		return false
	}
	t.Cleanup(func() {
		g, err := os.Open(path)
		if err == nil {
			unix.IoctlSetPointerInt(int(g.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
			g.Close()
		}
	})
	return true
}

// TestFileOpenErrors checks every bad open the standard names, on every rank: none
// hangs, and each rank gets the class.
func TestFileOpenErrors(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		name := filepath.Join(dir, "e")
		open := func(what string, name string, amode mpi.Amode, want error) {
			t.Helper()
			f, err := mpi.FileOpen(mpi.World, name, amode, nil)
			if f != nil || !errors.Is(err, want) {
				t.Errorf("%s: %v, %v; want no file and class %v", what, f, err, mpi.ClassOf(want))
			}
		}
		open("a missing file", name, mpi.ModeRdonly, mpi.ErrNoSuchFile)
		open("MPI_MODE_RDONLY|MPI_MODE_CREATE", name, mpi.ModeRdonly|mpi.ModeCreate, mpi.ErrAmode)
		open("MPI_MODE_RDONLY|MPI_MODE_EXCL", name, mpi.ModeRdonly|mpi.ModeExcl, mpi.ErrAmode)
		open("no access mode", name, mpi.ModeCreate, mpi.ErrAmode)
		open("two access modes", name, mpi.ModeRdwr|mpi.ModeWronly, mpi.ErrAmode)
		open("MPI_MODE_SEQUENTIAL|MPI_MODE_RDWR", name, mpi.ModeSequential|mpi.ModeRdwr|mpi.ModeCreate, mpi.ErrAmode)
		open("a bit that is no mode", name, mpi.ModeRdwr|1024, mpi.ErrAmode)
		open("a directory", dir, mpi.ModeRdonly, mpi.ErrBadFile)
		open("an empty name", "", mpi.ModeRdonly, mpi.ErrBadFile)
		// One rank's bad amode fails both, with its class.
		bad := mpi.ModeRdwr | mpi.ModeCreate
		if rank == 1 {
			bad = mpi.ModeRdonly | mpi.ModeCreate
		}
		open("rank 1's bad amode", name, bad, mpi.ErrAmode)
		// Different amodes, different files: MPI_ERR_NOT_SAME everywhere.
		mode := mpi.ModeRdwr | mpi.ModeCreate
		if rank == 1 {
			mode |= mpi.ModeUniqueOpen
		}
		open("different amodes", name, mode, mpi.ErrNotSame)
		open("different names", filepath.Join(dir, "e"+string(rune('0'+rank))), mpi.ModeRdwr|mpi.ModeCreate, mpi.ErrNotSame)
		if _, err := os.Stat(name); !os.IsNotExist(err) {
			t.Errorf("a failed open left the file: %v", err)
		}

		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeWronly|mpi.ModeCreate|mpi.ModeExcl, nil)
		must(t, err)
		if a, _ := f.Amode(); a != mpi.ModeWronly|mpi.ModeCreate|mpi.ModeExcl {
			t.Errorf("Amode %v", a)
		}
		g, err := f.Group()
		must(t, err)
		if g.Size() != size {
			t.Errorf("the file's group has %d ranks", g.Size())
		}
		must(t, f.Close())
		open("MPI_MODE_EXCL of a file that exists", name, mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeExcl, mpi.ErrFileExists)

		// Permission denied. The file is the ranks', so rank 0 shuts it.
		deny := rank == 0 && denyWrite(t, name)
		denied := []int{0}
		if deny {
			denied[0] = 1
		}
		must(t, mpi.Bcast(mpi.World, denied, 0))
		if denied[0] == 1 {
			open("a file that may not be written", name, mpi.ModeRdwr, mpi.ErrAccess)
			f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdonly, nil)
			must(t, err) // reading it is allowed
			must(t, f.Close())
		} else if rank == 0 {
			t.Log("permission denied not tested: running as root on a file system without the immutable flag")
		}
		must(t, mpi.World.Barrier())
		if rank == 0 && deny {
			f, _ := os.Open(name)
			flags, _ := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
			unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags&^fsImmutable))
			f.Close()
		}
		must(t, mpi.World.Barrier())
		if rank == 0 {
			must(t, mpi.FileDelete(name, nil))
		}
		must(t, mpi.World.Barrier())
		wantClass(t, "FileDelete of a missing file", mpi.FileDelete(name, nil), mpi.ErrNoSuchFile)
	})
}

// TestFileCallErrors checks the classes of bad calls on an open file, collective ones
// failing on every rank when one rank's arguments are bad, and the file handler that
// serves them.
func TestFileCallErrors(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		// Files start with FileNull's handler, ErrorsReturn, whatever World's is.
		must(t, mpi.World.SetErrHandler(mpi.ErrorsAreFatal))
		name := filepath.Join(dir, "c")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		var seen []*mpi.File
		h := mpi.NewFileErrHandler(func(g *mpi.File, err error) { seen = append(seen, g) })
		vec, err := mpi.TypeVector(2, 1, 2, mpi.Float64)
		must(t, err)
		uncommitted, err := mpi.TypeContiguous(2, mpi.Int32)
		must(t, err)
		must(t, vec.Commit())
		for _, c := range []struct {
			what string
			err  error
			want error
		}{
			{"datarep foo", f.SetView(0, mpi.Byte, mpi.Byte, "foo", nil), mpi.ErrUnsupportedDatarep},
			{"a negative disp", f.SetView(-5, mpi.Byte, mpi.Byte, "native", nil), mpi.ErrArg},
			{"MPI_DISPLACEMENT_CURRENT", f.SetView(mpi.DisplacementCurrent, mpi.Byte, mpi.Byte, "native", nil), mpi.ErrArg},
			{"an uncommitted filetype", f.SetView(0, mpi.Int32, uncommitted, "native", nil), mpi.ErrType},
			{"a nil etype", f.SetView(0, nil, mpi.Byte, "native", nil), mpi.ErrType},
			{"a filetype of float64s for int32 etypes", f.SetView(0, mpi.Int32, vec, "native", nil), mpi.ErrType},
			{"datareps differ", f.SetView(0, mpi.Byte, mpi.Byte, []string{"native", "internal"}[rank], nil), mpi.ErrNotSame},
			{"a negative size", f.SetSize(-1), mpi.ErrArg},
			{"sizes differ", f.SetSize(int64(100 + rank)), mpi.ErrNotSame},
			{"atomicities differ", f.SetAtomicity(rank == 0), mpi.ErrNotSame},
			{"a negative offset", func() error { _, err := mpi.FileReadAt(f, -1, make([]byte, 1)); return err }(), mpi.ErrArg},
			{"a negative ByteOffset", func() error { _, err := f.ByteOffset(-1); return err }(), mpi.ErrArg},
			{"a bad whence", func() error { _, err := f.Seek(0, 7); return err }(), mpi.ErrArg},
			{"a Buf of a nil type", func() error { _, err := mpi.FileWriteAtBuf(f, 0, mpi.Typed([]byte{1}, 1, nil)); return err }(), mpi.ErrType},
			{"a Buf past its memory", func() error {
				_, err := mpi.FileWriteAtBuf(f, 0, mpi.Typed(make([]float64, 2), 2, vec))
				return err
			}(), mpi.ErrBuffer},
		} {
			wantClass(t, c.what, c.err, c.want)
		}
		// One rank's bad collective access fails both ranks' calls.
		buf := make([]byte, 8)
		if rank == 1 {
			buf = buf[:3]
		}
		must(t, f.SetView(0, mpi.Int32, mpi.Int32, "native", nil))
		_, err = mpi.FileWriteAll(f, buf)
		wantClass(t, "rank 1 writes 3 bytes of int32s", err, mpi.ErrType)
		// Nonblocking: the bad rank's call fails, the other's request at its Wait,
		// through the file's handler.
		must(t, f.SetErrHandler(h))
		req, err := mpi.FileIwriteAll(f, buf)
		if rank == 1 {
			wantClass(t, "rank 1's FileIwriteAll of 3 bytes", err, mpi.ErrType)
		} else {
			must(t, err)
			_, err = req.Wait()
			wantClass(t, "rank 0's Wait of FileIwriteAll", err, mpi.ErrType)
		}
		if len(seen) != 1 || seen[0] != f {
			t.Errorf("the file's handler saw %v, want the file once", seen)
		}
		must(t, f.SetErrHandler(mpi.ErrorsReturn))
		must(t, f.Close())
		_, err = f.Size()
		wantClass(t, "Size of a closed file", err, mpi.ErrFile)
		wantClass(t, "Close of a closed file", f.Close(), mpi.ErrFile)
		_, err = (&mpi.File{}).Size()
		wantClass(t, "Size of a File mpigo did not open", err, mpi.ErrFile)
		_, err = mpi.FileNull.Size()
		wantClass(t, "Size of FileNull", err, mpi.ErrFile)
		_, err = mpi.FileReadAt(mpi.FileNull, 0, buf)
		wantClass(t, "FileReadAt of FileNull", err, mpi.ErrFile)
		must(t, vec.Free())
		must(t, uncommitted.Free())

		// A sequential file has no pointer of its own and no explicit offsets.
		s, err := mpi.FileOpen(mpi.World, name, mpi.ModeWronly|mpi.ModeCreate|mpi.ModeSequential|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		_, err = mpi.FileWriteAt(s, 0, buf)
		wantClass(t, "FileWriteAt of a sequential file", err, mpi.ErrUnsupportedOperation)
		_, err = s.Seek(0, 0)
		wantClass(t, "Seek of a sequential file", err, mpi.ErrUnsupportedOperation)
		wantClass(t, "SetSize of a sequential file", s.SetSize(0), mpi.ErrUnsupportedOperation)
		must(t, s.SetView(mpi.DisplacementCurrent, mpi.Byte, mpi.Byte, "native", nil))
		must(t, s.Close())
		must(t, mpi.World.SetErrHandler(mpi.ErrorsReturn))
	})
}

// TestFileViewOverlap checks the rule of MPI 4.1 section 14.3 that a file opened for
// writing takes no etype or filetype with overlapping regions (MPICH's io/tst_fileview
// checks it too), while a read-only file takes both, and views whose tiles alone
// overlap stay valid.
func TestFileViewOverlap(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		name := filepath.Join(dir, "v")
		overlap, err := mpi.TypeIndexed([]int{3, 1}, []int{0, 1}, mpi.Int32) // int 1 twice
		must(t, err)
		four, err := mpi.TypeContiguous(4, mpi.Int32) // as many ints as overlap, once each
		must(t, err)
		tiles, err := mpi.TypeResized(four, 0, 8) // each tile overlaps the next
		must(t, err)
		for _, ty := range []*mpi.Datatype{overlap, four, tiles} {
			must(t, ty.Commit())
		}
		for _, amode := range []mpi.Amode{mpi.ModeRdwr | mpi.ModeCreate, mpi.ModeWronly} {
			f, err := mpi.FileOpen(mpi.World, name, amode, nil)
			must(t, err)
			wantClass(t, "an overlapping filetype", f.SetView(0, mpi.Int32, overlap, "native", nil), mpi.ErrType)
			wantClass(t, "an overlapping etype", f.SetView(0, overlap, four, "native", nil), mpi.ErrType)
			must(t, f.SetView(0, mpi.Int32, tiles, "native", nil))
			if rank == 0 {
				_, err = mpi.FileWriteAt(f, 0, []int32{1, 2, 3, 4, 5, 6, 7, 8})
				must(t, err)
			}
			must(t, f.Close())
		}
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdonly|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		must(t, f.SetView(0, mpi.Int32, overlap, "native", nil))
		got := make([]int32, 4)
		_, err = mpi.FileReadAt(f, 0, got)
		must(t, err)
		// The second tile wrote 5 to 8 over ints 2 to 5: the file holds 1 2 5 6 7 8,
		// and the filetype reads ints 0, 1, 2, then 1 again.
		if want := []int32{1, 2, 5, 2}; !slices.Equal(got, want) {
			t.Errorf("read through the overlapping filetype: %v, want %v", got, want)
		}
		must(t, f.SetView(0, overlap, four, "native", nil))
		must(t, f.Close())
		for _, ty := range []*mpi.Datatype{overlap, four, tiles} {
			must(t, ty.Free())
		}
	})
}

// TestFileNoSpace writes to /dev/full, a device that is always out of space, as a
// full disk behaves: independent, collective through the aggregators and collective
// without them, ordered, every rank's write fails with MPI_ERR_NO_SPACE and reports no bytes
// written, and the file closes cleanly.
func TestFileNoSpace(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		for _, cb := range []string{"enable", "disable"} {
			in := mpi.InfoCreate()
			must(t, in.Set("romio_cb_write", cb))
			f, err := mpi.FileOpen(mpi.World, "/dev/full", mpi.ModeWronly, in)
			must(t, err)
			must(t, in.Free())
			data := []byte{1, 2, 3, 4}
			st, err := mpi.FileWriteAt(f, int64(rank*len(data)), data)
			wantClass(t, "FileWriteAt", err, mpi.ErrNoSpace)
			if st.Bytes() != 0 {
				t.Errorf("FileWriteAt reports %d bytes written", st.Bytes())
			}
			// Interleaved, so that romio_cb_write=enable goes through an aggregator.
			ft, err := mpi.TypeVector(4, 1, size, mpi.Byte)
			must(t, err)
			must(t, ft.Commit())
			must(t, f.SetView(int64(rank), mpi.Byte, ft, "native", nil))
			st, err = mpi.FileWriteAll(f, data)
			wantClass(t, fmt.Sprint("FileWriteAll, romio_cb_write=", cb), err, mpi.ErrNoSpace)
			if st.Bytes() != 0 {
				t.Errorf("FileWriteAll, romio_cb_write=%s, reports %d bytes written", cb, st.Bytes())
			}
			// Ordered in a contiguous view: rank 0 writes every rank's record, in one
			// call, or with enable the aggregators do; either fails every rank.
			must(t, f.SetView(0, mpi.Byte, mpi.Byte, "native", nil))
			st, err = mpi.FileWriteOrdered(f, data)
			wantClass(t, fmt.Sprint("FileWriteOrdered, romio_cb_write=", cb), err, mpi.ErrNoSpace)
			if st.Bytes() != 0 {
				t.Errorf("FileWriteOrdered, romio_cb_write=%s, reports %d bytes written", cb, st.Bytes())
			}
			must(t, ft.Free())
			must(t, f.Close())
		}
	})
}

// TestFileOwedFailure: a collective write that each rank does on its own (romio_cb_write
// disabled) and that fails on one rank only (rank 1 writes to /dev/full, rank 0 writes
// nothing) returns the error on rank 1 at once and success on rank 0, which learns of
// it at the file's next Sync, naming rank 1, with the failure's class, once (the next
// Sync succeeds); rank 1, which had the error, is not told again. The same failure
// before a Close fails rank 0's Close, which still closes the file.
func TestFileOwedFailure(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		in := mpi.InfoCreate()
		must(t, in.Set("romio_cb_write", "disable"))
		defer in.Free()
		data := []byte{1, 2, 3, 4}
		if rank == 0 {
			data = nil
		}
		writeAll := func(f *mpi.File) {
			_, err := mpi.FileWriteAtAll(f, int64(rank*4), data)
			if rank == 1 {
				wantClass(t, "FileWriteAtAll on rank 1", err, mpi.ErrNoSpace)
			} else if err != nil {
				t.Errorf("FileWriteAtAll on rank 0, which wrote nothing: %v", err)
			}
		}
		told := func(call string, err error) {
			if rank == 1 {
				if err != nil {
					t.Errorf("%s on rank 1, whose own write failed: %v; want success", call, err)
				}
				return
			}
			wantClass(t, call, err, mpi.ErrNoSpace)
			if err == nil || !strings.Contains(err.Error(), "rank 1 of the file's group failed its part of an earlier collective access") {
				t.Errorf("%s on rank 0: %v; want it to name rank 1's earlier collective access", call, err)
			}
		}
		f, err := mpi.FileOpen(mpi.World, "/dev/full", mpi.ModeWronly, in)
		must(t, err)
		writeAll(f)
		told("Sync after the failed write", f.Sync())
		must(t, f.Sync())
		writeAll(f)
		told("Close after the failed write", f.Close())
		if err := f.Sync(); !errors.Is(err, mpi.ErrFile) {
			t.Errorf("Sync of the closed file: %v; want ErrFile", err)
		}
	})
}
