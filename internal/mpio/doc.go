// Package mpio is what MPI-IO needs that is not MPI: the file system's calls, views
// of a file as runs of bytes, the movement of data between memory and a view (with
// data sieving), and the plan of a two-phase collective access. internal/mpir builds
// MPI's files (MPI 4.1 chapter 14) on it; nothing here sends a message.
//
// Contracts:
//   - Errors are this package's sentinels (ErrNoSuchFile, ErrAccess, ErrNoSpace,
//     ErrReadOnly, ErrExists, ErrInUse, ErrBadFile, ErrQuota, ErrIO for the file
//     system's errnos; ErrAmode, ErrArg, ErrType for bad arguments), wrapped with what
//     failed and why, the errno kept in the chain. mpir gives each its MPI class.
//   - File is one process's open file: positioned calls only (pread, pwrite; never
//     O_APPEND), each retried until whole or failed, so a short read means the end of
//     the file. Locks are byte-range locks of the open file description.
//   - A View (NewView) holds the standard's invariants: a filetype made of etypes,
//     displacements nonnegative and nondecreasing (within a tile: tiles may go
//     back), holes of whole etypes. It maps view positions (bytes of the view's data) to file offsets
//     (FileOff), walks an access as the file runs it touches, merged where they touch
//     (Cursor), and says where the end of the file falls in the view (EOF). Views are
//     immutable; a contiguous view is walked in one step however small its etype.
//   - Read and Write move a memory stream (Mem: contiguous bytes, or a datatype's
//     layout) to and from a view's positions, with sieving per Tuning. A read stops
//     at the end of the file and says how much it moved; it is not an error. A
//     sieved write rewrites the holes of its span under an exclusive lock of the span,
//     so concurrent sieved writes of interleaved views keep each other's bytes.
//   - WriteMapped writes a view's runs to a file in memory by copies into a shared
//     mapping of the file, which take no lock of the file's (tmpfs holds the inode's
//     lock for each write), the bytes past the file's end and the runs after a
//     faulting copy by pwrite, whose errors are the ones reported.
//   - The two-phase plan (Aggregators, Domains, Split, Window, Cover) is arithmetic
//     only, the same on every rank for the same inputs, tested in memory.
package mpio
