package mpi_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestFileNonblocking starts independent and collective nonblocking accesses of every
// form, mixed with point-to-point requests in one Waitall, and checks the file and
// the data read back.
func TestFileNonblocking(t *testing.T) {
	ioJob(t, 3, func(t *testing.T, dir string, rank, size int) {
		name := filepath.Join(dir, "n")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		const blk = 512
		// The file: [rank blocks at explicit offsets][each rank's block through its view].
		must(t, f.SetView(int64(rank*blk), mpi.Byte, mpi.Byte, "native", nil))
		var reqs []mpi.Request
		add := func(r mpi.Request, err error) {
			t.Helper()
			must(t, err)
			reqs = append(reqs, r)
		}
		data := patterned(int64(rank*blk), 4*blk)
		add(mpi.FileIwriteAt(f, 0, data[:blk/2]))
		add(mpi.FileIwriteAtAll(f, blk/2, data[blk/2:blk]))
		add(mpi.Isend(mpi.World, []int{rank}, (rank+1)%size, 7))
		got := []int{-1}
		add(mpi.Irecv(mpi.World, got, (rank+size-1)%size, 7))
		must(t, mpi.Waitall(reqs, nil))
		if got[0] != (rank+size-1)%size {
			t.Errorf("the message among the file's requests carried %d", got[0])
		}
		// Through the pointer: a view of one block per rank after the first region.
		ft, err := mpi.TypeContiguous(blk, mpi.Byte)
		must(t, err)
		ft2, err := mpi.TypeResized(ft, 0, int64ToInt(int64(size*blk)))
		must(t, err)
		must(t, ft2.Commit())
		must(t, f.SetView(int64(size*blk+rank*blk), mpi.Byte, ft2, "native", nil))
		r1, err := mpi.FileIwrite(f, data[blk:blk+blk/2])
		must(t, err)
		r2, err := mpi.FileIwriteAll(f, data[blk+blk/2:2*blk]) // the pointer moved when r1 started
		must(t, err)
		st, err := r2.Wait()
		must(t, err)
		if st.Bytes() != blk/2 {
			t.Errorf("FileIwriteAll's status says %d bytes", st.Bytes())
		}
		_, err = r1.Wait()
		must(t, err)
		if pos, _ := f.Position(); pos != blk {
			t.Errorf("the pointer is at %d after two nonblocking writes, want %d", pos, blk)
		}
		must(t, f.Sync())
		must(t, mpi.World.Barrier())
		if rank == 0 {
			raw, err := os.ReadFile(name)
			must(t, err)
			want := make([]byte, 0, 2*size*blk)
			for r := range size {
				want = append(want, patterned(int64(r*blk), blk)...)
			}
			for r := range size {
				want = append(want, patterned(int64(r*blk+blk), blk)...)
			}
			if !bytes.Equal(raw, want) {
				t.Errorf("the file differs from the reference")
			}
		}
		// Read it back, nonblocking, each form.
		back := make([]byte, 2*blk)
		_, err = f.Seek(0, io.SeekStart)
		must(t, err)
		ra, err := mpi.FileIreadAt(f, 0, back[:blk/2])
		must(t, err)
		rb, err := mpi.FileIreadAtAll(f, blk/2, back[blk/2:blk])
		must(t, err)
		rc, err := mpi.FileIread(f, back[blk:blk+blk/2])
		must(t, err)
		rd, err := mpi.FileIreadAll(f, back[blk+blk/2:])
		must(t, err)
		sts := make([]mpi.Status, 4)
		must(t, mpi.Waitall([]mpi.Request{ra, rb, rc, rd}, sts))
		for i, s := range sts {
			if s.Bytes() != blk/2 {
				t.Errorf("read %d: %d bytes", i, s.Bytes())
			}
		}
		// The region through the view; the explicit ones were at the view of the first
		// region, which is not this view: read them back through it instead.
		if !bytes.Equal(back[blk:], data[blk:2*blk]) {
			t.Errorf("the data read back through the pointer differs")
		}
		if !bytes.Equal(back[:blk], data[blk:2*blk]) {
			t.Errorf("the data read back at explicit offsets differs")
		}
		must(t, ft.Free())
		must(t, ft2.Free())
		must(t, f.Close())
	})
}

func int64ToInt(v int64) int { return int(v) }

// TestFileHintsSizeAtomicity checks the hints reported, SetInfo, set_size and
// preallocate, atomic mode, and the file's bytes as io interfaces.
func TestFileHintsSizeAtomicity(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		in := mpi.InfoCreate()
		must(t, in.Set("access_style", "write_once,sequential"))
		must(t, in.Set("cb_buffer_size", "1048576"))
		must(t, in.Set("cb_nodes", "64"))      // more than the ranks: cut to them
		must(t, in.Set("romio_ds_read", "no")) // not a value it takes: ignored
		must(t, in.Set("no_such_hint", "1"))   // ignored, not reported
		must(t, in.Set("striping_unit", "65536"))
		name := filepath.Join(dir, "h")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeDeleteOnClose, in)
		must(t, err)
		must(t, in.Free())
		hints := infoMap(t, f)
		for k, v := range map[string]string{
			"access_style": "write_once,sequential", "cb_buffer_size": "1048576", "cb_nodes": "2",
			"romio_ds_read": "automatic", "romio_ds_write": "automatic", "romio_cb_read": "automatic",
			"romio_cb_write": "automatic", "striping_unit": "65536", "ind_rd_buffer_size": "4194304",
		} {
			if hints[k] != v {
				t.Errorf("hint %s = %q, want %q", k, hints[k], v)
			}
		}
		if _, ok := hints["no_such_hint"]; ok {
			t.Errorf("an ignored hint is reported")
		}
		in = mpi.InfoCreate()
		must(t, in.Set("romio_ds_write", "enable"))
		must(t, in.Set("striping_unit", "4096")) // only when opening
		must(t, f.SetInfo(in))
		must(t, in.Free())
		hints = infoMap(t, f)
		if hints["romio_ds_write"] != "enable" || hints["striping_unit"] != "65536" {
			t.Errorf("after SetInfo: romio_ds_write %q, striping_unit %q", hints["romio_ds_write"], hints["striping_unit"])
		}

		must(t, f.SetSize(1000))
		if n, _ := f.Size(); n != 1000 {
			t.Errorf("SetSize(1000): %d", n)
		}
		must(t, f.Preallocate(500))
		if n, _ := f.Size(); n != 1000 {
			t.Errorf("Preallocate(500) of 1000 bytes: %d", n)
		}
		must(t, f.Preallocate(4000))
		if n, _ := f.Size(); n != 4000 {
			t.Errorf("Preallocate(4000): %d", n)
		}
		must(t, f.SetSize(10))
		if n, _ := f.Size(); n != 10 {
			t.Errorf("SetSize(10): %d", n)
		}
		if ext, err := f.TypeExtent(mpi.Complex128); err != nil || ext != 16 {
			t.Errorf("TypeExtent(Complex128) = %d, %v", ext, err)
		}

		// Atomic mode: both ranks write the same bytes at once, each in 64 pieces (a
		// strided view, unsieved); the file holds one rank's whole write, never a mix.
		in = mpi.InfoCreate()
		must(t, in.Set("romio_ds_write", "disable"))
		vec, err := mpi.TypeVector(64, 512, 1024, mpi.Byte)
		must(t, err)
		must(t, vec.Commit())
		must(t, f.SetView(0, mpi.Byte, vec, "native", in))
		must(t, in.Free())
		must(t, f.SetAtomicity(true))
		if a, _ := f.Atomicity(); !a {
			t.Errorf("Atomicity after SetAtomicity(true) is false")
		}
		mine := bytes.Repeat([]byte{byte(rank + 1)}, 1<<15)
		for range 5 {
			_, err = mpi.FileWriteAtAll(f, 0, mine)
			must(t, err)
			got := make([]byte, len(mine))
			_, err = mpi.FileReadAtAll(f, 0, got)
			must(t, err)
			if !bytes.Equal(got, bytes.Repeat(got[:1], len(got))) {
				t.Fatalf("an atomic write was mixed with another")
			}
		}
		must(t, f.SetAtomicity(false))
		must(t, f.SetView(0, mpi.Byte, mpi.Byte, "native", nil))
		must(t, vec.Free())
		must(t, f.SetSize(0))

		// The bytes as io interfaces.
		b := f.Bytes()
		if rank == 0 {
			n, err := b.WriteAt([]byte("hello, file"), 100)
			if n != 11 || err != nil {
				t.Errorf("WriteAt: %d, %v", n, err)
			}
		}
		syncAll(t, f)
		sec := io.NewSectionReader(b, 100, 20)
		all, err := io.ReadAll(sec)
		if err != nil || string(all) != "hello, file" {
			t.Errorf("a SectionReader over the file read %q, %v", all, err)
		}
		p := make([]byte, 5)
		if n, err := b.ReadAt(p, 108); n != 3 || err != io.EOF {
			t.Errorf("ReadAt at the end: %d, %v; want 3, io.EOF", n, err)
		}
		if off, err := b.Seek(-4, io.SeekEnd); off != 107 || err != nil {
			t.Errorf("Seek(-4, io.SeekEnd) = %d, %v", off, err)
		}
		if n, err := b.Read(p); n != 4 || string(p[:4]) != "file" || err != nil {
			t.Errorf("Read: %d %q %v", n, p[:n], err)
		}
		if _, err := b.Read(p); err != io.EOF {
			t.Errorf("Read at the end: %v, want io.EOF", err)
		}
		if _, err := b.ReadAt(p, -1); !errors.Is(err, mpi.ErrArg) {
			t.Errorf("ReadAt(-1): %v, want ErrArg", err)
		}
		must(t, f.Close())
	})
}

func infoMap(t *testing.T, f *mpi.File) map[string]string {
	t.Helper()
	in, err := f.Info()
	must(t, err)
	defer in.Free()
	n, err := in.Nkeys()
	must(t, err)
	m := map[string]string{}
	for i := range n {
		k, err := in.Nthkey(i)
		must(t, err)
		v, _, err := in.Get(k)
		must(t, err)
		m[k] = v
	}
	return m
}

// TestFileBufForms writes and reads typed buffers (every other int32 of a slice)
// through each Buf form, blocking and nonblocking, independent and collective, and
// checks the file; and the Amode's and FileBytes' remaining calls.
func TestFileBufForms(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		if s := (mpi.ModeRdwr | mpi.ModeCreate).String(); s != "MPI_MODE_RDWR|MPI_MODE_CREATE" {
			t.Errorf("Amode.String: %q", s)
		}
		name := filepath.Join(dir, "b")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		const n = 16 // int32s per access
		every2, err := mpi.TypeVector(n, 1, 2, mpi.Int32)
		must(t, err)
		must(t, every2.Commit())
		// Each rank's region: 8 accesses of n int32s, through a view from the region's
		// start: explicit offsets the first four, the file pointer the others.
		region := int64(rank * 8 * n * 4)
		mem := func(k int) []int32 {
			b := make([]int32, 2*n)
			for i := range n {
				b[2*i] = int32(rank*1000 + k*n + i)
			}
			return b
		}
		must(t, f.SetView(region, mpi.Int32, mpi.Int32, "native", nil))
		_, err = mpi.FileWriteAtBuf(f, 0, mpi.Typed(mem(0), 1, every2))
		must(t, err)
		_, err = mpi.FileWriteAtAllBuf(f, n, mpi.Typed(mem(1), 1, every2))
		must(t, err)
		r1, err := mpi.FileIwriteAtBuf(f, 2*n, mpi.Typed(mem(2), 1, every2))
		must(t, err)
		r2, err := mpi.FileIwriteAtAllBuf(f, 3*n, mpi.Typed(mem(3), 1, every2))
		must(t, err)
		must(t, mpi.Waitall([]mpi.Request{r1, r2}, nil))
		_, err = f.Seek(4*n, io.SeekStart)
		must(t, err)
		_, err = mpi.FileWriteBuf(f, mpi.Typed(mem(4), 1, every2))
		must(t, err)
		_, err = mpi.FileWriteAllBuf(f, mpi.Typed(mem(5), 1, every2))
		must(t, err)
		r3, err := mpi.FileIwriteBuf(f, mpi.Typed(mem(6), 1, every2))
		must(t, err)
		r4, err := mpi.FileIwriteAllBuf(f, mpi.Typed(mem(7), 1, every2))
		must(t, err)
		must(t, mpi.Waitall([]mpi.Request{r3, r4}, nil))
		must(t, f.Sync())
		must(t, mpi.World.Barrier())
		if rank == 0 {
			raw, err := os.ReadFile(name)
			must(t, err)
			for r := range size {
				for k := range 8 {
					for i := range n {
						j := (r*8*n + k*n + i) * 4
						v := int32(raw[j]) | int32(raw[j+1])<<8 | int32(raw[j+2])<<16 | int32(raw[j+3])<<24
						if v != int32(r*1000+k*n+i) {
							t.Fatalf("int32 %d of rank %d's access %d is %d", i, r, k, v)
						}
					}
				}
			}
		}
		// Read back through the read forms.
		got := make([][]int32, 8)
		for k := range got {
			got[k] = make([]int32, 2*n)
		}
		_, err = mpi.FileReadAtBuf(f, 0, mpi.Typed(got[0], 1, every2))
		must(t, err)
		_, err = mpi.FileReadAtAllBuf(f, n, mpi.Typed(got[1], 1, every2))
		must(t, err)
		q1, err := mpi.FileIreadAtBuf(f, 2*n, mpi.Typed(got[2], 1, every2))
		must(t, err)
		q2, err := mpi.FileIreadAtAllBuf(f, 3*n, mpi.Typed(got[3], 1, every2))
		must(t, err)
		must(t, mpi.Waitall([]mpi.Request{q1, q2}, nil))
		_, err = f.Seek(4*n, io.SeekStart)
		must(t, err)
		_, err = mpi.FileReadBuf(f, mpi.Typed(got[4], 1, every2))
		must(t, err)
		_, err = mpi.FileReadAllBuf(f, mpi.Typed(got[5], 1, every2))
		must(t, err)
		q3, err := mpi.FileIreadBuf(f, mpi.Typed(got[6], 1, every2))
		must(t, err)
		q4, err := mpi.FileIreadAllBuf(f, mpi.Typed(got[7], 1, every2))
		must(t, err)
		must(t, mpi.Waitall([]mpi.Request{q3, q4}, nil))
		for k := range got {
			if want := mem(k); !slices.Equal(got[k], want) {
				t.Errorf("access %d read back %v, want %v", k, got[k][:4], want[:4])
			}
		}
		must(t, every2.Free())
		// FileBytes.Write at its offset.
		b := f.Bytes()
		if _, err := b.Seek(3, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if rank == 0 {
			if n, err := b.Write([]byte("xyz")); n != 3 || err != nil {
				t.Errorf("Write: %d, %v", n, err)
			}
			p := make([]byte, 3)
			if _, err := b.ReadAt(p, 3); err != nil || string(p) != "xyz" {
				t.Errorf("read %q after Write, %v", p, err)
			}
		}
		must(t, f.Close())
	})
}
