package mpio

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// Amode is a file's access mode (MPI 4.1 section 14.2.1): an OR of the modes below,
// whose values are the MPI ABI's (MPI_MODE_RDONLY is 16, ...), so that the C library
// passes a program's amode through unchanged.
type Amode int

// The access modes.
const (
	Append        Amode = 1   // MPI_MODE_APPEND: every file pointer starts at the end of the file
	Create        Amode = 2   // MPI_MODE_CREATE: create the file if it does not exist
	DeleteOnClose Amode = 4   // MPI_MODE_DELETE_ON_CLOSE: delete the file when it is closed
	Excl          Amode = 8   // MPI_MODE_EXCL: creating a file that exists is an error
	Rdonly        Amode = 16  // MPI_MODE_RDONLY: read only
	Rdwr          Amode = 32  // MPI_MODE_RDWR: reading and writing
	Sequential    Amode = 64  // MPI_MODE_SEQUENTIAL: the file is accessed sequentially only
	UniqueOpen    Amode = 128 // MPI_MODE_UNIQUE_OPEN: nobody else opens the file meanwhile
	Wronly        Amode = 256 // MPI_MODE_WRONLY: write only

	allModes = Append | Create | DeleteOnClose | Excl | Rdonly | Rdwr | Sequential | UniqueOpen | Wronly
)

var modeNames = []struct {
	m    Amode
	name string
}{
	{Rdonly, "MPI_MODE_RDONLY"}, {Rdwr, "MPI_MODE_RDWR"}, {Wronly, "MPI_MODE_WRONLY"},
	{Create, "MPI_MODE_CREATE"}, {Excl, "MPI_MODE_EXCL"}, {DeleteOnClose, "MPI_MODE_DELETE_ON_CLOSE"},
	{UniqueOpen, "MPI_MODE_UNIQUE_OPEN"}, {Sequential, "MPI_MODE_SEQUENTIAL"}, {Append, "MPI_MODE_APPEND"},
}

// String spells a as MPI names its modes, "MPI_MODE_RDWR|MPI_MODE_CREATE".
func (a Amode) String() string {
	var parts []string
	for _, n := range modeNames {
		if a&n.m != 0 {
			parts = append(parts, n.name)
		}
	}
	if rest := a &^ allModes; rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", int(rest)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// Check applies the standard's rules on combinations (section 14.2.1), the error of
// class ErrAmode saying which it breaks: exactly one of Rdonly, Rdwr and Wronly;
// neither Create nor Excl with Rdonly; not Sequential with Rdwr; no bit that is no
// mode. Excl without Create is allowed and has no effect (nothing is created).
func (a Amode) Check() error {
	switch {
	case a&^allModes != 0:
		return errorf(ErrAmode, "amode %s has bits that are no access mode", a)
	case a&(Rdonly|Rdwr|Wronly) == 0:
		return errorf(ErrAmode, "amode %s has none of MPI_MODE_RDONLY, MPI_MODE_RDWR, MPI_MODE_WRONLY (it must have exactly one)", a)
	case a&Rdonly != 0 && a&(Rdwr|Wronly) != 0, a&Rdwr != 0 && a&Wronly != 0:
		return errorf(ErrAmode, "amode %s has more than one of MPI_MODE_RDONLY, MPI_MODE_RDWR, MPI_MODE_WRONLY (it must have exactly one)", a)
	case a&Rdonly != 0 && a&(Create|Excl) != 0:
		return errorf(ErrAmode, "amode %s: MPI_MODE_CREATE and MPI_MODE_EXCL cannot go with MPI_MODE_RDONLY", a)
	case a&Sequential != 0 && a&Rdwr != 0:
		return errorf(ErrAmode, "amode %s: MPI_MODE_SEQUENTIAL cannot go with MPI_MODE_RDWR", a)
	}
	return nil
}

// CanRead reports whether a file opened with a may be read.
func (a Amode) CanRead() bool { return a&Wronly == 0 }

// CanWrite reports whether a file opened with a may be written.
func (a Amode) CanWrite() bool { return a&Rdonly == 0 }

// flags are the open(2) flags of a (checked), creating the file or not. A file
// opened for writing only is opened for reading too where the permissions allow
// (Open falls back), so that a noncontiguous write can read the holes it sieves
// over. O_APPEND is never given: pwrite would then ignore its offset.
func (a Amode) flags(create bool) int {
	f := unix.O_CLOEXEC
	switch {
	case a&Rdonly != 0:
		f |= unix.O_RDONLY
	default:
		f |= unix.O_RDWR
	}
	if create && a&Create != 0 {
		f |= unix.O_CREAT
		if a&Excl != 0 {
			f |= unix.O_EXCL
		}
	}
	return f
}
