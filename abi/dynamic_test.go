package abi_test

import "testing"

// TestDynamicBadArgs: the dynamic-process procedures' bad arguments (dynargs.c): the
// communicator, the root and the output handle checked at every process alike, NULL
// strings and a bad info refused with the classes MPI names, no parent for a job not
// spawned.
func TestDynamicBadArgs(t *testing.T) { job(t, "dynargs", 2) }
