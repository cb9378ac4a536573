package topo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// MaxCPU bounds the CPU numbers a CPUSet accepts from text or from the wire, so that a
// corrupt list cannot make us allocate gigabytes. Linux itself stops at 8192 (NR_CPUS).
const MaxCPU = 1 << 16

// CPUSet is a set of logical CPU numbers. The zero value is the empty set. It grows
// as CPUs are added, so it has no fixed limit below MaxCPU.
type CPUSet struct {
	w []uint64
}

// NewCPUSet returns the set of the given CPUs.
func NewCPUSet(cpus ...int) CPUSet {
	var s CPUSet
	for _, c := range cpus {
		s.Add(c)
	}
	return s
}

// Add puts cpu in the set; negative numbers or numbers from MaxCPU up are ignored.
func (s *CPUSet) Add(cpu int) {
	if cpu < 0 || cpu >= MaxCPU {
		return
	}
	i := cpu / 64
	for len(s.w) <= i {
		s.w = append(s.w, 0)
	}
	s.w[i] |= 1 << (uint(cpu) % 64)
}

// AddRange puts lo..hi (inclusive) in the set.
func (s *CPUSet) AddRange(lo, hi int) {
	for c := lo; c <= hi; c++ {
		s.Add(c)
	}
}

// Has reports whether cpu is in the set.
func (s CPUSet) Has(cpu int) bool {
	if cpu < 0 || cpu/64 >= len(s.w) {
		return false
	}
	return s.w[cpu/64]&(1<<(uint(cpu)%64)) != 0
}

// Count is the number of CPUs in the set.
func (s CPUSet) Count() int {
	n := 0
	for _, w := range s.w {
		n += bits.OnesCount64(w)
	}
	return n
}

// IsEmpty reports whether the set has no CPU.
func (s CPUSet) IsEmpty() bool { return s.Count() == 0 }

// List returns the CPUs in increasing order.
func (s CPUSet) List() []int {
	out := make([]int, 0, s.Count())
	for i, w := range s.w {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, i*64+b)
			w &= w - 1
		}
	}
	return out
}

// First returns the lowest CPU, or -1 for the empty set.
func (s CPUSet) First() int {
	for i, w := range s.w {
		if w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// Union returns s ∪ o.
func (s CPUSet) Union(o CPUSet) CPUSet {
	n := max(len(s.w), len(o.w))
	r := CPUSet{w: make([]uint64, n)}
	copy(r.w, s.w)
	for i, w := range o.w {
		r.w[i] |= w
	}
	return r
}

// Intersect returns s ∩ o.
func (s CPUSet) Intersect(o CPUSet) CPUSet {
	n := min(len(s.w), len(o.w))
	r := CPUSet{w: make([]uint64, n)}
	for i := range n {
		r.w[i] = s.w[i] & o.w[i]
	}
	return r
}

// SubsetOf reports whether every CPU of s is in o.
func (s CPUSet) SubsetOf(o CPUSet) bool {
	for i, w := range s.w {
		var ow uint64
		if i < len(o.w) {
			ow = o.w[i]
		}
		if w&^ow != 0 {
			return false
		}
	}
	return true
}

// Equal reports whether s and o hold the same CPUs.
func (s CPUSet) Equal(o CPUSet) bool { return s.SubsetOf(o) && o.SubsetOf(s) }

// String formats the set as a Linux CPU list: "0-3,8,10-11"; the empty set is "".
func (s CPUSet) String() string {
	var b strings.Builder
	list := s.List()
	for i := 0; i < len(list); {
		j := i
		for j+1 < len(list) && list[j+1] == list[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(list[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(list[j]))
		}
		i = j + 1
	}
	return b.String()
}

// ParseCPUList reads a Linux CPU list ("0-3,8,10-11", as in /sys shared_cpu_list and
// cpulist files). Whitespace around the list is ignored; an empty list is the empty set.
func ParseCPUList(text string) (CPUSet, error) {
	var s CPUSet
	text = strings.TrimSpace(text)
	if text == "" {
		return s, nil
	}
	for part := range strings.SplitSeq(text, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := parseCPU(lo)
		if err != nil {
			return CPUSet{}, fmt.Errorf("cpu list %q: %v", text, err)
		}
		b := a
		if isRange {
			if b, err = parseCPU(hi); err != nil {
				return CPUSet{}, fmt.Errorf("cpu list %q: %v", text, err)
			}
			if b < a {
				return CPUSet{}, fmt.Errorf("cpu list %q: range %s ends before it starts", text, part)
			}
		}
		s.AddRange(a, b)
	}
	return s, nil
}

func parseCPU(t string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(t))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a CPU number", t)
	}
	if n >= MaxCPU {
		return 0, fmt.Errorf("CPU %d is not below the limit %d", n, MaxCPU)
	}
	return n, nil
}

// AppendBinary appends the set's wire form: the number of runs, then for each run of
// consecutive CPUs the gap from the end of the previous run and the run's length, all
// as unsigned varints. A core or a whole machine is three or four bytes; it travels in
// the wire-up so that peers learn each other's placement.
func (s CPUSet) AppendBinary(b []byte) ([]byte, error) {
	list := s.List()
	runs := 0
	for i := range list {
		if i == 0 || list[i] != list[i-1]+1 {
			runs++
		}
	}
	b = binary.AppendUvarint(b, uint64(runs))
	next := 0 // first CPU after the previous run
	for i := 0; i < len(list); {
		j := i
		for j+1 < len(list) && list[j+1] == list[j]+1 {
			j++
		}
		b = binary.AppendUvarint(b, uint64(list[i]-next))
		b = binary.AppendUvarint(b, uint64(j-i+1))
		next = list[j] + 1
		i = j + 1
	}
	return b, nil
}

// MarshalBinary returns the set's wire form (see AppendBinary).
func (s CPUSet) MarshalBinary() ([]byte, error) { return s.AppendBinary(nil) }

// UnmarshalBinary reads a set written by MarshalBinary; trailing bytes are an error.
func (s *CPUSet) UnmarshalBinary(data []byte) error {
	r := reader{b: data}
	v := r.cpuset("cpu set")
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("cpu set: %d bytes left over after the set", len(r.b))
	}
	if r.err != nil {
		return r.err
	}
	*s = v
	return nil
}

var errShort = errors.New("data ends early")

// reader decodes the wire forms, keeping the first error so callers check once.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = fmt.Errorf("%s: %w", what, errShort)
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bounded reads a varint and checks it against limit, naming the field on error.
func (r *reader) bounded(what string, limit uint64) int {
	v := r.uvarint(what)
	if r.err == nil && v > limit {
		r.err = fmt.Errorf("%s is %d, above the limit %d", what, v, limit)
		return 0
	}
	return int(v)
}

func (r *reader) str(what string) string {
	n := r.bounded(what+" length", 4096)
	if r.err != nil {
		return ""
	}
	if len(r.b) < n {
		r.err = fmt.Errorf("%s: %w", what, errShort)
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) cpuset(what string) CPUSet {
	var s CPUSet
	runs := r.bounded(what+": run count", MaxCPU)
	next := 0
	for range runs {
		gap := r.bounded(what+": gap", MaxCPU)
		n := r.bounded(what+": run length", MaxCPU)
		if r.err != nil {
			return CPUSet{}
		}
		if n == 0 || next+gap+n > MaxCPU {
			r.err = fmt.Errorf("%s: run of %d CPUs at %d is empty or passes the limit %d", what, n, next+gap, MaxCPU)
			return CPUSet{}
		}
		s.AddRange(next+gap, next+gap+n-1)
		next += gap + n
	}
	return s
}
