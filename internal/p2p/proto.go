package p2p

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mpigo/mpigo/internal/transport"
)

func protoOf(flags uint8) transport.Protocol { return transport.Protocol(flags) }

// Range is one row of a selection table: messages of Min to Max bytes (inclusive) use
// Protocol. Model is the cost model that won (zero when the protocol was forced).
type Range struct {
	Min, Max int64
	Protocol transport.Protocol
	Model    transport.Model
}

// Table is the protocol selection of one endpoint, cheapest protocol by message size.
type Table struct {
	Peer       int
	Transport  string
	MaxPayload int
	SingleCopy bool
	Forced     string // "" or the forced protocol
	Ranges     []Range
	// Exchange: a message of up to this size (beyond the eager range; 0: none) to a
	// rank that a receive posted here awaits a message from goes eagerly (exchEager).
	Exchange int64
}

// Select builds the selection table of an endpoint from its cost models, as UCX's
// proto_select does: every size range where the set of applicable models is constant
// is split further where two models' lines cross, and each piece takes the cheapest.
// Eager needs the message in one packet (maxPayload); get needs single copy. force is
// "", "auto", "eager", "pipeline" or "get"; eagerLimit > 0 makes exactly the messages
// up to it (and up to maxPayload) eager, and < 0 lets the models alone decide.
func Select(models []transport.Model, maxPayload int, singleCopy bool, force string, eagerLimit int64) Table {
	t := Table{MaxPayload: maxPayload, SingleCopy: singleCopy}
	eagerCap := int64(maxPayload)
	if eagerLimit > 0 {
		eagerCap = min(eagerCap, eagerLimit)
	}
	const top = math.MaxInt64
	switch force {
	case "eager":
		t.Forced = force
		t.Ranges = []Range{{Min: 0, Max: eagerCap, Protocol: transport.Eager}}
		if eagerCap < top {
			t.Ranges = append(t.Ranges, Range{Min: eagerCap + 1, Max: top, Protocol: transport.Pipeline})
		}
		return t
	case "pipeline":
		t.Forced = force
		t.Ranges = []Range{{Min: 0, Max: top, Protocol: transport.Pipeline}}
		return t
	case "get":
		t.Forced = force
		p := transport.Pipeline
		if singleCopy {
			p = transport.Get
		}
		t.Ranges = []Range{{Min: 0, Max: top, Protocol: p}}
		return t
	}

	var cands []transport.Model
	for _, m := range models {
		if m.Bandwidth <= 0 || m.MinSize < 0 || (m.MaxSize != 0 && m.MaxSize < m.MinSize) {
			continue
		}
		if m.MaxSize == 0 {
			m.MaxSize = top
		}
		switch m.Protocol {
		case transport.Get:
			if !singleCopy {
				continue
			}
		case transport.Eager:
			if eagerLimit > 0 {
				continue // the limit decides, below
			}
			if m.MinSize > eagerCap {
				continue
			}
			m.MaxSize = min(m.MaxSize, eagerCap)
		}
		cands = append(cands, m)
	}
	lo := int64(0)
	if eagerLimit > 0 && eagerCap >= 0 {
		t.Ranges = append(t.Ranges, Range{Min: 0, Max: eagerCap, Protocol: transport.Eager})
		lo = eagerCap + 1
	}

	// Breakpoints: where a model starts or stops applying, and where two lines cross.
	points := []int64{lo}
	for i, a := range cands {
		points = append(points, a.MinSize)
		if a.MaxSize < top {
			points = append(points, a.MaxSize+1)
		}
		for _, b := range cands[i+1:] {
			ia, ib := 1/a.Bandwidth, 1/b.Bandwidth
			if ia == ib {
				continue
			}
			x := (b.Fixed.Seconds() - a.Fixed.Seconds()) / (ia - ib)
			if x > 0 && x < 1<<62 {
				points = append(points, int64(math.Ceil(x)))
			}
		}
	}
	slices.Sort(points)
	points = slices.Compact(points)
	for i, p := range points {
		if p < lo {
			continue
		}
		end := int64(top)
		if i+1 < len(points) {
			end = points[i+1] - 1
		}
		// The order of the lines is constant inside the piece: judge at its middle.
		probe := p + (min(end, p+1<<40)-p)/2
		best, ok := transport.Model{}, false
		bestCost := math.Inf(1)
		for _, m := range cands {
			if probe < m.MinSize || probe > m.MaxSize {
				continue
			}
			c := m.Fixed.Seconds() + float64(probe)/m.Bandwidth
			if c < bestCost || (c == bestCost && m.Protocol < best.Protocol) {
				best, bestCost, ok = m, c, true
			}
		}
		r := Range{Min: p, Max: end, Protocol: transport.Pipeline, Model: best}
		if ok {
			r.Protocol = best.Protocol
		} else {
			r.Model = transport.Model{} // nothing applies: pipeline works on any endpoint
		}
		if n := len(t.Ranges); n > 0 && t.Ranges[n-1].Protocol == r.Protocol {
			t.Ranges[n-1].Max = end
			continue
		}
		t.Ranges = append(t.Ranges, r)
	}
	return t
}

// lookup returns the protocol of an n-byte message.
func (t *Table) lookup(n int64) transport.Protocol {
	for i := range t.Ranges {
		if n <= t.Ranges[i].Max {
			return t.Ranges[i].Protocol
		}
	}
	return transport.Pipeline
}

// selectTables builds p's selection tables from its endpoint's cost models, and prints
// both where the protocol info is on: the table of its messages, and the one a receiver
// consults for a large message that arrives while its own to p is under way (an
// exchange). There both cores copy: a pipeline's
// sender fills the ring while its receiver empties the other way's, so no copy
// overlaps another and every pipelined message costs as one that fits a packet does
// (the pipeline model with MinSize 0, extended to every size), while a get reads each
// message once.
func (e *Engine) selectTables(p *peer) {
	ms := p.ep.Models()
	p.table = Select(ms, p.maxPayload, p.sc != nil, e.force, e.eagerCap)
	p.table.Peer, p.table.Transport = p.rank, p.tr.Name()
	p.eagerMax = p.table.eagerMax()
	p.table.Exchange = e.exchEager(ms, p)
	p.exchange = Select(exchangeModels(ms), p.maxPayload, p.sc != nil, e.force, e.eagerCap)
	p.exchange.Peer, p.exchange.Transport = p.rank, p.tr.Name()
	if e.info != nil {
		fmt.Fprint(e.info, p.table.String(), "in an exchange, ", p.exchange.String())
	}
}

// exchEager is the largest message to p that goes eagerly in an exchange (0: none
// beyond the table's eager range): the transport's own eager limit, where the choice
// is the cost models' (no protocol forced, no eager_limit set). A sender whose peer
// sends to it at the same time (a Sendrecv, a halo's Irecv and Isend) pays a
// rendezvous's handshake twice over, each rank's waiting on the other's progress,
// while an eager message leaves at once and each core copies its own in and the
// other's out; a message alone costs the same either way up to that limit, and beyond
// it an exchange's eager copies lose (docs/BENCHMARKS.md, "Exchanges of 16 KiB").
func (e *Engine) exchEager(ms []transport.Model, p *peer) int64 {
	if e.force != "auto" || e.eagerCap != 0 {
		return 0
	}
	var limit int64
	for _, m := range ms {
		if m.Protocol == transport.Eager && m.MinSize == 0 && m.Bandwidth > 0 {
			limit = max(limit, m.MaxSize)
		}
	}
	if limit = min(limit, int64(p.maxPayload)); limit <= p.eagerMax {
		return 0
	}
	return limit
}

// exchangeModels is models with the pipeline's overlap taken out: its model of the
// messages that fit one packet covers every size, and its others are dropped.
func exchangeModels(models []transport.Model) []transport.Model {
	out := make([]transport.Model, 0, len(models))
	for _, m := range models {
		switch {
		case m.Protocol != transport.Pipeline:
		case m.MinSize == 0:
			m.MaxSize = 0
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// eagerMax is the largest size up to which every message goes eagerly, or -1.
func (t *Table) eagerMax() int64 {
	if len(t.Ranges) > 0 && t.Ranges[0].Min == 0 && t.Ranges[0].Protocol == transport.Eager {
		return min(t.Ranges[0].Max, int64(t.MaxPayload))
	}
	return -1
}

// String prints the table the way `mpigo info` and MPIGO_PROTO_INFO show it.
func (t Table) String() string {
	var b strings.Builder
	sc := "no"
	if t.SingleCopy {
		sc = "yes"
	}
	fmt.Fprintf(&b, "rank %d via %s (max payload %s, single copy %s", t.Peer, t.Transport, FormatSize(int64(t.MaxPayload)), sc)
	if t.Forced != "" {
		fmt.Fprintf(&b, ", forced %s", t.Forced)
	}
	b.WriteString("):\n")
	for _, r := range t.Ranges {
		hi := FormatSize(r.Max)
		if r.Max == math.MaxInt64 {
			hi = "inf"
		}
		fmt.Fprintf(&b, "  %10s .. %-10s %-9s", FormatSize(r.Min), hi, r.Protocol)
		if r.Model.Bandwidth > 0 {
			fmt.Fprintf(&b, " %v + n / %.1f GB/s", r.Model.Fixed, r.Model.Bandwidth/1e9)
		}
		b.WriteByte('\n')
	}
	if t.Exchange > 0 {
		fmt.Fprintf(&b, "  to a rank a posted receive awaits (an exchange): eager up to %s\n", FormatSize(t.Exchange))
	}
	return b.String()
}

// FormatSize prints a byte count exactly and briefly: 512, 4097, 4K, 64M.
func FormatSize(n int64) string {
	units := []string{"", "K", "M", "G", "T", "P"}
	u := 0
	for n != 0 && n%1024 == 0 && u < len(units)-1 {
		n /= 1024
		u++
	}
	return fmt.Sprintf("%d%s", n, units[u])
}
