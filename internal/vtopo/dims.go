package vtopo

import (
	"math"
	"math/bits"
	"slices"
)

// MaxNodes is the largest nnodes DimsCreate takes: MPI's nnodes is a C int. The bound
// also keeps factorising nnodes by trial division quick (at most 46341 trials).
const MaxNodes = math.MaxInt32

// DimsCreate fills the zero entries of dims so that the grid has nnodes points and
// the dimensions it sets are balanced (MPI_Dims_create; the package doc says how),
// in non-increasing order. Positive entries are fixed and kept. It fails for a
// negative entry, and when nnodes is not the product of the fixed entries times what
// the free ones can take. ndims = len(dims) may be zero.
func DimsCreate(nnodes int, dims []int) error {
	if nnodes < 1 || nnodes > MaxNodes {
		return errorf(ErrArg, "nnodes = %d must be in [1,%d]", nnodes, MaxNodes)
	}
	fixed, free := 1, 0
	for i, d := range dims {
		switch {
		case d < 0:
			return errorf(ErrDims, "dims[%d] = %d must not be negative (0 lets MPI choose it)", i, d)
		case d == 0:
			free++
		default:
			if d > nnodes/fixed {
				// Also keeps the product from overflowing.
				return errorf(ErrDims, "the fixed dims %v multiply to more than nnodes = %d", dims, nnodes)
			}
			fixed *= d
		}
	}
	if nnodes%fixed != 0 {
		return errorf(ErrDims, "nnodes = %d is not a multiple of %d, the product of the fixed dims %v", nnodes, fixed, dims)
	}
	rest := nnodes / fixed
	if free == 0 {
		if rest != 1 {
			return errorf(ErrDims, "the dims %v are all fixed and multiply to %d, not nnodes = %d", dims, fixed, nnodes)
		}
		return nil
	}
	f := balanced(rest, free)
	k := 0
	for i := range dims {
		if dims[i] == 0 {
			dims[i] = f[k]
			k++
		}
	}
	return nil
}

// balanced splits n (at least 1) into k (at least 1) factors, largest first, with the
// smallest spread (largest minus smallest); of those, the one whose smallest factor
// is largest, then whose second smallest is, and so on.
//
// For a given largest factor top, the spread is smallest when the smallest factor is
// largest, so the search is over top, from the k-th root of n up, asking each time for
// the largest smallest factor the rest can have (f.maxMin). It stops once a lower
// bound on the spread of a larger top exceeds the best spread found; at equal spread
// the larger top has the larger smallest factor, so it wins. The factors between top
// and the smallest are then chosen from the smallest up, each the largest that still
// lets the rest fit between it and top.
func balanced(n, k int) []int {
	primes := primeFactors(n)
	if k == 1 {
		return []int{n}
	}
	if k >= len(primes) {
		// As many factors as primes or more: the primes themselves, padded with ones,
		// are the split. Merging two primes would leave a 1 and a larger largest.
		out := make([]int, k)
		for i, p := range primes {
			out[len(primes)-1-i] = p
		}
		for i := len(primes); i < k; i++ {
			out[i] = 1
		}
		return out
	}
	f := &factoring{divs: divisors(primes), memo: map[split]int{}}
	top, lo, best := n, 1, math.MaxInt
	for _, d := range f.divs {
		if !powAtLeast(d, k, n) {
			continue // d cannot be the largest: k factors of at most d would not reach n
		}
		if d-min(d, iroot(n/d, k-1)) > best {
			break // a lower bound on the spread, growing with d
		}
		if mm := min(d, f.maxMin(n/d, k-1, d)); mm > 0 && d-mm <= best {
			top, lo, best = d, mm, d-mm
		}
	}
	out := make([]int, k)
	out[0] = top
	rest, prev := n/top, lo
	for i := k - 1; i > 1; i-- {
		// The largest d in [prev, top] for position i that leaves rest/d as i-1
		// factors in [d, top].
		for j := len(f.divs) - 1; j >= 0; j-- {
			d := f.divs[j]
			if d < prev {
				break
			}
			if d <= top && rest%d == 0 && f.maxMin(rest/d, i-1, top) >= d {
				out[i], rest, prev = d, rest/d, d
				break
			}
		}
	}
	out[1] = rest
	return out
}

// factoring is n's divisors, for splitting n into balanced factors, and what is
// known of the splits of its divisors (memo).
type factoring struct {
	divs []int // ascending
	memo map[split]int
}

type split struct{ rest, m, hi int }

// maxMin is the largest possible smallest factor of rest (a divisor of n) split into
// m >= 1 factors of at most hi each, 0 if there is no such split.
func (f *factoring) maxMin(rest, m, hi int) int {
	switch {
	case rest == 1:
		return 1
	case m == 1:
		if rest <= hi {
			return rest
		}
		return 0
	}
	if m > bits.Len(uint(rest)) {
		// More factors than rest has prime factors: some factor is 1, and the others
		// fit if the largest prime does (rest in primes, padded with ones).
		if largestPrime(rest) <= hi {
			return 1
		}
		return 0
	}
	hi = min(hi, rest)
	key := split{rest, m, hi}
	if v, ok := f.memo[key]; ok {
		return v
	}
	best := 0
	for _, d := range f.divs {
		if d > hi {
			break
		}
		if rest%d != 0 || !powAtLeast(d, m, rest) {
			continue // d cannot be the largest: m factors of at most d would not reach rest
		}
		if iroot(rest/d, m-1) <= best {
			break // the smallest of the others is at most this, and it only falls as d grows
		}
		best = max(best, min(d, f.maxMin(rest/d, m-1, d)))
	}
	f.memo[key] = best
	return best
}

// primeFactors is n's prime factors, each as often as it divides n, in ascending
// order, by trial division up to the square root of what is left.
func primeFactors(n int) []int {
	var ps []int
	for p := 2; n > 1; p++ {
		if p > n/p {
			p = n // what is left is prime
		}
		for n%p == 0 {
			n /= p
			ps = append(ps, p)
		}
	}
	return ps
}

// divisors returns the divisors of the product of primes (ascending) in ascending
// order.
func divisors(primes []int) []int {
	divs := []int{1}
	for i := 0; i < len(primes); {
		p, e := primes[i], 0
		for i < len(primes) && primes[i] == p {
			i++
			e++
		}
		cur := len(divs)
		pk := 1
		for range e {
			pk *= p
			for _, d := range divs[:cur] {
				divs = append(divs, d*pk)
			}
		}
	}
	slices.Sort(divs)
	return divs
}

// largestPrime is the largest prime factor of n > 1.
func largestPrime(n int) int {
	ps := primeFactors(n)
	return ps[len(ps)-1]
}

// pow is d**m, or ok = false when that exceeds MaxInt.
func pow(d, m int) (p int, ok bool) {
	p = 1
	for range m {
		if d > 1 && p > math.MaxInt/d {
			return 0, false
		}
		p *= d
	}
	return p, true
}

// powAtLeast reports whether d**m >= x.
func powAtLeast(d, m, x int) bool {
	p, ok := pow(d, m)
	return !ok || p >= x
}

// powAbove reports whether d**m > x.
func powAbove(d, m, x int) bool {
	p, ok := pow(d, m)
	return !ok || p > x
}

// iroot is the largest r with r**m <= x, for x >= 1 and m >= 1.
func iroot(x, m int) int {
	if m <= 1 {
		return x
	}
	r := max(int(math.Pow(float64(x), 1/float64(m))), 1)
	for r > 1 && powAbove(r, m, x) {
		r--
	}
	for !powAbove(r+1, m, x) {
		r++
	}
	return r
}
