package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// File is an open file of MPI I/O (MPI_File, MPI 4.1 chapter 14): one file that
// every rank of a communicator opens together (FileOpen) and then reads and writes,
// each rank through its own view (SetView) of the parts it accesses, at explicit
// offsets or through its file pointer, alone or together (the ...All calls), blocking
// or not (the Ixxx calls, whose Requests Wait and its kin complete).
//
// A nil *File is MPI_FILE_NULL (FileNull). A File that mpigo did not open (a zero
// File), or one closed, is not a valid handle: calls on it return an error of class
// ErrFile, through FileNull's handler. A file's errors go to its own handler, which
// starts as FileNull's: ErrorsReturn unless the program set another, whatever
// World's is, as MPI says for files.
type File struct {
	d *mpir.File // nil for a File mpigo did not open
}

// FileNull is MPI_FILE_NULL: no file. Its error handler (SetErrHandler,
// ErrHandler) is the default of files: ErrorsReturn to begin with, as MPI says for
// files, whatever World's is.
var FileNull *File

// Amode is a file's access mode (MPI's amode): an OR of the Mode constants, with
// exactly one of ModeRdonly, ModeRdwr and ModeWronly.
type Amode int

// The access modes (MPI_MODE_*).
const (
	ModeRdonly        Amode = Amode(mpir.ModeRdonly)        // read only
	ModeRdwr          Amode = Amode(mpir.ModeRdwr)          // reading and writing
	ModeWronly        Amode = Amode(mpir.ModeWronly)        // write only
	ModeCreate        Amode = Amode(mpir.ModeCreate)        // create the file if it does not exist
	ModeExcl          Amode = Amode(mpir.ModeExcl)          // with ModeCreate: fail if the file exists
	ModeDeleteOnClose Amode = Amode(mpir.ModeDeleteOnClose) // delete the file when it is closed
	ModeUniqueOpen    Amode = Amode(mpir.ModeUniqueOpen)    // nobody else opens the file meanwhile
	ModeSequential    Amode = Amode(mpir.ModeSequential)    // accessed sequentially (through the shared file pointer only)
	ModeAppend        Amode = Amode(mpir.ModeAppend)        // every file pointer starts at the end of the file
)

// String spells a as MPI names the modes: "MPI_MODE_RDWR|MPI_MODE_CREATE".
func (a Amode) String() string { return mpir.Amode(a).String() }

// FileOpen opens the file name on every rank of c at once (MPI_File_open): every rank
// must call it, with the same name (naming the same file) and amode, else every rank
// gets an error of class ErrNotSame. info's hints (nil: none) tune the file: see
// (*File).Info. With ModeCreate rank 0 creates the file before the others open it.
//
// The errors are MPI's I/O classes: ErrNoSuchFile (no such file without
// ModeCreate), ErrAccess (permission denied), ErrFileExists (ModeCreate|ModeExcl
// and the file exists), ErrAmode (a bad amode), ErrBadFile (a directory, a bad
// name), ErrReadOnly, ErrNoSpace, ErrQuota, ErrIO. An error of one rank is every
// rank's: none opens the file then. They go to FileNull's handler.
func FileOpen(c *Comm, name string, amode Amode, info *Info) (*File, error) {
	const op = "FileOpen"
	if err := ready(op); err != nil {
		return nil, FileNull.fail(op, err)
	}
	if c.dev() == nil {
		return nil, FileNull.fail(op, errorf(ClassComm, op, "c is a nil communicator"))
	}
	d, err := mpir.FileOpen(op, c.d, c.owner(), name, int(amode), info.obj(), nil)
	if err != nil {
		return nil, FileNull.fail(op, err)
	}
	f := &File{d: d}
	d.Face = f
	return f, nil
}

// FileDelete deletes the file name (MPI_File_delete): ErrNoSuchFile if there is
// none. It is not collective. Errors go to FileNull's handler.
func FileDelete(name string, info *Info) error {
	const op = "FileDelete"
	return FileNull.fail(op, mpir.FileDelete(op, name, info.obj()))
}

// Close closes f on every rank of its group at once (MPI_File_close): it waits for
// f's nonblocking operations, writes what this rank wrote through to the storage,
// and, for a file opened with ModeDeleteOnClose, deletes it once every rank has
// closed it. f is no longer valid afterwards. Like Sync, it reports another rank's
// failure in an earlier collective access that this rank has not seen (see the data
// access calls); f is closed all the same.
func (f *File) Close() error {
	const op = "FileClose"
	if err := f.check(op); err != nil {
		return err
	}
	return f.fail(op, f.d.Close(op))
}

// Size is the file's size in bytes (MPI_File_get_size).
func (f *File) Size() (int64, error) {
	const op = "FileGetSize"
	if err := f.check(op); err != nil {
		return 0, err
	}
	n, err := f.d.Size(op)
	return n, f.fail(op, err)
}

// SetSize truncates or extends the file to size bytes, on every rank of its group at
// once with the same size (MPI_File_set_size); bytes it adds read as zeros.
func (f *File) SetSize(size int64) error {
	const op = "FileSetSize"
	if err := f.check(op); err != nil {
		return err
	}
	return f.fail(op, f.d.SetSize(op, size))
}

// Preallocate makes the file's first size bytes take storage, on every rank of its
// group at once with the same size (MPI_File_preallocate): a file shorter than size
// grows to it.
func (f *File) Preallocate(size int64) error {
	const op = "FilePreallocate"
	if err := f.check(op); err != nil {
		return err
	}
	return f.fail(op, f.d.Preallocate(op, size))
}

// Group is the group of ranks that opened f (MPI_File_get_group).
func (f *File) Group() (*Group, error) {
	const op = "FileGetGroup"
	if err := f.check(op); err != nil {
		return nil, err
	}
	return wrapGroup(f.d.Group()), nil
}

// Amode is the access mode f was opened with (MPI_File_get_amode).
func (f *File) Amode() (Amode, error) {
	const op = "FileGetAmode"
	if err := f.check(op); err != nil {
		return 0, err
	}
	return Amode(f.d.Amode()), nil
}

// Sync writes what this rank wrote to f through to the storage device, on every rank
// of its group at once (MPI_File_sync). With a barrier after it, what one rank wrote
// before the sync is what every rank reads after. It fails on a rank whose part of an
// earlier collective access succeeded where another rank's failed, naming that rank,
// once (see the data access calls).
func (f *File) Sync() error {
	const op = "FileSync"
	if err := f.check(op); err != nil {
		return err
	}
	return f.fail(op, f.d.Sync(op))
}

// SetAtomicity sets f's consistency mode on every rank of its group at once, with the
// same flag (MPI_File_set_atomicity): in atomic mode, each access is done whole
// before or after any conflicting access of another rank.
func (f *File) SetAtomicity(flag bool) error {
	const op = "FileSetAtomicity"
	if err := f.check(op); err != nil {
		return err
	}
	return f.fail(op, f.d.SetAtomicity(op, flag))
}

// Atomicity reports whether f is in atomic mode (MPI_File_get_atomicity).
func (f *File) Atomicity() (bool, error) {
	const op = "FileGetAtomicity"
	if err := f.check(op); err != nil {
		return false, err
	}
	return f.d.Atomicity(), nil
}

// SetInfo sets the hints of info that mpigo takes and that may change on an open file,
// on every rank of its group at once (MPI_File_set_info).
func (f *File) SetInfo(info *Info) error {
	const op = "FileSetInfo"
	if err := f.check(op); err != nil {
		return err
	}
	return f.fail(op, f.d.SetInfo(op, info.obj(), nil))
}

// Info returns a new Info with the hints in effect on f (MPI_File_get_info): every
// hint mpigo takes for files at its value (cb_nodes, cb_buffer_size, romio_cb_read,
// romio_cb_write, romio_ds_read, romio_ds_write, ind_rd_buffer_size,
// ind_wr_buffer_size, striping_unit, mpigo_write_behind), and access_style and
// file_perm once given. Hints mpigo ignores are not reported. mpigo_write_behind
// ("automatic", "enable" or "disable") says whether a write of 2 MiB or more starts
// writing its bytes to the device while it goes on, which Sync and Close would wait
// for; "automatic" does so on a local disk.
func (f *File) Info() (*Info, error) {
	const op = "FileGetInfo"
	if err := f.check(op); err != nil {
		return nil, err
	}
	return wrapInfo(f.d.Info()), nil
}

// NewFileErrHandler makes a handler for files that calls fn with the file and the
// error (MPI_File_create_errhandler); the error is then returned. fn gets FileNull (a
// nil *File) for an error with no valid file.
func NewFileErrHandler(fn func(f *File, err error)) *ErrHandler {
	return newErrHandler(mpir.KindFile, fn)
}

// valid is nil when f is an open file, else the error of class ErrFile. FileNull is
// not valid here: the calls that take it (the error-handler calls) test for it first.
func (f *File) valid(op string) error {
	switch {
	case f == nil:
		return errorf(ClassFile, op, "the file is FileNull (MPI_FILE_NULL)")
	case f.d == nil:
		return errorf(ClassFile, op, "the file is not open (mpigo has not opened it)")
	}
	return f.d.Check(op)
}

// check is the seam's test of the handle: nil when f is an open file, else the error
// of class ErrFile through FileNull's handler (an error with no valid file).
func (f *File) check(op string) error {
	if err := f.valid(op); err != nil {
		return FileNull.fail(op, err)
	}
	return nil
}

// errhOf is f's handler slot: FileNull's for FileNull.
func (f *File) errhOf() *mpir.Errh {
	if f == nil {
		return &mpir.FileNull
	}
	return f.d.Errh()
}

// SetErrHandler sets f's handler (MPI_File_set_errhandler): ErrorsReturn,
// ErrorsAreFatal, ErrorsAbort or one of NewFileErrHandler (else ErrErrhandler); nil
// restores ErrorsReturn. On FileNull it sets the handler files opened later start
// with.
func (f *File) SetErrHandler(h *ErrHandler) error {
	const op = "FileSetErrhandler"
	if f != nil {
		if err := f.check(op); err != nil {
			return err
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
		if err := f.check(op); err != nil {
			return ErrorsReturn, err
		}
	}
	return errhOf(f.errhOf().Get()), nil
}

// CallErrHandler invokes f's handler on err (MPI_File_call_errhandler); on FileNull
// the default of files. The error is passed as it is and returned.
func (f *File) CallErrHandler(err error) error {
	const op = "FileCallErrhandler"
	if f != nil {
		if verr := f.check(op); verr != nil {
			return verr
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

// invoke runs the handler: f's own while f is a file mpigo opened (closed or not:
// Close's own errors go to the file's handler), else FileNull's.
func (f *File) invoke(op string, err error) error {
	if f == nil || f.d == nil {
		return mpir.FileNull.Raise(op, FileNull, FileNull.what, err)
	}
	return f.d.Errh().Raise(op, f, f.what, err)
}

// what names f in the message of a fatal error.
func (f *File) what() string {
	if f == nil || f.d == nil {
		return "file " + f.Name()
	}
	return f.d.What()
}

// Name is the file's name as it was opened, "MPI_FILE_NULL" for FileNull.
func (f *File) Name() string {
	switch {
	case f == nil:
		return "MPI_FILE_NULL"
	case f.d == nil:
		return ""
	}
	return f.d.Name()
}
