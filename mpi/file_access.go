package mpi

import (
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpir"
)

// The data access calls of files (MPI 4.1 section 14.4), in three forms each: on a
// slice of elements (FileReadAt[T], ...), on a typed buffer (FileReadAtBuf, ... : any
// layout a Datatype describes, see Typed), and nonblocking (FileIreadAt, ...,
// FileIreadAtBuf, ...), whose Request completes through Wait and its kin.
//
//   - At: at an explicit offset, in etypes of the view; the others at the file
//     pointer, which moves past what they access (a nonblocking call moves it when it
//     starts).
//   - All: collective: every rank of the file's group calls it, in the same order as
//     the file's other collective calls. Where the ranks' data goes through the
//     aggregators (two-phase I/O), an error on any rank is every rank's; where each
//     rank accesses its own part, each returns its own error, and a rank whose part
//     did not fail learns of another's failure at the file's next Sync or Close,
//     which then fail there with its class, naming that rank.
//
// The Status's Bytes are the bytes the call moved (GetCount gives them in elements):
// a read past the end of the file reads what there is, and none at the end, with no
// error. The data must be a whole number of the view's etypes (else ErrType). A file
// opened ModeRdonly cannot be written (ErrReadOnly) nor one opened ModeWronly read
// (ErrAccess);
// one opened ModeSequential has no file pointer of its own (ErrUnsupportedOperation).

// sliceIO is the memory of a slice of elements: its bytes, and the elements' type,
// by which a data representation other than memory's converts them.
func sliceIO[T Elem](buf []T) mpir.IOBuf {
	b := asBytes(buf)
	return mpir.IOBuf{Mem: b, Count: int64(len(b)), Type: datatype.Byte, Elem: elemType[T]()}
}

// bufIO is the memory of a typed buffer, and the error of a bad one.
func (b Buf) bufIO(op string) (mpir.IOBuf, error) {
	if b.err != nil {
		return mpir.IOBuf{}, b.err
	}
	if b.isInPlace() || b.dt == nil {
		return mpir.IOBuf{}, errorf(ClassBuffer, op, "the buffer is InPlace or empty: a file access takes memory")
	}
	return mpir.IOBuf{Mem: b.mem, Count: b.count, Type: b.dt}, nil
}

// fileAccess is every blocking access: bad is the error of a bad typed buffer.
func fileAccess(op string, f *File, a mpir.Access, b mpir.IOBuf, bad error) (Status, error) {
	if err := f.check(op); err != nil {
		return Status{}, err
	}
	ps, err := f.d.Access(op, a, b, bad)
	st := Status{Source: ps.Source, Tag: ps.Tag, bytes: ps.Count}
	if err != nil {
		st.Err = f.fail(op, err)
	}
	return st, st.Err
}

// atFailed is the status and error of FileReadAt's and FileWriteAt's short way (mpir's
// AccessAt) where it failed, having moved n bytes: the file's handler has the error.
func atFailed(op string, f *File, n int64, err error) (Status, error) {
	st := Status{Source: AnySource, Tag: AnyTag, bytes: n, Err: f.fail(op, err)}
	return st, st.Err
}

// fileStart is every nonblocking access.
func fileStart(op string, f *File, a mpir.Access, b mpir.IOBuf, bad error) (Request, error) {
	if err := f.check(op); err != nil {
		return Request{}, err
	}
	p, err := f.d.Start(op, a, b, bad)
	if err != nil {
		return Request{}, f.fail(op, err)
	}
	return opReq(nil, p), nil
}

// FileReadAt reads f into buf at offset etypes of the view (MPI_File_read_at).
func FileReadAt[T Elem](f *File, off int64, buf []T) (Status, error) {
	if f != nil && f.d != nil {
		// The short way (mpir's AccessAt); ok is false where it does not apply.
		if n, ok, err := f.d.AccessAt("FileReadAt", false, off, asBytes(buf)); ok {
			if err != nil {
				return atFailed("FileReadAt", f, n, err)
			}
			return Status{Source: AnySource, Tag: AnyTag, bytes: n}, nil
		}
	}
	return fileAccess("FileReadAt", f, mpir.Access{Explicit: true, Offset: off}, sliceIO(buf), nil)
}

// FileReadAtBuf is FileReadAt of a typed buffer.
func FileReadAtBuf(f *File, off int64, b Buf) (Status, error) {
	m, err := b.bufIO("FileReadAt")
	return fileAccess("FileReadAt", f, mpir.Access{Explicit: true, Offset: off}, m, err)
}

// FileWriteAt writes buf to f at offset etypes of the view (MPI_File_write_at).
func FileWriteAt[T Elem](f *File, off int64, buf []T) (Status, error) {
	if f != nil && f.d != nil {
		// The short way (mpir's AccessAt); ok is false where it does not apply.
		if n, ok, err := f.d.AccessAt("FileWriteAt", true, off, asBytes(buf)); ok {
			if err != nil {
				return atFailed("FileWriteAt", f, n, err)
			}
			return Status{Source: AnySource, Tag: AnyTag, bytes: n}, nil
		}
	}
	return fileAccess("FileWriteAt", f, mpir.Access{Write: true, Explicit: true, Offset: off}, sliceIO(buf), nil)
}

// FileWriteAtBuf is FileWriteAt of a typed buffer.
func FileWriteAtBuf(f *File, off int64, b Buf) (Status, error) {
	m, err := b.bufIO("FileWriteAt")
	return fileAccess("FileWriteAt", f, mpir.Access{Write: true, Explicit: true, Offset: off}, m, err)
}

// FileRead reads f into buf at the file pointer (MPI_File_read).
func FileRead[T Elem](f *File, buf []T) (Status, error) {
	return fileAccess("FileRead", f, mpir.Access{}, sliceIO(buf), nil)
}

// FileReadBuf is FileRead of a typed buffer.
func FileReadBuf(f *File, b Buf) (Status, error) {
	m, err := b.bufIO("FileRead")
	return fileAccess("FileRead", f, mpir.Access{}, m, err)
}

// FileWrite writes buf to f at the file pointer (MPI_File_write).
func FileWrite[T Elem](f *File, buf []T) (Status, error) {
	return fileAccess("FileWrite", f, mpir.Access{Write: true}, sliceIO(buf), nil)
}

// FileWriteBuf is FileWrite of a typed buffer.
func FileWriteBuf(f *File, b Buf) (Status, error) {
	m, err := b.bufIO("FileWrite")
	return fileAccess("FileWrite", f, mpir.Access{Write: true}, m, err)
}

// FileReadAtAll reads f into buf at offset etypes of the view, on every rank of its group at once (MPI_File_read_at_all).
func FileReadAtAll[T Elem](f *File, off int64, buf []T) (Status, error) {
	return fileAccess("FileReadAtAll", f, mpir.Access{Explicit: true, Offset: off, Coll: true}, sliceIO(buf), nil)
}

// FileReadAtAllBuf is FileReadAtAll of a typed buffer.
func FileReadAtAllBuf(f *File, off int64, b Buf) (Status, error) {
	m, err := b.bufIO("FileReadAtAll")
	return fileAccess("FileReadAtAll", f, mpir.Access{Explicit: true, Offset: off, Coll: true}, m, err)
}

// FileWriteAtAll writes buf to f at offset etypes of the view, on every rank of its group at once (MPI_File_write_at_all).
func FileWriteAtAll[T Elem](f *File, off int64, buf []T) (Status, error) {
	return fileAccess("FileWriteAtAll", f, mpir.Access{Write: true, Explicit: true, Offset: off, Coll: true}, sliceIO(buf), nil)
}

// FileWriteAtAllBuf is FileWriteAtAll of a typed buffer.
func FileWriteAtAllBuf(f *File, off int64, b Buf) (Status, error) {
	m, err := b.bufIO("FileWriteAtAll")
	return fileAccess("FileWriteAtAll", f, mpir.Access{Write: true, Explicit: true, Offset: off, Coll: true}, m, err)
}

// FileReadAll reads f into buf at the file pointer, on every rank of its group at once (MPI_File_read_all).
func FileReadAll[T Elem](f *File, buf []T) (Status, error) {
	return fileAccess("FileReadAll", f, mpir.Access{Coll: true}, sliceIO(buf), nil)
}

// FileReadAllBuf is FileReadAll of a typed buffer.
func FileReadAllBuf(f *File, b Buf) (Status, error) {
	m, err := b.bufIO("FileReadAll")
	return fileAccess("FileReadAll", f, mpir.Access{Coll: true}, m, err)
}

// FileWriteAll writes buf to f at the file pointer, on every rank of its group at once (MPI_File_write_all).
func FileWriteAll[T Elem](f *File, buf []T) (Status, error) {
	return fileAccess("FileWriteAll", f, mpir.Access{Write: true, Coll: true}, sliceIO(buf), nil)
}

// FileWriteAllBuf is FileWriteAll of a typed buffer.
func FileWriteAllBuf(f *File, b Buf) (Status, error) {
	m, err := b.bufIO("FileWriteAll")
	return fileAccess("FileWriteAll", f, mpir.Access{Write: true, Coll: true}, m, err)
}

// FileIreadAt starts reading f into buf at offset etypes of the view (MPI_File_iread_at).
func FileIreadAt[T Elem](f *File, off int64, buf []T) (Request, error) {
	return fileStart("FileIreadAt", f, mpir.Access{Explicit: true, Offset: off}, sliceIO(buf), nil)
}

// FileIreadAtBuf is FileIreadAt of a typed buffer.
func FileIreadAtBuf(f *File, off int64, b Buf) (Request, error) {
	m, err := b.bufIO("FileIreadAt")
	return fileStart("FileIreadAt", f, mpir.Access{Explicit: true, Offset: off}, m, err)
}

// FileIwriteAt starts writing buf to f at offset etypes of the view (MPI_File_iwrite_at).
func FileIwriteAt[T Elem](f *File, off int64, buf []T) (Request, error) {
	return fileStart("FileIwriteAt", f, mpir.Access{Write: true, Explicit: true, Offset: off}, sliceIO(buf), nil)
}

// FileIwriteAtBuf is FileIwriteAt of a typed buffer.
func FileIwriteAtBuf(f *File, off int64, b Buf) (Request, error) {
	m, err := b.bufIO("FileIwriteAt")
	return fileStart("FileIwriteAt", f, mpir.Access{Write: true, Explicit: true, Offset: off}, m, err)
}

// FileIread starts reading f into buf at the file pointer (MPI_File_iread).
func FileIread[T Elem](f *File, buf []T) (Request, error) {
	return fileStart("FileIread", f, mpir.Access{}, sliceIO(buf), nil)
}

// FileIreadBuf is FileIread of a typed buffer.
func FileIreadBuf(f *File, b Buf) (Request, error) {
	m, err := b.bufIO("FileIread")
	return fileStart("FileIread", f, mpir.Access{}, m, err)
}

// FileIwrite starts writing buf to f at the file pointer (MPI_File_iwrite).
func FileIwrite[T Elem](f *File, buf []T) (Request, error) {
	return fileStart("FileIwrite", f, mpir.Access{Write: true}, sliceIO(buf), nil)
}

// FileIwriteBuf is FileIwrite of a typed buffer.
func FileIwriteBuf(f *File, b Buf) (Request, error) {
	m, err := b.bufIO("FileIwrite")
	return fileStart("FileIwrite", f, mpir.Access{Write: true}, m, err)
}

// FileIreadAtAll starts reading f into buf at offset etypes of the view, on every rank of its group at once (MPI_File_iread_at_all).
func FileIreadAtAll[T Elem](f *File, off int64, buf []T) (Request, error) {
	return fileStart("FileIreadAtAll", f, mpir.Access{Explicit: true, Offset: off, Coll: true}, sliceIO(buf), nil)
}

// FileIreadAtAllBuf is FileIreadAtAll of a typed buffer.
func FileIreadAtAllBuf(f *File, off int64, b Buf) (Request, error) {
	m, err := b.bufIO("FileIreadAtAll")
	return fileStart("FileIreadAtAll", f, mpir.Access{Explicit: true, Offset: off, Coll: true}, m, err)
}

// FileIwriteAtAll starts writing buf to f at offset etypes of the view, on every rank of its group at once (MPI_File_iwrite_at_all).
func FileIwriteAtAll[T Elem](f *File, off int64, buf []T) (Request, error) {
	return fileStart("FileIwriteAtAll", f, mpir.Access{Write: true, Explicit: true, Offset: off, Coll: true}, sliceIO(buf), nil)
}

// FileIwriteAtAllBuf is FileIwriteAtAll of a typed buffer.
func FileIwriteAtAllBuf(f *File, off int64, b Buf) (Request, error) {
	m, err := b.bufIO("FileIwriteAtAll")
	return fileStart("FileIwriteAtAll", f, mpir.Access{Write: true, Explicit: true, Offset: off, Coll: true}, m, err)
}

// FileIreadAll starts reading f into buf at the file pointer, on every rank of its group at once (MPI_File_iread_all).
func FileIreadAll[T Elem](f *File, buf []T) (Request, error) {
	return fileStart("FileIreadAll", f, mpir.Access{Coll: true}, sliceIO(buf), nil)
}

// FileIreadAllBuf is FileIreadAll of a typed buffer.
func FileIreadAllBuf(f *File, b Buf) (Request, error) {
	m, err := b.bufIO("FileIreadAll")
	return fileStart("FileIreadAll", f, mpir.Access{Coll: true}, m, err)
}

// FileIwriteAll starts writing buf to f at the file pointer, on every rank of its group at once (MPI_File_iwrite_all).
func FileIwriteAll[T Elem](f *File, buf []T) (Request, error) {
	return fileStart("FileIwriteAll", f, mpir.Access{Write: true, Coll: true}, sliceIO(buf), nil)
}

// FileIwriteAllBuf is FileIwriteAll of a typed buffer.
func FileIwriteAllBuf(f *File, b Buf) (Request, error) {
	m, err := b.bufIO("FileIwriteAll")
	return fileStart("FileIwriteAll", f, mpir.Access{Write: true, Coll: true}, m, err)
}
