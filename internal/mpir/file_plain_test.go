package mpir

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpio"
)

// TestPlainIsPlainAt: the rule Plain gives code outside Go (the C library's short
// way) takes exactly the accesses plainAt takes, at the same file offsets, over views
// of bytes and of ints at displacements up to the largest, and says none for a view
// that is not contiguous, atomic mode or a closed file.
func TestPlainIsPlainAt(t *testing.T) {
	os, err := mpio.Open(filepath.Join(t.TempDir(), "f"), mpio.Rdwr|mpio.Create, true, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Close()
	vec, err := datatype.Vector(2, 1, 2, datatype.Int32)
	if err == nil {
		err = vec.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name         string
		disp         int64
		etype, ftype *datatype.Type
		amode        mpio.Amode
		atomic       bool
		plain        bool // Plain says ok
	}{
		{"bytes", 0, datatype.Byte, datatype.Byte, mpio.Rdwr, false, true},
		{"ints at 12, read only", 12, datatype.Int32, datatype.Int32, mpio.Rdonly, false, true},
		{"bytes near the end, write only", math.MaxInt64 - 1000, datatype.Byte, datatype.Byte, mpio.Wronly, false, true},
		{"ints near the end", math.MaxInt64 - 1001, datatype.Int32, datatype.Int32, mpio.Rdwr, false, true},
		{"a vector", 0, datatype.Int32, vec, mpio.Rdwr, false, false},
		{"atomic", 0, datatype.Byte, datatype.Byte, mpio.Rdwr, true, false},
		{"sequential", 0, datatype.Byte, datatype.Byte, mpio.Wronly | mpio.Sequential, false, false},
	} {
		v, err := mpio.NewView(c.disp, c.etype, c.ftype)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		f := &File{os: os, amode: c.amode, view: v, atomic: c.atomic, datarep: RepNative}
		f.plain = v.Contiguous() && !f.atomic // settle's rule, which reads hints too
		f.settleQuick()
		p, ok := f.Plain()
		if ok != c.plain {
			t.Fatalf("%s: Plain ok %v, want %v", c.name, ok, c.plain)
		}
		for i := range 4000 {
			write := i%2 == 0
			var offset, n int64
			switch i % 4 {
			case 0, 1:
				offset, n = rng.Int64N(1<<20)-10, rng.Int64N(100)
			case 2:
				end := max(p.End, 0) / max(p.Etype, 1)
				offset, n = end-rng.Int64N(40), rng.Int64N(200)
			default:
				offset, n = math.MaxInt64/4-rng.Int64N(3), rng.Int64N(10)
			}
			off, q := f.plainAt(write, offset, make([]byte, n))
			took := q != nil
			rule := ok && (write && p.Write || !write && p.Read) && n%p.Etype == 0 && offset >= 0 &&
				offset <= math.MaxInt64/p.Etype && offset*p.Etype <= p.End-n
			if took != rule || took && off != p.Disp+offset*p.Etype {
				t.Fatalf("%s: write %v of %d bytes at %d: plainAt %v at %d, Plain's rule %v at %d",
					c.name, write, n, offset, took, off, rule, p.Disp+offset*p.Etype)
			}
		}
	}
	f := &File{os: os, amode: mpio.Rdwr, datarep: RepNative, plain: true}
	f.view, _ = mpio.NewView(0, datatype.Byte, datatype.Byte)
	f.settleQuick()
	f.closed.Store(true)
	if _, ok := f.Plain(); ok {
		t.Errorf("a closed file: Plain ok")
	}
}
