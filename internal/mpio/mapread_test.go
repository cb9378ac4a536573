package mpio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mpigo/mpigo/internal/datatype"
	"golang.org/x/sys/unix"
)

// TestReadMapped: large reads of a cached file, in the test's temporary directory and
// in /dev/shm, come from the file's mapping and read what pread reads: whole, across
// the end, at and past it, after the file grew and after another descriptor cut it
// short; of pages dropped from the cache they are preads.
func TestReadMapped(t *testing.T) {
	for _, dir := range []string{"", "/dev/shm"} {
		if dir != "" {
			if _, err := os.Stat(dir); err != nil {
				t.Log(dir, err)
				continue
			}
		}
		d, err := os.MkdirTemp(dir, "mpigo-mpio-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(d)
		readMappedIn(t, filepath.Join(d, "x"))
	}
}

func readMappedIn(t *testing.T, name string) {
	f, err := Open(name, Rdwr|Create, true, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !f.Local() {
		t.Logf("%s: not a local file system, reads are preads", name)
	}
	want := make([]byte, 3*mapReadMin+12345)
	for i := range want {
		want[i] = byte(i*7 + i>>12)
	}
	if n, err := f.WriteAt(want, 0); n != len(want) || err != nil {
		t.Fatalf("WriteAt: %d, %v", n, err)
	}
	// A host may page out cached pages at any time (DAMON's pageout scheme on the
	// test machines takes whole physical regions it sampled as cold), and a read of
	// a range not all cached is a pread by design: so a read expected from the
	// mapping is tried three times (each pread caches the range again).
	read := func(what string, off int64, n, wantN int, mapped bool) {
		t.Helper()
		for try := 1; ; try++ {
			got := make([]byte, n)
			before := f.m.read.Load()
			k, err := f.ReadAt(got, off)
			if k != wantN || err != nil {
				t.Fatalf("%s: ReadAt of %d at %d: %d, %v; want %d", what, n, off, k, err, wantN)
			}
			if k > 0 && !bytes.Equal(got[:k], want[off:off+int64(k)]) {
				t.Fatalf("%s: the bytes read differ from the file's", what)
			}
			took := f.m.read.Load() > before
			if !f.Local() || took == mapped {
				return
			}
			if !mapped || try == 3 {
				t.Errorf("%s: from the mapping %v, want %v (try %d)", what, took, mapped, try)
				return
			}
		}
	}
	read("whole", 0, len(want), len(want), true)
	read("inside", 77, 2*mapReadMin, 2*mapReadMin, true)
	read("across the end", int64(len(want)-mapReadMin+5), 2*mapReadMin, mapReadMin-5, true)
	read("short", 5, mapReadMin-1, mapReadMin-1, false)
	read("at the end", int64(len(want)), mapReadMin, 0, false)
	read("past the end", int64(len(want))+4096, mapReadMin, 0, false)

	more := bytes.Repeat([]byte{0xa5}, 5*mapReadMin)
	if n, err := f.WriteAt(more, int64(len(want))); n != len(more) || err != nil {
		t.Fatalf("WriteAt: %d, %v", n, err)
	}
	want = append(want, more...)
	read("grown", int64(len(want)-4*mapReadMin), 4*mapReadMin, 4*mapReadMin, true)

	if err := os.Truncate(name, int64(2*mapReadMin)); err != nil {
		t.Fatal(err)
	}
	want = want[:2*mapReadMin]
	read("cut short", mapReadMin, 2*mapReadMin, mapReadMin, true)

	if !f.InMemory() && f.Local() {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		if err := unix.Fadvise(f.Fd(), 0, 0, unix.FADV_DONTNEED); err != nil {
			t.Fatal(err)
		}
		if cachedPages(t, f.Fd(), len(want)) == 0 {
			read("not cached", 0, len(want), len(want), false)
		}
	}
}

// TestReadMappedRuns: a read through a strided view (4 KiB of every 8 KiB) of a
// cached file copies its runs from the mapping and reads the view's bytes, at the
// view's start and from a position inside it; a read that passes the end of the
// file (reading what is there), or of fewer than mapReadMin bytes, is the sieve's.
func TestReadMappedRuns(t *testing.T) {
	f := openTemp(t)
	data := make([]byte, 6*mapReadMin+4096)
	for i := range data {
		data[i] = byte(i*13 + i>>13)
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	vec, err := datatype.Vector(1, 4096, 8192, datatype.Byte)
	blk := committed(t, vec, err)
	ft, err := datatype.Resized(blk, 0, 8192)
	ft = committed(t, ft, err)
	v, err := NewView(100, datatype.Byte, ft)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what   string
		pos, n int64
		mapped bool
	}{
		{"from the start", 0, 2 * mapReadMin, true},
		{"from inside a run", 1000, 2*mapReadMin + 5, true},
		{"short", 0, mapReadMin - 1, false},
		{"past the end", 2 * mapReadMin, 2 * mapReadMin, false},
	} {
		var want []byte // the view's bytes, as far as the file goes
		for q := c.pos; q < c.pos+c.n; q++ {
			at := 100 + q/4096*8192 + q%4096
			if at >= int64(len(data)) {
				break
			}
			want = append(want, data[at])
		}
		got := make([]byte, c.n)
		before := f.m.read.Load()
		n, err := Read(f, v, c.pos, Bytes(got), &Tuning{SieveRead: SieveAll, ReadBuf: 1 << 20})
		if err != nil || n != int64(len(want)) || !bytes.Equal(got[:n], want) {
			t.Errorf("%s: read %d bytes (%v), want %d, equal %v", c.what, n, err, len(want), bytes.Equal(got[:n], want[:min(n, int64(len(want)))]))
		}
		if took := f.m.read.Load() > before; f.Local() && took != c.mapped {
			t.Errorf("%s: from the mapping %v, want %v", c.what, took, c.mapped)
		}
	}
}

// TestCopyGuarded: a copy from a mapping past the end of its file faults, and is
// reported, not a crash.
func TestCopyGuarded(t *testing.T) {
	name := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(name, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(name, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	m, err := unix.Mmap(fd, 0, 4*4096, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	dst := make([]byte, len(m))
	if !copyGuarded(dst[:4096], m[:4096]) {
		t.Error("a copy inside the file faulted")
	}
	if copyGuarded(dst, m) {
		t.Error("a copy past the end of the file did not fault")
	}
}

// BenchmarkReadAt: a cached 16 MiB range read by ReadAt (from the mapping) and by
// pread (ReadAt's loop), for docs/BENCHMARKS.md.
func BenchmarkReadAt(b *testing.B) {
	f := openTemp(b)
	p := make([]byte, 16<<20)
	if _, err := f.WriteAt(p, 0); err != nil {
		b.Fatal(err)
	}
	b.Run("mapped", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			if n, err := f.ReadAt(p, 0); n != len(p) || err != nil {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("pread", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			if n, err := f.readFrom(p, 0, 0); n != len(p) || err != nil {
				b.Fatal(n, err)
			}
		}
	})
}
