// Package vtopo is MPI's virtual process topologies (MPI 4.1 chapter 8) as values:
// a Cartesian grid, a graph every member knows whole, and a distributed graph each
// member knows its own edges of; the checks of their constructors' arguments; every
// query the standard defines on them; the neighbour order of the neighbourhood
// collectives; and MPI_Dims_create. It has no communicator and no device: mpir
// composes it with the device (agreement, creation, the exchange of a distributed
// graph's edges) and gives its errors MPI classes.
//
// Contracts:
//   - A Topology is one member's view, made for a rank and never changed, so readers
//     need no lock and a duplicate of its communicator may share it. The slices its
//     methods return are views of it, to be read and not changed, unless a method
//     says it returns a copy.
//   - Ranks are kept: a topology maps rank r of the communicator to node r (Cartesian
//     grids in row-major order, the last dimension varying fastest). Reordering is a
//     choice MPI leaves to the implementation, and CartMap and GraphMap report the
//     identity.
//   - Every error wraps one of ErrArg, ErrDims, ErrRank and ErrTopology (for
//     errors.Is) and says which argument broke which rule, in words that read after
//     the name of the call.
//   - A neighbour off the edge of a non-periodic grid is ProcNull, the value of the
//     device's MPI_PROC_NULL (mpir checks they agree when it compiles).
//
// DimsCreate has one algorithm, the balanced one MPI 4.1 section 8.5.2 asks for: the
// free dimensions are "as close to each other as possible" in the sense of the
// smallest difference between the largest and the smallest, in non-increasing order.
// The standard does not break ties. mpigo's Go and C libraries each had a search of
// their own for the smallest spread, and broke ties differently (the Go one to the
// smaller largest dimension), neither as MPICH does. Here, of the factorisations with
// the smallest spread, the one whose smallest dimension is largest wins, then the one
// whose second smallest is, and so on: the rule of MPICH's expected answers
// (test/mpi/topo/baddims.h, after Träff and Lübbe, "Specification guideline
// violations by MPI_Dims_create", EuroMPI 2015), which every entry of that table
// follows, as do MPICH's other Dims_create tests (dims0 to dims4). So a program gets
// from mpigo the grid MPICH gives it. The search is the Go library's, with that tie
// rule (balanced says how).
package vtopo
