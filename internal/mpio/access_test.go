package mpio

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mpigo/mpigo/internal/datatype"
)

func openTemp(t testing.TB) *File {
	t.Helper()
	f, err := Open(filepath.Join(t.TempDir(), "f"), Rdwr|Create, true, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// tunings are the ways an access may move its data.
var tunings = map[string]Tuning{
	"plain":  {ReadBuf: 64, WriteBuf: 64},
	"sieved": {SieveRead: SieveAll, SieveWrite: SieveAll, ReadBuf: 64, WriteBuf: 64},
	"near":   {SieveRead: SieveNear, SieveWrite: SieveNear, ReadBuf: 64, WriteBuf: 64},
	"atomic": {SieveRead: SieveAll, ReadBuf: 1 << 20, WriteBuf: 1 << 20, Atomic: true},
	"big":    {SieveRead: SieveAll, SieveWrite: SieveAll, ReadBuf: 1 << 20, WriteBuf: 1 << 20},
}

// mems are the memory sides of an access of n bytes: contiguous, and a layout of a
// strided type over a larger buffer; each with the bytes it streams, and a fresh copy
// to read into.
func mems(t *testing.T, n int64) map[string]func(stream []byte) (Mem, func() []byte) {
	t.Helper()
	vec, err := datatype.Vector(n/4, 1, 3, datatype.Int32)
	vec = committed(t, vec, err)
	return map[string]func([]byte) (Mem, func() []byte){
		"bytes": func(stream []byte) (Mem, func() []byte) {
			b := bytes.Clone(stream)
			return Bytes(b), func() []byte { return b }
		},
		"layout": func(stream []byte) (Mem, func() []byte) {
			buf := make([]byte, 12*(n/4))
			for i := range n / 4 {
				copy(buf[12*i:12*i+4], stream[4*i:])
			}
			l := new(datatype.Layout)
			if err := l.Init(vec, buf, 1, 0); err != nil {
				t.Fatal(err)
			}
			return Packed(l), func() []byte {
				out := make([]byte, n)
				for i := range n / 4 {
					copy(out[4*i:4*i+4], buf[12*i:])
				}
				return out
			}
		},
	}
}

// testStream is n bytes of a pattern that tells their positions apart.
func testStream(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*13 + 5)
	}
	return b
}

// TestReadWrite writes views' streams, checks the file's bytes against the view's
// mapping, reads them back, and reads past the end of the file.
func TestReadWrite(t *testing.T) {
	const n = 400
	stream := testStream(n)
	for vi, v := range testViews(t) {
		ref := refOffsets(t, v.Disp(), v.Filetype(), 2*n)
		for tn, tun := range tunings {
			for mn, mk := range mems(t, n) {
				f := openTemp(t)
				pos := v.EtypeSize() * 3
				m, _ := mk(stream)
				got, err := Write(f, v, pos, m, &tun)
				if err != nil || got != n {
					t.Fatalf("view %d %s %s: Write: %d, %v", vi, tn, mn, got, err)
				}
				raw, err := os.ReadFile(f.Path())
				if err != nil {
					t.Fatal(err)
				}
				for i := range int64(n) {
					if o := ref[pos+i]; raw[o] != stream[i] {
						t.Fatalf("view %d %s %s: stream byte %d at file byte %d is %d, want %d", vi, tn, mn, i, o, raw[o], stream[i])
					}
				}
				m, back := mk(make([]byte, n))
				got, err = Read(f, v, pos, m, &tun)
				if err != nil || got != n || !bytes.Equal(back(), stream) {
					t.Fatalf("view %d %s %s: Read: %d, %v, equal %v", vi, tn, mn, got, err, bytes.Equal(back(), stream))
				}
				// Past the end: the stream up to the first run the file does not hold.
				size := int64(len(raw))
				m, _ = mk(make([]byte, n))
				from := pos + n/2
				got, err = Read(f, v, from, m, &tun)
				want := int64(0)
				for want < n && ref[from+want] < size {
					want++
				}
				if err != nil || got != want {
					t.Fatalf("view %d %s %s: Read past the end: %d, %v; want %d", vi, tn, mn, got, err, want)
				}
			}
		}
	}
}

// TestSieveKeepsHoles checks that a sieved write leaves the bytes between its runs as
// they were.
func TestSieveKeepsHoles(t *testing.T) {
	f := openTemp(t)
	old := bytes.Repeat([]byte{0xAA}, 256)
	if _, err := f.WriteAt(old, 0); err != nil {
		t.Fatal(err)
	}
	vec, err := datatype.Vector(16, 4, 16, datatype.Byte)
	vec = committed(t, vec, err)
	v, err := NewView(0, datatype.Byte, vec)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte{1}, 64)
	if _, err := Write(f, v, 0, Bytes(data), &Tuning{SieveWrite: SieveAll, WriteBuf: 1 << 10}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(f.Path())
	for i, b := range raw {
		want := byte(0xAA)
		if i%16 < 4 {
			want = 1
		}
		if b != want {
			t.Fatalf("byte %d is %#x, want %#x", i, b, want)
		}
	}
}

// TestSieveBatches checks which runs a sieved read takes as one span: SieveAll every
// run a buffer holds, SieveNear only short runs with short holes between them, and
// none with SieveOff (each run alone).
func TestSieveBatches(t *testing.T) {
	type run struct{ len, gap int64 } // a run of len bytes, then a hole of gap
	cases := []struct {
		name  string
		runs  []run
		sieve Sieve
		want  []int // the runs per span
	}{
		{"small runs, small holes, near", []run{{64, 64}, {64, 64}, {64, 64}, {64, 64}}, SieveNear, []int{4}},
		{"4 KiB runs, 4 KiB holes, near", []run{{4096, 4096}, {4096, 4096}, {4096, 4096}}, SieveNear, []int{1, 1, 1}},
		{"4 KiB runs, 4 KiB holes, all", []run{{4096, 4096}, {4096, 4096}, {4096, 4096}}, SieveAll, []int{3}},
		{"a large hole splits, near", []run{{64, 64}, {64, 8192}, {64, 64}, {64, 64}}, SieveNear, []int{2, 2}},
		{"a long run alone, near", []run{{64, 64}, {4096, 64}, {64, 64}, {64, 64}}, SieveNear, []int{1, 1, 2}},
	}
	for _, c := range cases {
		var lens, displs []int64
		at, total := int64(0), int64(0)
		for _, r := range c.runs {
			lens, displs = append(lens, r.len), append(displs, at)
			at += r.len + r.gap
			total += r.len
		}
		ft, err := datatype.Hindexed(lens, displs, datatype.Byte)
		ft = committed(t, ft, err)
		v, err := NewView(0, datatype.Byte, ft)
		if err != nil {
			t.Fatal(err)
		}
		x := mover{bufSize: 1 << 20, sieve: c.sieve}
		cur := v.Cursor(0, total)
		var got []int
		var pending Run
		var runs []Run
		for {
			if runs, _ = x.batch(&cur, &pending, runs); len(runs) == 0 {
				break
			}
			got = append(got, len(runs))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: runs per span %v, want %v", c.name, got, c.want)
		}
	}
}
