package group

import (
	"math/bits"
	"sort"
)

// runStore holds a group as runs, each an arithmetic progression of world ranks. The
// runs are stored as columns of one slice, so that each search reads one contiguous
// column:
//
//	r[0:nr]     cum: members before run k (a run's length is the next cum minus its own)
//	r[nr:2nr]   first: the world rank of the run's first member
//	r[2nr:3nr]  step, only when some step is not 1 (w == 3)
//	then        order, low: run indices by lowest member, and those lowest members,
//	            only when the first column is not already ascending lowest members
//	then        jump: samples of cum, for rank -> world rank
//	then        rjump: samples of the lowest members, for world rank -> rank
//
// With every step 1 a run costs 8 bytes, as in Open MPI's sporadic groups. A sample
// column (see sampled) replaces the top levels of a binary search, which otherwise
// cost a dependent load each: the search that remains covers a few runs. Each holds
// about one entry per four runs, so at most a byte per run, and only groups of more
// than 16 runs have them.
type runStore struct {
	r      []int32
	nr     int32 // number of runs
	w      uint8 // columns per run: 2 or 3
	shift  uint8 // jump samples every 1<<shift members; 0: no jump column
	rshift uint8 // rjump samples every 1<<rshift world ranks; 0: no rjump column
	mode   uint8 // how reverse lookups find a run
}

const (
	modeFirst   = iota // the first column holds the runs' lowest members, ascending
	modeOrdered        // the order and low columns are present
	modeScan           // runs interleave (as in the union of two strided groups): try each
)

func (s *runStore) nruns() int { return int(s.nr) }

// run returns run k's first member rank, first world rank, step and length.
func (s *runStore) run(k int, n int32) (cum, first, step, count int32) {
	nr := int(s.nr)
	cum, first, step = s.r[k], s.r[nr+k], 1
	if s.w == 3 {
		step = s.r[2*nr+k]
	}
	if k+1 < nr {
		count = s.r[k+1] - cum
	} else {
		count = n - cum
	}
	return
}

func (s *runStore) worldRank(i, n int32) int32 {
	nr := int(s.nr)
	var k int
	if s.shift != 0 {
		at := s.jumpAt()
		k = sampled(s.r[:nr], s.r[at:at+sampleLen(int64(n-1), 0, s.shift)], 0, s.shift, i)
	} else {
		k = lastLE(s.r[:nr], i)
	}
	if s.w == 3 {
		return s.r[nr+k] + (i-s.r[k])*s.r[2*nr+k]
	}
	return s.r[nr+k] + i - s.r[k]
}

// jumpAt is where the jump column starts.
func (s *runStore) jumpAt() int {
	at := int(s.nr) * int(s.w)
	if s.mode == modeOrdered {
		at += 2 * int(s.nr)
	}
	return at
}

// lows is the column of the runs' lowest members, ascending.
func (s *runStore) lows() []int32 {
	nr := int(s.nr)
	if s.mode == modeOrdered {
		at := nr * int(s.w)
		return s.r[at+nr : at+2*nr]
	}
	return s.r[nr : 2*nr]
}

// sampleShift picks a sampling of keys spread over span values for runs runs: about
// four runs per sample on average, and no samples when a plain binary search is short.
func sampleShift(span, runs int64) uint8 {
	if runs <= 16 {
		return 0
	}
	return uint8(max(1, bits.Len64(uint64(4*span/runs))-1))
}

// sampleLen is the length of a sample column over keys k0..kmax: one sample per
// 1<<shift values and a sentinel.
func sampleLen(kmax, k0 int64, shift uint8) int {
	if shift == 0 {
		return 0
	}
	return int((kmax-k0)>>shift) + 2
}

// fillSamples sets dst[j] to the last position p whose key is at most
// k0 + j<<shift, and the sentinel to the last position.
func fillSamples(dst, keys []int32, k0 int32, shift uint8) {
	p := 0
	for j := range len(dst) - 1 {
		t := int64(k0) + int64(j)<<shift
		for p+1 < len(keys) && int64(keys[p+1]) <= t {
			p++
		}
		dst[j] = int32(p)
	}
	dst[len(dst)-1] = int32(len(keys) - 1)
}

// sampled returns the last position p with keys[p] <= x, given keys[0] <= x, using
// the samples to narrow the search to the positions between two samples.
func sampled(keys, samples []int32, k0 int32, shift uint8, x int32) int {
	j := min(int((int64(x)-int64(k0))>>shift), len(samples)-2)
	lo, hi := int(samples[j]), int(samples[j+1])
	return lo + lastLE(keys[lo:hi+1], x)
}

// lastLE returns the largest k with a[k] <= x, given a[0] <= x. The loop has no
// data-dependent branch (the compiler cannot be relied on for a conditional move, so
// the choice is arithmetic), which matters more than the number of probes: a
// mispredicted branch per level costs more than the load.
func lastLE(a []int32, x int32) int {
	base, n := 0, len(a)
	for n > 1 {
		half := n >> 1
		gt := int((int64(x) - int64(a[base+half])) >> 63) // all ones when a[base+half] > x
		base += half &^ gt
		n -= half
	}
	return base
}

// low is run k's lowest world rank.
func (s *runStore) low(k int, n int32) int32 {
	_, first, step, count := s.run(k, n)
	if step < 0 {
		return first + (count-1)*step
	}
	return first
}

// high is run k's highest world rank.
func (s *runStore) high(k int, n int32) int32 {
	_, first, step, count := s.run(k, n)
	if step > 0 {
		return first + (count-1)*step
	}
	return first
}

func (s *runStore) rankIn(k int, w, n int32) int32 {
	cum, first, step, count := s.run(k, n)
	d := w - first
	if step != 1 {
		if d%step != 0 {
			return -1
		}
		d /= step
	}
	if d < 0 || d >= count {
		return -1
	}
	return cum + d
}

func (s *runStore) rank(w, n int32) int32 {
	nr := s.nruns()
	if s.mode == modeScan {
		for k := range nr {
			if r := s.rankIn(k, w, n); r >= 0 {
				return r
			}
		}
		return -1
	}
	// Spans are disjoint: only the last run whose lowest member is at most w can
	// hold it.
	lows := s.lows()
	if lows[0] > w {
		return -1
	}
	var p int
	if s.rshift != 0 {
		at := s.jumpAt() + sampleLen(int64(n-1), 0, s.shift)
		rj := s.r[at : at+sampleLen(int64(lows[nr-1]), int64(lows[0]), s.rshift)]
		p = sampled(lows, rj, lows[0], s.rshift, w)
	} else {
		p = lastLE(lows, w)
	}
	if s.mode == modeOrdered {
		p = int(s.r[int(s.w)*nr+p])
	}
	return s.rankIn(p, w, n)
}

func (s *runStore) each(n int32, f func(int32) bool) {
	for k := range s.nruns() {
		_, first, step, count := s.run(k, n)
		for c, w := int32(0), first; c < count; c, w = c+1, w+step {
			if !f(w) {
				return
			}
		}
	}
}

// fillRuns cuts the members into runs the way the pricing pass counted them, then
// indexes them for reverse lookups. It returns nil when strided runs interleave and
// there are too many to scan.
func fillRuns(src source, n int32, unit bool, s *shape) *runStore {
	rs := &runStore{w: 3}
	nruns := s.strided.runs
	if unit {
		rs.w, nruns = 2, s.unit.runs
	}
	nr := int(nruns)
	r := make([]int32, nr*(int(rs.w)+2)) // temporary: columns, order and low
	cur := runCounter{unit: unit}
	var cum int32
	k := 0
	emit := func(first, step, count int32) {
		r[k], r[nr+k] = cum, first
		if !unit {
			r[2*nr+k] = step
		}
		k++
		cum += count
	}
	src(func(w int32) bool {
		first, step, count := cur.first, cur.step, cur.count
		if cur.add(w) && count > 0 {
			emit(first, step, count)
		}
		return true
	})
	emit(cur.first, cur.step, cur.count)
	rs.r = r[:nr*int(rs.w)]
	rs.nr = int32(nr)

	// Runs whose spans ascend, each from its first member, need no index: the first
	// column is sorted. Otherwise sort the runs by lowest member and check the spans
	// do not overlap, which unit runs never do.
	ascending := true
	for k := 0; k < nr && ascending; k++ {
		ascending = (k+1 == nr || rs.high(k, n) < rs.low(k+1, n)) && rs.low(k, n) == r[nr+k]
	}
	if !ascending {
		order := r[nr*int(rs.w) : nr*int(rs.w)+nr]
		for k := range order {
			order[k] = int32(k)
		}
		sort.Slice(order, func(a, b int) bool { return rs.low(int(order[a]), n) < rs.low(int(order[b]), n) })
		rs.mode = modeOrdered
		for p := 0; p+1 < nr; p++ {
			if rs.high(int(order[p]), n) >= rs.low(int(order[p+1]), n) {
				if nr > maxScanRuns {
					return nil
				}
				rs.mode = modeScan
				break
			}
		}
		if rs.mode == modeOrdered {
			rs.r = r[:nr*int(rs.w)+2*nr]
			for p, k := range order {
				rs.r[nr*int(rs.w)+nr+p] = rs.low(int(k), n)
			}
		}
	}
	return rs.withSamples(n)
}

// withSamples copies the runs into a slice of the exact final size, adding the sample
// columns when there are enough runs to need them.
func (rs *runStore) withSamples(n int32) *runStore {
	nr := int64(rs.nr)
	rs.shift = sampleShift(int64(n), nr)
	jlen := sampleLen(int64(n-1), 0, rs.shift)
	var rlen int
	if rs.mode != modeScan {
		lows := rs.lows()
		rs.rshift = sampleShift(int64(lows[nr-1])-int64(lows[0])+1, nr)
		rlen = sampleLen(int64(lows[nr-1]), int64(lows[0]), rs.rshift)
	}
	r := sized[int32](len(rs.r) + jlen + rlen)
	copy(r, rs.r)
	rs.r = r
	at := rs.jumpAt()
	if jlen > 0 {
		fillSamples(r[at:at+jlen], r[:nr], 0, rs.shift)
	}
	if rlen > 0 {
		lows := rs.lows()
		fillSamples(r[at+jlen:at+jlen+rlen], lows, lows[0], rs.rshift)
	}
	return rs
}

// runsCost is the size of a runStore's slice for runs runs of per bytes over n
// members; the order and low columns, which depend on the runs, are left out.
func runsCost(n, runs, per int64) int64 {
	return per*runs + 4*int64(sampleLen(n-1, 0, sampleShift(n, runs))) + runs // rjump: about a byte per run
}
