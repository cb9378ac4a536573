package mpio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/datatype"
	"golang.org/x/sys/unix"
)

// openShm opens a new file in a directory of /dev/shm, skipping the test where that
// is not a file system in memory.
func openShm(t *testing.T, name string) *File {
	t.Helper()
	var fs unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &fs); err != nil || fs.Type != unix.TMPFS_MAGIC {
		t.Skip("/dev/shm is not tmpfs here")
	}
	dir, err := os.MkdirTemp("/dev/shm", "mpigo-mpio-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	f, err := Open(filepath.Join(dir, name), Rdwr|Create, true, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if !f.CanMap() {
		t.Fatalf("a file in /dev/shm opened for reading and writing cannot be mapped")
	}
	return f
}

// TestWriteMapped writes views' streams by WriteMapped into files that already hold
// part of what the view spans, and by Write into files with the same bytes: the files
// are equal byte for byte (the runs before the old end copied, those past it
// written, the file grown as Write grows it, the holes' old bytes kept), and only the
// bytes before the old end were copied.
func TestWriteMapped(t *testing.T) {
	const n = 400
	stream := testStream(n)
	for vi, v := range testViews(t) {
		ref := refOffsets(t, v.Disp(), v.Filetype(), n)
		for _, oldLen := range []int64{0, 1, ref[n/2], ref[n-1] + 1, ref[n-1] + 100} {
			for mn, mk := range mems(t, n) {
				old := bytes.Repeat([]byte{0xEE}, int(oldLen))
				mapped, plain := openShm(t, "mapped"), openTemp(t)
				var wantCopied int64
				for _, o := range ref {
					if o < oldLen {
						wantCopied++
					}
				}
				for _, f := range []*File{mapped, plain} {
					if _, err := f.WriteAt(old, 0); err != nil {
						t.Fatal(err)
					}
				}
				m, _ := mk(stream)
				got, err := WriteMapped(mapped, v, 0, m)
				if err != nil || got != n {
					t.Fatalf("view %d, %d old bytes, %s: WriteMapped: %d, %v", vi, oldLen, mn, got, err)
				}
				m, _ = mk(stream)
				if _, err := Write(plain, v, 0, m, &Tuning{WriteBuf: 64}); err != nil {
					t.Fatal(err)
				}
				a, _ := os.ReadFile(mapped.Path())
				b, _ := os.ReadFile(plain.Path())
				if !bytes.Equal(a, b) {
					t.Fatalf("view %d, %d old bytes, %s: the files differ (%d and %d bytes)", vi, oldLen, mn, len(a), len(b))
				}
				if c := mapped.Copied(); c != wantCopied {
					t.Errorf("view %d, %d old bytes, %s: copied %d bytes, want %d", vi, oldLen, mn, c, wantCopied)
				}
			}
		}
	}
}

// TestWriteMappedFault cuts a mapped file short behind the mapping's back: a write
// that still takes the old size faults in its copy and writes through pwrite
// instead, with the same result, and no bytes counted as copied.
func TestWriteMappedFault(t *testing.T) {
	const n = 1 << 20
	f := openShm(t, "cut")
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i*7 + i>>12)
	}
	v, err := NewView(0, datatype.Byte, datatype.Byte)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, n), 0); err != nil {
		t.Fatal(err)
	}
	if got, err := WriteMapped(f, v, 0, Bytes(data)); err != nil || got != n || f.Copied() != n {
		t.Fatalf("WriteMapped: %d, %v, copied %d; want %d copied", got, err, f.Copied(), n)
	}
	if err := f.Truncate(0); err != nil {
		t.Fatal(err)
	}
	data[0], data[n-1] = 0x11, 0x22
	if got, err := writeMapped(f, v, 0, Bytes(data), n); err != nil || got != n {
		t.Fatalf("writeMapped of a file cut short: %d, %v", got, err)
	}
	if f.Copied() != n {
		t.Errorf("copied %d bytes in all, want %d: the faulted write counted copies", f.Copied(), n)
	}
	if raw, _ := os.ReadFile(f.Path()); !bytes.Equal(raw, data) {
		t.Errorf("the file differs from what was written (%d bytes)", len(raw))
	}
}

// TestWriteMappedGrows writes into a file that grows past the mapping's length: the
// mapping grows with it, and a write that passes the end copies what lies before it;
// the copies set the file's modification time.
func TestWriteMappedGrows(t *testing.T) {
	f := openShm(t, "grows")
	v, err := NewView(0, datatype.Byte, datatype.Byte)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{1}, 0); err != nil {
		t.Fatal(err)
	}
	long := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(f.Path(), long, long); err != nil {
		t.Fatal(err)
	}
	block := bytes.Repeat([]byte{0xAB}, 4096)
	if _, err := WriteMapped(f, v, 0, Bytes(block)); err != nil || f.Copied() != 1 {
		t.Fatalf("WriteMapped over a 1-byte file: %v, copied %d, want 1", err, f.Copied())
	}
	if st, err := os.Stat(f.Path()); err != nil || !st.ModTime().After(long) {
		t.Errorf("the copies left the modification time at %v", st.ModTime())
	}
	far := int64(mapGrain + 8192)
	if err := f.Truncate(far + 4096); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteMapped(f, v, far, Bytes(block)); err != nil || f.Copied() != 1+4096 {
		t.Fatalf("WriteMapped past the first mapping's length: %v, copied %d, want %d", err, f.Copied(), 1+4096)
	}
	got := make([]byte, 4096)
	if _, err := f.ReadAt(got, far); err != nil || !bytes.Equal(got, block) {
		t.Errorf("read back past the first mapping's length: %v, equal %v", err, bytes.Equal(got, block))
	}
}

// TestWritePartsMapped writes records back to back by WritePartsMapped into a file
// in memory and by WriteParts into a file on the test's directory, step by step:
// the files are equal byte for byte after each step, and exactly the steps whose
// bytes lie inside the file as it is copy them (a file growing, a rewrite, a write
// across the end, within the page past the end after Truncate shortened the file
// below the size learnt before, where a copy would not fault; after another open of
// the file cut it short, where the copy faults).
func TestWritePartsMapped(t *testing.T) {
	mapped, plain := openShm(t, "parts"), openTemp(t)
	recs := func(seed, n int) [][]byte {
		parts := make([][]byte, n)
		for i := range parts {
			parts[i] = make([]byte, 1000+i*333)
			for j := range parts[i] {
				parts[i][j] = byte(seed*13 + i*7 + j)
			}
		}
		return parts
	}
	steps := []struct {
		what   string
		before func()
		off    int64
		parts  [][]byte
		copied bool
	}{
		{what: "growing the file", off: 0, parts: recs(1, 5)},
		{what: "growing it again", off: 6330, parts: recs(2, 3)},
		{what: "inside it", off: 100, parts: recs(3, 4), copied: true},
		{what: "an empty part inside it", off: 5000, parts: [][]byte{{}, {1, 2, 3}, {}}, copied: true},
		{what: "across its end", off: 8000, parts: recs(4, 2)},
		{what: "after Truncate shortened it", off: 3400, parts: [][]byte{recs(5, 1)[0][:100], recs(5, 1)[0][:200]}, before: func() {
			for _, f := range []*File{mapped, plain} {
				if err := f.Truncate(3500); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{what: "after another open cut it short", off: 8192, parts: recs(6, 2), before: func() {
			grow := [][]byte{make([]byte, 16384)}
			if _, err := mapped.WritePartsMapped(grow, 0); err != nil {
				t.Fatal(err)
			}
			if _, err := plain.WriteParts(grow, 0); err != nil {
				t.Fatal(err)
			}
			for _, f := range []*File{mapped, plain} {
				if err := os.Truncate(f.Path(), 4096); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	var copied int64
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		var total int64
		for _, p := range s.parts {
			total += int64(len(p))
		}
		if got, err := mapped.WritePartsMapped(s.parts, s.off); err != nil || got != total {
			t.Fatalf("%s: WritePartsMapped wrote %d, %v; want %d", s.what, got, err, total)
		}
		if _, err := plain.WriteParts(s.parts, s.off); err != nil {
			t.Fatal(err)
		}
		if s.copied {
			copied += total
		}
		if c := mapped.Copied(); c != copied {
			t.Errorf("%s: %d bytes copied in all, want %d", s.what, c, copied)
		}
		a, _ := os.ReadFile(mapped.Path())
		b, _ := os.ReadFile(plain.Path())
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: the files differ (%d and %d bytes)", s.what, len(a), len(b))
		}
	}
}

// TestWritePartsMappedTime: copies set the file's modification time by the next
// Sync at the latest, however soon after each other they come.
func TestWritePartsMappedTime(t *testing.T) {
	f := openShm(t, "time")
	block := bytes.Repeat([]byte{0xCD}, 8192)
	if _, err := f.WriteAt(block, 0); err != nil {
		t.Fatal(err)
	}
	long := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		if err := os.Chtimes(f.Path(), long, long); err != nil {
			t.Fatal(err)
		}
		if _, err := f.WritePartsMapped([][]byte{block[:100], block[:200]}, int64(i*300)); err != nil {
			t.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(f.Path()); err != nil || !st.ModTime().After(long) {
			t.Errorf("copy %d: the modification time is %v after the sync", i, st.ModTime())
		}
	}
	if f.Copied() != 900 {
		t.Errorf("copied %d bytes, want 900", f.Copied())
	}
}
