package mpi

import "github.com/mpigo/mpigo/internal/mpir"

// FileSyncs exposes how many times this process synced f's descriptor (fsync) to
// the tests of package mpi_test.
func FileSyncs(f *File) int64 { return f.d.Syncs() }

// FileCopied exposes how many bytes this process's collective writes of f copied
// into the file's mapping to the tests of package mpi_test.
func FileCopied(f *File) int64 { return f.d.Copied() }

// FileTwoPhaseBuffersKept exposes whether this process keeps a two-phase access's
// buffers to the tests of package mpi_test.
func FileTwoPhaseBuffersKept() bool { return mpir.TwoPhaseBuffersKept() }

// FileHasBoard exposes whether f's ordered writes go by the board in node shared
// memory (after the first one made it).
func FileHasBoard(f *File) bool { return f.d.HasBoard() }
