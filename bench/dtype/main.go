// Command dtype measures the datatype engine on one rank, as
// shared/anchors/dtype.c does for Open MPI and MPICH: the same two types, the
// same timing (median of individually timed calls after warm-ups), the same
// verification and the same "RESULT dtype <key> <value> <unit>" lines, plus
// hand-written Go loops of the same shapes as baselines.
//
// usage: dtype [scale]   (scale also from ANCHOR_SCALE; it scales repetitions)
package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"unsafe" // also for go:linkname

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/internal/datatype"
)

const (
	vcount = 1000000
	nblk   = 100000
	warm   = 3
	reps   = 31
)

var sink float64

// alloc returns n float64s, touched before timing as xalloc does.
func alloc(n int) []float64 {
	f := make([]float64, max(n, 8))
	b := asBytes(f)
	for i := range b {
		b[i] = 0x5a
	}
	return f[:n]
}

func asBytes(f []float64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), len(f)*8)
}

// nanotime is the monotonic clock in nanoseconds: one vDSO clock_gettime, as
// dtype.c's now() reads it. time.Now also reads the wall clock, which costs more a
// call (docs/BENCHMARKS.md, the C ABI: bench/dtype's clock) and would weigh on the
// sub-microsecond keys (create, commit) of the Go program only.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

func since(t int64) float64 { return float64(nanotime()-t) * 1e-9 }

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "dtype: "+format+"\n", a...)
	os.Exit(1)
}

func benchType(name string, mk func() (*datatype.Type, error), src []float64, expect []float64, nreps int) {
	tc := make([]float64, nreps)
	tm := make([]float64, nreps)
	runtime.GC()
	for r := range nreps {
		a := nanotime()
		t, err := mk()
		b := nanotime()
		if err != nil {
			fail("%s: %v", name, err)
		}
		if err := t.Commit(); err != nil {
			fail("%s: commit: %v", name, err)
		}
		tc[r] = float64(b-a) * 1e-9
		tm[r] = since(b)
		t.Free()
	}
	fmt.Printf("RESULT dtype %s_create %.3f us\n", name, osu.Median(tc)*1e6)
	fmt.Printf("RESULT dtype %s_commit %.3f us\n", name, osu.Median(tm)*1e6)

	t, err := mk()
	if err != nil {
		fail("%s: %v", name, err)
	}
	if err := t.Commit(); err != nil {
		fail("%s: commit: %v", name, err)
	}
	psize, err := t.PackSize(1)
	if err != nil {
		fail("%s: %v", name, err)
	}
	pbytes := int64(len(expect) * 8)
	if psize < pbytes {
		fail("%s: PackSize %d < %d", name, psize, pbytes)
	}
	pbuf := asBytes(alloc(int(psize+7) / 8))[:psize]
	dst := alloc(len(src))
	sb, db, eb := asBytes(src), asBytes(dst), asBytes(expect)

	// Finish any garbage collection the allocations above started, so that
	// no GC worker competes with the timed calls (C has none to compete).
	runtime.GC()
	a := nanotime()
	pos, err := t.Pack(pbuf, sb, 1)
	fmt.Printf("RESULT dtype %s_pack1 %.1f us\n", name, since(a)*1e6)
	if err != nil || pos != pbytes || !bytes.Equal(pbuf[:pbytes], eb) {
		fail("%s: packed data mismatch (pos=%d, err=%v)", name, pos, err)
	}

	tp := make([]float64, nreps)
	tu := make([]float64, nreps)
	for r := range warm + nreps {
		a := nanotime()
		t.Pack(pbuf, sb, 1)
		if d := since(a); r >= warm {
			tp[r-warm] = d
		}
	}
	for r := range warm + nreps {
		a := nanotime()
		t.Unpack(db, pbuf, 1)
		if d := since(a); r >= warm {
			tu[r-warm] = d
		}
	}
	// Verify unpack by packing dst again.
	if _, err := t.Pack(pbuf, db, 1); err != nil || !bytes.Equal(pbuf[:pbytes], eb) {
		fail("%s: unpack verification failed (err=%v)", name, err)
	}
	fmt.Printf("RESULT dtype %s_pack %.3f GB/s\n", name, float64(pbytes)/osu.Median(tp)/1e9)
	fmt.Printf("RESULT dtype %s_unpack %.3f GB/s\n", name, float64(pbytes)/osu.Median(tu)/1e9)
	t.Free()
}

func main() {
	nreps := min(max(int(reps*osu.Scale()), 1), reps)

	vsrc := alloc(2 * vcount)
	for i := range vsrc {
		vsrc[i] = float64(i)
	}
	vexp := alloc(vcount)
	for i := range vexp {
		vexp[i] = vsrc[2*i]
	}

	// The indexed layout, from the same xorshift32 sequence as dtype.c.
	state := uint32(12345)
	xorshift := func() uint32 {
		x := state
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		state = x
		return x
	}
	blens := make([]int64, nblk)
	displs := make([]int64, nblk)
	var off, ipacked int64
	for i := range nblk {
		off += 1 + int64(xorshift()%16)
		blens[i] = 1 + int64(xorshift()%16)
		displs[i] = off
		off += blens[i]
		ipacked += blens[i]
	}
	isrc := alloc(int(off))
	for i := range isrc {
		isrc[i] = float64(i) * 0.5
	}
	iexp := alloc(int(ipacked))
	p := 0
	for i := range nblk {
		p += copy(iexp[p:], isrc[displs[i]:displs[i]+blens[i]])
	}
	fmt.Printf("# vector: %d blocks, packed %d bytes; indexed: %d blocks, packed %d bytes, extent %d bytes\n",
		vcount, vcount*8, nblk, ipacked*8, off*8)

	benchType("vector", func() (*datatype.Type, error) {
		return datatype.Vector(vcount, 1, 2, datatype.Float64)
	}, vsrc, vexp, nreps)
	benchType("indexed", func() (*datatype.Type, error) {
		return datatype.Indexed(blens, displs, datatype.Float64)
	}, isrc, iexp, nreps)

	// Hand-written Go loops of the same shapes.
	tb := make([]float64, nreps)
	out := alloc(vcount)
	iout := alloc(int(ipacked))
	runtime.GC()
	for r := range warm + nreps {
		a := nanotime()
		for i := range out {
			out[i] = vsrc[2*i]
		}
		d := since(a)
		sink = out[r%vcount]
		if r >= warm {
			tb[r-warm] = d
		}
	}
	fmt.Printf("RESULT dtype base_vector_loop %.3f GB/s\n", vcount*8.0/osu.Median(tb)/1e9)
	for r := range warm + nreps {
		a := nanotime()
		copy(out, vsrc[:vcount])
		d := since(a)
		sink = out[r%vcount]
		if r >= warm {
			tb[r-warm] = d
		}
	}
	fmt.Printf("RESULT dtype base_memcpy %.3f GB/s\n", vcount*8.0/osu.Median(tb)/1e9)
	for r := range warm + nreps {
		a := nanotime()
		p := 0
		for i := range nblk {
			p += copy(iout[p:], isrc[displs[i]:displs[i]+blens[i]])
		}
		d := since(a)
		sink = iout[r%int(ipacked)]
		if r >= warm {
			tb[r-warm] = d
		}
	}
	fmt.Printf("RESULT dtype base_indexed_memcpy %.3f GB/s\n", float64(ipacked)*8/osu.Median(tb)/1e9)
}
