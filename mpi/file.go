package mpi

import (
	"sync"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// File is an open file of MPI I/O (MPI_File). mpigo does not open files yet (I/O comes
// later); what exists now is the file side of error handling, which MPI defines
// without any open file: FileNull's error handler is the one every file opened later
// starts with, and the one that serves errors of file calls with no valid file.
//
// A nil *File is MPI_FILE_NULL (FileNull). A File that mpigo did not open (a zero
// File, or one closed) is not a valid handle: calls on it return an error of class
// ErrFile, through FileNull's handler.
type File struct {
	mu   sync.Mutex
	open bool      // opened by mpigo and not closed
	errh mpir.Errh // FileNull's when opened, until SetErrHandler
	name string
}

// FileNull is MPI_FILE_NULL: no file. Its error handler (SetErrHandler,
// ErrHandler) is the default of files: ErrorsReturn to begin with, as MPI says for
// files, whatever World's is.
var FileNull *File

// NewFileErrHandler makes a handler for files that calls fn with the file and the
// error (MPI_File_create_errhandler); the error is then returned. fn gets FileNull (a
// nil *File) for an error with no valid file.
func NewFileErrHandler(fn func(f *File, err error)) *ErrHandler {
	return newErrHandler(mpir.KindFile, fn)
}

// valid is nil when f is an open file, else the error of class ErrFile. FileNull is
// not valid here: the calls that take it (the error-handler calls) test for it first.
func (f *File) valid(op string) error {
	if f == nil {
		return errorf(ClassFile, op, "the file is FileNull (MPI_FILE_NULL)")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.open {
		return errorf(ClassFile, op, "the file is not open (mpigo has not opened it, or it was closed)")
	}
	return nil
}

// errhOf is f's handler slot: FileNull's for FileNull.
func (f *File) errhOf() *mpir.Errh {
	if f == nil {
		return &mpir.FileNull
	}
	return &f.errh
}

// SetErrHandler sets f's handler (MPI_File_set_errhandler): ErrorsReturn,
// ErrorsAreFatal, ErrorsAbort or one of NewFileErrHandler (else ErrErrhandler); nil
// restores ErrorsReturn. On FileNull it sets the handler files opened later start
// with.
func (f *File) SetErrHandler(h *ErrHandler) error {
	const op = "FileSetErrhandler"
	if f != nil {
		if err := f.valid(op); err != nil {
			return f.fail(op, err)
		}
	}
	_, err := f.errhOf().Set(op, mpir.KindFile, h.dev())
	return f.fail(op, err)
}

// ErrHandler returns f's handler (MPI_File_get_errhandler); on FileNull the default
// of files. A bad file gives ErrorsReturn and the error of class ErrFile.
func (f *File) ErrHandler() (*ErrHandler, error) {
	const op = "FileGetErrhandler"
	if f != nil {
		if err := f.valid(op); err != nil {
			return ErrorsReturn, f.fail(op, err)
		}
	}
	return errhOf(f.errhOf().Get()), nil
}

// CallErrHandler invokes f's handler on err (MPI_File_call_errhandler); on FileNull
// the default of files. The error is passed as it is and returned.
func (f *File) CallErrHandler(err error) error {
	const op = "FileCallErrhandler"
	if f != nil {
		if verr := f.valid(op); verr != nil {
			return f.fail(op, verr)
		}
	}
	if err == nil {
		return nil
	}
	return f.invoke(op, err)
}

// fail is the file's side of the error seam: err goes to f's handler, or to
// FileNull's where f is not a valid file (MPI's rule for file errors with no valid
// file). On success it costs one comparison.
func (f *File) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	return f.raise(op, err)
}

func (f *File) raise(op string, err error) error { return f.invoke(op, core.MapErr(op, err)) }

func (f *File) invoke(op string, err error) error {
	if f.valid(op) != nil {
		return mpir.FileNull.Raise(op, FileNull, FileNull.what, err)
	}
	return f.errh.Raise(op, f, f.what, err)
}

// what names f in the message of a fatal error.
func (f *File) what() string { return "file " + f.Name() }

// Name is the file's name, "MPI_FILE_NULL" for FileNull.
func (f *File) Name() string {
	if f == nil {
		return "MPI_FILE_NULL"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.name
}
