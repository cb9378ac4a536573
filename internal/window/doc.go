// Package window is MPI's one-sided communication (MPI 4.1 chapter 12): windows of
// every flavour (WinCreate, WinAllocate, WinAllocateShared, WinCreateDynamic), their
// operations (Put, Get, the accumulates, FetchAndOp, CompareAndSwap, the request
// forms) and synchronisation (fences, passive-target locks, PSCW, flushes). It is
// part of the device: both faces (mpi, abi/libmpi) call it, and it stands beside
// internal/core, whose runtime it uses through core's API for the packages beside it
// (core.Engine, Comm.Ctx, Comm.Local, Comm.SeqTag, core.NodeTransport, ...); core
// never imports it. internal/rma holds what an operation does to a window's bytes.
//
// Contracts:
//   - A window is made collectively over an intracommunicator (Create) and owns a
//     duplicate of it: its point-to-point context carries the shipped requests and
//     their replies, its collectives Fence and Free. Free is collective and releases
//     both.
//   - MPI's rules for a call's arguments and for the epochs are internal/mpir's
//     (win*.go there), which checks them before it calls here, from the state this
//     package reports (InEpoch, Locked, Locking, Accessing, Exposing): the entry
//     points trust a valid rank of the window, a checked count, datatype and
//     displacement, and an epoch opened or closed in order. They check what only the
//     device knows: a nil or freed window (MPI_ERR_WIN), a target's extent
//     (MPI_ERR_RMA_RANGE), the memory a dynamic window has attached (an access may
//     span attachments side by side: dynamic.go). Every entry point takes the name of
//     the call it serves and returns an *core.Error of the class MPI names.
//   - How an origin reaches each target (direct, through node shared memory, or
//     shipped to the target's progress goroutine) is chosen once, when the window is
//     made, from what every rank knows alike (win.go); an operation never asks again.
//   - The short ways (fast.go: PutBytes, GetBytes, AccBytes, FetchWord, CasWord,
//     FlushDirect) allocate nothing and change no outcome, only the cost: where they
//     report false the general path does the same operation or names the error.
//   - Direct operations are complete when their call returns; shipped ones when the
//     target has applied them, which Flush, Unlock, Complete and Fence wait for.
package window
