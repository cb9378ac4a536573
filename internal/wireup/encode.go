package wireup

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/mpigo/mpigo/internal/pm"
)

// The column encoding, used both up (a contribution over a child's ranks) and down (the
// whole job): for each key present, the key (2 bytes), the scope (1 byte), then its
// entries in container order (ranks in order, or node ids in order), no names. An entry
// is a uvarint tag: 0 absent, 1 equal to the previous entry of the column, n+2 a value of
// n bytes that follow.
const (
	entryAbsent = 0
	entrySame   = 1
	entryValue  = 2
)

// A Span is the set of ranks and nodes a message covers, in container order: one rank for
// a rank's own contribution, a node's ranks for an agent, everything for the fence result.
type Span struct {
	Ranks []int32 // world ranks, ascending
	Nodes []int32 // node ids, ascending
}

func appendColumn(b []byte, c *column, idx []int32) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(c.key))
	b = append(b, byte(c.scope))
	var prev []byte
	havePrev := false
	emit := func(v []byte) {
		switch {
		case v == nil:
			b = append(b, entryAbsent)
			havePrev = false
		case havePrev && bytes.Equal(v, prev):
			b = append(b, entrySame)
		default:
			b = binary.AppendUvarint(b, uint64(len(v))+entryValue)
			b = append(b, v...)
			prev, havePrev = v, true
		}
	}
	switch c.scope {
	case pm.Job:
		emit(c.vals[0])
	default:
		for _, i := range idx {
			emit(c.vals[i])
		}
	}
	return b
}

// encodeColumns writes the columns of t restricted to span.
func encodeColumns(b []byte, t *Table, sp Span) []byte {
	n := 0
	t.each(func(*column) { n++ })
	b = binary.AppendUvarint(b, uint64(n))
	t.each(func(c *column) {
		idx := sp.Ranks
		if c.scope == pm.Node {
			idx = sp.Nodes
		}
		b = appendColumn(b, c, idx)
	})
	return b
}

// decodeColumns reads columns over span into t (values alias b).
func decodeColumns(b []byte, t *Table, sp Span, size, nnodes int) ([]byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, fmt.Errorf("corrupt column count")
	}
	b = b[k:]
	for ; n > 0; n-- {
		if len(b) < 3 {
			return nil, fmt.Errorf("truncated column header")
		}
		key, scope := pm.Key(binary.LittleEndian.Uint16(b)), pm.Scope(b[2])
		b = b[3:]
		if scope > pm.Job {
			return nil, fmt.Errorf("bad scope %d for key %v", scope, key)
		}
		c := t.colFor(key, scope, slots(scope, size, nnodes))
		if c.scope != scope {
			return nil, fmt.Errorf("key %v put with scope %v and %v", key, c.scope, scope)
		}
		idx := sp.Ranks
		switch scope {
		case pm.Node:
			idx = sp.Nodes
		case pm.Job:
			idx = jobIndex[:]
		}
		var prev []byte
		for _, i := range idx {
			tag, k := binary.Uvarint(b)
			if k <= 0 {
				return nil, fmt.Errorf("truncated entry for key %v", key)
			}
			b = b[k:]
			var v []byte
			switch {
			case tag == entryAbsent:
				prev = nil
				continue
			case tag == entrySame:
				if prev == nil {
					return nil, fmt.Errorf("repeat with no previous value for key %v", key)
				}
				v = prev
			default:
				l := tag - entryValue
				if l > uint64(len(b)) {
					return nil, fmt.Errorf("value of key %v overruns the message", key)
				}
				v, b = b[:l:l], b[l:]
			}
			if int(i) >= len(c.vals) {
				return nil, fmt.Errorf("index %d out of range for key %v", i, key)
			}
			c.vals[i], prev = v, v
		}
	}
	return b, nil
}

var jobIndex = [1]int32{0}

// Down-message flags.
const flagFlate = 1

// compressMin is the size below which compressing does not pay: the deflate header and
// the CPU time outweigh what a short message could save.
const compressMin = 512

// encodeDown builds the fence result sent to every rank: a flags byte, then the columns,
// deflated when that makes the message at least an eighth smaller.
func encodeDown(t *Table, all Span) []byte {
	raw := encodeColumns([]byte{0}, t, all)
	if len(raw) < compressMin {
		return raw
	}
	z := bytes.NewBuffer(make([]byte, 0, len(raw)/2))
	z.WriteByte(flagFlate)
	w := flateWriters.Get().(*flate.Writer)
	w.Reset(z)
	w.Write(raw[1:])
	w.Close()
	flateWriters.Put(w)
	if z.Len() < len(raw)-len(raw)/8 {
		return z.Bytes()
	}
	return raw
}

// A deflate writer costs about a megabyte to make; fences reuse them.
var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// decodeDown parses a fence result into a fresh table.
func decodeDown(msg []byte, all Span, size, nnodes int) (*Table, error) {
	if len(msg) == 0 {
		return nil, fmt.Errorf("empty fence result")
	}
	body := msg[1:]
	if msg[0]&flagFlate != 0 {
		var err error
		body, err = io.ReadAll(flate.NewReader(bytes.NewReader(body)))
		if err != nil {
			return nil, fmt.Errorf("fence result: %v", err)
		}
	} else {
		body = append([]byte(nil), body...) // values alias it; the frame buffer is reused
	}
	t := new(Table)
	rest, err := decodeColumns(body, t, all, size, nnodes)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%d stray bytes after the fence result", len(rest))
	}
	return t, nil
}
