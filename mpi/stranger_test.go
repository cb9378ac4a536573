package mpi_test

import (
	"net"
	"regexp"
	"testing"
	"time"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpitest"
	"github.com/mpigo/mpigo/mpi"
)

var listenAddr = regexp.MustCompile(`listening on (\S+),`)
var refusedCount = regexp.MustCompile(`(\d+) connections refused`)

// TestStrangerIsRefused: over TCP, a process outside the job that connects to a rank's
// port (garbage, then a made-up handshake) is refused, and the job goes on unharmed.
func TestStrangerIsRefused(t *testing.T) {
	mpitest.Job(t, mpitest.Options{N: 2, Transport: mpitest.TCP}, func(t *testing.T) {
		must(t, mpi.Init())
		w := mpi.World
		if w.Rank() == 0 {
			info, err := core.TransportInfo(0)
			must(t, err)
			m := listenAddr.FindStringSubmatch(info)
			if m == nil {
				t.Fatalf("no listening address in %q", info)
			}
			for _, junk := range [][]byte{[]byte("GET / HTTP/1.0\r\n\r\n"), make([]byte, 4096),
				append([]byte("MPGO"), make([]byte, 200)...)} {
				c, err := net.DialTimeout("tcp", m[1], 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				c.SetDeadline(time.Now().Add(5 * time.Second))
				c.Write(junk)
				c.(*net.TCPConn).CloseWrite() // a short hello would otherwise wait for the handshake timeout
				buf := make([]byte, 64)
				for { // the rank must close the connection on us
					if _, err := c.Read(buf); err != nil {
						break
					}
				}
				c.Close()
			}
		}
		// The job goes on: messages both ways after the strangers.
		for i := 0; i < 100; i++ {
			got := []int{-1}
			_, err := mpi.Sendrecv(w, []int{w.Rank()*1000 + i}, 1-w.Rank(), 0, got, 1-w.Rank(), 0)
			must(t, err)
			if got[0] != (1-w.Rank())*1000+i {
				t.Fatalf("got %d", got[0])
			}
		}
		if w.Rank() == 0 {
			info, _ := core.TransportInfo(0)
			m := refusedCount.FindStringSubmatch(info)
			if m == nil || m[1] != "3" {
				t.Errorf("refusals reported: %q", info)
			}
		}
		must(t, mpi.Finalize())
	})
}
