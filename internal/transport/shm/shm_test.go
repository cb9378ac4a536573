package shm

import (
	"bytes"
	"errors"
	"github.com/mpigo/mpigo/internal/ntcopy"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/transport"
	"golang.org/x/sys/unix"
)

var jobSeq atomic.Int64

func testJob(t testing.TB) string {
	return "test" + strconv.Itoa(int(time.Now().UnixNano()%1e9)) + "-" + strconv.Itoa(int(jobSeq.Add(1)))
}

// inProcess makes n transports in this process, all started.
func inProcess(t testing.TB, n int, o Options) []*Transport {
	t.Helper()
	clients := newMemJob(testJob(t), n)
	ts := make([]*Transport, n)
	for i, c := range clients {
		tr, err := New(c, o)
		if err != nil {
			t.Fatal(err)
		}
		ts[i] = tr
		t.Cleanup(func() { tr.Close() })
	}
	for _, tr := range ts {
		if err := tr.Start(); err != nil {
			t.Fatal(err)
		}
	}
	return ts
}

type packet struct {
	h       transport.Header
	payload []byte
}

type collector struct{ got []packet }

func (c *collector) Packet(h *transport.Header, payload []byte) {
	c.got = append(c.got, packet{*h, append([]byte(nil), payload...)})
}

type discard struct{ n int }

func (d *discard) Packet(h *transport.Header, payload []byte) { d.n += len(payload) }

func endpoint(t testing.TB, tr *Transport, peer int) transport.Endpoint {
	t.Helper()
	e, err := tr.Endpoint(peer)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func testHeader(i, n int) transport.Header {
	h := transport.Header{Kind: uint8(i), Flags: uint8(i >> 8), Src: 0, Context: uint32(i * 7), Tag: int32(i - 100),
		Len: uint64(n), SendID: uint64(i) << 20}
	switch i % 3 {
	case 1: // a fragment of something larger: not compact
		h.Len, h.Offset, h.RecvID = uint64(n)*3, uint64(i), 99
	case 2:
		h.Addr = 0xdead0000 + uint64(i)
	}
	return h
}

// fill writes byte(seed + 31*j) at every index j. The formula repeats every 256 bytes, so
// the bulk is doubled with copy, which keeps -race runs fast.
func fill(b []byte, seed int) []byte {
	n := min(len(b), 256)
	for j := 0; j < n; j++ {
		b[j] = byte(seed + j*31)
	}
	for done := n; done < len(b); done *= 2 {
		copy(b[done:], b[:done])
	}
	return b
}

// TestOrderAndWrap pushes messages of mixed sizes and formats through a tiny ring, many
// laps around both the cells and the data ring, retrying on ErrWouldBlock; also with
// every payload of 64 bytes to the eager limit copied by non-temporal stores.
func TestOrderAndWrap(t *testing.T) {
	for _, mode := range []string{"memfd", "file", "memfd/nt"} {
		t.Run(mode, func(t *testing.T) {
			o := Options{RingSize: 4096, Cells: 8, MaxFragment: 2048, EagerLimit: 1024, Memory: mode, NTCopy: "off"}
			if mode == "memfd/nt" {
				if !ntcopy.Have {
					t.Skip("no non-temporal stores on this platform")
				}
				o.Memory, o.NTCopy, o.NTMin = "memfd", "on", 64
			}
			ts := inProcess(t, 2, o)
			e := endpoint(t, ts[0], 1)
			sizes := []int{0, 1, 8, 31, 32, 33, 64, 100, 1000, 2047, 2048}
			var c collector
			const msgs = 5000
			blocked := 0
			var want []packet
			for i := 0; i < msgs; i++ {
				n := sizes[i%len(sizes)]
				h := testHeader(i, n)
				p := fill(make([]byte, n), i)
				want = append(want, packet{h, p})
				for {
					err := e.Send(&h, p)
					if err == nil {
						break
					}
					if !errors.Is(err, transport.ErrWouldBlock) {
						t.Fatal(err)
					}
					blocked++
					if ts[1].Poll(&c) == 0 {
						t.Fatalf("message %d: ring full but the receiver found nothing", i)
					}
				}
			}
			for ts[1].Poll(&c) > 0 {
			}
			if len(c.got) != msgs {
				t.Fatalf("received %d packets, sent %d", len(c.got), msgs)
			}
			for i, g := range c.got {
				if g.h != want[i].h || !bytes.Equal(g.payload, want[i].payload) {
					t.Fatalf("packet %d: got %+v (%d bytes), want %+v (%d bytes)", i, g.h, len(g.payload), want[i].h, len(want[i].payload))
				}
			}
			if blocked == 0 {
				t.Fatal("the ring never filled: the test does not exercise ErrWouldBlock")
			}
			if c.got[0].h.Src != 0 {
				t.Fatalf("Src %d, want 0", c.got[0].h.Src)
			}
		})
	}
}

func TestFullRing(t *testing.T) {
	ts := inProcess(t, 2, Options{RingSize: 4096, Cells: 8, MaxFragment: 2048, EagerLimit: 1024})
	e := endpoint(t, ts[0], 1)
	h := transport.Header{Len: 8}
	small := make([]byte, 8)
	sent := 0
	for ; sent < 100; sent++ {
		if err := e.Send(&h, small); err != nil {
			if !errors.Is(err, transport.ErrWouldBlock) {
				t.Fatal(err)
			}
			break
		}
	}
	if sent != 8 {
		t.Fatalf("%d compact sends fit in 8 cells", sent)
	}
	var d discard
	if n := ts[1].Poll(&d); n != 8 {
		t.Fatalf("Poll handed %d packets, want 8", n)
	}
	// Now the data ring: 2048-byte payloads, two fit in 4096 bytes.
	big := make([]byte, 2048)
	hb := transport.Header{Len: 1 << 20}
	for i := 0; i < 2; i++ {
		if err := e.Send(&hb, big); err != nil {
			t.Fatalf("send %d of 2: %v", i, err)
		}
	}
	if err := e.Send(&hb, big); !errors.Is(err, transport.ErrWouldBlock) {
		t.Fatalf("third 2 KiB send into a 4 KiB ring: %v, want ErrWouldBlock", err)
	}
	if n := ts[1].Poll(&d); n != 2 {
		t.Fatalf("Poll handed %d, want 2", n)
	}
	if err := e.Send(&hb, big); err != nil {
		t.Fatalf("after Poll: %v", err)
	}
}

func TestErrors(t *testing.T) {
	clients := newMemJob(testJob(t), 2)
	tr, err := New(clients[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.Endpoint(1); err == nil {
		t.Fatal("Endpoint before Start succeeded")
	}
	tr.Start()
	if _, err := tr.Endpoint(0); err == nil {
		t.Fatal("Endpoint to self succeeded")
	}
	if _, err := tr.Endpoint(5); err == nil {
		t.Fatal("Endpoint to rank 5 of 2 succeeded")
	}
	if _, err := tr.Endpoint(1); err == nil {
		t.Fatal("Endpoint to a rank that published nothing succeeded")
	}
	for _, o := range []Options{{RingSize: 100}, {Cells: 2}, {Memory: "disk"}, {RingSize: 8192, MaxFragment: 8192}, {EagerLimit: 1 << 30},
		{NTCopy: "sometimes"}, {NTMin: 8}} {
		if _, err := New(clients[1], o); err == nil {
			t.Errorf("New with %+v succeeded", o)
		}
	}
	ts := inProcess(t, 2, Options{RingSize: 8192, MaxFragment: 4096, EagerLimit: 1024})
	e := endpoint(t, ts[0], 1)
	if e.MaxPayload() != 4096 {
		t.Fatalf("MaxPayload %d", e.MaxPayload())
	}
	if err := e.Send(&transport.Header{}, make([]byte, 4097)); err == nil {
		t.Fatal("Send over MaxPayload succeeded")
	}
}

func TestCloseTellsSenders(t *testing.T) {
	ts := inProcess(t, 2, Options{Memory: "file"})
	e := endpoint(t, ts[0], 1)
	if err := e.Send(&transport.Header{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := ts[1].Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Send(&transport.Header{}, nil); !errors.Is(err, transport.ErrPeerGone) {
		t.Fatalf("Send to a closed peer: %v, want ErrPeerGone", err)
	}
	if err := ts[0].Check(); !errors.Is(err, transport.ErrPeerGone) {
		t.Fatalf("Check: %v, want ErrPeerGone", err)
	}
	ts[0].Close()
	left, _ := filepath.Glob(FilePrefix(ts[0].c.JobID()) + "*")
	if len(left) != 0 {
		t.Fatalf("left behind after Close: %v", left)
	}
}

func TestDoorbellWakes(t *testing.T) {
	ts := inProcess(t, 2, Options{})
	e := endpoint(t, ts[0], 1)
	woke := make(chan time.Duration, 1)
	ready := make(chan struct{})
	go func() {
		db := ts[1].Doorbell()
		var d discard
		start := time.Now()
		close(ready)
		for ts[1].Poll(&d) == 0 {
			seq := db.Prepare()
			if !ts[1].Pending() {
				db.Sleep(seq, 5*time.Second)
			}
			db.Leave()
		}
		woke <- time.Since(start)
	}()
	<-ready
	if err := e.Send(&transport.Header{}, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if d := <-woke; d > 4*time.Second {
		t.Fatalf("the sleeper woke after %v: the doorbell did not ring", d)
	}
}

func TestReadFromInProcess(t *testing.T) {
	ts := inProcess(t, 2, Options{})
	if ok, why := ts[1].CMA(); !ok {
		t.Skip("no CMA here: " + why)
	}
	src := fill(make([]byte, 3<<20+5), 7)
	dst := make([]byte, len(src))
	if err := ts[1].ReadFrom(0, dst, uint64(uintptr(unsafe.Pointer(&src[0])))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, dst) {
		t.Fatal("ReadFrom copied wrong bytes")
	}
	if err := ts[1].ReadFrom(0, dst[:8], 8); err == nil {
		t.Fatal("ReadFrom of an unmapped address succeeded")
	}
}

// TestAllocMapped: reads and writes of a peer's memory from Alloc go through a mapping
// of it; after Free and a new Alloc, reads see the new memory and the freed one's
// mapping is gone; other memory is copied with single-copy calls; the table holds
// memEntries allocations and Alloc serves nothing past them.
func TestAllocMapped(t *testing.T) {
	ts := inProcess(t, 2, Options{})
	if ok, why := ts[1].CMA(); !ok {
		t.Skip("no CMA here: " + why)
	}
	if Alloc(0, 0) != nil || Alloc(memMin, 2*pageSize) != nil {
		t.Fatal("Alloc served no bytes, or alignment beyond a page")
	}
	n := 3<<20 + 5
	p := Alloc(n, 0)
	if p == nil {
		t.Fatalf("Alloc(%d) served nothing", n)
	}
	mem := fill(unsafe.Slice((*byte)(p), n), 3)
	addr := uint64(uintptr(p))
	dst := make([]byte, n-7)
	before := MappedBytes()
	if err := ts[1].ReadFrom(0, dst, addr+7); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, mem[7:]) {
		t.Fatal("ReadFrom through a mapping copied wrong bytes")
	}
	src := fill(make([]byte, 100000), 9)
	if err := ts[1].WriteTo(0, src, addr+4095); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mem[4095:4095+len(src)], src) {
		t.Fatal("WriteTo through a mapping wrote wrong bytes")
	}
	if d := MappedBytes() - before; d != uint64(len(dst)+len(src)) {
		t.Fatalf("%d of %d bytes went through a mapping", d, len(dst)+len(src))
	}
	// Vectored: pieces in the allocation go through the mapping; a batch with one piece
	// elsewhere (Go memory) goes by single-copy calls, whole.
	goMem := fill(make([]byte, 200000), 6)
	pieces := [][]byte{make([]byte, 10), make([]byte, 70000), make([]byte, 1)}
	at := []uint64{addr + 3, addr + 2<<20, addr + uint64(n) - 1}
	before = MappedBytes()
	if err := ts[1].ReadVec(0, pieces, at); err != nil {
		t.Fatal(err)
	}
	for i, b := range pieces {
		if off := at[i] - addr; !bytes.Equal(b, mem[off:off+uint64(len(b))]) {
			t.Fatalf("ReadVec through a mapping: piece %d wrong", i)
		}
	}
	if err := ts[1].WriteVec(0, [][]byte{src[:5], src[5:9]}, []uint64{addr + 1, addr + 3<<20}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mem[1:6], src[:5]) || !bytes.Equal(mem[3<<20:3<<20+4], src[5:9]) {
		t.Fatal("WriteVec through a mapping wrote wrong bytes")
	}
	if d := MappedBytes() - before; d != 70011+9 {
		t.Fatalf("%d of %d vectored bytes went through a mapping", d, 70011+9)
	}
	at[1] = uint64(uintptr(unsafe.Pointer(&goMem[100])))
	before = MappedBytes()
	if err := ts[1].ReadVec(0, pieces, at); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pieces[1], goMem[100:100+70000]) || !bytes.Equal(pieces[0], mem[3:13]) || MappedBytes() != before {
		t.Fatal("a vectored read partly of Go memory went wrong, or through a mapping")
	}
	if !ts[1].Mapped(0, addr, n) || ts[1].Mapped(0, addr, n+4096) || ts[1].Mapped(0, uint64(uintptr(unsafe.Pointer(&goMem[0]))), 10) {
		t.Fatal("Mapped is wrong about the allocation, a range past it, or Go memory")
	}
	if a := testing.AllocsPerRun(100, func() { ts[1].ReadFrom(0, dst[:32<<10], addr) }); a != 0 {
		t.Fatalf("a read through a mapping allocates %v times", a)
	}

	pm := ts[1].peers[0].mem
	var old uint64
	for ino := range pm.maps {
		old = ino
	}
	if !Free(p) || Free(p) {
		t.Fatal("Free does not know Alloc's memory once, and only once")
	}
	q := Alloc(n, 0)
	if q == nil {
		t.Fatal("Alloc after Free served nothing")
	}
	defer Free(q)
	mem = fill(unsafe.Slice((*byte)(q), n), 5)
	if err := ts[1].ReadFrom(0, dst, uint64(uintptr(q))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, mem[:len(dst)]) {
		t.Fatal("ReadFrom after Free and Alloc copied wrong bytes (a stale mapping?)")
	}
	if _, ok := pm.maps[old]; ok || len(pm.maps) != 1 {
		t.Fatalf("the freed allocation's mapping is kept (%d mappings)", len(pm.maps))
	}

	before = MappedBytes()
	if err := ts[1].ReadFrom(0, dst[:len(goMem)], uint64(uintptr(unsafe.Pointer(&goMem[0])))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst[:len(goMem)], goMem) || MappedBytes() != before {
		t.Fatal("a read of Go memory went wrong, or through a mapping")
	}

	var ps []unsafe.Pointer
	listed := memListed()
	for p := Alloc(memMin, 0); p != nil; p = Alloc(memMin, 0) {
		ps = append(ps, p)
	}
	for _, p := range ps {
		Free(p)
	}
	if len(ps) != memEntries-listed {
		t.Fatalf("the table took %d allocations beside %d, want %d", len(ps), listed, memEntries-listed)
	}
}

// memListed counts the table's entries in use.
func memListed() int {
	memReg.Lock()
	defer memReg.Unlock()
	n := 0
	for i := range memEntries {
		if *memU64(memReg.table, memEntry(i)+8) != 0 {
			n++
		}
	}
	return n
}

// TestAllocBlocks: allocations below memMin are blocks of arenas, aligned as asked,
// zeroed when given again after Free, copied through a mapping of their arena like
// the large ones, many to an arena (one table entry each arena).
func TestAllocBlocks(t *testing.T) {
	ts := inProcess(t, 2, Options{})
	if ok, why := ts[1].CMA(); !ok {
		t.Skip("no CMA here: " + why)
	}
	listed := memListed()
	for _, c := range []struct{ size, align int }{{1, 0}, {63, 0}, {64, 0}, {65, 0}, {4000, 0}, {100, 4096}, {memMin - 1, 0}} {
		p := Alloc(c.size, c.align)
		if p == nil || uintptr(p)%uintptr(max(c.align, smallMin)) != 0 {
			t.Fatalf("Alloc(%d, %d) = %p: none, or misaligned", c.size, c.align, p)
		}
		b := unsafe.Slice((*byte)(p), c.size)
		if slices.ContainsFunc(b, func(x byte) bool { return x != 0 }) {
			t.Fatalf("Alloc(%d): not zeroed", c.size)
		}
		fill(b, c.size)
		before := MappedBytes()
		got := make([]byte, c.size)
		if err := ts[1].ReadFrom(0, got, uint64(uintptr(p))); err != nil || !bytes.Equal(got, b) {
			t.Fatalf("ReadFrom a block of %d bytes: %v, or wrong bytes", c.size, err)
		}
		src := fill(make([]byte, c.size), 1)
		if err := ts[1].WriteTo(0, src, uint64(uintptr(p))); err != nil || !bytes.Equal(src, b) {
			t.Fatalf("WriteTo a block of %d bytes: %v, or wrong bytes", c.size, err)
		}
		if d := MappedBytes() - before; d != 2*uint64(c.size) {
			t.Fatalf("a block of %d bytes: %d bytes went through a mapping, want %d", c.size, d, 2*c.size)
		}
		if !Free(p) || Free(p) {
			t.Fatalf("Free of a block of %d bytes: not once, and only once", c.size)
		}
		q := Alloc(c.size, c.align)
		if q != p || slices.ContainsFunc(b, func(x byte) bool { return x != 0 }) {
			t.Fatalf("Alloc(%d) after Free: %p (freed %p), or not zeroed", c.size, q, p)
		}
		Free(q)
	}
	// 20000 blocks of 100 bytes (of 128) fill three arenas, each a table entry; every
	// one is distinct and reads back its own bytes through the mapping.
	var ps []unsafe.Pointer
	seen := map[unsafe.Pointer]bool{}
	for i := range 20000 {
		p := Alloc(100, 0)
		if p == nil || seen[p] {
			t.Fatalf("block %d: %p, none or given twice", i, p)
		}
		seen[p] = true
		fill(unsafe.Slice((*byte)(p), 100), i)
		ps = append(ps, p)
	}
	got := make([]byte, 100)
	for i, p := range ps {
		if err := ts[1].ReadFrom(0, got, uint64(uintptr(p))); err != nil || !bytes.Equal(got, fill(make([]byte, 100), i)) {
			t.Fatalf("block %d read back wrong", i)
		}
	}
	if n := memListed() - listed; n < 3 || n > 3+smallClasses {
		t.Errorf("the blocks took %d table entries, want 3 arenas of 128-byte blocks and at most one of each other size", n)
	}
	for _, p := range ps {
		Free(p)
	}
	if a := testing.AllocsPerRun(100, func() { ts[1].ReadFrom(0, got, uint64(uintptr(ps[7]))) }); a != 0 {
		t.Fatalf("a read through an arena's mapping allocates %v times", a)
	}
}

// TestMapShared: memory Alloc gave, a large allocation and an arena's block, is Listed
// (Shares) over its length and no further, Go's memory is not, and a peer's Map of it
// is a mapping that sees the owner's stores and is seen by its loads, and stays valid
// after the owner frees the memory (and the peer's copies sweep their mappings) until
// it is given back.
func TestMapShared(t *testing.T) {
	ts := inProcess(t, 2, Options{})
	if ok, why := ts[1].CMA(); !ok {
		t.Skip("no CMA here: " + why)
	}
	if heap := make([]byte, 100); ts[0].Shares(uint64(uintptr(unsafe.Pointer(&heap[0]))), len(heap)) {
		t.Error("Go's memory is listed")
	}
	for _, n := range []int{100, memMin + 5} {
		p := Alloc(n, 0)
		if p == nil {
			t.Fatalf("Alloc(%d) gave nothing", n)
		}
		addr := uint64(uintptr(p))
		if !ts[0].Shares(addr, n) || !ts[0].Shares(addr+1, n-1) || ts[0].Shares(addr, 4<<20) {
			t.Errorf("Alloc(%d): Shares of its bytes, or of 4 MiB from them, is wrong", n)
		}
		b := fill(unsafe.Slice((*byte)(p), n), n)
		view, unmap := ts[1].Map(0, addr+1, n-1)
		if view == nil || len(view) != n-1 || !bytes.Equal(view, b[1:]) {
			t.Fatalf("Map of %d bytes: %d bytes, or not the owner's", n-1, len(view))
		}
		view[0], b[n-1] = 0xee, 0xdd
		if b[1] != 0xee || view[n-2] != 0xdd {
			t.Errorf("Map of %d bytes: stores do not show on the other side", n)
		}
		if v, _ := ts[1].Map(0, addr, 8<<20); v != nil {
			t.Errorf("Map of 8 MiB from an allocation of %d bytes gave a mapping", n)
		}
		// The owner frees it; a later lookup sweeps the peer's mappings of what its
		// table no longer lists, but not this one while it is held.
		Free(p)
		q := Alloc(memMin, 0)
		if !ts[1].Mapped(0, uint64(uintptr(q)), memMin) {
			t.Fatal("a new allocation is not mapped")
		}
		if view[n-2] != 0xdd {
			t.Errorf("Map of %d bytes: the mapping changed after the owner freed it", n)
		}
		unmap()
		Free(q)
	}
}

// TestVecInProcess reads and writes many pieces in one call each, more than one
// system call takes (iovMax), and refuses an unmapped address.
func TestVecInProcess(t *testing.T) {
	ts := inProcess(t, 2, Options{})
	if ok, why := ts[1].CMA(); !ok {
		t.Skip("no CMA here: " + why)
	}
	const n = iovMax + 77
	src := fill(make([]byte, 8*n+3), 5)
	base := uint64(uintptr(unsafe.Pointer(&src[0])))
	bufs := make([][]byte, n)
	addrs := make([]uint64, n)
	for i := range n {
		// Pieces of 1 to 8 bytes at every eighth byte, in reverse order.
		k := 1 + i%8
		bufs[i] = make([]byte, k)
		addrs[i] = base + uint64(8*(n-1-i))
	}
	if err := ts[1].ReadVec(0, bufs, addrs); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		at := 8 * (n - 1 - i)
		if want := src[at : at+len(bufs[i])]; !bytes.Equal(bufs[i], want) {
			t.Fatalf("ReadVec piece %d: % x, want % x", i, bufs[i], want)
		}
	}
	for i := range bufs {
		for j := range bufs[i] {
			bufs[i][j] = byte(i + j)
		}
	}
	if err := ts[1].WriteVec(0, bufs, addrs); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		at := 8 * (n - 1 - i)
		if !bytes.Equal(src[at:at+len(bufs[i])], bufs[i]) {
			t.Fatalf("WriteVec piece %d: % x, want % x", i, src[at:at+len(bufs[i])], bufs[i])
		}
	}
	if err := ts[1].ReadVec(0, bufs[:2], []uint64{base, 8}); err == nil {
		t.Fatal("ReadVec of an unmapped address succeeded")
	}
}

// TestVecLargeInProcess moves more than rawCMA in one vectored call each way, the
// calls the runtime is told of, and checks every byte.
func TestVecLargeInProcess(t *testing.T) {
	ts := inProcess(t, 2, Options{})
	if ok, why := ts[1].CMA(); !ok {
		t.Skip("no CMA here: " + why)
	}
	const piece = rawCMA/2 + 4097
	src := make([]byte, 3*piece)
	for i := range src { // no period: a piece read from the wrong offset differs
		src[i] = byte(i ^ i>>8 ^ i>>16)
	}
	base := uint64(uintptr(unsafe.Pointer(&src[0])))
	bufs := [][]byte{make([]byte, piece), make([]byte, piece), make([]byte, piece)}
	addrs := []uint64{base + 2*piece, base, base + piece} // out of order
	if err := ts[1].ReadVec(0, bufs, addrs); err != nil {
		t.Fatal(err)
	}
	for i, b := range bufs {
		at := addrs[i] - base
		if !bytes.Equal(b, src[at:at+piece]) {
			t.Fatalf("ReadVec piece %d: wrong bytes", i)
		}
	}
	dst := make([]byte, len(src))
	for i := range bufs {
		copy(bufs[i], src[(2-i)*piece:])
		addrs[i] = uint64(uintptr(unsafe.Pointer(&dst[0]))) + uint64(i)*piece
	}
	if err := ts[1].WriteVec(0, bufs, addrs); err != nil {
		t.Fatal(err)
	}
	for i, b := range bufs {
		if !bytes.Equal(dst[i*piece:(i+1)*piece], b) {
			t.Fatalf("WriteVec piece %d: wrong bytes", i)
		}
	}
}

func TestModels(t *testing.T) {
	ts := inProcess(t, 2, Options{})
	e := endpoint(t, ts[0], 1)
	best := func(n int64) transport.Protocol {
		var p transport.Protocol
		var c time.Duration = -1
		for _, m := range e.Models() {
			if n < m.MinSize || (m.MaxSize != 0 && n > m.MaxSize) {
				continue
			}
			if k := m.Cost(n); c < 0 || k < c {
				p, c = m.Protocol, k
			}
		}
		return p
	}
	cma, _ := ts[0].CMA()
	loc, _ := locality(&ts[0].myCPUs, ts[0].pid)
	t.Logf("locality %v, cma %v", loc, cma)
	for _, m := range e.Models() {
		t.Logf("%-8v [%d, %d] fixed %v bw %.1f GB/s", m.Protocol, m.MinSize, m.MaxSize, m.Fixed, m.Bandwidth/1e9)
	}
	if best(8) != transport.Eager {
		t.Errorf("8 B: %v, want eager", best(8))
	}
	hasGet := false
	for _, m := range e.Models() {
		hasGet = hasGet || m.Protocol == transport.Get
		if m.Bandwidth <= 0 || m.Fixed < 0 {
			t.Errorf("%v: bandwidth %v, fixed %v", m.Protocol, m.Bandwidth, m.Fixed)
		}
	}
	if hasGet != cma {
		t.Errorf("Get offered: %v, CMA usable: %v", hasGet, cma)
	}
	for _, n := range []int64{4096, 64 << 10, 1 << 20, 4 << 20} {
		t.Logf("%8d B: %v", n, best(n))
	}
}

func TestNoAllocs(t *testing.T) {
	ts := inProcess(t, 2, Options{})
	e := endpoint(t, ts[0], 1)
	var d discard
	for _, n := range []int{8, 1024, 64 << 10} {
		p := make([]byte, n)
		h := transport.Header{Len: uint64(n)}
		allocs := testing.AllocsPerRun(200, func() {
			if err := e.Send(&h, p); err != nil {
				panic(err)
			}
			ts[1].Poll(&d)
		})
		if allocs != 0 {
			t.Errorf("%d B: %v allocations per Send+Poll", n, allocs)
		}
	}
	if ok, _ := ts[1].CMA(); ok {
		src, dst := make([]byte, 4096), make([]byte, 4096)
		addr := uint64(uintptr(unsafe.Pointer(&src[0])))
		if a := testing.AllocsPerRun(100, func() { ts[1].ReadFrom(0, dst, addr) }); a != 0 {
			t.Errorf("ReadFrom: %v allocations", a)
		}
	}
}

func TestAddressRoundTrip(t *testing.T) {
	a := address{mode: modeFile, pid: 1234, fd: 7, size: 1 << 30, base: 0x7f0000001000, path: "/dev/shm/mpigo-x-1"}
	b, err := decodeAddress(a.encode())
	if err != nil || b != a {
		t.Fatalf("%+v -> %+v, %v", a, b, err)
	}
	if _, err := decodeAddress([]byte{9, 9}); err == nil {
		t.Fatal("malformed address decoded")
	}
}

func TestRingShrinksWithLocalSize(t *testing.T) {
	if _, src := setRingSize.Value(); src != 0 {
		t.Skip("shm_ring_size is set explicitly")
	}
	for _, c := range []struct{ local, want int }{{1, 1 << 20}, {2, 1 << 20}, {17, 1 << 20}, {18, 512 << 10}, {64, 256 << 10}, {1000, 256 << 10}} {
		o, err := Options{}.resolve(c.local)
		if err != nil || o.RingSize != c.want {
			t.Errorf("%d local ranks: ring %d, %v; want %d", c.local, o.RingSize, err, c.want)
		}
	}
}

// TestFullRingWakesSender: a sender that met a full ring and sleeps on its doorbell is
// woken by the receiver making room, not by its timeout.
func TestFullRingWakesSender(t *testing.T) {
	ts := inProcess(t, 2, Options{RingSize: 4096, Cells: 8, MaxFragment: 2048, EagerLimit: 1024})
	e := endpoint(t, ts[0], 1)
	h := transport.Header{Len: 8}
	for {
		err := e.Send(&h, make([]byte, 8))
		if errors.Is(err, transport.ErrWouldBlock) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	db := ts[0].Doorbell()
	seq := db.Seq()
	done := make(chan time.Duration)
	go func() {
		start := time.Now()
		db.Wait(seq, 5*time.Second)
		done <- time.Since(start)
	}()
	var d discard
	if ts[1].Poll(&d) == 0 {
		t.Fatal("nothing to poll")
	}
	if took := <-done; took > 4*time.Second || db.Seq() == seq {
		t.Fatalf("the blocked sender was not woken (slept %v)", took)
	}
	if err := e.Send(&h, make([]byte, 8)); err != nil {
		t.Fatalf("after the wake-up: %v", err)
	}
}

// TestRingPopulated: with two ranks on the node, a pair's whole slot (its cells and
// data ring) is mapped in when the sender connects, so that a first lap of short
// messages takes no page faults; with more ranks, only the cells and the ring's first
// populateRing bytes.
func TestRingPopulated(t *testing.T) {
	for _, n := range []int{2, 3} {
		ts := inProcess(t, n, Options{})
		if _, err := ts[0].Endpoint(1); err != nil {
			t.Fatal(err)
		}
		seg := ts[1].seg
		slot := seg.mem[seg.l.slotOff(ts[0].localRank):][:seg.l.slotSize]
		vec := make([]byte, len(slot)/pageSize)
		if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&slot[0])), uintptr(len(slot)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
			t.Fatal(e)
		}
		in := 0
		for _, v := range vec {
			in += int(v & 1)
		}
		want := len(vec)
		if n > 2 {
			want = roundUp(slotCells+seg.l.cells*cellSize+populateRing, pageSize) / pageSize
		}
		if in != want {
			t.Errorf("%d ranks: %d of the slot's %d pages are mapped in, want %d", n, in, len(vec), want)
		}
	}
}
