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
// A collective whose ranks disagree on a length (erroneous: MPI requires the type
// signatures of the two sides of every transfer to match) ends in an error rather than
// silently wrong data where a rank can see it without extra messages: a receiver whose
// block is longer than what arrived gets ErrCount (but Bcast's, which gets the message
// and succeeds), one whose block is shorter ErrTruncate, naming the sender and both
// lengths, and the ranks finish the call in step. Where ranks pass blocks on (a broadcast's tree, an allgather's ring, the
// reductions) the ranks after them report it too. Not covered: an empty block of a v
// form against a non-empty one, and lengths that make ranks choose different
// algorithms; the coll_check setting catches every mismatch, at the price of an extra
// allgather per call.
//
// c.WithContext(ctx) is a view of a communicator whose blocking calls end when ctx
// does: a receive is then cancelled, a collective given up (and the communicator's
// collectives stopped, since the ranks no longer agree on what ran).
package mpi
