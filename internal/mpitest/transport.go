package mpitest

import (
	"maps"
	"slices"
)

// Transport is a way for a job's ranks to reach each other: a name for the subtest
// that runs over it, and the settings that choose it (read only: tests share them).
type Transport struct {
	Name     string
	Settings map[string]string
}

// The transports tests run over: the node's shared memory (the default: self, shared
// memory, TCP between nodes) and TCP alone, as between nodes.
var (
	Shm = Transport{"shm", map[string]string{"transports": "self,shm,tcp"}}
	TCP = Transport{"tcp", map[string]string{"transports": "self,tcp"}}

	Transports = []Transport{Shm, TCP}
)

// Flags are the mpigo run flags that choose tr (--set NAME=VALUE), in a fixed order,
// for tests that run the command.
func (tr Transport) Flags() []string {
	var flags []string
	for _, k := range slices.Sorted(maps.Keys(tr.Settings)) {
		flags = append(flags, "--set", k+"="+tr.Settings[k])
	}
	return flags
}
