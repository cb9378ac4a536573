package pmi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// errNoMapping: the process manager did not say where ranks run. An empty
// PMI_process_mapping is allowed by the protocol ("cannot express it"), so this is not
// a protocol error: the caller falls back to exchanging host names.
var errNoMapping = errors.New("no process mapping")

// mapItem is one element of a PMI_process_mapping vector: a block (start, nodes, ppn)
// that gives ppn consecutive ranks to each of nodes nodes from start, or a group of
// items repeated times times (MPICH 4.1's "[...]xN").
type mapItem struct {
	start, nodes, ppn int
	group             []mapItem
	times             int
}

// ParseMapping turns a PMI_process_mapping value into the node id of each of size ranks
// and the number of nodes. Accepted forms (whitespace anywhere between tokens):
//
//	(vector,(0,2,2))                 2 nodes x 2 ranks, block
//	(vector,(0,2,1),(0,2,1))         cyclic; also (vector,(0,2,1)) repeated to size
//	(vector,(0,1,3),(1,1,1))         uneven
//	(vector,[(0,2,1)]x3,1)           MPICH 4.1: repeats, and a bare node id = (id,1,1)
//
// As in MPICH, a vector that covers fewer than size ranks is repeated from its start.
func ParseMapping(s string, size int) (nodeOf []int32, nnodes int, err error) {
	if size <= 0 {
		return nil, 0, fmt.Errorf("PMI: process mapping for a job of %d ranks", size)
	}
	if strings.TrimSpace(s) == "" {
		return nil, 0, errNoMapping
	}
	p := mapParser{s: s}
	items, err := p.vector()
	if err != nil {
		return nil, 0, fmt.Errorf("PMI: PMI_process_mapping %q: %v", s, err)
	}
	nodeOf = make([]int32, 0, size)
	for len(nodeOf) < size {
		before := len(nodeOf)
		nodeOf = expand(items, nodeOf, size)
		if len(nodeOf) == before {
			return nil, 0, fmt.Errorf("PMI: PMI_process_mapping %q places no rank", s)
		}
	}
	// Node ids must be dense (0..n-1): mpigo indexes arrays by them.
	seen := make([]bool, size)
	for _, n := range nodeOf {
		if int(n) >= size {
			return nil, 0, fmt.Errorf("PMI: PMI_process_mapping %q: node id %d but only %d ranks", s, n, size)
		}
		if !seen[n] {
			seen[n] = true
			nnodes++
		}
	}
	for i := 0; i < nnodes; i++ {
		if !seen[i] {
			return nil, 0, fmt.Errorf("PMI: PMI_process_mapping %q: node %d has no rank but node ids go beyond it", s, i)
		}
	}
	return nodeOf, nnodes, nil
}

// expand appends the node ids items give, stopping at size ranks.
func expand(items []mapItem, out []int32, size int) []int32 {
	for _, it := range items {
		if it.group != nil {
			for t := 0; t < it.times && len(out) < size; t++ {
				out = expand(it.group, out, size)
			}
			continue
		}
		for n := 0; n < it.nodes; n++ {
			for k := 0; k < it.ppn; k++ {
				if len(out) == size {
					return out
				}
				out = append(out, int32(it.start+n))
			}
		}
	}
	return out
}

type mapParser struct {
	s string
	i int
}

func (p *mapParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *mapParser) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *mapParser) expect(c byte) error {
	if p.peek() != c {
		if p.i >= len(p.s) {
			return fmt.Errorf("ends where %q was expected", c)
		}
		return fmt.Errorf("%q at offset %d where %q was expected", p.s[p.i], p.i, c)
	}
	p.i++
	return nil
}

// num reads a non-negative decimal number; mapping numbers are counts and node ids.
func (p *mapParser) num() (int, error) {
	p.space()
	j := p.i
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	if j == p.i {
		return 0, fmt.Errorf("no number at offset %d", p.i)
	}
	n, err := strconv.Atoi(p.s[p.i:j])
	if err != nil || n > 1<<30 {
		return 0, fmt.Errorf("number %q at offset %d is out of range", p.s[p.i:j], p.i)
	}
	p.i = j
	return n, nil
}

func (p *mapParser) vector() ([]mapItem, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	p.space()
	if !strings.HasPrefix(p.s[p.i:], "vector") {
		return nil, errors.New(`does not start with "(vector"`)
	}
	p.i += len("vector")
	items, err := p.list(false)
	if err != nil {
		return nil, err
	}
	if err := p.expect(')'); err != nil {
		return nil, err
	}
	if p.space(); p.i != len(p.s) {
		return nil, fmt.Errorf("trailing text at offset %d", p.i)
	}
	return items, nil
}

// list reads ",item,item..." up to (not including) the closing ')' or, in a group, ']'.
func (p *mapParser) list(inGroup bool) ([]mapItem, error) {
	var items []mapItem
	first := true
	for {
		c := p.peek()
		if c == ')' && !inGroup || c == ']' && inGroup {
			if len(items) == 0 {
				return nil, errors.New("no blocks")
			}
			return items, nil
		}
		if !(inGroup && first) {
			if err := p.expect(','); err != nil {
				return nil, err
			}
		}
		first = false
		it, err := p.item(inGroup)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
}

func (p *mapParser) item(inGroup bool) (mapItem, error) {
	switch p.peek() {
	case '(':
		p.i++
		var v [3]int
		for k := range v {
			if k > 0 {
				if err := p.expect(','); err != nil {
					return mapItem{}, err
				}
			}
			n, err := p.num()
			if err != nil {
				return mapItem{}, err
			}
			v[k] = n
		}
		if err := p.expect(')'); err != nil {
			return mapItem{}, err
		}
		return mapItem{start: v[0], nodes: v[1], ppn: v[2]}, nil
	case '[':
		if inGroup {
			return mapItem{}, fmt.Errorf("nested '[' at offset %d", p.i)
		}
		p.i++
		g, err := p.list(true)
		if err != nil {
			return mapItem{}, err
		}
		if err := p.expect(']'); err != nil {
			return mapItem{}, err
		}
		if err := p.expect('x'); err != nil {
			return mapItem{}, err
		}
		t, err := p.num()
		if err != nil {
			return mapItem{}, err
		}
		return mapItem{group: g, times: t}, nil
	}
	n, err := p.num()
	if err != nil {
		return mapItem{}, err
	}
	return mapItem{start: n, nodes: 1, ppn: 1}, nil
}

// localRanks returns the index of rank among the ranks of its node, and their number.
func localRanks(nodeOf []int32, rank int) (local, nlocal int) {
	me := nodeOf[rank]
	for r, n := range nodeOf {
		if n == me {
			if r < rank {
				local++
			}
			nlocal++
		}
	}
	return local, nlocal
}
