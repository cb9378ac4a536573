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
		"broadcast algorithm: auto, binomial, scatter_ring (binomial scatter then ring allgather), pipeline (segmented chain)")
	setBcastLarge = config.Size("coll_bcast_large", 256<<10,
		"auto: broadcasts of at least this many bytes on more than 2 ranks use scatter_ring")
	setAllreduce = config.String("coll_allreduce", "auto",
		"allreduce algorithm: auto, recursive_doubling, rabenseifner (reduce-scatter by halving, allgather by doubling), ring")
	setAllreduceLarge = config.Size("coll_allreduce_large", 4096,
		"auto: allreduces of at least this many bytes use rabenseifner (power-of-two ranks) or ring")
	setAllgather = config.String("coll_allgather", "auto",
		"allgather algorithm: auto, bruck, ring")
	setAllgatherLarge = config.Size("coll_allgather_large", 64<<10,
		"auto: allgathers of at least this many bytes in all use ring, below it bruck")
	setAlltoall = config.String("coll_alltoall", "auto",
		"alltoall algorithm: auto, linear (every message posted at once), pairwise (n-1 exchange rounds)")
	setAlltoallLarge = config.Size("coll_alltoall_large", 4096,
		"auto: alltoalls of at least this many bytes per block use pairwise")
	setFlatMax = config.Int("coll_flat_max", 4,
		"auto: on communicators of at most this many ranks, barrier and short bcast, reduce and allreduce talk to every rank directly (one round of messages instead of log2 n)")
	setFlatBytes = config.Size("coll_flat_bytes", 1024,
		"auto: messages of at most this many bytes may use the direct (flat) algorithms")
	setPipeSeg = config.Size("coll_segment", 128<<10,
		"segment size of the pipelined broadcast")
	// Check is read by the mpi package, which owns the verification exchange.
	Check = config.Bool("coll_check", false,
		"verify before each collective that every rank called the same one with matching sizes and root (costs an extra exchange)")
)

// Tuning is the algorithm selection in force, read once from the settings.
type Tuning struct {
	Bcast, Allreduce, Allgather, Alltoall                string
	BcastLarge, AllreduceLarge, AllgatherLarge, A2ALarge int
	Segment                                              int
	Check                                                bool // coll_check
	FlatMax, FlatBytes                                   int
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
		pick := func(s config.StringSetting, ok ...string) string {
			v := s.Get()
			if v == "auto" {
				return v
			}
			for _, o := range ok {
				if v == o {
					return v
				}
			}
			tuneErr = fmt.Errorf("coll: setting %s=%q: want auto or one of %v", s.Name, v, ok)
			return "auto"
		}
		tune = Tuning{
			Bcast:          pick(setBcast, "binomial", "scatter_ring", "pipeline"),
			Allreduce:      pick(setAllreduce, "recursive_doubling", "rabenseifner", "ring"),
			Allgather:      pick(setAllgather, "bruck", "ring"),
			Alltoall:       pick(setAlltoall, "linear", "pairwise"),
			BcastLarge:     int(setBcastLarge.Get()),
			AllreduceLarge: int(setAllreduceLarge.Get()),
			AllgatherLarge: int(setAllgatherLarge.Get()),
			A2ALarge:       int(setAlltoallLarge.Get()),
			Segment:        max(int(setPipeSeg.Get()), 1024),
			Check:          Check.Get(),
			FlatMax:        int(setFlatMax.Get()),
			FlatBytes:      int(setFlatBytes.Get()),
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
