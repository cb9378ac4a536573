package mpi_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// ioDirVar passes a test's temporary directory to the ranks of its job.
const ioDirVar = "MPIGO_TEST_IODIR"

// ioJob runs body between Init and Finalize on n ranks that share dir, a temporary
// directory of the test (removed when the test ends); the test then checks that the
// job left nothing in it: every file a body makes it deletes, through
// ModeDeleteOnClose or FileDelete.
func ioJob(t *testing.T, n int, body func(t *testing.T, dir string, rank, size int)) {
	t.Helper()
	ioJobWith(t, mpitest.Options{N: n}, body)
}

// ioJobWith is ioJob of a job shaped by o.
func ioJobWith(t *testing.T, o mpitest.Options, body func(t *testing.T, dir string, rank, size int)) {
	t.Helper()
	ioJobIn(t, o, "", body)
}

// ioJobIn is ioJobWith in a new directory under base ("": the test's temporary
// directory), removed when the test ends.
func ioJobIn(t *testing.T, o mpitest.Options, base string, body func(t *testing.T, dir string, rank, size int)) {
	t.Helper()
	if mpitest.IsRank(t) {
		dir := os.Getenv(ioDirVar)
		jobWith(t, o, func(t *testing.T, rank, size int) { body(t, dir, rank, size) })
		return
	}
	dir := t.TempDir()
	if base != "" {
		var err error
		if dir, err = os.MkdirTemp(base, "mpigo-test-"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	o.Env = append(o.Env, ioDirVar+"="+dir)
	jobWith(t, o, func(t *testing.T, rank, size int) {})
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("the job left %d files in its directory, the first %s", len(left), left[0].Name())
	}
}

// syncAll makes every rank's writes to f visible to every rank's reads, the
// standard's sync-barrier-sync (MPI 4.1 section 14.6.1); the ranks of World call it
// together.
func syncAll(t *testing.T, f *mpi.File) {
	t.Helper()
	must(t, f.Sync())
	must(t, mpi.World.Barrier())
	must(t, f.Sync())
}

// pattern is the reference data: byte i of a reference file is pattern(i).
func pattern(i int64) byte { return byte(i*7 + i>>8 + 1) }

func patterned(off, n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = pattern(off + int64(i))
	}
	return b
}

// wantClass fails t unless err has class want.
func wantClass(t *testing.T, what string, err error, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: %v, want class %v", what, err, mpi.ClassOf(want))
	}
}

// TestFileWriteReadAt writes a block per rank at explicit offsets, checks the file
// against plain Go reads, and reads each block back from another rank, past the end
// too.
func TestFileWriteReadAt(t *testing.T) {
	ioJob(t, 3, func(t *testing.T, dir string, rank, size int) {
		name := filepath.Join(dir, "f")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		const block = 1000
		st, err := mpi.FileWriteAt(f, int64(rank*block), patterned(int64(rank*block), block))
		must(t, err)
		if st.Bytes() != block {
			t.Errorf("wrote %d bytes, want %d", st.Bytes(), block)
		}
		must(t, f.Sync())
		must(t, mpi.World.Barrier())
		if rank == 0 {
			got, err := os.ReadFile(name)
			must(t, err)
			if !bytes.Equal(got, patterned(0, int64(size*block))) {
				t.Errorf("the file differs from the reference")
			}
		}
		next := (rank + 1) % size
		back := make([]byte, block+10)
		st, err = mpi.FileReadAt(f, int64(next*block), back)
		must(t, err)
		want := int64(block + 10)
		if next == size-1 {
			want = block // the end of the file
		}
		if st.Bytes() != want || !bytes.Equal(back[:block], patterned(int64(next*block), block)) {
			t.Errorf("read %d bytes of block %d (want %d), right: %v", st.Bytes(), next, want, bytes.Equal(back[:block], patterned(int64(next*block), block)))
		}
		if n := mpi.GetCount[byte](st); n != int(want) {
			t.Errorf("GetCount %d, want %d", n, want)
		}
		st, err = mpi.FileReadAt(f, int64(size*block+5), back)
		if err != nil || st.Bytes() != 0 {
			t.Errorf("a read past the end: %d bytes, %v; want 0, nil", st.Bytes(), err)
		}
		if sz, err := f.Size(); err != nil || sz != int64(size*block) {
			t.Errorf("Size %d, %v; want %d", sz, err, size*block)
		}
		must(t, f.Close())
		if _, err := os.Stat(name); !os.IsNotExist(err) {
			t.Errorf("the file opened ModeDeleteOnClose is still there: %v", err)
		}
	})
}

// TestFilePointers reads and writes through the file pointer, with Seek and Position,
// in etypes of a view of int32s, and an appending open that starts at the end.
func TestFilePointers(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		name := filepath.Join(dir, "p")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeWronly, nil)
		must(t, err)
		must(t, f.SetView(int64(rank*400), mpi.Int32, mpi.Int32, "native", nil))
		vals := make([]int32, 100)
		for i := range vals {
			vals[i] = int32(rank*1000 + i)
		}
		_, err = mpi.FileWrite(f, vals[:60])
		must(t, err)
		if pos, err := f.Position(); err != nil || pos != 60 {
			t.Errorf("Position after writing 60 int32s: %d, %v", pos, err)
		}
		_, err = mpi.FileWriteAll(f, vals[60:])
		must(t, err)
		if pos, _ := f.Position(); pos != 100 {
			t.Errorf("Position after 100: %d", pos)
		}
		if off, err := f.ByteOffset(10); err != nil || off != int64(rank*400+40) {
			t.Errorf("ByteOffset(10) = %d, %v; want %d", off, err, rank*400+40)
		}
		wantClass(t, "a read of a file opened ModeWronly", func() error { _, err := mpi.FileRead(f, vals); return err }(), mpi.ErrAccess)
		must(t, f.Close())

		// Appending: the pointer starts at the end, in bytes of the default view.
		f, err = mpi.FileOpen(mpi.World, name, mpi.ModeRdonly|mpi.ModeAppend|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		if pos, err := f.Position(); err != nil || pos != 800 {
			t.Errorf("an appending open's Position is %d, %v; want 800", pos, err)
		}
		must(t, f.SetView(0, mpi.Int32, mpi.Int32, "", nil))
		if pos, _ := f.Position(); pos != 0 {
			t.Errorf("SetView left the pointer at %d", pos)
		}
		if pos, err := f.Seek(-10, io.SeekEnd); err != nil || pos != 190 {
			t.Errorf("Seek(-10, io.SeekEnd) = %d, %v; want 190", pos, err)
		}
		got := make([]int32, 20)
		st, err := mpi.FileRead(f, got)
		must(t, err)
		if mpi.GetCount[int32](st) != 10 || got[0] != 1090 || got[9] != 1099 {
			t.Errorf("read %d int32s at the end: %v", mpi.GetCount[int32](st), got[:10])
		}
		if pos, _ := f.Seek(5, io.SeekStart); pos != 5 {
			t.Errorf("Seek(5, io.SeekStart) = %d", pos)
		}
		if pos, _ := f.Seek(-2, io.SeekCurrent); pos != 3 {
			t.Errorf("Seek(-2, io.SeekCurrent) = %d", pos)
		}
		st, err = mpi.FileRead(f, got[:1])
		if err != nil || got[0] != 3 {
			t.Errorf("the int32 at 3: %d, %v", got[0], err)
		}
		_, err = f.Seek(-10, io.SeekStart)
		wantClass(t, "Seek before the view's start", err, mpi.ErrArg)
		wantClass(t, "a write of a file opened ModeRdonly", func() error { _, err := mpi.FileWriteAt(f, 0, got); return err }(), mpi.ErrReadOnly)
		wantClass(t, "SetSize of a file opened ModeRdonly", f.SetSize(0), mpi.ErrReadOnly)
		wantClass(t, "a write of the Bytes of a file opened ModeRdonly", func() error { _, err := f.Bytes().WriteAt([]byte{1}, 0); return err }(), mpi.ErrReadOnly)
		wantClass(t, "3 bytes of a view of int32s", func() error { _, err := mpi.FileReadAt(f, 0, make([]byte, 3)); return err }(), mpi.ErrType)
		must(t, f.Close())
	})
}

// stridedView makes each rank's view of blocks of blk int64s dealt round robin to the
// ranks, as the io anchor's strided case.
func stridedView(t *testing.T, f *mpi.File, rank, size, blk int) {
	t.Helper()
	ft, err := mpi.TypeVector(1, blk, blk*size, mpi.Int64)
	must(t, err)
	ft2, err := mpi.TypeResized(ft, 0, blk*size*8)
	must(t, err)
	must(t, ft2.Commit())
	must(t, f.SetView(int64(rank*blk*8), mpi.Int64, ft2, "native", nil))
	must(t, ft.Free())
	must(t, ft2.Free()) // the view keeps what it needs
}

// TestFileViewStrided writes interleaved blocks through views of a vector filetype,
// collectively and independently, checks the file against the reference, and reads
// it back through the views, sieved and not.
func TestFileViewStrided(t *testing.T) {
	for _, n := range []int{1, 4} {
		t.Run(itoaT(n), func(t *testing.T) {
			ioJob(t, n, func(t *testing.T, dir string, rank, size int) {
				name := filepath.Join(dir, "s")
				f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr, nil)
				must(t, err)
				const blk, nblk = 16, 40
				stridedView(t, f, rank, size, blk)
				vals := make([]int64, blk*nblk)
				for i := range vals {
					b := i / blk
					vals[i] = int64((b*size+rank)*blk + i%blk) // the file's int64 index
				}
				_, err = mpi.FileWriteAll(f, vals[:len(vals)/2])
				must(t, err)
				_, err = mpi.FileWrite(f, vals[len(vals)/2:])
				must(t, err)
				syncAll(t, f)
				if rank == 0 {
					raw, err := os.ReadFile(name)
					must(t, err)
					if len(raw) != size*blk*nblk*8 {
						t.Fatalf("the file has %d bytes, want %d", len(raw), size*blk*nblk*8)
					}
					for i := range len(raw) / 8 {
						if v := *(*int64)(unsafe.Pointer(&raw[8*i])); v != int64(i) {
							t.Fatalf("int64 %d of the file is %d", i, v)
						}
					}
				}
				for _, ds := range []string{"enable", "disable"} {
					in := mpi.InfoCreate()
					must(t, in.Set("romio_ds_read", ds))
					must(t, f.SetInfo(in))
					must(t, in.Free())
					got := make([]int64, len(vals))
					st, err := mpi.FileReadAtAll(f, 0, got)
					must(t, err)
					if mpi.GetCount[int64](st) != len(vals) || !slices.Equal(got, vals) {
						t.Errorf("romio_ds_read=%s: read back %d int64s, equal: %v", ds, mpi.GetCount[int64](st), slices.Equal(got, vals))
					}
				}
				must(t, f.Close())
				if rank == 0 {
					must(t, mpi.FileDelete(name, nil))
				}
			})
		})
	}
}

// TestFileViewSubarray writes a 2-D array of ranks' tiles through subarray views, the
// memory a tile with a ghost border (a subarray of the memory too), and reads it back
// whole on one rank.
func TestFileViewSubarray(t *testing.T) {
	ioJob(t, 4, func(t *testing.T, dir string, rank, size int) {
		const rows, cols, tr, tc = 8, 12, 4, 6 // the array, a tile (a 2x2 grid of tiles)
		name := filepath.Join(dir, "a")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		r0, c0 := rank/2*tr, rank%2*tc
		ft, err := mpi.TypeSubarray([]int{rows, cols}, []int{tr, tc}, []int{r0, c0}, mpi.OrderC, mpi.Float64)
		must(t, err)
		must(t, ft.Commit())
		must(t, f.SetView(0, mpi.Float64, ft, "native", nil))
		// The tile in memory with a ghost border of one.
		mem, err := mpi.TypeSubarray([]int{tr + 2, tc + 2}, []int{tr, tc}, []int{1, 1}, mpi.OrderC, mpi.Float64)
		must(t, err)
		must(t, mem.Commit())
		tile := make([]float64, (tr+2)*(tc+2))
		for i := range tr {
			for j := range tc {
				tile[(i+1)*(tc+2)+j+1] = float64((r0+i)*cols + c0 + j)
			}
		}
		st, err := mpi.FileWriteAllBuf(f, mpi.Typed(tile, 1, mem))
		must(t, err)
		if st.Bytes() != tr*tc*8 {
			t.Errorf("wrote %d bytes, want %d", st.Bytes(), tr*tc*8)
		}
		// Read the tile back into another ghosted buffer, independently.
		back := make([]float64, len(tile))
		_, err = mpi.FileReadAtBuf(f, 0, mpi.Typed(back, 1, mem))
		must(t, err)
		if !slices.Equal(back, tile) {
			t.Errorf("the tile read back differs")
		}
		disp, et, vt, rep, err := f.View()
		must(t, err)
		if disp != 0 || et != mpi.Float64 || vt == ft || rep != "native" {
			t.Errorf("View: %d %v %v %q; want 0, Float64 itself, a new filetype, native", disp, et, vt, rep)
		}
		if sz, _ := vt.Size(); sz != tr*tc*8 {
			t.Errorf("the view's filetype has size %d", sz)
		}
		must(t, vt.Free())
		must(t, f.SetView(0, mpi.Byte, mpi.Byte, "native", nil))
		all := make([]float64, rows*cols)
		_, err = mpi.FileReadAll(f, all)
		must(t, err)
		for i, v := range all {
			if v != float64(i) {
				t.Fatalf("element %d of the array is %v", i, v)
			}
		}
		must(t, mem.Free())
		must(t, ft.Free())
		must(t, f.Close())
	})
}

// TestFileViewPastExtent sets views whose filetype's data reaches past its extent,
// as parallel HDF5's collective writes of chunked datasets do (a struct of the chunks'
// file types at their addresses, with an extent less than its span): the standard
// asks displacements to be nondecreasing within the filetype only, so the next tile
// may start before the last one's data. Each rank's filetype is a block of its own in
// each half of the file, extent one block: it reads two tiles of a reference file
// independently and collectively, then writes one tile collectively, with two-phase
// I/O and without, and independently, and the file holds each rank's blocks.
func TestFileViewPastExtent(t *testing.T) {
	ioJob(t, 4, func(t *testing.T, dir string, rank, size int) {
		const blk = 8
		half := size * blk
		name := filepath.Join(dir, "x")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		blocks, err := mpi.TypeHindexed([]int{blk, blk}, []int{rank * blk, half + rank*blk}, mpi.Byte)
		must(t, err)
		ft, err := mpi.TypeResized(blocks, 0, blk)
		must(t, err)
		must(t, ft.Commit())
		if rank == 0 {
			_, err = mpi.FileWriteAt(f, 0, patterned(0, int64(2*half+blk)))
			must(t, err)
		}
		syncAll(t, f)
		must(t, f.SetView(0, mpi.Byte, ft, "native", nil))
		// Two tiles: tile k's blocks start at k*blk.
		var want []byte
		for k := range 2 {
			want = append(want, patterned(int64(k*blk+rank*blk), blk)...)
			want = append(want, patterned(int64(k*blk+half+rank*blk), blk)...)
		}
		got := make([]byte, len(want))
		st, err := mpi.FileReadAt(f, 0, got)
		must(t, err)
		if st.Bytes() != int64(len(want)) || !bytes.Equal(got, want) {
			t.Errorf("read two tiles independently: %d bytes, equal %v", st.Bytes(), bytes.Equal(got, want))
		}
		clear(got)
		st, err = mpi.FileReadAtAll(f, 0, got)
		must(t, err)
		if st.Bytes() != int64(len(want)) || !bytes.Equal(got, want) {
			t.Errorf("read two tiles collectively: %d bytes, equal %v", st.Bytes(), bytes.Equal(got, want))
		}
		for i, cb := range []string{"enable", "disable", ""} {
			mine := bytes.Repeat([]byte{byte(16*i + rank + 1)}, 2*blk)
			if cb == "" {
				_, err = mpi.FileWriteAt(f, 0, mine)
			} else {
				in := mpi.InfoCreate()
				must(t, in.Set("romio_cb_write", cb))
				must(t, f.SetInfo(in))
				must(t, in.Free())
				_, err = mpi.FileWriteAtAll(f, 0, mine)
			}
			must(t, err)
			syncAll(t, f)
			if rank == 0 {
				raw, err := os.ReadFile(name)
				must(t, err)
				for o := range 2 * half {
					if r := o % half / blk; raw[o] != byte(16*i+r+1) {
						t.Fatalf("romio_cb_write=%q: file byte %d is %d, want rank %d's %d", cb, o, raw[o], r, 16*i+r+1)
					}
				}
			}
			must(t, mpi.World.Barrier())
		}
		must(t, blocks.Free())
		must(t, ft.Free())
		must(t, f.Close())
	})
}

func itoaT(n int) string { return string(rune('0' + n)) }
