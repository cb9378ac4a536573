package coll

import "sync/atomic"

// What the tool information interface (MPI_T, internal/mpir) reads of the selection:
// how many calls of each collective ran each algorithm. Counting is an atomic add on
// a collective's path, so it is done only while a tool watches (Watch): otherwise the
// selection pays one atomic load.

// Collective names a collective whose algorithm the selection chooses.
type Collective uint8

const (
	CollBcast Collective = iota
	CollAllreduce
	CollAllgather
	CollAlltoall
	NumCollectives
)

// Flat is the algorithm of the short calls on small communicators that talk to every
// rank directly (coll_flat_max, coll_flat_bytes): Bcast and Allreduce only. No setting
// names it.
const Flat Algo = NumAlgos

// NumAlgos is the number of algorithms the settings name (Auto included).
const NumAlgos = Algo(len(algoNames))

// Algorithms are the algorithms each collective may run, in the order a tool lists
// them.
var Algorithms = [NumCollectives][]Algo{
	CollBcast:     {Binomial, ScatterRing, Pipeline, Flat},
	CollAllreduce: {RecursiveDoubling, Rabenseifner, Ring, Flat},
	CollAllgather: {Bruck, Ring},
	CollAlltoall:  {Linear, Pairwise},
}

func (c Collective) String() string {
	return [...]string{"bcast", "allreduce", "allgather", "alltoall"}[c]
}

var chosen struct {
	watch atomic.Int32
	n     [NumCollectives][NumAlgos + 1]atomic.Uint64
}

// Watch starts (delta 1) or stops (-1) one tool's watch of the algorithms chosen.
func Watch(delta int) { chosen.watch.Add(int32(delta)) }

// Chosen is the number of calls of c that ran a while watched.
func Chosen(c Collective, a Algo) uint64 { return chosen.n[c][a].Load() }

// choose notes that a call of c runs a (while watched).
func choose(c Collective, a Algo) {
	if chosen.watch.Load() != 0 {
		chosen.n[c][a].Add(1)
	}
}
