package wireup

import (
	"fmt"
)

// Collector gathers one fence's contributions from a fixed set of children, each
// covering a span of ranks: single ranks under a launcher on one machine, or per-node
// agents under the root. Once all have arrived, the root encodes the result (Result),
// or an agent forwards the union upward as one message (Up).
type Collector struct {
	lay      *Layout
	children []Span
	got      []bool
	arrived  int
	acc      *Table
}

// NewCollector makes a collector over children's spans.
func NewCollector(lay *Layout, children []Span) *Collector {
	return &Collector{lay: lay, children: children, got: make([]bool, len(children)), acc: new(Table)}
}

// Add records child i's contribution and reports whether every child has contributed.
func (c *Collector) Add(i int, body []byte) (bool, error) {
	if i < 0 || i >= len(c.children) {
		return false, fmt.Errorf("child %d out of range [0,%d)", i, len(c.children))
	}
	if c.got[i] {
		return false, fmt.Errorf("child %d entered the fence twice", i)
	}
	body = append([]byte(nil), body...) // the table aliases it
	rest, err := decodeColumns(body, c.acc, c.children[i], c.lay.Size(), c.lay.NumNodes())
	if err != nil {
		return false, err
	}
	if len(rest) != 0 {
		return false, fmt.Errorf("%d stray bytes in the contribution of child %d", len(rest), i)
	}
	c.got[i] = true
	c.arrived++
	return c.arrived == len(c.children), nil
}

// Result encodes the whole job's fence result and readies the collector for the next fence.
func (c *Collector) Result() []byte {
	msg := encodeDown(c.acc, c.lay.All())
	c.reset()
	return msg
}

// Up encodes the children's contributions as one contribution over span (an agent's
// node), node-scoped values once, and readies the collector for the next fence.
func (c *Collector) Up(span Span) []byte {
	msg := encodeColumns(nil, c.acc, span)
	c.reset()
	return msg
}

func (c *Collector) reset() {
	c.acc = new(Table)
	c.arrived = 0
	clear(c.got)
}
