package abi_test

import "testing"

// TestInfoAsTheStandardSays: info objects and hints where the C library once
// disagreed with the Go package (testdata/info.c): MPI_INFO_ENV, the limits of keys
// and values, MPI_Info_get's and MPI_Info_get_string's cuts, and the hints
// MPI_Comm_get_info and MPI_Win_get_info report.
func TestInfoAsTheStandardSays(t *testing.T) { jobArgs(t, "info", 2, nil, []string{"one", "two"}) }

// TestKeyvalsAsTheStandardSays: MPICH's keyval double-free cases under the default
// handlers, failing copy and delete functions, keyvals of another kind, predefined and
// gone, and the predefined attributes' values (testdata/keyval.c).
func TestKeyvalsAsTheStandardSays(t *testing.T) { job(t, "keyval", 2) }
