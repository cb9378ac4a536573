package coll

import (
	"fmt"
	"testing"
)

// nullConn completes every operation at once, moving nothing: it isolates the cost of
// building and running a schedule from the network's.
type nullConn struct{ rank, size int }

func (c nullConn) EagerMax() int                              { return SmallSend }
func (c nullConn) Rank() int                                  { return c.rank }
func (c nullConn) Size() int                                  { return c.size }
func (c nullConn) Isend(b []byte, dest, tag int) (Req, error) { return Req{}, nil }
func (c nullConn) Irecv(b []byte, src, tag int) (Req, error)  { return Req{}, nil }
func (c nullConn) Send(b []byte, dest, tag int) error         { return nil }
func (c nullConn) Recv(b []byte, src, tag int) error          { return nil }
func (c nullConn) Wait(q *Req) error                          { return nil }
func (c nullConn) Test(q *Req) (bool, error)                  { return true, nil }

// BenchmarkSchedule measures building, running and freeing a schedule over a network
// that costs nothing: the collectives' own overhead per call, which must not allocate.
func BenchmarkSchedule(b *testing.B) {
	for _, n := range []int{2, 8} {
		conn := &nullConn{rank: 1, size: n}
		send, recv := make([]byte, 8), make([]byte, 8)
		cases := []struct {
			name string
			f    func(s *Sched)
		}{
			{"Barrier", func(s *Sched) { s.Barrier() }},
			{"Bcast8", func(s *Sched) { s.Bcast(recv, 0) }},
			{"Allreduce8", func(s *Sched) { s.Allreduce(send, recv, sumOp) }},
			{"Reduce8", func(s *Sched) { s.Reduce(send, recv, sumOp, 0) }},
		}
		for _, tc := range cases {
			b.Run(fmt.Sprintf("%s/n%d", tc.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					s := New(conn, 1, 8)
					tc.f(s)
					if err := s.Run(); err != nil {
						b.Fatal(err)
					}
					s.Free()
				}
			})
		}
	}
}
