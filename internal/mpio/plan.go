package mpio

import (
	"slices"
	"sort"
)

// The plan of a two-phase collective access (ROMIO's collective buffering, after
// Thakur, Gropp and Lusk): a few ranks, the aggregators, each own a file domain, a
// contiguous part of the bytes the access spans; every rank sends each aggregator the
// pieces of its data that fall in the aggregator's domain (a write), or receives them
// from it (a read), and the aggregators alone call the file system, with large
// contiguous requests instead of the ranks' many small interleaved ones. An
// aggregator works through its domain a window (cb_buffer_size bytes) at a time: one
// round of the exchange per window.
//
// Everything here is arithmetic on runs, the same on every rank given the same
// inputs: which ranks aggregate (Aggregators), the domains (Domains), a rank's pieces
// per domain (Split) and per round (Window), and what an aggregator writes or reads
// of a window (Cover). The exchange itself is the caller's (internal/mpir's
// file_coll.go: alltoallv over the file's own communicator).

// Piece is a part of a rank's data in a collective access: Len bytes at file offset
// Off, which are bytes [Stream, Stream+Len) of the rank's packed stream.
type Piece struct {
	Off, Len, Stream int64
}

// End is the file offset just past p.
func (p Piece) End() int64 { return p.Off + p.Len }

// Aggregators picks n ranks to aggregate, given the node of each rank (nodeOf[r]):
// spread over the nodes, the lowest rank of each node first (in the order of the
// nodes' lowest ranks), then the second lowest of each, and so on. n is clamped to
// 1..len(nodeOf).
func Aggregators(nodeOf []int, n int) []int {
	n = min(max(n, 1), len(nodeOf))
	var order []int           // nodes, by their lowest rank
	byNode := map[int][]int{} // a node's ranks, ascending
	for r, nd := range nodeOf {
		if _, ok := byNode[nd]; !ok {
			order = append(order, nd)
		}
		byNode[nd] = append(byNode[nd], r)
	}
	aggs := make([]int, 0, n)
	for k := 0; len(aggs) < n; k++ {
		for _, nd := range order {
			if rs := byNode[nd]; k < len(rs) && len(aggs) < n {
				aggs = append(aggs, rs[k])
			}
		}
	}
	slices.Sort(aggs)
	return aggs
}

// Domains divides the file bytes [lo, hi) among n aggregators: n runs in file order,
// each as long as the others but for the last (which may be shorter or empty), their
// boundaries on multiples of align (a block or stripe), so that no two aggregators
// write one block. align <= 0 means 1.
func Domains(lo, hi int64, n int, align int64) []Run {
	align = max(align, 1)
	doms := make([]Run, n)
	if hi <= lo || n <= 0 {
		for i := range doms {
			doms[i] = Run{hi, 0}
		}
		return doms
	}
	size := (hi - lo + int64(n) - 1) / int64(n)
	start := lo
	for i := range doms {
		end := min(roundUpTo(lo+int64(i+1)*size, align), hi)
		if i == n-1 {
			end = hi
		}
		end = max(end, start)
		doms[i] = Run{start, end - start}
		start = end
	}
	return doms
}

func roundUpTo(x, a int64) int64 { return (x + a - 1) / a * a }

// Split cuts a rank's runs (its access, in stream order) at the domains' bounds: the
// pieces of domain i, in stream order, are split[i].
func Split(runs []Run, doms []Run) [][]Piece {
	split := make([][]Piece, len(doms))
	var stream int64
	for _, r := range runs {
		off, end := r.Off, r.End()
		i := sort.Search(len(doms), func(i int) bool { return doms[i].End() > off })
		for off < end && i < len(doms) {
			d := doms[i]
			if d.Len == 0 || off < d.Off {
				i++
				continue
			}
			n := min(end, d.End()) - off
			split[i] = append(split[i], Piece{off, n, stream + off - r.Off})
			off += n
			i++
		}
		stream += r.Len
	}
	return split
}

// Rounds is how many windows of buf bytes the largest of doms takes.
func Rounds(doms []Run, buf int64) int {
	n := 0
	for _, d := range doms {
		n = max(n, int((d.Len+buf-1)/buf))
	}
	return n
}

// Window is the part of pieces (of one domain) that falls in round k's window of
// that domain: file bytes [d.Off+k*buf, d.Off+(k+1)*buf).
func Window(pieces []Piece, d Run, buf int64, k int) []Piece {
	lo := d.Off + int64(k)*buf
	hi := min(lo+buf, d.End())
	var out []Piece
	for _, p := range pieces {
		a, b := max(p.Off, lo), min(p.End(), hi)
		if a < b {
			out = append(out, Piece{a, b - a, p.Stream + a - p.Off})
		}
	}
	return out
}

// Cover is the union of the pieces every rank has in a window, as runs in file order,
// touching ones merged: what an aggregator writes, or reads, of the window. A window
// the ranks cover whole is one run; holes between runs are neither written nor read.
func Cover(pieces [][]Piece) []Run {
	var all []Run
	for _, ps := range pieces {
		for _, p := range ps {
			all = append(all, Run{p.Off, p.Len})
		}
	}
	slices.SortFunc(all, func(a, b Run) int {
		switch {
		case a.Off < b.Off:
			return -1
		case a.Off > b.Off:
			return 1
		}
		return 0
	})
	var out []Run
	for _, r := range all {
		if k := len(out); k > 0 && out[k-1].End() >= r.Off {
			out[k-1].Len = max(out[k-1].End(), r.End()) - out[k-1].Off
			continue
		}
		out = append(out, r)
	}
	return out
}
