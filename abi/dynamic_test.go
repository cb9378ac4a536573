package abi_test

import "testing"

// TestDynamicBadArgs: the dynamic-process procedures' bad arguments (dynargs.c): the
// communicator, the root and the output handle checked at every process alike; the
// root's bad arguments (maxprocs 0, a NULL command or array, a bad info, a port
// nobody opened) its error, and an error rather than a wait at the other rank (for
// accept and connect, the root's own class and reason); NULL
// strings and a bad info of the local calls refused with the classes MPI names; no
// parent for a job not spawned.
func TestDynamicBadArgs(t *testing.T) { job(t, "dynargs", 2) }

// TestDynamicProcesses: spawn (the root-only arguments garbage at the other rank),
// spawn_multiple with an argv per command and MPI_APPNUM, a missing program's error
// codes, accept/connect through the name service, join over a TCP socket,
// MPI_UNIVERSE_SIZE and disconnect through the C ABI (dynamic.c).
func TestDynamicProcesses(t *testing.T) { job(t, "dynamic", 2) }
