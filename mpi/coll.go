package mpi

import "github.com/mpigo/mpigo/internal/p2p"

// Tags of the collectives on a communicator's collective context.
const tagBarrier = 1

// Barrier returns once every rank of c has called it. It is the dissemination
// algorithm: ceil(log2 n) rounds, in round k each rank signals rank+2^k and waits for
// rank-2^k, so no rank is a hot spot.
func (c *Comm) Barrier() error {
	if err := ready("Barrier"); err != nil {
		return err
	}
	n, me := c.size, c.rank
	for k := 1; k < n; k <<= 1 {
		to, from := c.worldRank((me+k)%n), c.worldRank((me-k+n)%n)
		q, err := eng.Irecv(p2p.Bytes(nil), from, tagBarrier, c.ctx+1)
		if err != nil {
			return mapErr("Barrier", err)
		}
		if err := eng.Send(p2p.Bytes(nil), to, tagBarrier, c.ctx+1, p2p.Standard); err != nil {
			eng.Cancel(&q)
			eng.Wait(&q)
			return mapErr("Barrier", err)
		}
		if _, err := eng.Wait(&q); err != nil {
			return mapErr("Barrier", err)
		}
	}
	return nil
}
