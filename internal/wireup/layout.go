package wireup

import (
	"fmt"
	"strconv"
	"strings"
)

// Layout is the shape of a job: which node every rank is on, and the nodes' host names.
// Node ids are dense small integers; the names are for messages to people.
type Layout struct {
	NodeOf []int32  // by rank
	Hosts  []string // by node id
}

// Size is the number of ranks.
func (l *Layout) Size() int { return len(l.NodeOf) }

// NumNodes is the number of nodes.
func (l *Layout) NumNodes() int { return len(l.Hosts) }

// All spans every rank and node.
func (l *Layout) All() Span {
	sp := Span{Ranks: make([]int32, len(l.NodeOf)), Nodes: make([]int32, len(l.Hosts))}
	for i := range sp.Ranks {
		sp.Ranks[i] = int32(i)
	}
	for i := range sp.Nodes {
		sp.Nodes[i] = int32(i)
	}
	return sp
}

// RankSpan is one rank's own span.
func (l *Layout) RankSpan(r int) Span {
	return Span{Ranks: []int32{int32(r)}, Nodes: []int32{l.NodeOf[r]}}
}

// NodeSpans returns every node's span, in one pass over the ranks.
func (l *Layout) NodeSpans() []Span {
	sp := make([]Span, len(l.Hosts))
	for n := range sp {
		sp[n].Nodes = []int32{int32(n)}
	}
	for r, n := range l.NodeOf {
		sp[n].Ranks = append(sp[n].Ranks, int32(r))
	}
	return sp
}

// LocalRank returns r's index among the ranks of its node, and their number.
func (l *Layout) LocalRank(r int) (local, n int) {
	for q, nd := range l.NodeOf {
		if nd == l.NodeOf[r] {
			if q < r {
				local++
			}
			n++
		}
	}
	return local, n
}

// EncodeNodeMap writes the rank-to-node map as runs, "node*count,...": a block mapping
// of any job size is one short line.
func (l *Layout) EncodeNodeMap() string {
	var b strings.Builder
	for i := 0; i < len(l.NodeOf); {
		j := i
		for j < len(l.NodeOf) && l.NodeOf[j] == l.NodeOf[i] {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d*%d", l.NodeOf[i], j-i)
		i = j
	}
	return b.String()
}

// ParseLayout reads a node map written by EncodeNodeMap and a comma-separated host list.
func ParseLayout(nodeMap, hosts string) (*Layout, error) {
	l := &Layout{Hosts: strings.Split(hosts, ",")}
	if nodeMap == "" {
		return nil, fmt.Errorf("empty node map")
	}
	for _, run := range strings.Split(nodeMap, ",") {
		ns, cs, ok := strings.Cut(run, "*")
		node, err1 := strconv.Atoi(ns)
		count, err2 := strconv.Atoi(cs)
		if !ok || err1 != nil || err2 != nil || node < 0 || node >= len(l.Hosts) || count <= 0 {
			return nil, fmt.Errorf("bad node map run %q (want node*count, node < %d)", run, len(l.Hosts))
		}
		for ; count > 0; count-- {
			l.NodeOf = append(l.NodeOf, int32(node))
		}
	}
	return l, nil
}

// NodeLayout is the layout an agent collects its node's ranks over: k ranks, numbered
// from 0, on one node. Contributions carry no rank numbers, so what the agent sends up
// (Collector.Up over NodeLayout(k).All()) is exactly the node's part of the job, and its
// memory grows with its own ranks, not with the job.
func NodeLayout(k int, host string) *Layout {
	return &Layout{NodeOf: make([]int32, k), Hosts: []string{host}}
}
