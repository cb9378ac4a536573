// Package collective is the device's collective orchestration: MPI's collective
// operations (MPI 4.1 chapter 6) on a communicator, blocking, nonblocking and
// persistent, intra- and intercommunicator, neighbourhood collectives and
// Alltoallw, and the making of communicators, whose collectives are chosen when they
// are made. It stands beside internal/core, whose runtime it uses through core's API
// for the packages beside it (beside.go); core never imports it. The algorithms are
// internal/coll's schedules and internal/shmcoll's node region; this package chooses
// among them, checks the arguments and drives them.
//
// Contracts:
//   - A communicator chooses its collectives once, when it is made here (Dup, Split,
//     ..., and World's and Self's by Init and SessionInit), from what every member
//     knows alike, so that all members choose the same; no call asks again. Every
//     communicator the faces hold is made here; core's creation calls (DupCore, ...)
//     make only its core.
//   - Every entry point takes the name of the call it serves and returns an
//     *core.Error of the class MPI names; a nil or freed communicator is ClassComm.
//     Arguments are checked before anything is sent, alike on every rank, and a
//     persistent collective's Init checks them through CheckArgs without sending.
//   - The members of a communicator call its collectives in the same order (MPI's
//     rule), and each call takes the communicator's next collective sequence number
//     as its tag, so concurrent nonblocking collectives never match each other's
//     messages.
//   - The blocking Barrier, Bcast, Reduce and Allreduce and the warm nonblocking
//     forms allocate nothing per call.
//   - Free releases what the collectives hold (node regions, the hierarchical
//     collectives' communicators) with the communicator; Finalize unmaps what is left.
package collective
