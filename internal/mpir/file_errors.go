package mpir

import (
	"errors"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpio"
)

// ioErr gives an error of internal/mpio its MPI class for the call op: the file
// system's errors their I/O classes (MPI 4.1 section 14.7, Table 14.3), a bad access
// mode MPI_ERR_AMODE, a bad view MPI_ERR_TYPE or MPI_ERR_ARG.
func ioErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *core.Error
	if errors.As(err, &e) {
		return err
	}
	class := core.ClassIO
	for _, m := range ioClasses {
		if errors.Is(err, m.err) {
			class = m.class
			break
		}
	}
	return core.Wrap(class, op, "", err)
}

var ioClasses = []struct {
	err   error
	class core.ErrorClass
}{
	{mpio.ErrNoSuchFile, core.ClassNoSuchFile},
	{mpio.ErrAccess, core.ClassAccess},
	{mpio.ErrNoSpace, core.ClassNoSpace},
	{mpio.ErrReadOnly, core.ClassReadOnly},
	{mpio.ErrExists, core.ClassFileExists},
	{mpio.ErrInUse, core.ClassFileInUse},
	{mpio.ErrBadFile, core.ClassBadFile},
	{mpio.ErrQuota, core.ClassQuota},
	{mpio.ErrIO, core.ClassIO},
	{mpio.ErrAmode, core.ClassAmode},
	{mpio.ErrArg, core.ClassArg},
	{mpio.ErrType, core.ClassType},
}
