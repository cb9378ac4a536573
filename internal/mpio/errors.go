package mpio

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// The classes of errors, for errors.Is. internal/mpir gives each its MPI class: the
// first ten are MPI's I/O classes of the same names (MPI_ERR_NO_SUCH_FILE,
// MPI_ERR_ACCESS, ...), ErrArg is MPI_ERR_ARG and ErrType MPI_ERR_TYPE.
var (
	ErrNoSuchFile = errors.New("no such file")
	ErrAccess     = errors.New("permission denied")
	ErrNoSpace    = errors.New("no space left on the device")
	ErrReadOnly   = errors.New("read-only file system")
	ErrExists     = errors.New("the file exists")
	ErrInUse      = errors.New("the file is in use")
	ErrBadFile    = errors.New("invalid file name")
	ErrQuota      = errors.New("quota exceeded")
	ErrIO         = errors.New("I/O error")
	ErrAmode      = errors.New("invalid access mode")
	ErrArg        = errors.New("invalid argument")
	ErrType       = errors.New("invalid datatype")
)

// errorf makes an error of class saying what broke which rule; errors.Is(err, class)
// holds.
func errorf(class error, format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{class}, a...)...)
}

// sysErr gives an error of the system call call on path its class. The errno stays
// in the chain (errors.Is(err, unix.ENOSPC) holds) for a program that wants it.
func sysErr(call, path string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %s %s: %w", classOf(err), call, path, err)
}

// classOf is the class of a system call's error.
func classOf(err error) error {
	var e unix.Errno
	if !errors.As(err, &e) {
		return ErrIO
	}
	switch e {
	case unix.ENOENT:
		return ErrNoSuchFile
	case unix.EACCES, unix.EPERM:
		return ErrAccess
	case unix.ENOSPC, unix.EFBIG:
		return ErrNoSpace
	case unix.EROFS:
		return ErrReadOnly
	case unix.EEXIST:
		return ErrExists
	case unix.ETXTBSY, unix.EBUSY:
		return ErrInUse
	case unix.EISDIR, unix.ENOTDIR, unix.ENAMETOOLONG, unix.ELOOP, unix.ENXIO, unix.ENODEV:
		return ErrBadFile
	case unix.EDQUOT:
		return ErrQuota
	}
	return ErrIO
}
