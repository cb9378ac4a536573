// Valuetrials compares the value calls with the buffer path as bench/value does, by
// many short trials alternated between the keys instead of one long loop per key: on
// a machine shared with other work, the fastest trials (min, and the tenth
// percentile p10) of each key were taken under the same conditions, which one long
// loop per key cannot promise. Each trial is a barrier, then round trips of one key
// between ranks 0 and 1 (one-way latency: elapsed time over twice the round trips).
// Keys as bench/value's (plain8, typed8, dict8, plain1M, typed1M, typedNew1M,
// typedProbe1M, plainInto1M); the arguments name the keys to alternate (default
// plain8 typed8). It prints min and p10 of each key, and for plain8 and typed8 their
// ratios. $BENCH_THREAD=multiple runs at ThreadMultiple (see bench/osu).
//
//	mpigo run -n 2 ./bench/valuetrials [keys...]
package main

import (
	"fmt"
	"os"
	"slices"
	"unsafe"

	"github.com/mpigo/mpigo/bench/osu"
	"github.com/mpigo/mpigo/mpi"
)

func main() {
	w := osu.Pair("valuetrials")
	defer mpi.Finalize()
	keys := os.Args[1:]
	if len(keys) == 0 {
		keys = []string{"plain8", "typed8"}
	}
	dict := map[string]int{}
	for i := range 8 {
		dict[fmt.Sprintf("k%d", i)] = i
	}
	small, smallIn := make([]byte, 8), make([]byte, 8)
	big, bigIn := make([]float64, 1<<17), make([]float64, 1<<17)
	var into []float64
	rank, peer := w.Rank(), 1-w.Rank()
	// rt makes one round trip of key: rank 0 sends and receives, rank 1 receives and
	// sends back what it received.
	rt := func(key string) error {
		switch key {
		case "plain8":
			return pingValue(w, rank, peer, int64(7))
		case "dict8":
			return pingValue(w, rank, peer, dict)
		case "plain1M":
			return pingValue(w, rank, peer, big)
		case "plainInto1M":
			if rank == 0 {
				if err := mpi.SendValue(w, big, peer, 1); err != nil {
					return err
				}
				_, err := mpi.RecvValueInto(w, &into, peer, 1)
				return err
			}
			if _, err := mpi.RecvValueInto(w, &into, peer, 1); err != nil {
				return err
			}
			return mpi.SendValue(w, into, peer, 1)
		case "typed8":
			return pingTyped(w, rank, peer, small, smallIn)
		case "typed1M":
			return pingTyped(w, rank, peer, big, bigIn)
		case "typedNew1M":
			return pingTyped(w, rank, peer, big, make([]float64, len(big)))
		case "typedProbe1M":
			recv := func() ([]float64, error) {
				st, err := w.Probe(peer, 1)
				if err != nil {
					return nil, err
				}
				in := make([]float64, st.Bytes()/int64(unsafe.Sizeof(float64(0))))
				_, err = mpi.Recv(w, in, peer, 1)
				return in, err
			}
			if rank == 0 {
				if err := mpi.Send(w, big, peer, 1); err != nil {
					return err
				}
				_, err := recv()
				return err
			}
			in, err := recv()
			if err != nil {
				return err
			}
			return mpi.Send(w, in, peer, 1)
		}
		return fmt.Errorf("unknown key %q", key)
	}
	trials, rounds := 300, 1000
	for _, k := range keys {
		if k[len(k)-1] == 'M' {
			trials, rounds = 40, 20
		}
	}
	times := map[string][]float64{}
	for range trials {
		for _, k := range keys {
			if err := w.Barrier(); err != nil {
				osu.Die("%v", err)
			}
			t0 := mpi.Wtime()
			for range rounds {
				if err := rt(k); err != nil {
					osu.Die("%s: %v", k, err)
				}
			}
			times[k] = append(times[k], (mpi.Wtime()-t0)*1e6/(2*float64(rounds)))
		}
	}
	if rank != 0 {
		return
	}
	for _, k := range keys {
		t := times[k]
		slices.Sort(t)
		osu.Result("valuetrials", k+"_min", t[0], 4, "us")
		osu.Result("valuetrials", k+"_p10", t[len(t)/10], 4, "us")
	}
	if p, q := times["plain8"], times["typed8"]; p != nil && q != nil {
		osu.Result("valuetrials", "plain8/typed8_min", p[0]/q[0], 3, "x")
		osu.Result("valuetrials", "plain8/typed8_p10", p[len(p)/10]/q[len(q)/10], 3, "x")
	}
}

func pingValue[T any](w *mpi.Comm, rank, peer int, v T) error {
	if rank == 0 {
		if err := mpi.SendValue(w, v, peer, 1); err != nil {
			return err
		}
		_, _, err := mpi.RecvValue[T](w, peer, 1)
		return err
	}
	got, _, err := mpi.RecvValue[T](w, peer, 1)
	if err != nil {
		return err
	}
	return mpi.SendValue(w, got, peer, 1)
}

func pingTyped[T mpi.Elem](w *mpi.Comm, rank, peer int, out, in []T) error {
	if rank == 0 {
		if err := mpi.Send(w, out, peer, 1); err != nil {
			return err
		}
		_, err := mpi.Recv(w, in, peer, 1)
		return err
	}
	if _, err := mpi.Recv(w, in, peer, 1); err != nil {
		return err
	}
	return mpi.Send(w, in, peer, 1)
}
