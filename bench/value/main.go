// Value measures ping-pong latency between rank 0 and rank 1 with the value calls
// (SendValue and RecvValue), by the method of ../shared/anchors/pingpong.py, which
// times mpi4py's pickle path (comm.send and comm.recv) on the same values: warm-up
// round trips, then timed ones; one-way latency is the elapsed time over twice the
// round trips. Keys as pingpong.py's:
//
//	dict8     a map of 8 string keys ("k0".."k7") to ints
//	record1M  a struct of an int, a string and a 1 MiB []byte
//
// and, to compare the encoding path with the buffer path on plain memory:
//
//	plain8, typed8      an int64 as a value; an 8-byte []byte with Send and Recv
//	plain1M, typed1M    a []float64 of 1 MiB as a value; the same with Send and Recv
//	typedNew1M          typed1M with a new receive buffer (make) for every message, as
//	                    a value receive has: what new memory costs
//	typedProbe1M        typed1M receiving a message of unknown size, as a value
//	                    receive must: Probe, a new buffer of the probed size, Recv; the
//	                    buffer path's analogue of plain1M (typedNew1M allocates before
//	                    the message arrives, which hides half its allocations behind
//	                    the wait; a receiver that does not know the size cannot)
//	plainInto1M         plain1M received with RecvValueInto into the same value, whose
//	                    slice's memory is reused
//
//	mpigo run -n 2 ./bench/value [scale]
package main

import (
	"fmt"
	"unsafe"

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

type record struct {
	ID   int
	Name string
	Data []byte
}

func main() {
	w := osu.Pair("value")
	defer mpi.Finalize()
	scale := osu.Scale()
	dict := map[string]int{}
	for i := range 8 {
		dict[fmt.Sprintf("k%d", i)] = i
	}
	rec := record{ID: 7, Name: "block", Data: make([]byte, 1<<20)}
	report(w, "dict8", pingValue(w, dict, osu.Scaled(50000, scale), osu.Scaled(5000, scale)))
	report(w, "record1M", pingValue(w, rec, osu.Scaled(500, scale), max(1, osu.Scaled(500, scale)/10)))
	report(w, "plain8", pingValue(w, int64(7), osu.Scaled(50000, scale), osu.Scaled(5000, scale)))
	report(w, "typed8", pingTyped(w, make([]byte, 8), osu.Scaled(50000, scale), osu.Scaled(5000, scale), false))
	big := make([]float64, 1<<17)
	report(w, "plain1M", pingValue(w, big, osu.Scaled(500, scale), max(1, osu.Scaled(500, scale)/10)))
	report(w, "typed1M", pingTyped(w, big, osu.Scaled(500, scale), max(1, osu.Scaled(500, scale)/10), false))
	report(w, "plainInto1M", pingInto(w, big, osu.Scaled(500, scale), max(1, osu.Scaled(500, scale)/10)))
	report(w, "typedNew1M", pingTyped(w, big, osu.Scaled(500, scale), max(1, osu.Scaled(500, scale)/10), true))
	report(w, "typedProbe1M", pingProbe(w, big, osu.Scaled(500, scale), max(1, osu.Scaled(500, scale)/10)))
}

// pingProbe is pingTyped receiving each message into a new buffer of the size that
// Probe reports (rank 1 sends back what it received).
func pingProbe[T mpi.Elem](w *mpi.Comm, buf []T, iters, skip int) float64 {
	rank, peer := w.Rank(), 1-w.Rank()
	recv := func() ([]T, error) {
		st, err := w.Probe(peer, 1)
		if err != nil {
			return nil, err
		}
		var z T
		in := make([]T, st.Bytes()/int64(unsafe.Sizeof(z)))
		_, err = mpi.Recv(w, in, peer, 1)
		return in, err
	}
	if err := w.Barrier(); err != nil {
		osu.Die("%v", err)
	}
	var t0 float64
	for i := 0; i < iters+skip; i++ {
		if i == skip {
			t0 = mpi.Wtime()
		}
		var err error
		if rank == 0 {
			if err = mpi.Send(w, buf, peer, 1); err == nil {
				_, err = recv()
			}
		} else {
			var in []T
			if in, err = recv(); err == nil {
				err = mpi.Send(w, in, peer, 1)
			}
		}
		if err != nil {
			osu.Die("%v", err)
		}
	}
	return (mpi.Wtime() - t0) * 1e6 / (2 * float64(iters))
}

func report(w *mpi.Comm, key string, us float64) {
	if w.Rank() == 0 {
		osu.Result("value", key, us, 3, "us")
	}
}

// pingValue times round trips of v: rank 0 sends and receives, rank 1 receives and
// sends back what it received (as pingpong.py's peer sends its object back).
func pingValue[T any](w *mpi.Comm, v T, iters, skip int) float64 {
	rank, peer := w.Rank(), 1-w.Rank()
	if err := w.Barrier(); err != nil {
		osu.Die("%v", err)
	}
	var t0 float64
	for i := 0; i < iters+skip; i++ {
		if i == skip {
			t0 = mpi.Wtime()
		}
		var err error
		if rank == 0 {
			if err = mpi.SendValue(w, v, peer, 1); err == nil {
				_, _, err = mpi.RecvValue[T](w, peer, 1)
			}
		} else {
			var got T
			if got, _, err = mpi.RecvValue[T](w, peer, 1); err == nil {
				err = mpi.SendValue(w, got, peer, 1)
			}
		}
		if err != nil {
			osu.Die("%T: %v", v, err)
		}
	}
	return (mpi.Wtime() - t0) * 1e6 / (2 * float64(iters))
}

// pingInto is pingValue receiving with RecvValueInto into one value per rank.
func pingInto[T any](w *mpi.Comm, v T, iters, skip int) float64 {
	rank, peer := w.Rank(), 1-w.Rank()
	if err := w.Barrier(); err != nil {
		osu.Die("%v", err)
	}
	var got T
	var t0 float64
	for i := 0; i < iters+skip; i++ {
		if i == skip {
			t0 = mpi.Wtime()
		}
		var err error
		if rank == 0 {
			if err = mpi.SendValue(w, v, peer, 1); err == nil {
				_, err = mpi.RecvValueInto(w, &got, peer, 1)
			}
		} else {
			if _, err = mpi.RecvValueInto(w, &got, peer, 1); err == nil {
				err = mpi.SendValue(w, got, peer, 1)
			}
		}
		if err != nil {
			osu.Die("%T: %v", v, err)
		}
	}
	return (mpi.Wtime() - t0) * 1e6 / (2 * float64(iters))
}

// pingTyped times round trips of buf with Send and Recv, the buffer path (fresh: into
// a new buffer each time).
func pingTyped[T mpi.Elem](w *mpi.Comm, buf []T, iters, skip int, fresh bool) float64 {
	rank, peer := w.Rank(), 1-w.Rank()
	in := make([]T, len(buf))
	if err := w.Barrier(); err != nil {
		osu.Die("%v", err)
	}
	var t0 float64
	for i := 0; i < iters+skip; i++ {
		if i == skip {
			t0 = mpi.Wtime()
		}
		var err error
		if fresh {
			in = make([]T, len(buf))
		}
		if rank == 0 {
			if err = mpi.Send(w, buf, peer, 1); err == nil {
				_, err = mpi.Recv(w, in, peer, 1)
			}
		} else {
			if _, err = mpi.Recv(w, in, peer, 1); err == nil {
				err = mpi.Send(w, in, peer, 1)
			}
		}
		if err != nil {
			osu.Die("%v", err)
		}
	}
	return (mpi.Wtime() - t0) * 1e6 / (2 * float64(iters))
}
