package mpi_test

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/mpi"
)

// TestFileExternal32 writes interleaved blocks of int32s and float64s through
// external32 views on 2 ranks, collectively and independently, checks the file's
// bytes are big-endian, and reads them back converted, through the view and with a
// derived memory type; get_type_extent gives external32's extents.
func TestFileExternal32(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		name := filepath.Join(dir, "x")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		const blk, nblk = 4, 8
		ft, err := mpi.TypeVector(nblk, blk, blk*size, mpi.Int32)
		must(t, err)
		must(t, ft.Commit())
		must(t, f.SetView(int64(rank*blk*4), mpi.Int32, ft, "EXTERNAL32", nil))
		if _, _, _, rep, err := f.View(); err != nil || rep != "external32" {
			t.Errorf("View's datarep = %q, %v; want external32", rep, err)
		}
		if n, err := f.TypeExtent(mpi.Float64); err != nil || n != 8 {
			t.Errorf("TypeExtent(Float64) = %d, %v; want 8", n, err)
		}
		vals := make([]int32, blk*nblk)
		for i := range vals {
			vals[i] = int32((i/blk*size+rank)*blk+i%blk) - 100 // the file's int32 index - 100
		}
		st, err := mpi.FileWriteAtAll(f, 0, vals[:len(vals)/2])
		must(t, err)
		if mpi.GetCount[int32](st) != len(vals)/2 {
			t.Errorf("wrote %d int32s, want %d", mpi.GetCount[int32](st), len(vals)/2)
		}
		_, err = mpi.FileWriteAt(f, int64(len(vals)/2), vals[len(vals)/2:])
		must(t, err)
		syncAll(t, f)
		if rank == 0 {
			raw, err := os.ReadFile(name)
			must(t, err)
			if len(raw) != size*blk*nblk*4 {
				t.Fatalf("the file has %d bytes, want %d", len(raw), size*blk*nblk*4)
			}
			for i := range len(raw) / 4 {
				if v := int32(binary.BigEndian.Uint32(raw[4*i:])); v != int32(i)-100 {
					t.Fatalf("big-endian int32 %d of the file is %d, want %d", i, v, i-100)
				}
			}
		}
		got := make([]int32, len(vals))
		st, err = mpi.FileReadAtAll(f, 0, got)
		must(t, err)
		if mpi.GetCount[int32](st) != len(vals) || !slices.Equal(got, vals) {
			t.Errorf("read back %d int32s %v, want %v", mpi.GetCount[int32](st), got, vals)
		}
		// A derived memory type: every other int32 of a buffer, read independently.
		mt, err := mpi.TypeVector(len(vals), 1, 2, mpi.Int32)
		must(t, err)
		must(t, mt.Commit())
		spread := make([]int32, 2*len(vals))
		st, err = mpi.FileReadAtBuf(f, 0, mpi.Typed(spread, 1, mt))
		must(t, err)
		for i, v := range vals {
			if spread[2*i] != v || spread[2*i+1] != 0 {
				t.Fatalf("read through a vector memory type: item %d is %d (hole %d), want %d", i, spread[2*i], spread[2*i+1], v)
			}
		}
		if st.Bytes() != int64(4*len(vals)) {
			t.Errorf("the status says %d bytes, want %d", st.Bytes(), 4*len(vals))
		}
		must(t, mt.Free())
		must(t, ft.Free())

		// float64s at the individual pointer, a byte view; a read past the end
		// converts what there is.
		must(t, f.SetView(0, mpi.Byte, mpi.Byte, "external32", nil))
		must(t, f.SetSize(0))
		if rank == 0 {
			xs := []float64{1.5, -2, math.Inf(1)}
			_, err = mpi.FileWrite(f, xs)
			must(t, err)
			raw, err := os.ReadFile(name)
			must(t, err)
			for i, x := range xs {
				if v := math.Float64frombits(binary.BigEndian.Uint64(raw[8*i:])); v != x {
					t.Errorf("big-endian float64 %d of the file is %v, want %v", i, v, x)
				}
			}
			back := make([]float64, 5)
			st, err := mpi.FileReadAt(f, 0, back)
			must(t, err)
			if mpi.GetCount[float64](st) != 3 || !slices.Equal(back[:3], xs) || back[3] != 0 {
				t.Errorf("read back %d float64s %v, want %v", mpi.GetCount[float64](st), back, xs)
			}
		}
		must(t, f.Close())
	})
}

// swapRep is a data representation of the test's: every item byte-swapped in the
// file (big-endian on this little-endian machine), at its size in memory. It takes
// slices of predefined types (their items back to back) and records its calls.
type swapRep struct{ calls [][2]int } // position, count of each write conversion

func swapItems(dst, src []byte, size int) {
	for i := 0; i+size <= len(src); i += size {
		for j := range size {
			dst[i+j] = src[i+size-1-j]
		}
	}
}

// itemSize is the size of dt, a predefined type.
func itemSize(dt *mpi.Datatype) int {
	n, _ := dt.Size()
	return int(n)
}

func (r *swapRep) write(mem []byte, dt *mpi.Datatype, count int, file []byte, position int) error {
	size := itemSize(dt)
	r.calls = append(r.calls, [2]int{position, count})
	swapItems(file[:count*size], mem[position*size:(position+count)*size], size)
	return nil
}

func (r *swapRep) read(mem []byte, dt *mpi.Datatype, count int, file []byte, position int) error {
	size := itemSize(dt)
	swapItems(mem[position*size:(position+count)*size], file[:count*size], size)
	return nil
}

func nativeSize(dt *mpi.Datatype) (int64, error) { return dt.Size() }

// TestFileDatarepUser registers a byte-swapping representation on 2 ranks, writes
// interleaved blocks of int32s through it collectively (more than one conversion
// chunk), checks the file's bytes are big-endian, and reads them back converted.
func TestFileDatarepUser(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		var r swapRep
		must(t, mpi.RegisterDatarep("mpigo-test-swap", r.read, r.write, nativeSize))
		name := filepath.Join(dir, "u")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		const blk, nblk = 1 << 10, 1 << 9 // 2 MiB a rank: conversions in chunks
		ft, err := mpi.TypeVector(nblk, blk, blk*size, mpi.Int32)
		must(t, err)
		must(t, ft.Commit())
		must(t, f.SetView(int64(rank*blk*4), mpi.Int32, ft, "mpigo-test-swap", nil))
		if _, _, _, rep, err := f.View(); err != nil || rep != "mpigo-test-swap" {
			t.Errorf("View's datarep = %q, %v", rep, err)
		}
		if n, err := f.TypeExtent(ft); err != nil || n != int64(4*((nblk-1)*blk*size+blk)) {
			t.Errorf("TypeExtent(filetype) = %d, %v; want %d", n, err, 4*((nblk-1)*blk*size+blk))
		}
		vals := make([]int32, blk*nblk)
		for i := range vals {
			vals[i] = int32((i/blk*size+rank)*blk+i%blk) * 3 // the file's int32 index * 3
		}
		st, err := mpi.FileWriteAtAll(f, 0, vals)
		must(t, err)
		if mpi.GetCount[int32](st) != len(vals) {
			t.Errorf("wrote %d int32s, want %d", mpi.GetCount[int32](st), len(vals))
		}
		next := 0
		for _, c := range r.calls {
			if c[0] != next || c[1] <= 0 {
				t.Fatalf("write conversions (position, count) %v: not consecutive chunks from 0", r.calls)
			}
			next += c[1]
		}
		if next != len(vals) || len(r.calls) < 2 {
			t.Errorf("write conversions %v: %d items in %d calls, want %d items in chunks", r.calls, next, len(r.calls), len(vals))
		}
		must(t, f.Sync())
		must(t, mpi.World.Barrier())
		if rank == 0 {
			raw, err := os.ReadFile(name)
			must(t, err)
			if len(raw) != size*len(vals)*4 {
				t.Fatalf("the file has %d bytes, want %d", len(raw), size*len(vals)*4)
			}
			for i := range len(raw) / 4 {
				if v := int32(binary.BigEndian.Uint32(raw[4*i:])); v != int32(i)*3 {
					t.Fatalf("int32 %d of the file is %d big-endian, want %d", i, v, i*3)
				}
			}
		}
		got := make([]int32, len(vals))
		st, err = mpi.FileReadAtAll(f, 0, got)
		must(t, err)
		if mpi.GetCount[int32](st) != len(vals) || !slices.Equal(got, vals) {
			t.Errorf("read back %d int32s, equal %v", mpi.GetCount[int32](st), slices.Equal(got, vals))
		}
		// A read past the end converts the whole items there are.
		must(t, f.SetView(0, mpi.Byte, mpi.Byte, "mpigo-test-swap", nil))
		back := make([]int64, 3)
		st, err = mpi.FileReadAt(f, int64(size*len(vals)*4-12), back)
		must(t, err)
		if mpi.GetCount[int64](st) != 1 || back[1] != 0 {
			t.Errorf("read past the end: %d int64s %v, want 1", mpi.GetCount[int64](st), back)
		}
		must(t, f.Close())
		must(t, ft.Free())
	})
}

// TestFileDatarepNarrow: a representation that keeps int64s in 4 bytes (their low
// half, little-endian) lays a view of int64s out at 4 bytes an item: the
// filetype's holes shrink with its items, TypeExtent and ByteOffset say so, and the
// data round-trips.
func TestFileDatarepNarrow(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		ext := func(dt *mpi.Datatype) (int64, error) {
			if dt == mpi.Int64 {
				return 4, nil
			}
			return dt.Size()
		}
		write := func(mem []byte, dt *mpi.Datatype, count int, file []byte, position int) error {
			for i := range count {
				copy(file[4*i:4*i+4], mem[8*(position+i):])
			}
			return nil
		}
		read := func(mem []byte, dt *mpi.Datatype, count int, file []byte, position int) error {
			for i := range count {
				v := int64(int32(binary.LittleEndian.Uint32(file[4*i:])))
				binary.LittleEndian.PutUint64(mem[8*(position+i):], uint64(v))
			}
			return nil
		}
		must(t, mpi.RegisterDatarep("mpigo-test-narrow", read, write, ext))
		name := filepath.Join(dir, "n")
		f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		const n = 100
		ft, err := mpi.TypeVector(n, 1, size, mpi.Int64) // every size-th int64
		must(t, err)
		must(t, ft.Commit())
		must(t, f.SetView(int64(rank*4), mpi.Int64, ft, "mpigo-test-narrow", nil))
		if x, err := f.TypeExtent(ft); err != nil || x != int64(4*((n-1)*size+1)) {
			t.Errorf("TypeExtent(filetype) = %d, %v; want %d", x, err, 4*((n-1)*size+1))
		}
		if x, err := f.TypeExtent(mpi.Int64); err != nil || x != 4 {
			t.Errorf("TypeExtent(Int64) = %d, %v; want 4", x, err)
		}
		if b, err := f.ByteOffset(3); err != nil || b != int64(rank*4+3*size*4) {
			t.Errorf("ByteOffset(3) = %d, %v; want %d", b, err, rank*4+3*size*4)
		}
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = int64(i*size+rank) - 50
		}
		_, err = mpi.FileWriteAll(f, vals)
		must(t, err)
		must(t, f.Sync())
		must(t, mpi.World.Barrier())
		if rank == 0 {
			raw, err := os.ReadFile(name)
			must(t, err)
			if len(raw) != 4*n*size {
				t.Fatalf("the file has %d bytes, want %d", len(raw), 4*n*size)
			}
			for i := range n * size {
				if v := int32(binary.LittleEndian.Uint32(raw[4*i:])); v != int32(i)-50 {
					t.Fatalf("item %d of the file is %d, want %d", i, v, i-50)
				}
			}
		}
		got := make([]int64, n)
		_, err = mpi.FileReadAtAll(f, 0, got)
		must(t, err)
		if !slices.Equal(got, vals) {
			t.Errorf("read back %v, want %v", got[:4], vals[:4])
		}
		must(t, f.Close())
		must(t, ft.Free())
	})
}

// TestFileDatarepErrors: every bad use of a user representation gets its class.
func TestFileDatarepErrors(t *testing.T) {
	ioJob(t, 1, func(t *testing.T, dir string, rank, size int) {
		var r swapRep
		must(t, mpi.RegisterDatarep("mpigo-test-e", r.read, r.write, nativeSize))
		wantClass(t, "registering a name twice", mpi.RegisterDatarep("mpigo-test-e", r.read, r.write, nativeSize), mpi.ErrDupDatarep)
		wantClass(t, "registering external32", mpi.RegisterDatarep("external32", r.read, r.write, nativeSize), mpi.ErrDupDatarep)
		wantClass(t, "registering Native", mpi.RegisterDatarep("Native", nil, nil, nativeSize), mpi.ErrDupDatarep)
		wantClass(t, "an empty name", mpi.RegisterDatarep("", nil, nil, nativeSize), mpi.ErrArg)
		wantClass(t, "a name of 128 bytes", mpi.RegisterDatarep(string(make([]byte, 128)), nil, nil, nativeSize), mpi.ErrArg)
		wantClass(t, "no extent function", mpi.RegisterDatarep("mpigo-test-noext", nil, nil, nil), mpi.ErrArg)

		boom := errors.New("boom")
		fails := func([]byte, *mpi.Datatype, int, []byte, int) error { return boom }
		must(t, mpi.RegisterDatarep("mpigo-test-fail", fails, fails, nativeSize))
		must(t, mpi.RegisterDatarep("mpigo-test-badext", nil, nil, func(*mpi.Datatype) (int64, error) { return 0, boom }))
		half := func(dt *mpi.Datatype) (int64, error) { return int64(itemSize(dt) / 2), nil }
		must(t, mpi.RegisterDatarep("mpigo-test-nullconv", nil, nil, half))
		must(t, mpi.RegisterDatarep("mpigo-test-wonly", nil, r.write, nativeSize))

		f, err := mpi.FileOpen(mpi.World, filepath.Join(dir, "e"), mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		wantClass(t, "an unregistered datarep", f.SetView(0, mpi.Int32, mpi.Int32, "mpigo-test-none", nil), mpi.ErrUnsupportedDatarep)
		wantClass(t, "a registered name in another case", f.SetView(0, mpi.Int32, mpi.Int32, "MPIGO-TEST-E", nil), mpi.ErrUnsupportedDatarep)
		err = f.SetView(0, mpi.Int32, mpi.Int32, "mpigo-test-badext", nil)
		wantClass(t, "a failing extent function", err, mpi.ErrConversion)
		if !errors.Is(err, boom) {
			t.Errorf("the extent function's error is not in the view's: %v", err)
		}

		must(t, f.SetView(0, mpi.Int32, mpi.Int32, "mpigo-test-fail", nil))
		_, err = mpi.FileWriteAt(f, 0, []int32{1, 2})
		wantClass(t, "a failing write conversion", err, mpi.ErrConversion)
		if !errors.Is(err, boom) {
			t.Errorf("the conversion's error is not the write's: %v", err)
		}
		if n, _ := f.Size(); n != 0 {
			t.Errorf("a write whose conversion failed wrote %d bytes", n)
		}
		must(t, f.SetView(0, mpi.Byte, mpi.Byte, "native", nil))
		_, err = mpi.FileWriteAt(f, 0, []int32{1, 2})
		must(t, err)
		must(t, f.SetView(0, mpi.Int32, mpi.Int32, "mpigo-test-fail", nil))
		_, err = mpi.FileReadAt(f, 0, make([]int32, 2))
		wantClass(t, "a failing read conversion", err, mpi.ErrConversion)

		// MPI_CONVERSION_FN_NULL moves memory's bytes: fine where the extent
		// function agrees with memory, an error where it does not.
		must(t, f.SetView(0, mpi.Int16, mpi.Int16, "mpigo-test-nullconv", nil))
		_, err = mpi.FileWriteAt(f, 0, []int16{1, 2})
		wantClass(t, "no conversion but another size in the file", err, mpi.ErrConversion)
		must(t, f.SetView(0, mpi.Int32, mpi.Int32, "mpigo-test-wonly", nil))
		_, err = mpi.FileWriteAt(f, 0, []int32{0x01020304})
		must(t, err)
		raw := make([]int32, 1)
		_, err = mpi.FileReadAt(f, 0, raw)
		must(t, err)
		if raw[0] != 0x04030201 {
			t.Errorf("read with no read conversion: %#x, want the file's bytes as they are, %#x", raw[0], 0x04030201)
		}
		must(t, f.Close())
	})
}
