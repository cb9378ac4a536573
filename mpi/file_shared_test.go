package mpi_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

// TestFileSharedPointer has every rank write records through the shared file
// pointer, blocking and nonblocking, in a view of int32s, and checks that the file
// holds each record exactly once, whole, each rank's in the order it wrote them;
// then the ranks read the records back through the pointer until the end, each
// record read exactly once, and seek it from the start, the end and the pointer.
// Over each transport: through node shared memory the pointer is one atomic word,
// over TCP its window ships the fetch-and-adds to rank 0; and over three pretend
// hosts, where the ranks on rank 0's node add directly and the others ship.
func TestFileSharedPointer(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr mpitest.Transport) {
		ioJobWith(t, mpitest.Options{N: 4, Transport: tr}, sharedPointerBody)
	})
	t.Run("hosts", func(t *testing.T) {
		ioJobWith(t, mpitest.Options{N: 7, Hosts: pretendHosts}, sharedPointerBody)
	})
}

func sharedPointerBody(t *testing.T, dir string, rank, size int) {
	name := filepath.Join(dir, "s")
	f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
	must(t, err)
	must(t, f.SetView(0, mpi.Int32, mpi.Int32, "native", nil))
	const recs, rec = 40, 4 // records per rank, int32s per record
	for i := range recs {
		id := int32(rank*recs + i)
		r := []int32{id, id, id, id}
		if i%3 == 0 {
			q, err := mpi.FileIwriteShared(f, r)
			must(t, err)
			st, err := q.Wait()
			must(t, err)
			if st.Bytes() != 4*rec {
				t.Errorf("FileIwriteShared's status says %d bytes", st.Bytes())
			}
			continue
		}
		st, err := mpi.FileWriteShared(f, r)
		must(t, err)
		if st.Bytes() != 4*rec {
			t.Errorf("FileWriteShared's status says %d bytes", st.Bytes())
		}
	}
	must(t, f.Sync())
	must(t, mpi.World.Barrier())
	total := int64(size * recs * rec)
	if pos, err := f.PositionShared(); err != nil || pos != total {
		t.Errorf("PositionShared %d, %v after every write; want %d", pos, err, total)
	}
	if rank == 0 {
		raw, err := os.ReadFile(name)
		must(t, err)
		checkRecords(t, raw, size, recs)
	}

	// Read them back through the pointer until the end of the file.
	if pos, err := f.SeekShared(0, io.SeekStart); err != nil || pos != 0 {
		t.Fatalf("SeekShared to the start: %d, %v", pos, err)
	}
	var got, sum int64
	for {
		r := make([]int32, rec)
		st, err := mpi.FileReadShared(f, r)
		must(t, err)
		if st.Bytes() == 0 {
			break
		}
		if st.Bytes() != 4*rec || r[0] != r[1] || r[0] != r[3] {
			t.Fatalf("read %d bytes, a record %v", st.Bytes(), r)
		}
		got++
		sum += int64(r[0])
	}
	counts, err := mpi.AllreduceValue(mpi.World, [2]int64{got, sum}, func(a, b [2]int64) [2]int64 { return [2]int64{a[0] + b[0], a[1] + b[1]} })
	must(t, err)
	n := int64(size * recs)
	if counts[0] != n || counts[1] != n*(n-1)/2 {
		t.Errorf("the ranks read %d records summing to %d, want %d summing to %d", counts[0], counts[1], n, n*(n-1)/2)
	}

	// Seek from the end and from the pointer: every rank reads the last record.
	pos, err := f.SeekShared(-rec, io.SeekEnd)
	if err != nil || pos != total-rec {
		t.Errorf("SeekShared(-%d, io.SeekEnd): %d, %v; want %d", rec, pos, err, total-rec)
	}
	pos, err = f.SeekShared(-rec, io.SeekCurrent)
	if err != nil || pos != total-2*rec {
		t.Errorf("SeekShared(-%d, io.SeekCurrent): %d, %v; want %d", rec, pos, err, total-2*rec)
	}
	// Bad seeks fail on every rank, the pointer unmoved.
	_, err = f.SeekShared(int64(rank), io.SeekStart)
	if size > 1 {
		wantClass(t, "SeekShared with different offsets", err, mpi.ErrNotSame)
	}
	_, err = f.SeekShared(-1, io.SeekStart)
	wantClass(t, "SeekShared before the view's start", err, mpi.ErrArg)
	_, err = f.SeekShared(0, 17)
	wantClass(t, "SeekShared with a bad whence", err, mpi.ErrArg)
	if pos, err := f.PositionShared(); err != nil || pos != total-2*rec {
		t.Errorf("PositionShared %d, %v after failed seeks; want %d", pos, err, total-2*rec)
	}
	// A new view puts the pointer at its start.
	must(t, f.SetView(int64(rec*4), mpi.Int32, mpi.Int32, "native", nil))
	if pos, err := f.PositionShared(); err != nil || pos != 0 {
		t.Errorf("PositionShared %d, %v after SetView; want 0", pos, err)
	}
	must(t, f.Close())
}

// checkRecords checks a file of records of 4 equal int32s: each id of size*recs
// exactly once, each rank's (ids rank*recs...) in increasing order.
func checkRecords(t *testing.T, raw []byte, size, recs int) {
	t.Helper()
	if len(raw) != size*recs*16 {
		t.Fatalf("the file has %d bytes, want %d", len(raw), size*recs*16)
	}
	seen := make([]bool, size*recs)
	last := make([]int, size)
	for r := range last {
		last[r] = -1
	}
	for off := 0; off < len(raw); off += 16 {
		id := int(int32(binary.LittleEndian.Uint32(raw[off:])))
		for k := 1; k < 4; k++ {
			if int(int32(binary.LittleEndian.Uint32(raw[off+4*k:]))) != id {
				t.Fatalf("the record at byte %d is torn: % x", off, raw[off:off+16])
			}
		}
		if id < 0 || id >= len(seen) || seen[id] {
			t.Fatalf("record %d at byte %d: out of range or twice", id, off)
		}
		seen[id] = true
		if r := id / recs; id%recs <= last[r] {
			t.Errorf("rank %d's record %d lies after its record %d", r, id%recs, last[r])
		} else {
			last[r] = id % recs
		}
	}
}

// TestFileOrdered writes records of different lengths in rank order, twice (the
// second after the first's total), blocking and split (FileIwriteOrdered), checks the
// file, reads them back in order, and has one rank's bad argument fail every rank's
// call with the pointer unmoved. A file opened ModeSequential takes the shared forms.
// Also over three pretend hosts.
func TestFileOrdered(t *testing.T) {
	t.Run("node", func(t *testing.T) { ioJob(t, 3, orderedBody) })
	t.Run("hosts", func(t *testing.T) { ioJobWith(t, mpitest.Options{N: 7, Hosts: pretendHosts}, orderedBody) })
}

func orderedBody(t *testing.T, dir string, rank, size int) {
	name := filepath.Join(dir, "o")
	f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
	must(t, err)
	mine := func(round int) []byte { return bytes.Repeat([]byte{byte('a' + rank + 10*round)}, 10*(rank+1)) }
	st, err := mpi.FileWriteOrdered(f, mine(0))
	must(t, err)
	if st.Bytes() != int64(10*(rank+1)) {
		t.Errorf("FileWriteOrdered's status says %d bytes", st.Bytes())
	}
	q, err := mpi.FileIwriteOrdered(f, mine(1))
	must(t, err)
	_, err = q.Wait()
	must(t, err)
	total := int64(10 * size * (size + 1) / 2)
	if pos, err := f.PositionShared(); err != nil || pos != 2*total {
		t.Errorf("PositionShared %d, %v after two ordered writes; want %d", pos, err, 2*total)
	}
	must(t, f.Sync())
	must(t, mpi.World.Barrier())
	if rank == 0 {
		raw, err := os.ReadFile(name)
		must(t, err)
		var want []byte
		for round := range 2 {
			for r := range size {
				want = append(want, bytes.Repeat([]byte{byte('a' + r + 10*round)}, 10*(r+1))...)
			}
		}
		if !bytes.Equal(raw, want) {
			t.Errorf("the file is %q, want %q", raw, want)
		}
	}
	_, err = f.SeekShared(0, io.SeekStart)
	must(t, err)
	for round := range 2 {
		back := make([]byte, 10*(rank+1))
		if round == 0 {
			_, err = mpi.FileReadOrdered(f, back)
		} else {
			q, err = mpi.FileIreadOrdered(f, back)
			must(t, err)
			_, err = q.Wait()
		}
		must(t, err)
		if !bytes.Equal(back, mine(round)) {
			t.Errorf("round %d read %q back, want %q", round, back, mine(round))
		}
	}
	// One rank's bad argument: every rank's call fails, nothing moves.
	must(t, f.SetView(0, mpi.Int32, mpi.Int32, "native", nil))
	n := 8
	if rank == size-1 {
		n = 6 // not whole int32s
	}
	_, err = mpi.FileWriteOrdered(f, make([]byte, n))
	wantClass(t, "FileWriteOrdered with one rank's partial etype", err, mpi.ErrType)
	if pos, err := f.PositionShared(); err != nil || pos != 0 {
		t.Errorf("PositionShared %d, %v after a failed ordered write; want 0", pos, err)
	}
	must(t, f.Close())

	// A sequential file: only the shared pointer.
	s, err := mpi.FileOpen(mpi.World, name, mpi.ModeWronly|mpi.ModeCreate|mpi.ModeSequential|mpi.ModeDeleteOnClose, nil)
	must(t, err)
	_, err = mpi.FileWriteOrdered(s, mine(0))
	must(t, err)
	_, err = mpi.FileWriteShared(s, []byte{'z'})
	must(t, err)
	must(t, mpi.World.Barrier())
	if pos, err := s.PositionShared(); err != nil || pos != total+int64(size) {
		t.Errorf("a sequential file's PositionShared %d, %v; want %d", pos, err, total+int64(size))
	}
	_, err = mpi.FileWrite(s, []byte{'y'})
	wantClass(t, "FileWrite of a sequential file", err, mpi.ErrUnsupportedOperation)
	_, err = mpi.FileReadShared(s, []byte{0})
	wantClass(t, "FileReadShared of a write-only file", err, mpi.ErrAccess)
	// A view from the shared pointer (MPI_DISPLACEMENT_CURRENT) starts there, and
	// its pointer at 0: an ordered write then follows what is in the file.
	must(t, s.SetView(mpi.DisplacementCurrent, mpi.Byte, mpi.Byte, "native", nil))
	if pos, err := s.PositionShared(); err != nil || pos != 0 {
		t.Errorf("PositionShared %d, %v in a view from the shared pointer; want 0", pos, err)
	}
	must(t, mpi.World.Barrier()) // every rank has read it before any moves it
	_, err = mpi.FileWriteOrdered(s, []byte{byte('0' + rank)})
	must(t, err)
	must(t, s.Sync())
	must(t, mpi.World.Barrier())
	if rank == 0 {
		raw, err := os.ReadFile(name)
		must(t, err)
		var tail []byte
		for r := range size {
			tail = append(tail, byte('0'+r))
		}
		if n := int(total) + size; len(raw) != n+size || !bytes.Equal(raw[n:], tail) {
			t.Errorf("the sequential file is %q, want %d bytes ending %q", raw, n+size, tail)
		}
	}
	must(t, s.Close())

	// MPI_MODE_APPEND: the shared pointer starts at the end of the file.
	must(t, mpi.World.Barrier())
	if rank == 0 {
		must(t, os.WriteFile(name, make([]byte, 12), 0o644))
	}
	must(t, mpi.World.Barrier())
	ap, err := mpi.FileOpen(mpi.World, name, mpi.ModeWronly|mpi.ModeAppend|mpi.ModeDeleteOnClose, nil)
	must(t, err)
	if pos, err := ap.PositionShared(); err != nil || pos != 12 {
		t.Errorf("an appending file's PositionShared %d, %v; want 12", pos, err)
	}
	must(t, ap.Close())
}

// TestFileSharedBufForms writes typed buffers (every other int32 of a slice) through
// each shared and ordered Buf form and reads them back the same ways: ordered ones in
// rank order, shared ones one rank at a time (the others wait at a barrier), so that
// the file's layout is known.
func TestFileSharedBufForms(t *testing.T) {
	ioJob(t, 2, func(t *testing.T, dir string, rank, size int) {
		f, err := mpi.FileOpen(mpi.World, filepath.Join(dir, "sb"), mpi.ModeRdwr|mpi.ModeCreate|mpi.ModeDeleteOnClose, nil)
		must(t, err)
		const n = 8
		every2, err := mpi.TypeVector(n, 1, 2, mpi.Int32)
		must(t, err)
		must(t, every2.Commit())
		mem := func(k int) []int32 {
			b := make([]int32, 2*n)
			for i := range n {
				b[2*i] = int32(rank*1000 + k*n + i)
			}
			return b
		}
		inTurn := func(do func() error) { // each rank's independent access in rank order
			for r := range size {
				if r == rank {
					must(t, do())
				}
				must(t, mpi.World.Barrier())
			}
		}
		must(t, f.SetView(0, mpi.Int32, mpi.Int32, "native", nil))
		_, err = mpi.FileWriteOrderedBuf(f, mpi.Typed(mem(0), 1, every2))
		must(t, err)
		q, err := mpi.FileIwriteOrderedBuf(f, mpi.Typed(mem(1), 1, every2))
		must(t, err)
		_, err = q.Wait()
		must(t, err)
		inTurn(func() error { _, err := mpi.FileWriteSharedBuf(f, mpi.Typed(mem(2), 1, every2)); return err })
		inTurn(func() error {
			q, err := mpi.FileIwriteSharedBuf(f, mpi.Typed(mem(3), 1, every2))
			if err == nil {
				_, err = q.Wait()
			}
			return err
		})
		if pos, err := f.PositionShared(); err != nil || pos != int64(4*size*n) {
			t.Errorf("PositionShared %d, %v; want %d", pos, err, 4*size*n)
		}
		_, err = f.SeekShared(0, io.SeekStart)
		must(t, err)
		got := make([][]int32, 4)
		for k := range got {
			got[k] = make([]int32, 2*n)
		}
		_, err = mpi.FileReadOrderedBuf(f, mpi.Typed(got[0], 1, every2))
		must(t, err)
		q, err = mpi.FileIreadOrderedBuf(f, mpi.Typed(got[1], 1, every2))
		must(t, err)
		_, err = q.Wait()
		must(t, err)
		inTurn(func() error { _, err := mpi.FileReadSharedBuf(f, mpi.Typed(got[2], 1, every2)); return err })
		inTurn(func() error {
			q, err := mpi.FileIreadSharedBuf(f, mpi.Typed(got[3], 1, every2))
			if err == nil {
				_, err = q.Wait()
			}
			return err
		})
		plain := make([]int32, n)
		var atEnd mpi.Status
		inTurn(func() error {
			q, err := mpi.FileIreadShared(f, plain)
			if err == nil {
				atEnd, err = q.Wait()
			}
			return err
		})
		if atEnd.Bytes() != 0 {
			t.Errorf("FileIreadShared at the end of the file read %d bytes", atEnd.Bytes())
		}
		for k := range got {
			if want := mem(k); !slices.Equal(got[k], want) {
				t.Errorf("access %d read back %v, want %v", k, got[k][:4], want[:4])
			}
		}
		must(t, every2.Free())
		must(t, f.Close())
	})
}

// TestFileSharedThenOrdered: rank 0 writes a record through the shared pointer
// before each ordered write, while the other ranks go straight to the ordered one:
// the ordered records must follow rank 0's shared one, in rank order, none
// overlapping another. Records are runs of one tag byte whose length the tag gives,
// so the file parses from its start.
func TestFileSharedThenOrdered(t *testing.T) {
	// At 2 ranks each rank may have a core of its own; at 4 on 2 cores they take turns.
	t.Run("2", func(t *testing.T) { ioJob(t, 2, sharedThenOrderedBody) })
	t.Run("4", func(t *testing.T) { ioJob(t, 4, sharedThenOrderedBody) })
}

func sharedThenOrderedBody(t *testing.T, dir string, rank, size int) {
	name := filepath.Join(dir, "so")
	f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
	must(t, err)
	const rounds = 60
	const sharedTag = 1
	length := func(tag byte) int { // 5 for the shared records, 3+2r for rank r's ordered ones
		if tag == sharedTag {
			return 5
		}
		return 3 + 2*int(tag-10)
	}
	for range rounds {
		if rank == 0 {
			_, err := mpi.FileWriteShared(f, bytes.Repeat([]byte{sharedTag}, length(sharedTag)))
			must(t, err)
		}
		tag := byte(10 + rank)
		_, err := mpi.FileWriteOrdered(f, bytes.Repeat([]byte{tag}, length(tag)))
		must(t, err)
	}
	must(t, f.Sync())
	must(t, mpi.World.Barrier())
	if rank == 0 {
		tags := recordTags(t, name, func(tag byte) int {
			if tag != sharedTag && (tag < 10 || int(tag) >= 10+size) {
				return 0
			}
			return length(tag)
		})
		var want []byte
		for range rounds {
			want = append(want, sharedTag)
			for r := range size {
				want = append(want, byte(10+r))
			}
		}
		if !bytes.Equal(tags, want) {
			t.Errorf("the records' tags are %v, want %v", tags, want)
		}
	}
	must(t, f.Close())
}

// TestFileOrderedThenShared: every rank writes a record through the shared pointer
// right after each ordered write, while the slower ranks may still be in the ordered
// call: each round's ordered records must come first, in rank order, then the
// round's shared records in some order, none overlapping another. On one node and
// over three pretend hosts (where the pointer's word is reached by messages).
func TestFileOrderedThenShared(t *testing.T) {
	t.Run("node", func(t *testing.T) { ioJob(t, 4, orderedThenSharedBody) })
	t.Run("node2", func(t *testing.T) { ioJob(t, 2, orderedThenSharedBody) })
	t.Run("hosts", func(t *testing.T) { ioJobWith(t, mpitest.Options{N: 5, Hosts: pretendHosts}, orderedThenSharedBody) })
}

func orderedThenSharedBody(t *testing.T, dir string, rank, size int) {
	name := filepath.Join(dir, "os")
	f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
	must(t, err)
	const rounds = 60
	// Rank r's ordered records are 3+2r bytes of tag 10+r, its shared ones 4 of tag 40+r.
	length := func(tag byte) int {
		if tag >= 40 {
			return 4
		}
		return 3 + 2*int(tag-10)
	}
	rec := func(tag byte) []byte { return bytes.Repeat([]byte{tag}, length(tag)) }
	for range rounds {
		_, err := mpi.FileWriteOrdered(f, rec(byte(10+rank)))
		must(t, err)
		_, err = mpi.FileWriteShared(f, rec(byte(40+rank)))
		must(t, err)
	}
	must(t, f.Sync())
	must(t, mpi.World.Barrier())
	if rank == 0 {
		tags := recordTags(t, name, func(tag byte) int {
			if (tag < 10 || int(tag) >= 10+size) && (tag < 40 || int(tag) >= 40+size) {
				return 0
			}
			return length(tag)
		})
		if len(tags) != 2*size*rounds {
			t.Fatalf("the file holds %d records, want %d", len(tags), 2*size*rounds)
		}
		for round := range rounds {
			got := tags[2*size*round : 2*size*(round+1)]
			shared := slices.Clone(got[size:])
			slices.Sort(shared)
			for r := range size {
				if got[r] != byte(10+r) || shared[r] != byte(40+r) {
					t.Fatalf("round %d's records are %v: want the ordered ones (10...) in rank order, then every rank's shared one (40...)", round, got)
				}
			}
		}
	}
	must(t, f.Close())
}

// recordTags parses file name as records, each a run of one tag byte whose length
// the tag gives (length: 0 for a byte that is no record's tag), and returns their
// tags in file order; a byte that starts no record, or a record cut or overwritten,
// fails t.
func recordTags(t *testing.T, name string, length func(tag byte) int) []byte {
	t.Helper()
	raw, err := os.ReadFile(name)
	must(t, err)
	var tags []byte
	for off := 0; off < len(raw); {
		tag := raw[off]
		n := length(tag)
		if n == 0 {
			t.Fatalf("byte %d is %d, no record's tag", off, tag)
		}
		if off+n > len(raw) || !bytes.Equal(raw[off:off+n], bytes.Repeat([]byte{tag}, n)) {
			t.Fatalf("the record of tag %d at byte %d is overwritten: % x", tag, off, raw[off:min(off+n, len(raw))])
		}
		tags = append(tags, tag)
		off += n
	}
	return tags
}

// TestFileManyOnOneComm opens and closes 200 files one after another on one
// communicator, each rank writing a record through each file's shared pointer, and
// then keeps 70 files open at once (more than a communicator's window has slots for
// pointers), a different number of records in each: every file's pointer starts at
// 0 and counts its own file's records only. Then the communicator is freed. Over
// each transport, and over three pretend hosts, where the ranks off rank 0's node
// ship their adds to its slots.
func TestFileManyOnOneComm(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr mpitest.Transport) {
		ioJobWith(t, mpitest.Options{N: 3, Transport: tr}, manyFilesBody)
	})
	t.Run("hosts", func(t *testing.T) {
		ioJobWith(t, mpitest.Options{N: 7, Hosts: pretendHosts}, manyFilesBody)
	})
}

func manyFilesBody(t *testing.T, dir string, rank, size int) {
	c, err := mpi.World.Dup()
	must(t, err)
	mode := mpi.ModeCreate | mpi.ModeRdwr | mpi.ModeDeleteOnClose
	open := func(i int) *mpi.File {
		f, err := mpi.FileOpen(c, filepath.Join(dir, "m"+strconv.Itoa(i)), mode, nil)
		must(t, err)
		return f
	}
	write := func(f *mpi.File, recs int) {
		for range recs {
			_, err := mpi.FileWriteShared(f, []int32{int32(rank)})
			must(t, err)
		}
	}
	check := func(f *mpi.File, i, recs int) {
		must(t, c.Barrier())
		if pos, err := f.PositionShared(); err != nil || pos != int64(4*size*recs) {
			t.Fatalf("file %d: PositionShared %d, %v after %d records of 4 bytes from each of %d ranks", i, pos, err, recs, size)
		}
	}
	for i := range 200 {
		f := open(i)
		write(f, 1)
		check(f, i, 1)
		must(t, f.Close())
	}
	files := make([]*mpi.File, 70)
	for i := range files {
		files[i] = open(i)
		write(files[i], i%3+1)
	}
	for i, f := range files {
		check(f, i, i%3+1)
	}
	for _, f := range files {
		must(t, f.Close())
	}
	must(t, c.Free())
}

// TestFileCommFreed frees communicators that had files: one with a file still open,
// whose shared pointer still works until the file is closed, and one whose files
// were closed; files on World and Self are left to Finalize's care of their
// pointers. Finalize is clean, and the job leaves no file in /dev/shm (its shared
// memory in /dev/shm files, so that one left shows).
func TestFileCommFreed(t *testing.T) {
	const dirVar = "MPIGO_TEST_DIR"
	dir := t.TempDir()
	if mpitest.IsRank(t) {
		dir = os.Getenv(dirVar)
	}
	mpitest.Job(t, mpitest.Options{N: 2, Settings: map[string]string{"shm_memory": "file"},
		Env: []string{dirVar + "=" + dir}}, func(t *testing.T) {
		must(t, mpi.Init())
		rank, size := mpi.World.Rank(), mpi.World.Size()
		if rank == 0 {
			must(t, os.WriteFile(filepath.Join(dir, "job"), []byte(os.Getenv("MPIGO_JOBID")), 0o644))
		}
		mode := mpi.ModeCreate | mpi.ModeRdwr | mpi.ModeDeleteOnClose
		for _, name := range []string{"world", "self" + strconv.Itoa(rank)} {
			c := mpi.World
			if name != "world" {
				c = mpi.Self
			}
			f, err := mpi.FileOpen(c, filepath.Join(dir, name), mode, nil)
			must(t, err)
			must(t, f.Close())
		}
		open, err := mpi.World.Dup()
		must(t, err)
		f, err := mpi.FileOpen(open, filepath.Join(dir, "open"), mode, nil)
		must(t, err)
		closed, err := mpi.World.Dup()
		must(t, err)
		g, err := mpi.FileOpen(closed, filepath.Join(dir, "closed"), mode, nil)
		must(t, err)
		must(t, g.Close())
		must(t, closed.Free())
		must(t, open.Free())
		for range 3 {
			_, err := mpi.FileWriteShared(f, []byte{byte(rank)})
			must(t, err)
		}
		must(t, mpi.World.Barrier())
		if pos, err := f.PositionShared(); err != nil || pos != int64(3*size) {
			t.Errorf("PositionShared %d, %v after its communicator was freed and %d bytes written; want %d", pos, err, 3*size, 3*size)
		}
		must(t, f.Close())
		must(t, mpi.Finalize())
	})
	if mpitest.IsRank(t) {
		return
	}
	job, _ := os.ReadFile(filepath.Join(dir, "job"))
	if len(job) == 0 {
		t.Fatal("the ranks did not record the job's id")
	}
	if left, _ := filepath.Glob("/dev/shm/*" + string(job) + "*"); len(left) > 0 {
		t.Errorf("files left in /dev/shm: %v", left)
	}
}

// TestFileOrderedMixed writes rounds of ordered records of mixed lengths, 0 bytes
// among them, on 1, 2 and 3 ranks: short ones in a contiguous view (which rank 0
// writes in one call for every rank), one rank's longer than that takes, a round in
// atomic mode, a nonblocking one, and a view whose displacement leaves a hole. Each
// rank's status counts its own record, the shared pointer ends past every round's,
// and the file is byte for byte the one rank 0 writes with plain Go file calls at the
// offsets the records' order gives.
func TestFileOrderedMixed(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		t.Run(strconv.Itoa(n), func(t *testing.T) { ioJob(t, n, orderedMixedBody) })
	}
}

func orderedMixedBody(t *testing.T, dir string, rank, size int) {
	// Rank r's record of round k: length(k, r) bytes, a pattern of both.
	length := func(k, r int) int {
		switch k {
		case 0:
			return 7 * r // rank 0's is empty
		case 1:
			return 0 // everyone's
		case 2:
			if r == size-1 {
				return 70000 // longer than a joined write takes
			}
			return 3 + r
		case 3:
			return 4096 - r // atomic mode
		case 4:
			return 5*r + 2 // nonblocking
		}
		return 9 - r // the view with a displacement
	}
	const rounds, viewRound, hole = 6, 5, 3
	record := func(k, r int) []byte {
		b := make([]byte, length(k, r))
		for i := range b {
			b[i] = byte(31*k + 7*r + i + 1)
		}
		return b
	}
	name := filepath.Join(dir, "mixed")
	f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
	must(t, err)
	var pos int64 // the shared pointer, in bytes of the current view
	for k := range rounds {
		switch k {
		case 3:
			must(t, f.SetAtomicity(true))
		case 4:
			must(t, f.SetAtomicity(false))
		case viewRound:
			must(t, f.SetView(pos+hole, mpi.Byte, mpi.Byte, "native", nil))
			pos = 0
		}
		var st mpi.Status
		if k == 4 {
			q, err := mpi.FileIwriteOrdered(f, record(k, rank))
			must(t, err)
			st, err = q.Wait()
			must(t, err)
		} else {
			st, err = mpi.FileWriteOrdered(f, record(k, rank))
			must(t, err)
		}
		if got := st.Bytes(); got != int64(length(k, rank)) {
			t.Errorf("round %d: the status counts %d bytes, want %d", k, got, length(k, rank))
		}
		for r := range size {
			pos += int64(length(k, r))
		}
		if got, err := f.PositionShared(); err != nil || got != pos {
			t.Errorf("round %d: PositionShared %d, %v; want %d", k, got, err, pos)
		}
	}
	must(t, f.Sync())
	must(t, mpi.World.Barrier())
	if rank == 0 {
		ref, err := os.Create(filepath.Join(dir, "reference"))
		must(t, err)
		var off int64
		for k := range rounds {
			if k == viewRound {
				off += hole
			}
			for r := range size {
				_, err := ref.WriteAt(record(k, r), off)
				must(t, err)
				off += int64(length(k, r))
			}
		}
		must(t, ref.Close())
		want, err := os.ReadFile(ref.Name())
		must(t, err)
		must(t, os.Remove(ref.Name()))
		got, err := os.ReadFile(name)
		must(t, err)
		if !bytes.Equal(got, want) {
			at := 0
			for at < min(len(got), len(want)) && got[at] == want[at] {
				at++
			}
			t.Errorf("the file (%d bytes) differs from the reference (%d bytes) first at byte %d", len(got), len(want), at)
		}
	}
	must(t, mpi.World.Barrier())
	must(t, f.Close())
}

// TestFileOrderedBoard runs many ordered writes in a row on 1 to 4 ranks over each
// transport, the way a joined write goes through the file's board in node shared
// memory (on one node; over TCP too, since the board is node memory whatever the
// transport): records of every length up to and past the longest the board takes
// (which then go the general way), zero-length ones, rounds where no rank writes,
// blocking and nonblocking calls, a rank writing int32s while the others write bytes,
// an independent write through the shared pointer
// by one rank between rounds, and a round where one rank's argument is bad, which
// fails on every rank and moves nothing. Rank 0 then compares the file byte for
// byte with the rounds' records in rank order. Last, member 0's write fails
// (/dev/full): every rank's call fails with MPI_ERR_NO_SPACE.
func TestFileOrderedBoard(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr mpitest.Transport) {
		for n := 1; n <= 4; n++ {
			t.Run(strconv.Itoa(n), func(t *testing.T) {
				ioJobWith(t, mpitest.Options{N: n, Transport: tr}, boardBody)
			})
		}
	})
}

// boardLen is rank r's record length in round i of boardBody.
func boardLen(i, r int) int {
	switch {
	case i%9 == 4:
		return 0 // nobody writes
	case i == 7 && r == 0, i == 11 && r == 1:
		return 70 << 10 // longer than the board takes
	case i%5 == 3:
		return 4 << 10
	}
	return (i*37 + r*13) % 211
}

// boardRec is rank r's record in round i.
func boardRec(i, r int) []byte {
	b := make([]byte, boardLen(i, r))
	for j := range b {
		b[j] = byte(i*7 + r*31 + j)
	}
	return b
}

func boardBody(t *testing.T, dir string, rank, size int) {
	name := filepath.Join(dir, "board")
	f, err := mpi.FileOpen(mpi.World, name, mpi.ModeCreate|mpi.ModeRdwr|mpi.ModeDeleteOnClose, nil)
	must(t, err)
	// In a view of int32s: a good round, a round where the last rank's record is no
	// whole number of etypes, a good round.
	must(t, f.SetView(0, mpi.Int32, mpi.Int32, "native", nil))
	for k, n := range []int{8, 6, 4} {
		if n == 6 && rank != size-1 {
			n = 8
		}
		_, err := mpi.FileWriteOrdered(f, bytes.Repeat([]byte{byte('A' + k)}, n))
		if k == 1 {
			wantClass(t, "FileWriteOrdered with one rank's partial etype", err, mpi.ErrType)
			continue
		}
		must(t, err)
	}
	head := int64(12 * size)
	if pos, err := f.PositionShared(); err != nil || pos != head/4 {
		t.Fatalf("PositionShared %d, %v after the int32 rounds; want %d", pos, err, head/4)
	}
	must(t, f.SetView(head, mpi.Byte, mpi.Byte, "native", nil))
	var want []byte
	for range size {
		want = append(want, bytes.Repeat([]byte{'A'}, 8)...)
	}
	for range size {
		want = append(want, bytes.Repeat([]byte{'C'}, 4)...)
	}
	var pos int64 // the shared pointer, in the byte view
	const rounds = 40
	for i := range rounds {
		// Between rounds, one rank writes through the shared pointer on its own.
		if w := i % (size + 1); w < size && i%3 == 0 {
			if rank == w {
				if got, err := f.PositionShared(); err != nil || got != pos {
					t.Fatalf("round %d: PositionShared %d, %v; want %d", i, got, err, pos)
				}
				_, err := mpi.FileWriteShared(f, []byte{'s', byte(i), 's'})
				must(t, err)
			}
			want = append(want, 's', byte(i), 's')
			pos += 3
		}
		rec := boardRec(i, rank)
		var st mpi.Status
		if i%7 == 3 && rank == size/2 && len(rec)%4 == 0 {
			// int32s, not bytes: this rank's call goes the joined way while the
			// others' go the short one (orderedShort)
			ints := make([]int32, len(rec)/4)
			for j := range ints {
				ints[j] = int32(binary.LittleEndian.Uint32(rec[4*j:]))
			}
			st, err = mpi.FileWriteOrdered(f, ints)
			must(t, err)
		} else if i%4 == 1 {
			q, err := mpi.FileIwriteOrdered(f, rec)
			must(t, err)
			st, err = q.Wait()
			must(t, err)
		} else {
			st, err = mpi.FileWriteOrdered(f, rec)
			must(t, err)
		}
		if st.Bytes() != int64(len(rec)) {
			t.Errorf("round %d: the status says %d bytes, want %d", i, st.Bytes(), len(rec))
		}
		for r := range size {
			want = append(want, boardRec(i, r)...)
			pos += int64(boardLen(i, r))
		}
	}
	must(t, mpi.World.Barrier()) // every rank's last write_shared is in
	if got, err := f.PositionShared(); err != nil || got != pos {
		t.Errorf("PositionShared %d, %v after the rounds; want %d", got, err, pos)
	}
	must(t, f.Sync())
	must(t, mpi.World.Barrier())
	if rank == 0 {
		raw, err := os.ReadFile(name)
		must(t, err)
		if !bytes.Equal(raw, want) {
			i := 0
			for i < min(len(raw), len(want)) && raw[i] == want[i] {
				i++
			}
			t.Errorf("the file has %d bytes, want %d; they differ first at byte %d", len(raw), len(want), i)
		}
	}
	must(t, mpi.World.Barrier())
	must(t, f.Close())

	// Member 0's write fails: every rank's call fails with its class.
	if _, err := os.Stat("/dev/full"); err != nil {
		return
	}
	full, err := mpi.FileOpen(mpi.World, "/dev/full", mpi.ModeWronly, nil)
	must(t, err)
	for k := range 3 {
		_, err := mpi.FileWriteOrdered(full, []byte("12345678"))
		wantClass(t, "FileWriteOrdered to /dev/full "+strconv.Itoa(k), err, mpi.ErrNoSpace)
	}
	must(t, full.Close())
}
