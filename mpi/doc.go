// Package mpi is MPI, the Message Passing Interface, for Go: one program runs as many
// cooperating processes (ranks), on one machine or many, and they exchange typed data
// through communicators.
//
// Start a job with the mpigo command:
//
//	mpigo run -n 4 ./myprog
//
// A program started any other way (go run, go test) is a job of one rank.
//
// After Init every function is safe to call from many goroutines at once
// (MPI_THREAD_MULTIPLE). A program whose calls never overlap may say so with
// InitThread(ThreadSerialized) or a lower level, and mpigo then runs its
// point-to-point paths without a lock. Errors are values: each maps to an MPI error class, and
// errors.Is(err, mpi.ErrTruncate) tells one class from another.
package mpi
