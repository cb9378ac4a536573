// Package rma is the memory side of MPI's one-sided communication: what happens to a
// window's bytes when an operation reaches them, whichever way it came (a store by
// the origin into memory both map, or a request applied by the target's progress
// goroutine). It knows nothing of communicators or transports; internal/core builds
// windows on it.
//
// Contracts:
//   - Accumulate operations (Acc, and the reads of GetAcc, FetchOp, CompareSwap) are
//     element-wise atomic with respect to each other for the same element kind, as MPI
//     requires of concurrent accumulates to one location with one predefined type.
//     Whether an operation takes the CPU's atomic instructions or the target's
//     accumulate lock depends only on its element kind (Atomic), never on its count or
//     origin, so two operations on one location always take the same way: 8-byte
//     integers take the CPU's atomics (LOCK XADD, AND, OR, CMPXCHG loops), every other
//     kind the lock, a spin lock word in the target's control block.
//   - Put and Get are plain copies: MPI makes concurrent puts (or a put and an
//     accumulate) to one location erroneous, so they need no atomicity.
//   - Nothing here reaches outside the slices it is given; callers check that every
//     piece lies inside the window first (Check).
//   - The passive-target lock (RWLock) is a word in the target's control block: shared
//     holders count up, an exclusive holder sets the top bit; the Try forms never wait,
//     so a target's progress goroutine can serve a remote lock request without blocking.
package rma
