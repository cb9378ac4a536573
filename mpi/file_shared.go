package mpi

import (
	"github.com/mpigo/mpigo/internal/mpir"
)

// The shared file pointer (MPI 4.1 section 14.4.4): one per file, which every rank of
// the file's group moves, in etypes of the view (every rank must have the same view).
// SetView sets it to the view's start; a file opened with ModeSequential has only it.
//
//   - Shared (FileReadShared, FileWriteShared, their nonblocking forms FileIreadShared,
//     FileIwriteShared, and the Buf forms of each): independent; each call takes its
//     place atomically, in whatever order the ranks' calls reach the pointer, and moves
//     the pointer past what it asks for (a nonblocking one when it starts).
//   - Ordered (FileReadOrdered, FileWriteOrdered): collective; the ranks access the
//     file in rank order, as if one after the other, from the pointer, which moves past
//     them all. FileIreadOrdered and FileIwriteOrdered are the split collectives
//     (MPI_File_read_ordered_begin and its _end), completed by Wait.

// FileReadShared reads f into buf at the shared file pointer (MPI_File_read_shared).
func FileReadShared[T Elem](f *File, buf []T) (Status, error) {
	return fileAccess("FileReadShared", f, mpir.Access{Shared: true}, sliceIO(buf), nil)
}

// FileReadSharedBuf is FileReadShared of a typed buffer.
func FileReadSharedBuf(f *File, b Buf) (Status, error) {
	m, err := b.bufIO("FileReadShared")
	return fileAccess("FileReadShared", f, mpir.Access{Shared: true}, m, err)
}

// FileWriteShared writes buf to f at the shared file pointer (MPI_File_write_shared).
func FileWriteShared[T Elem](f *File, buf []T) (Status, error) {
	return fileAccess("FileWriteShared", f, mpir.Access{Write: true, Shared: true}, sliceIO(buf), nil)
}

// FileWriteSharedBuf is FileWriteShared of a typed buffer.
func FileWriteSharedBuf(f *File, b Buf) (Status, error) {
	m, err := b.bufIO("FileWriteShared")
	return fileAccess("FileWriteShared", f, mpir.Access{Write: true, Shared: true}, m, err)
}

// FileIreadShared starts reading f into buf at the shared file pointer (MPI_File_iread_shared).
func FileIreadShared[T Elem](f *File, buf []T) (Request, error) {
	return fileStart("FileIreadShared", f, mpir.Access{Shared: true}, sliceIO(buf), nil)
}

// FileIreadSharedBuf is FileIreadShared of a typed buffer.
func FileIreadSharedBuf(f *File, b Buf) (Request, error) {
	m, err := b.bufIO("FileIreadShared")
	return fileStart("FileIreadShared", f, mpir.Access{Shared: true}, m, err)
}

// FileIwriteShared starts writing buf to f at the shared file pointer (MPI_File_iwrite_shared).
func FileIwriteShared[T Elem](f *File, buf []T) (Request, error) {
	return fileStart("FileIwriteShared", f, mpir.Access{Write: true, Shared: true}, sliceIO(buf), nil)
}

// FileIwriteSharedBuf is FileIwriteShared of a typed buffer.
func FileIwriteSharedBuf(f *File, b Buf) (Request, error) {
	m, err := b.bufIO("FileIwriteShared")
	return fileStart("FileIwriteShared", f, mpir.Access{Write: true, Shared: true}, m, err)
}

// FileReadOrdered reads f into buf at the shared file pointer, every rank of its group
// at once, in rank order (MPI_File_read_ordered).
func FileReadOrdered[T Elem](f *File, buf []T) (Status, error) {
	return fileAccess("FileReadOrdered", f, mpir.Access{Shared: true, Coll: true}, sliceIO(buf), nil)
}

// FileReadOrderedBuf is FileReadOrdered of a typed buffer.
func FileReadOrderedBuf(f *File, b Buf) (Status, error) {
	m, err := b.bufIO("FileReadOrdered")
	return fileAccess("FileReadOrdered", f, mpir.Access{Shared: true, Coll: true}, m, err)
}

// FileWriteOrdered writes buf to f at the shared file pointer, every rank of its group
// at once, in rank order (MPI_File_write_ordered).
func FileWriteOrdered[T Elem](f *File, buf []T) (Status, error) {
	return fileAccess("FileWriteOrdered", f, mpir.Access{Write: true, Shared: true, Coll: true}, sliceIO(buf), nil)
}

// FileWriteOrderedBuf is FileWriteOrdered of a typed buffer.
func FileWriteOrderedBuf(f *File, b Buf) (Status, error) {
	m, err := b.bufIO("FileWriteOrdered")
	return fileAccess("FileWriteOrdered", f, mpir.Access{Write: true, Shared: true, Coll: true}, m, err)
}

// FileIreadOrdered starts FileReadOrdered (MPI_File_read_ordered_begin; Wait is its _end).
func FileIreadOrdered[T Elem](f *File, buf []T) (Request, error) {
	return fileStart("FileIreadOrdered", f, mpir.Access{Shared: true, Coll: true}, sliceIO(buf), nil)
}

// FileIreadOrderedBuf is FileIreadOrdered of a typed buffer.
func FileIreadOrderedBuf(f *File, b Buf) (Request, error) {
	m, err := b.bufIO("FileIreadOrdered")
	return fileStart("FileIreadOrdered", f, mpir.Access{Shared: true, Coll: true}, m, err)
}

// FileIwriteOrdered starts FileWriteOrdered (MPI_File_write_ordered_begin; Wait is its _end).
func FileIwriteOrdered[T Elem](f *File, buf []T) (Request, error) {
	return fileStart("FileIwriteOrdered", f, mpir.Access{Write: true, Shared: true, Coll: true}, sliceIO(buf), nil)
}

// FileIwriteOrderedBuf is FileIwriteOrdered of a typed buffer.
func FileIwriteOrderedBuf(f *File, b Buf) (Request, error) {
	m, err := b.bufIO("FileIwriteOrdered")
	return fileStart("FileIwriteOrdered", f, mpir.Access{Write: true, Shared: true, Coll: true}, m, err)
}

// SeekShared moves f's shared file pointer, every rank of its group at once with the
// same offset and whence (MPI_File_seek_shared; else ErrNotSame): to offset etypes
// from the view's start (io.SeekStart), the pointer (io.SeekCurrent) or the end of
// the file (io.SeekEnd). It returns the new position, in etypes
// (MPI_File_get_position_shared's). A position before the view's start is ErrArg.
func (f *File) SeekShared(offset int64, whence int) (int64, error) {
	const op = "FileSeekShared"
	if err := f.check(op); err != nil {
		return 0, err
	}
	// A bad whence still takes part in the agreement, so that the other ranks fail too.
	w, bad := seekWhence(op, whence)
	n, err := f.d.SeekShared(op, offset, w, bad)
	return n, f.fail(op, err)
}

// PositionShared is f's shared file pointer, in etypes from the view's start
// (MPI_File_get_position_shared).
func (f *File) PositionShared() (int64, error) {
	const op = "FileGetPositionShared"
	if err := f.check(op); err != nil {
		return 0, err
	}
	n, err := f.d.PositionShared(op)
	return n, f.fail(op, err)
}
