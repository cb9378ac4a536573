package core

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

// Ports (MPI_Open_port). A port is a TCP listener of the process that opened it; its
// name carries the host, a random token and the listener's addresses:
//
//	mpigo-port:HOST:TOKEN:ADDR,ADDR,...
//
// The roots of the accepting and the connecting group meet on it: the connector
// proves it knows the token (a connection that does not is dropped and the port keeps
// listening), then the two swap their groups' records (procRec) over the connection.
// Everything after that runs over the transports.

// portPrefix begins every port name mpigo makes.
const portPrefix = "mpigo-port:"

// MaxPortName bounds a port name (MPI_MAX_PORT_NAME of the C ABI, less its NUL).
const MaxPortName = 1023

// connectTimeout bounds a connector's dial of each of the port's addresses, and each
// step of the roots' exchange once both are in it.
const connectTimeout = 30 * time.Second

type port struct {
	ln    net.Listener
	token string
}

// OpenPortCore opens a port and returns its name.
func OpenPortCore(op string) (string, error) {
	if err := Ready(op); err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		return "", Wrap(ClassPort, op, "listening for connections", err)
	}
	tok := make([]byte, 16)
	rand.Read(tok)
	p := &port{ln: ln, token: hex.EncodeToString(tok)}
	name := portPrefix + hostName() + ":" + p.token + ":" + strings.Join(portAddrs(ln.Addr().(*net.TCPAddr).Port), ",")
	if len(name) > MaxPortName {
		ln.Close()
		return "", Errorf(ClassPort, op, "the port's name would take %d bytes, more than MPI_MAX_PORT_NAME allows", len(name))
	}
	dyn.Lock()
	if dyn.ports == nil {
		dyn.ports = map[string]*port{}
	}
	dyn.ports[name] = p
	dyn.Unlock()
	return name, nil
}

func hostName() string {
	h, _ := os.Hostname()
	if h == "" || strings.ContainsAny(h, ":,") {
		h = "localhost"
	}
	return h
}

// portAddrs lists host:port for every address a peer may reach this host on: the
// routable interfaces first, loopback last.
func portAddrs(p int) []string {
	var out, lo []string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.To4() == nil {
			continue
		}
		hp := net.JoinHostPort(ipn.IP.String(), fmt.Sprint(p))
		if ipn.IP.IsLoopback() {
			lo = append(lo, hp)
		} else {
			out = append(out, hp)
		}
	}
	if len(lo) == 0 {
		lo = []string{net.JoinHostPort("127.0.0.1", fmt.Sprint(p))}
	}
	return append(out, lo...)
}

// ClosePortCore closes a port this process opened.
func ClosePortCore(op, name string) error {
	dyn.Lock()
	p := dyn.ports[name]
	delete(dyn.ports, name)
	dyn.Unlock()
	if p == nil {
		return Errorf(ClassPort, op, "port %q is not open in this process (it was closed, or opened elsewhere)", name)
	}
	p.ln.Close()
	return nil
}

// parsePort splits a port name into its host, token and addresses.
func parsePort(op, name string) (host, token string, addrs []string, err error) {
	rest, ok := strings.CutPrefix(name, portPrefix)
	parts := strings.SplitN(rest, ":", 3)
	if !ok || len(parts) != 3 || parts[1] == "" || parts[2] == "" {
		return "", "", nil, Errorf(ClassPort, op, "%q is not a port name mpigo made (MPI_Open_port gives one: %sHOST:TOKEN:ADDRESSES)", name, portPrefix)
	}
	return parts[0], parts[1], strings.Split(parts[2], ","), nil
}

// The roots' exchange is frames of a 4-byte length and a body; hello is the
// connector's first.
const helloMagic = "MPGC1"

func writeMsg(c net.Conn, b []byte) error {
	c.SetWriteDeadline(time.Now().Add(connectTimeout))
	buf := binary.LittleEndian.AppendUint32(make([]byte, 0, 4+len(b)), uint32(len(b)))
	_, err := c.Write(append(buf, b...))
	return err
}

// readMsg reads one frame; wait bounds the wait for it (0: no bound).
func readMsg(c net.Conn, wait time.Duration) ([]byte, error) {
	if wait > 0 {
		c.SetReadDeadline(time.Now().Add(wait))
	} else {
		c.SetReadDeadline(time.Time{})
	}
	var h [4]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(h[:])
	if n > 1<<30 {
		return nil, fmt.Errorf("a frame of %d bytes", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(c, b)
	return b, err
}

// acceptOn waits for a connector that knows the port's token and returns its
// connection.
func acceptOn(op, name string) (net.Conn, error) {
	dyn.Lock()
	p := dyn.ports[name]
	dyn.Unlock()
	if p == nil {
		return nil, Errorf(ClassPort, op, "port %q is not open in this process (MPI_Open_port opens one; only its opener accepts on it)", name)
	}
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil, Errorf(ClassPort, op, "port %q was closed while accepting", name)
			}
			return nil, Wrap(ClassPort, op, "accepting a connection", err)
		}
		hello, err := readMsg(c, connectTimeout)
		want := helloMagic + p.token
		if err == nil && len(hello) == len(want) && subtle.ConstantTimeCompare(hello, []byte(want)) == 1 {
			return c, nil
		}
		c.Close() // not a connector of this port: keep listening
	}
}

// dialPort reaches the root accepting on the port and proves the token.
func dialPort(op, name string) (net.Conn, error) {
	host, token, addrs, err := parsePort(op, name)
	if err != nil {
		return nil, err
	}
	if host == hostName() {
		// The same machine: loopback first, which every port lists last.
		addrs = append([]string{addrs[len(addrs)-1]}, addrs[:len(addrs)-1]...)
	}
	var last error
	for _, a := range addrs {
		c, err := net.DialTimeout("tcp", a, connectTimeout)
		if err != nil {
			last = err
			continue
		}
		if err := writeMsg(c, []byte(helloMagic+token)); err != nil {
			c.Close()
			last = err
			continue
		}
		return c, nil
	}
	return nil, Wrap(ClassPort, op, fmt.Sprintf("no process listens on port %q (it was closed, or never opened)", name), last)
}

// encodeRecs and decodeRecs carry a group's records between the roots and to the
// members: per process the job id, the rank and the card.
func encodeRecs(recs []procRec) []byte {
	b := binary.AppendUvarint(nil, uint64(len(recs)))
	for _, r := range recs {
		b = appendBytes(b, []byte(r.name.job))
		b = binary.AppendUvarint(b, uint64(r.name.rank))
		b = appendBytes(b, r.card)
	}
	return b
}

func decodeRecs(b []byte) ([]procRec, error) {
	r := wire{b: b}
	recs := make([]procRec, r.count())
	for i := range recs {
		job := r.bytes()
		rank := r.uint()
		card := r.bytes()
		if r.bad || rank > 1<<31-1 {
			return nil, errors.New("malformed process records")
		}
		recs[i] = procRec{procName{string(job), int32(rank)}, append([]byte(nil), card...)}
	}
	if r.bad {
		return nil, errors.New("malformed process records")
	}
	return recs, nil
}
