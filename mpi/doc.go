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
//
// Data travels two ways. The buffer path sends slices of Go numbers (Send, Recv,
// Bcast, ...) and typed buffers described by datatypes (SendBuf, TypeOf, Typed), as
// MPI's C binding does. The encoding path sends values of any Go type, maps, structs
// with strings and slices, slices of them, with no buffer to size (SendValue,
// RecvValue, BcastValue, AllreduceValue with a Go function, ...), as mpi4py's
// lowercase calls do; large slices in a value are not copied by the encoding.
//
// c.WithContext(ctx) is a view of a communicator whose blocking calls end when ctx
// does: a receive is then cancelled, a collective given up (and the communicator's
// collectives stopped, since the ranks no longer agree on what ran).
package mpi
