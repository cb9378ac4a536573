package pmi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxMessage bounds one message from the server: a broken or foreign server must not
// make a rank allocate without limit. Values are at most a few KiB.
const maxMessage = 1 << 20

// link is the byte stream to the process manager. Both dialects are strictly
// lock-step: exchange holds mu from its request's write to its reply's read, so one
// request is outstanding at a time. Writes also take wmu, which Abort takes alone, so
// that Abort is sent even while another goroutine waits in a fence.
type link struct {
	c       net.Conn
	mu      sync.Mutex // one request/reply exchange at a time
	wmu     sync.Mutex // one write at a time
	buf     []byte     // bytes read from c and not yet consumed (servers batch replies)
	timeout time.Duration
}

// deadline returns the read deadline for a reply expected within d (none if d <= 0).
func deadline(d time.Duration) time.Time {
	if d <= 0 {
		return time.Time{}
	}
	return time.Now().Add(d)
}

// write sends b in one write call: Slurm reads each command with one read(2) of a fixed
// size, so a command split over two writes could be taken for two.
func (l *link) write(b []byte) error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	if l.timeout > 0 {
		l.c.SetWriteDeadline(time.Now().Add(l.timeout))
	}
	_, err := l.c.Write(b)
	return err
}

// fill reads more bytes from the server into buf, by the deadline.
func (l *link) fill(dl time.Time) error {
	if err := l.c.SetReadDeadline(dl); err != nil {
		return err
	}
	if cap(l.buf)-len(l.buf) < 512 {
		nb := make([]byte, len(l.buf), 2*cap(l.buf)+4096)
		copy(nb, l.buf)
		l.buf = nb
	}
	n, err := l.c.Read(l.buf[len(l.buf):cap(l.buf)])
	l.buf = l.buf[:len(l.buf)+n]
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// consume removes the first n bytes of buf and returns them as a string.
func (l *link) consume(n int) string {
	s := string(l.buf[:n])
	rest := copy(l.buf, l.buf[n:])
	l.buf = l.buf[:rest]
	return s
}

// readLine returns the next '\n'-terminated line, without the '\n'.
func (l *link) readLine(d time.Duration) (string, error) {
	dl := deadline(d)
	for {
		if i := bytes.IndexByte(l.buf, '\n'); i >= 0 {
			s := l.consume(i + 1)
			return s[:i], nil
		}
		if len(l.buf) > maxMessage {
			return "", fmt.Errorf("a line longer than %d bytes", maxMessage)
		}
		if err := l.fill(dl); err != nil {
			return "", err
		}
	}
}

// readFull returns the next n bytes.
func (l *link) readFull(n int, d time.Duration) (string, error) {
	dl := deadline(d)
	for len(l.buf) < n {
		if err := l.fill(dl); err != nil {
			return "", err
		}
	}
	return l.consume(n), nil
}

// readErr words a failed read for people: what was awaited, and why it did not come.
func readErr(what string, d time.Duration, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("PMI: no answer to %s within %v from the process manager", what, d)
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("PMI: the process manager closed the connection while %s was awaited", what)
	}
	return fmt.Errorf("PMI: reading the answer to %s: %w", what, err)
}

// fields is a parsed message: its key=value pairs in order. Replies have a handful of
// fields, so a slice scanned linearly is cheaper than a map.
type fields []string // key, value, key, value, ...

func (f fields) get(k string) (string, bool) {
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] == k {
			return f[i+1], true
		}
	}
	return "", false
}

// rc returns the message's return code; servers may leave it out (then 0).
func (f fields) rc() (int, error) {
	v, ok := f.get("rc")
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("rc=%q is not a number", v)
	}
	return n, nil
}

// String shows a reply in error messages as the server sent it (in one line).
func (f fields) String() string {
	var b strings.Builder
	for i := 0; i+1 < len(f); i += 2 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f[i])
		b.WriteByte('=')
		v := f[i+1]
		if len(v) > 80 {
			v = v[:77] + "..."
		}
		b.WriteString(v)
	}
	return b.String()
}

// parseFields splits a message into key=value pairs at sep. A token without '=' is
// kept as a key with an empty value (Hydra 4.0 sends a bare "barrier_out" command);
// a value may contain '=' (messages do).
func parseFields(s string, sep byte) fields {
	var f fields
	for len(s) > 0 {
		var tok string
		if i := strings.IndexByte(s, sep); i >= 0 {
			tok, s = s[:i], s[i+1:]
		} else {
			tok, s = s, ""
		}
		tok = strings.TrimSpace(tok)
		if tok == "" {
			continue
		}
		if i := strings.IndexByte(tok, '='); i >= 0 {
			f = append(f, tok[:i], tok[i+1:])
		} else {
			f = append(f, tok, "")
		}
	}
	return f
}
