package wireup

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Message types. Up: rank (or agent) to launcher; down: launcher to rank.
const (
	MsgHello    byte = 1  // up: pid (uvarint), then 1 if the rank may use every CPU of its machine (uvarint); the rank has called Init
	MsgFenceUp  byte = 2  // up: a Contribution (see encode.go)
	MsgFenceDn  byte = 3  // down: the fence's result (see encode.go)
	MsgAbort    byte = 4  // up: code (varint), kind (AbortCall or AbortError), message (rest)
	MsgFinalize byte = 5  // up: the rank finished cleanly
	MsgError    byte = 6  // down: the job is failing; text follows
	MsgQuery    byte = 7  // down: where is the rank? It flushes its profile and answers MsgState
	MsgState    byte = 8  // up: the answer to MsgQuery (JSON: internal/prof.Answer)
	MsgReport   byte = 9  // up, before MsgFinalize: the rank's account (JSON: internal/prof.Report)
	MsgRequest  byte = 10 // up: id (uvarint), a Request (JSON; dynamic.go)
	MsgAnswer   byte = 11 // down: the request's id (uvarint), an Answer (JSON)
	MsgShared   byte = 12 // down: 1 while other processes keep the node's CPUs busy, 0 once they stop (uvarint); a rank older than it ignores it
)

// maxFrame bounds a frame: a fence at 16,384 ranks with a few hundred bytes each is
// well under it; anything larger is a corrupt stream.
const maxFrame = 1 << 30

// WriteFrame writes one frame: 4-byte little-endian length of type+body, type, body.
func WriteFrame(w io.Writer, typ byte, body []byte) error {
	buf := make([]byte, 5, 5+len(body))
	binary.LittleEndian.PutUint32(buf, uint32(1+len(body)))
	buf[4] = typ
	_, err := w.Write(append(buf, body...))
	return err
}

// ReadFrame reads one frame into buf (grown as needed) and returns its type and body.
func ReadFrame(r io.Reader, buf []byte) (typ byte, body []byte, err error) {
	var hdr [4]byte
	if _, err = io.ReadFull(r, hdr[:]); err != nil {
		return 0, buf, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n == 0 || n > maxFrame {
		return 0, buf, fmt.Errorf("bad frame length %d", n)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err = io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, buf, err
	}
	return buf[0], buf[1:], nil
}
