package shmcoll

import (
	"runtime"
	"testing"
)

// BenchmarkColl: one collective of two ranks (goroutines of this process) through one
// region: what the ranks pay per call, waits included.
func BenchmarkColl(b *testing.B) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs two Ps: the ranks spin")
	}
	l := Layout{Ranks: 2, Chunk: 4096, Chunks: 4, Slot: 4096}
	for _, tc := range []struct {
		name string
		op   func(g *Group, buf, out []byte) error
	}{
		{"Barrier", func(g *Group, _, _ []byte) error { return g.Barrier() }},
		{"Bcast8", func(g *Group, buf, _ []byte) error { return g.Bcast(buf, 0) }},
		{"Allreduce8", func(g *Group, buf, out []byte) error { return g.Allreduce(buf, out, 8, sumU64) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			mem := region(b, l)
			g0, err := Attach(mem, 0, Options{})
			if err != nil {
				b.Fatal(err)
			}
			g1, err := Attach(mem, 1, Options{})
			if err != nil {
				b.Fatal(err)
			}
			n := b.N
			done := make(chan error)
			go func() {
				buf, out := make([]byte, 8), make([]byte, 8)
				var err error
				for i := 0; i < n && err == nil; i++ {
					err = tc.op(g1, buf, out)
				}
				done <- err
			}()
			buf, out := make([]byte, 8), make([]byte, 8)
			b.ResetTimer()
			for range n {
				if err := tc.op(g0, buf, out); err != nil {
					b.Fatal(err)
				}
			}
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		})
	}
}
