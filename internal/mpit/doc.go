// Package mpit is the tool information interface of MPI 4.1 chapter 15 (MPI_T) as
// Go values, with no device in it: the variables, categories, enumerations, event
// types and sources a process offers (Registry), and the state of a process's use of
// them (Interface): its initialisations, the control variables' handles, the
// performance experiment sessions and their handles, the event registrations and the
// delivery of event instances to their callbacks. internal/mpir builds the registry
// from mpigo's settings and the device's counts and events and serves both faces
// (the Go package mpi and the C library); this package knows nothing of either.
//
// Contracts:
//   - Every call but Init returns an *Error with the MPI_T return code the standard
//     names (ztools.go has the codes, generated from the standard ABI's header) and a
//     message that names the argument and the rule; no call panics on bad input, and
//     none runs an MPI error handler (MPI_T errors never do).
//   - Indices are stable: a registry is built once, before the first Init returns,
//     and never changes (Category changes: 0). Objects (handles, sessions,
//     registrations) belong to the initialisation they were made in: when the last
//     Finalize ends it, they are all released and every later use of one is an
//     invalid handle or session.
//   - A performance variable reads live memory through its Source, which its
//     descriptor binds to an object; the handle keeps only marks. An accumulating
//     class (counter, aggregate, timer) counts from zero at the handle's allocation
//     (a continuous one) or its first start, and only while started; a watermark
//     follows its resource while started; a current class (level, size, state) reads
//     its resource while started and keeps the last value while stopped. The device
//     counts what costs it something only while a handle watches (Source.Watch,
//     Source.Track).
//   - Callbacks run outside every lock of this package: a callback may call any
//     procedure of the interface, free its own registration included. Instances of one
//     source are delivered in order by one goroutine at a time (Deliver's caller), with
//     the callback registered at the lowest safety level valid in the caller's context;
//     none valid, the instance is dropped and counted for the registration's dropped
//     handler, which runs before that registration's next callback.
//   - Safe for concurrent use: the interface is initialised at MPI_THREAD_MULTIPLE.
package mpit
