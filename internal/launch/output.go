package launch

import (
	"bytes"
	"io"
	"strconv"
	"sync"
)

// lineWriter serialises whole lines from many ranks onto one destination, so lines
// never interleave mid-line.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lineWriter) write(b []byte) {
	lw.mu.Lock()
	lw.w.Write(b)
	lw.mu.Unlock()
}

// maxLine bounds how much of a line without a newline is held back; past it the text is
// written as a line of its own rather than buffering without limit.
const maxLine = 1 << 20

// writeTagged writes a batch of whole lines, each prefixed with tag when tag is not
// empty, in one write; out is scratch space, returned for reuse.
func (lw *lineWriter) writeTagged(tag string, lines, out []byte) []byte {
	if tag == "" {
		lw.write(lines)
		return out
	}
	out = out[:0]
	for len(lines) > 0 {
		i := bytes.IndexByte(lines, '\n') + 1
		if i == 0 {
			i = len(lines)
		}
		out = append(out, tag...)
		out = append(out, lines[:i]...)
		lines = lines[i:]
	}
	lw.write(out)
	return out
}

// forward copies r to lw a batch of whole lines at a time, each prefixed with tag when
// tag is not empty, until r ends; a last line without a newline gets one. watch, if
// not nil, sees each batch first.
func forward(r io.Reader, lw *lineWriter, tag string, watch func(lines []byte)) {
	buf := make([]byte, 0, 64<<10)
	var out []byte
	emit := func(lines []byte) {
		if watch != nil {
			watch(lines)
		}
		out = lw.writeTagged(tag, lines, out)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			emit(buf[:i+1])
			buf = buf[:copy(buf, buf[i+1:])]
		} else if len(buf) >= maxLine {
			emit(append(buf, '\n'))
			buf = buf[:0]
		}
		if err != nil {
			if len(buf) > 0 {
				emit(append(buf, '\n'))
			}
			return
		}
	}
}

// tag is the prefix of rank r's lines under --tag-output: "[r] " in the first job,
// "[k:r] " in spawned job k.
func (n *node) tag(r int) string {
	if !n.spec.TagOutput || n.no == 0 {
		return rankTag(n.spec.TagOutput, r)
	}
	return "[" + strconv.Itoa(n.no) + ":" + strconv.Itoa(r) + "] "
}

// rankTag is the prefix of rank r's lines under --tag-output.
func rankTag(on bool, r int) string {
	if !on {
		return ""
	}
	return "[" + strconv.Itoa(r) + "] "
}
