package coll

import (
	"fmt"
	"sync"

	"github.com/mpigo/mpigo/internal/config"
)

// Settings. "auto" chooses by message size and communicator size, with the thresholds
// below; naming an algorithm forces it wherever it applies (an algorithm that needs a
// commutative op, or more elements than ranks, falls back to the default one).
var (
	setBcast = config.String("coll_bcast", "auto",
		"broadcast algorithm: auto, binomial, scatter_ring (binomial scatter then ring allgather), pipeline (segmented chain)").OneOf("auto", "binomial", "scatter_ring", "pipeline").Same()
	setBcastLarge = config.Size("coll_bcast_large", 256<<10,
		"auto: broadcasts of at least this many bytes on more than 2 ranks use scatter_ring").Same()
	setAllreduce = config.String("coll_allreduce", "auto",
		"allreduce algorithm: auto, recursive_doubling, rabenseifner (reduce-scatter by halving, allgather by doubling), ring").OneOf("auto", "recursive_doubling", "rabenseifner", "ring").Same()
	setAllreduceLarge = config.Size("coll_allreduce_large", 4096,
		"auto: allreduces of at least this many bytes use rabenseifner (power-of-two ranks) or ring").Same()
	setAllgather = config.String("coll_allgather", "auto",
		"allgather algorithm: auto, bruck, ring").OneOf("auto", "bruck", "ring").Same()
	setAllgatherLarge = config.Size("coll_allgather_large", 64<<10,
		"auto: allgathers of at least this many bytes in all use ring, below it bruck").Same()
	setAlltoall = config.String("coll_alltoall", "auto",
		"alltoall algorithm: auto, linear (every message posted at once), pairwise (n-1 exchange rounds)").OneOf("auto", "linear", "pairwise").Same()
	setAlltoallLarge = config.Size("coll_alltoall_large", 4096,
		"auto: alltoalls of at least this many bytes per block use pairwise").Same()
	setFlatMax = config.Int("coll_flat_max", 4,
		"auto: on communicators of at most this many ranks, barrier and short bcast, reduce and allreduce talk to every rank directly (one round of messages instead of log2 n)").AtLeast(0).Same()
	setFlatBytes = config.Size("coll_flat_bytes", 1024,
		"auto: messages of at most this many bytes may use the direct (flat) algorithms").Same()
	setPipeSeg = config.Size("coll_segment", 128<<10,
		"segment size of the pipelined broadcast").Range(1<<10, 1<<30).Same()
	// Check is read by the mpi package, which owns the verification exchange.
	Check = config.Bool("coll_check", false,
		"verify before each collective that every rank called the same one with matching sizes and root (costs an extra exchange)").Same()
)

// Algo names a collective algorithm, as the coll_* settings spell it.
type Algo uint8

const (
	Auto              Algo = iota // chosen by message and communicator size
	Binomial                      // bcast: binomial tree
	ScatterRing                   // bcast: binomial scatter, then ring allgather (van de Geijn)
	Pipeline                      // bcast: segmented chain
	RecursiveDoubling             // allreduce
	Rabenseifner                  // allreduce: reduce-scatter by halving, allgather by doubling
	Ring                          // allreduce, allgather
	Bruck                         // allgather
	Linear                        // alltoall: every message posted at once
	Pairwise                      // alltoall: n-1 exchange rounds
)

var algoNames = [...]string{"auto", "binomial", "scatter_ring", "pipeline", "recursive_doubling", "rabenseifner", "ring", "bruck", "linear", "pairwise"}

func (a Algo) String() string {
	if int(a) < len(algoNames) {
		return algoNames[a]
	}
	if a == Flat {
		return "flat"
	}
	return fmt.Sprintf("algorithm %d", a)
}

// Limits are the sizes at which Auto changes algorithm, in bytes (FlatMax in ranks).
type Limits struct {
	BcastLarge     int // bcasts of at least this many bytes on more than 2 ranks: ScatterRing
	AllreduceLarge int // allreduces of at least this: Rabenseifner (power-of-two ranks) or Ring
	AllgatherLarge int // allgathers of at least this in all: Ring, below it Bruck
	AlltoallLarge  int // alltoalls of at least this per block: Pairwise
	Segment        int // the pipelined bcast's segment
	FlatMax        int // at most this many ranks: short calls talk to every rank directly
	FlatBytes      int // messages of at most this may go direct
}

// Tuning is the algorithm selection in force, read once from the settings.
type Tuning struct {
	Bcast, Allreduce, Allgather, Alltoall Algo
	Limits
	Check bool // coll_check
}

func (t *Tuning) String() string {
	return fmt.Sprintf("bcast %v (scatter_ring from %d B, pipeline segment %d B), allreduce %v (from %d B rabenseifner/ring), "+
		"allgather %v (ring from %d B), alltoall %v (pairwise from %d B per block), direct up to %d ranks and %d B",
		t.Bcast, t.BcastLarge, t.Segment, t.Allreduce, t.AllreduceLarge, t.Allgather, t.AllgatherLarge,
		t.Alltoall, t.AlltoallLarge, t.FlatMax, t.FlatBytes)
}

var (
	tuneOnce sync.Once
	tune     Tuning
	tuneErr  error
)

// Tune returns the settings' selection, and an error naming a setting with a value it
// does not know (the default is used for it).
func Tune() (*Tuning, error) {
	tuneOnce.Do(func() {
		pick := func(s config.StringSetting, ok ...Algo) Algo {
			v := s.Get()
			if v == Auto.String() {
				return Auto
			}
			for _, o := range ok {
				if v == o.String() {
					return o
				}
			}
			tuneErr = fmt.Errorf("setting %s=%q: want auto or one of %v", s.Name, v, ok)
			return Auto
		}
		tune = Tuning{
			Bcast:     pick(setBcast, Binomial, ScatterRing, Pipeline),
			Allreduce: pick(setAllreduce, RecursiveDoubling, Rabenseifner, Ring),
			Allgather: pick(setAllgather, Bruck, Ring),
			Alltoall:  pick(setAlltoall, Linear, Pairwise),
			Limits: Limits{
				BcastLarge:     int(setBcastLarge.Get()),
				AllreduceLarge: int(setAllreduceLarge.Get()),
				AllgatherLarge: int(setAllgatherLarge.Get()),
				AlltoallLarge:  int(setAlltoallLarge.Get()),
				Segment:        max(int(setPipeSeg.Get()), 1024),
				FlatMax:        int(setFlatMax.Get()),
				FlatBytes:      int(setFlatBytes.Get()),
			},
			Check: Check.Get(),
		}
	})
	return &tune, tuneErr
}

// Checking reports whether coll_check is on.
func Checking() bool { return tuning().Check }

// flat reports whether a collective of n bytes on this communicator goes direct.
func (s *Sched) flat(n int) bool {
	t := tuning()
	return s.size <= t.FlatMax && n <= t.FlatBytes
}

func tuning() *Tuning {
	t, _ := Tune()
	return t
}

// SetTuning replaces the selection (for tests and benchmarks).
func SetTuning(t Tuning) {
	tuneOnce.Do(func() {})
	tune = t
}
