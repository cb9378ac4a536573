package wireup

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/pm"
)

// modexPuts is what a rank publishes at Init, shaped as mpigo publishes it: per process
// only what differs between the ranks of a node (pid, shared-memory slot, TCP port); per
// node what they share (the node's address and its cache and socket layout).
func modexPuts(r, ppn int) []put {
	node := r / ppn
	var pid, shm, port [4]byte
	binary.LittleEndian.PutUint32(pid[:], uint32(40000+r))
	binary.LittleEndian.PutUint32(shm[:], uint32(r%ppn)<<20)
	binary.LittleEndian.PutUint16(port[:], uint16(30000+r%ppn))
	ps := []put{
		{pm.KeyPID, pm.Proc, pid[:]},
		{pm.KeyShm, pm.Proc, shm[:]},
		{pm.KeyTCP, pm.Proc, port[:2]},
	}
	if r%ppn == 0 {
		addr := []byte{10, byte(node >> 16), byte(node >> 8), byte(node)}
		topo := make([]byte, 48) // cores, cache sizes and sharing, sockets
		for i := range topo {
			topo[i] = byte(i * 7)
		}
		ps = append(ps, put{pm.Key(pm.KeyNodeTopo), pm.Node, append(addr, topo...)})
	}
	return ps
}

// pmi1Bytes is what the same data costs as PMI-1 style string keys with the rank in
// every key and hex-encoded values ("cmd=get_result rc=0 value=..." per key per peer is
// worse still; this counts only the key=value text every rank must receive).
func pmi1Bytes(n, ppn int) int {
	total := 0
	for r := 0; r < n; r++ {
		for _, p := range modexPuts(r, ppn) {
			key := p.key.String() + "-" + strconv.Itoa(r)
			total += len(key) + 1 + 2*len(p.val) + 1
		}
	}
	return total
}

// BenchmarkFence reports, per rank and per fence, the bytes that cross the wire with
// and without per-node agents, next to the PMI-1 style baseline, and the time a fence
// takes to collect, encode and decode (one rank's decode included).
func BenchmarkFence(b *testing.B) {
	for _, n := range []int{2, 64, 1024, 16384} {
		for _, ppn := range []int{1, 16} {
			if ppn > n {
				continue
			}
			l := blockLayout(n, ppn)
			contribs := make([][]byte, n)
			up := 0
			for r := range contribs {
				contribs[r] = encodePuts(modexPuts(r, ppn))
				up += len(contribs[r]) + 5
			}
			for _, agents := range []bool{false, true} {
				name := fmt.Sprintf("ranks=%d/ppn=%d/agents=%v", n, ppn, agents)
				b.Run(name, func(b *testing.B) {
					b.ReportAllocs()
					var down, agentUp int
					start := time.Now()
					for i := 0; i < b.N; i++ {
						down, agentUp = fenceOnce(b, l, contribs, agents)
					}
					el := time.Since(start)
					nn := l.NumNodes()
					if agents {
						// Over the network: one aggregated message up and one down per node.
						b.ReportMetric(float64(agentUp+down*nn)/float64(n), "wireB/rank")
					} else {
						b.ReportMetric(float64(up+down*n)/float64(n), "wireB/rank")
					}
					b.ReportMetric(float64(up)/float64(n), "upB/rank")
					b.ReportMetric(float64(down), "downB/msg")
					b.ReportMetric(float64(pmi1Bytes(n, ppn)), "pmi1B/rank")
					b.ReportMetric(float64(el.Microseconds())/float64(b.N), "us/fence")
				})
			}
		}
	}
}

func fenceOnce(b *testing.B, l *Layout, contribs [][]byte, agents bool) (down, agentUp int) {
	var msg []byte
	if !agents {
		spans := make([]Span, l.Size())
		for r := range spans {
			spans[r] = l.RankSpan(r)
		}
		root := NewCollector(l, spans)
		for r, c := range contribs {
			if _, err := root.Add(r, c); err != nil {
				b.Fatal(err)
			}
		}
		msg = root.Result()
	} else {
		nodes := l.NodeSpans()
		root := NewCollector(l, nodes)
		for n, ns := range nodes {
			local := NodeLayout(len(ns.Ranks), l.Hosts[n])
			ranks := make([]Span, len(ns.Ranks))
			for i := range ns.Ranks {
				ranks[i] = local.RankSpan(i)
			}
			agent := NewCollector(local, ranks)
			for i, r := range ns.Ranks {
				if _, err := agent.Add(i, contribs[r]); err != nil {
					b.Fatal(err)
				}
			}
			m := agent.Up(local.All())
			agentUp += len(m) + 5
			if _, err := root.Add(n, m); err != nil {
				b.Fatal(err)
			}
		}
		msg = root.Result()
	}
	if _, err := decodeDown(msg, l.All(), l.Size(), l.NumNodes()); err != nil {
		b.Fatal(err)
	}
	return len(msg) + 5, agentUp
}
