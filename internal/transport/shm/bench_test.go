package shm

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/mpigo/mpigo/internal/transport"
	"golang.org/x/sys/unix"
)

// pin binds the calling goroutine's thread to one CPU when MPIGO_SHM_BENCH_PIN is set
// (rank r to CPU r mod #CPUs), as the anchors bind each rank to a core (--bind-to core).
func pin(rank int) {
	if os.Getenv("MPIGO_SHM_BENCH_PIN") == "" {
		return
	}
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(rank % runtime.NumCPU())
	unix.SchedSetaffinity(0, &set)
}

// The benchmarks run rank 0 in the benchmark process and rank 1 in a child process, both
// spinning (no binding), as the anchors in shared/anchors/RESULTS.md were measured.

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.Itoa(n>>20) + "MiB"
	case n >= 1<<10:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}

// BenchmarkPingPong is the raw transport's one-way latency: half a round trip of one
// packet of n payload bytes (one packet even at 64 KiB: shm_max_fragment).
func BenchmarkPingPong(b *testing.B) {
	pin(0)
	j, tr := startJob(b, "echo", 2, "auto")
	e := endpoint(b, tr, 1)
	for _, n := range []int{8, 4096, 64 << 10} {
		b.Run(sizeName(n), func(b *testing.B) {
			p := make([]byte, n)
			h := transport.Header{Kind: kData, Len: uint64(n)}
			got := false
			hd := handlerFunc(func(*transport.Header, []byte) { got = true })
			b.ReportAllocs()
			b.SetBytes(int64(n))
			b.ResetTimer()
			start := time.Now()
			best := chunkTimer{chunk: 1000}
			best.add(0)
			for i := 0; i < b.N; i++ {
				if err := mustSend(tr, e, &h, p, nil); err != nil {
					b.Fatal(err)
				}
				for got = false; !got; {
					tr.Poll(hd)
				}
				best.add(1)
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(2*b.N)/1e3, "us/one-way")
			if v, ok := best.best(); ok {
				b.ReportMetric(v/2/1e3, "us/one-way-best")
			}
		})
	}
	mustSend(tr, e, &transport.Header{Kind: kStop}, nil, nil)
	j.wait(b)
}

// BenchmarkTakePingPong is the one-way latency of the calls the short ways make: a
// packet of 8 payload bytes sent with SendCompact and taken with Take, each rank polling
// Arrived with a pause between polls as p2p's pollHead does. It is the transport's part
// of a small mpi.Send and mpi.Recv, under the engine and the layers above it.
func BenchmarkTakePingPong(b *testing.B) {
	pin(0)
	j, tr := startJob(b, "echotake", 2, "auto")
	e := endpoint(b, tr, 1)
	o := e.(*outbound)
	in, err := takerOf(tr, 1)
	if err != nil {
		b.Fatal(err)
	}
	buf, p := make([]byte, 8), make([]byte, 8)
	if _, err := takeWait(in, buf); err != nil { // the child's first, empty packet
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := sendCompact(o, 0, p); err != nil {
			b.Fatal(err)
		}
		if n, err := takeWait(in, buf); err != nil || n != len(p) {
			b.Fatalf("take: %d bytes, %v", n, err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(2*b.N)/1e3, "us/one-way")
	if err := sendCompact(o, 0, nil); err != nil {
		b.Fatal(err)
	}
	j.wait(b)
}

// BenchmarkStream is OSU-style streaming bandwidth (window of 64 messages, one buffer
// reused on each side): pipeline streams fragments through the ring and the receiver
// copies them out; get sends a request per message and the receiver reads the message
// with process_vm_readv and answers.
func BenchmarkStream(b *testing.B) {
	pin(0)
	j, tr := startJob(b, "sink", 2, "auto")
	e := endpoint(b, tr, 1)
	cma, _ := tr.CMA()
	const window = 64
	for _, proto := range []string{"pipeline", "get"} {
		if proto == "get" && !cma {
			continue
		}
		for _, n := range []int{64 << 10, 1 << 20, 4 << 20} {
			b.Run(proto+"/"+sizeName(n), func(b *testing.B) {
				msg := fill(make([]byte, n), 1)
				addr := uint64(uintptr(unsafe.Pointer(&msg[0])))
				frag := e.MaxPayload()
				acks := 0
				hd := handlerFunc(func(h *transport.Header, p []byte) { acks++ })
				wait := func(want int) {
					for acks < want {
						tr.Poll(hd)
					}
				}
				// Headers live outside the loop: a *Header passed through the Endpoint
				// interface escapes, so a fresh one per call would be a heap allocation.
				fh := transport.Header{Kind: kFrag, Len: uint64(n)}
				rts := transport.Header{Kind: kRTS, Len: uint64(n), Addr: addr}
				sync := transport.Header{Kind: kSync}
				b.ReportAllocs()
				b.SetBytes(int64(n))
				b.ResetTimer()
				sent := 0
				best := chunkTimer{chunk: window}
				best.add(0)
				for i := 0; i < b.N; i++ {
					if proto == "pipeline" {
						for off := 0; off < n; off += frag {
							fh.Offset = uint64(off)
							if err := mustSend(tr, e, &fh, msg[off:min(off+frag, n)], hd); err != nil {
								b.Fatal(err)
							}
						}
					} else {
						if err := mustSend(tr, e, &rts, nil, hd); err != nil {
							b.Fatal(err)
						}
						sent++
					}
					if (i+1)%window == 0 || i == b.N-1 {
						if proto == "pipeline" {
							mustSend(tr, e, &sync, nil, hd)
							sent++
						}
						wait(sent)
						if (i+1)%window == 0 { // full windows only: comparable timings
							best.add(window)
						}
					}
				}
				if v, ok := best.best(); ok {
					b.ReportMetric(float64(n)/v*1e3, "MB/s-best")
				}
			})
		}
	}
	mustSend(tr, e, &transport.Header{Kind: kStop}, nil, nil)
	j.wait(b)
}

// chunkTimer keeps the fastest chunk of iterations. The machine these run on is
// shared, and a spinning benchmark loses whole scheduler slices whenever another
// process runs; the best chunk estimates the uncontended cost, next to the mean.
type chunkTimer struct {
	chunk, n int
	start    time.Time
	min      time.Duration
}

// add counts k iterations done since the last call; the first call only starts the clock.
func (c *chunkTimer) add(k int) {
	now := time.Now()
	if c.start.IsZero() {
		c.start = now
		return
	}
	c.n += k
	if c.n >= c.chunk {
		if d := now.Sub(c.start) / time.Duration(c.n); c.min == 0 || d < c.min {
			c.min = d
		}
		c.n, c.start = 0, now
	}
}

// best is the fastest per-iteration time in nanoseconds.
func (c *chunkTimer) best() (float64, bool) { return float64(c.min.Nanoseconds()), c.min > 0 }

// BenchmarkReadFrom is a get's copy alone, in one process: of Go memory, by
// process_vm_readv, which pins every page on every call ("cma"), and of memory from
// Alloc, through a mapping of it ("mapped").
func BenchmarkReadFrom(b *testing.B) {
	ts := inProcess(b, 2, Options{})
	if ok, why := ts[1].CMA(); !ok {
		b.Skip("no CMA here: " + why)
	}
	for _, n := range []int{32 << 10, 512 << 10} {
		p := Alloc(n, 0)
		if p == nil {
			b.Fatal("Alloc served nothing")
		}
		srcs := map[string][]byte{"cma": fill(make([]byte, n), 1), "mapped": fill(unsafe.Slice((*byte)(p), n), 1)}
		dst := make([]byte, n)
		for _, way := range []string{"cma", "mapped"} {
			addr := uint64(uintptr(unsafe.Pointer(&srcs[way][0])))
			b.Run(way+"/"+sizeName(n), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					if err := ts[1].ReadFrom(0, dst, addr); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		Free(p)
	}
}
