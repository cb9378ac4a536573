// Package datatype is mpigo's datatype engine: MPI derived datatypes, their
// compilation into a small move program (after DAME, the MPICH data
// manipulation engine design), and packing, unpacking and scatter/gather
// views driven by that program. The public mpi package wraps it.
//
// # Types
//
// Predefined types exist for every Go element type (Int8 … Complex128, Bool,
// Byte, Int and Uint) and for the MAXLOC/MINLOC pairs (Float32Int32,
// Float64Int32, Int64Int32, Int32Int32, Int16Int32). Each knows its Kind, so
// reductions can be typed, and its external32 size. Derived types are made by
// the MPI constructors Contiguous, Vector, Hvector, Indexed, Hindexed,
// IndexedBlock, HindexedBlock, Struct, Subarray, Darray, Resized and Dup, or
// from a Go type by Of. All sizes, counts and displacements are int64 and
// overflow is checked when a type is built. Bad arguments give errors that
// wrap ErrArg (ErrCount, which wraps it, for a count or block length below
// zero; or ErrOverflow, ErrFreed) and name the argument and the rule.
//
// # Compilation
//
// Commit marks a type; its first use (Pack, Bind, a Cursor, IsContiguous:
// prepare, once however many goroutines use it) turns it into a tree of five
// instructions: leaf (n contiguous
// bytes), vec (count copies of a child at a stride), idx (blocks of bytes),
// blk (blocks of copies of one child) and seq (different children). On the
// way vector becomes hvector and indexed becomes hindexed; empty parts
// vanish; copies of a leaf that touch become one leaf; a vector of vectors
// that continue each other's stride becomes one vector; blocks that touch
// merge; equal blocks at a constant stride become a vector; a struct of
// contiguous members becomes byte blocks. A type whose instances are one
// contiguous run is flagged (IsContiguous) so that it is packed with one copy,
// or sent with none. An index of one contiguous old type whose blocks are not
// empty and do not touch is compiled by its constructor instead: the loop that
// checks the caller's arrays (int32 or int64: IndexedOf) fills the int32 byte
// block arrays, from which Contents reads the arguments back.
//
// Each instruction carries a kernel chosen at commit from its shape: vectors
// of leaves of common sizes (1, 2, 4, 8, 12, 16, 24, 32, 48, 64 bytes) move
// fixed-size words in tight loops (8 bytes unrolled), other short leaves use
// word moves, long ones memmove; byte blocks of one common size get the same
// exact fixed moves; byte blocks that are all short are packed with one
// fixed-size move per block (reading and writing past the block, which the
// next block overwrites, and only where commit proved the excess stays inside
// the buffer), others with memmove, and unpacked with 16-byte stores whose
// destination (the block, or scratch past its end) a conditional move picks
// (32-byte ones in assembly with AVX); a long vector of 8-byte leaves is
// packed with non-temporal stores. Vectors of vectors of leaves, vectors of
// byte blocks and blocks of spaced leaves have two-level kernels; deeper
// nestings run the child's kernel per child instance. The count of a pack is
// one more vector level with its own kernel (one instance runs the program's
// own). Byte-block arrays are int32 when
// the type spans less than 2 GiB, int64 otherwise. All checks are made at
// construction; packing does one bounds check per call, against
// the true extent of the whole count, then runs unchecked loops.
//
// # Packing and buffers
//
// User memory is a []byte whose element 0 is the buffer's base address
// (MPI's buf); the *At variants and Cursor.SetOrigin place the base address
// at another offset, for types with a negative true lower bound. Pack,
// Unpack and the cursor never touch memory outside the slices given, and
// allocate nothing.
//
// A Cursor packs or unpacks in fragments of any size from any packed offset.
// Its state is the packed offset alone: each call descends the program along
// the path to that offset, taking a binary search in block instructions, then
// runs the kernels over the whole items in between. Iov gives the same
// stream as (offset, length) pieces of user memory, a bounded number per
// call. PackExternal and UnpackExternal use the external32 representation.
package datatype
