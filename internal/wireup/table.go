package wireup

import (
	"sort"

	"github.com/mpigo/mpigo/internal/pm"
)

// column holds one key's values: one per rank (proc), per node (node), or one (job).
// A nil entry is a value nobody put.
type column struct {
	key   pm.Key
	scope pm.Scope
	vals  [][]byte
}

// Table is the result of fences: every key's column. Static keys (below 256) are found
// by indexing an array; the few dynamic keys by a binary search over a sorted slice.
type Table struct {
	static [256]*column
	dyn    []*column // sorted by key
}

func (t *Table) col(k pm.Key) *column {
	if k < 256 {
		return t.static[k]
	}
	i := sort.Search(len(t.dyn), func(i int) bool { return t.dyn[i].key >= k })
	if i < len(t.dyn) && t.dyn[i].key == k {
		return t.dyn[i]
	}
	return nil
}

// colFor returns the column for k, creating it with n slots.
func (t *Table) colFor(k pm.Key, s pm.Scope, n int) *column {
	if c := t.col(k); c != nil {
		return c
	}
	c := &column{key: k, scope: s, vals: make([][]byte, n)}
	if k < 256 {
		t.static[k] = c
		return c
	}
	i := sort.Search(len(t.dyn), func(i int) bool { return t.dyn[i].key >= k })
	t.dyn = append(t.dyn, nil)
	copy(t.dyn[i+1:], t.dyn[i:])
	t.dyn[i] = c
	return c
}

// each visits the columns in key order.
func (t *Table) each(f func(*column)) {
	for _, c := range t.static {
		if c != nil {
			f(c)
		}
	}
	for _, c := range t.dyn {
		f(c)
	}
}

// Get returns the value at index i (a rank, a node id, or 0 for job scope).
func (t *Table) Get(k pm.Key, s pm.Scope, i int) ([]byte, bool) {
	c := t.col(k)
	if c == nil || c.scope != s || i < 0 || i >= len(c.vals) || c.vals[i] == nil {
		return nil, false
	}
	return c.vals[i], true
}

// merge copies every value present in src into t (later fences override earlier ones).
func (t *Table) merge(src *Table, size, nnodes int) {
	src.each(func(c *column) {
		d := t.colFor(c.key, c.scope, slots(c.scope, size, nnodes))
		for i, v := range c.vals {
			if v != nil && i < len(d.vals) {
				d.vals[i] = v
			}
		}
	})
}

func slots(s pm.Scope, size, nnodes int) int {
	switch s {
	case pm.Proc:
		return size
	case pm.Node:
		return nnodes
	}
	return 1
}
