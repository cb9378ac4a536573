package tcp

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/transport"
)

// Open mode between hosts: two processes in network namespaces of their own, joined
// by a veth pair, as two hosts of a network (cmd/mpigo's netns tests build hosts the
// same way). Each has its own loopback, so a card's loopback address is of no use to
// the other: the routable one must be dialled.

// TestOpenChild is one of TestOpenAcrossHosts's processes (it does nothing unless
// MPIGO_TCP_OPEN names its part, "first" or "second"). It prints its card, reads the
// other's from stdin and adds it as peer 1; the first sends packets to the second and
// checks their echoes, the second echoes until told to stop.
func TestOpenChild(t *testing.T) {
	part := os.Getenv("MPIGO_TCP_OPEN")
	if part == "" {
		t.Skip("run by TestOpenAcrossHosts")
	}
	tr, err := Open(Options{HandshakeTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	fmt.Printf("CARD %x\n", tr.Card())
	line, err := bufio.NewReader(os.Stdin).ReadString('\n')
	theirs, herr := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(line), "CARD "))
	if err != nil || herr != nil {
		t.Fatalf("the other card: %q: %v %v", line, err, herr)
	}
	if err := tr.Add(1, theirs); err != nil {
		t.Fatal(err)
	}
	e, err := tr.Endpoint(1)
	if err != nil {
		t.Fatal(err)
	}
	if part == "second" {
		ec := &echo{e: e, t: tr}
		more := deadline(t)
		for !ec.stop && ec.err == nil && tr.PeerErr(1) == nil && more() {
			tr.Poll(ec)
		}
		if err := errors.Join(ec.err, tr.PeerErr(1)); err != nil {
			t.Fatal(err)
		}
		return
	}
	c := &collector{}
	ts, hs := []*Transport{tr}, []transport.Handler{c}
	sizes := []int{0, 8, 4096, e.MaxPayload()}
	for i, n := range sizes {
		send(t, e, &transport.Header{Tag: int32(i)}, pattern(i, n), ts, hs)
	}
	pollUntil(t, func() bool { return len(c.got[1]) == len(sizes) }, ts, hs)
	for i, p := range c.got[1] {
		if p.h.Tag != int32(i) || !bytes.Equal(p.payload, pattern(i, sizes[i])) {
			t.Fatalf("echo %d: tag %d, %d bytes", i, p.h.Tag, len(p.payload))
		}
	}
	send(t, e, &transport.Header{Kind: stopKind}, nil, ts, hs)
	fmt.Println("ECHOED", len(c.got[1]))
}

// TestOpenAcrossHosts runs two processes on two namespace hosts that add each other
// by their cards and exchange packets. It needs root and iproute2 (skipped without).
func TestOpenAcrossHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command (iproute2)")
	}
	id := os.Getpid() % 250
	ns := []string{fmt.Sprintf("mpgtcp%d-a", id), fmt.Sprintf("mpgtcp%d-b", id)}
	ip := func(args ...string) error {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	for _, n := range ns {
		if err := ip("netns", "add", n); err != nil {
			t.Skip("cannot make a network namespace here:", err)
		}
		t.Cleanup(func() { exec.Command("ip", "netns", "del", n).Run() })
	}
	// The veth pair lives in the two namespaces only: the test's own network is left alone.
	steps := [][]string{{"link", "add", "eth0", "netns", ns[0], "type", "veth", "peer", "name", "eth0", "netns", ns[1]}}
	for i, n := range ns {
		steps = append(steps,
			[]string{"-n", n, "addr", "add", fmt.Sprintf("10.78.%d.%d/24", id, 10+i), "dev", "eth0"},
			[]string{"-n", n, "link", "set", "eth0", "up"},
			[]string{"-n", n, "link", "set", "lo", "up"})
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			t.Fatal(err)
		}
	}

	var outs [2]*bufio.Reader
	var ins [2]io.WriteCloser
	var cmds [2]*exec.Cmd
	var stderr [2]bytes.Buffer
	for i, n := range ns {
		cmd := exec.Command("ip", "netns", "exec", n, os.Args[0], "-test.run=^TestOpenChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "MPIGO_TCP_OPEN="+[]string{"first", "second"}[i])
		cmd.Stderr = &stderr[i]
		out, err := cmd.StdoutPipe()
		if err == nil {
			ins[i], err = cmd.StdinPipe()
		}
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		cmds[i], outs[i] = cmd, bufio.NewReader(out)
	}
	var cards [2]string
	for i := range cards {
		line, err := outs[i].ReadString('\n')
		if !strings.HasPrefix(line, "CARD ") || err != nil {
			t.Fatalf("process %d's first line %q: %v; stderr:\n%s", i, line, err, stderr[i].String())
		}
		cards[i] = line
		b, _ := hex.DecodeString(strings.TrimSpace(strings.TrimPrefix(line, "CARD ")))
		c, err := parseCard(b)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("10.78.%d.%d:", id, 10+i)
		if !strings.Contains(strings.Join(c.addrs, " "), want) || !strings.HasPrefix(c.addrs[0], "127.0.0.1:") {
			t.Errorf("process %d's card lists %v, want loopback and %s", i, c.addrs, want)
		}
	}
	for i := range ins {
		io.WriteString(ins[i], cards[1-i])
	}
	rest, _ := io.ReadAll(outs[0])
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\nstderr:\n%s", i, err, stderr[i].String())
		}
	}
	if !strings.Contains(string(rest), "ECHOED 4") {
		t.Errorf("the first process's output: %s", rest)
	}
}
