package mpi

import (
	"io"

	"github.com/mpigo/mpigo/internal/mpir"
)

// DisplacementCurrent is SetView's disp for a file opened with ModeSequential: the
// view starts where the shared file pointer is (MPI_DISPLACEMENT_CURRENT).
const DisplacementCurrent = mpir.DisplacementCurrent

// SetView sets this rank's view of f, on every rank of its group at once
// (MPI_File_set_view): the file seen from byte disp on as copies of filetype laid end
// to end, each a template of the etypes this rank reads and writes, which are the
// unit of the offsets and positions of every later access. Every rank must pass the
// same datarep and etypes of the same extent (else ErrNotSame); disp and filetype
// may differ, so that the ranks' views interleave. The file pointer goes to the
// view's start. info's hints, if not nil, are set as SetInfo sets them.
//
// The filetype must be made of etypes, with nonnegative displacements that never
// decrease, holes that are whole etypes, and a positive extent (else ErrType); both
// types committed. datarep is "native" (or "" for it), "internal", which is the
// same in mpigo, or "external32": the file then holds every element big-endian at
// the standard's fixed size (MPI 4.1 section 14.5.2), which is each Go element's
// size, and reads and writes convert (slices by their element type, typed buffers
// by their Datatype); the view's positions count the file's bytes. A name
// RegisterDatarep registered converts through its functions. Others are
// ErrUnsupportedDatarep. In a representation other than native, the etype and
// filetype lay out the file with each predefined type at its size there: counts of
// elements (TypeVector's stride, TypeIndexed's displacements, subarrays) scale with
// it, byte displacements (TypeHvector, TypeStruct, TypeResized) are
// the file's as given; TypeExtent gives the sizes. The view starts as disp 0 with
// Byte for etype and filetype.
func (f *File) SetView(disp int64, etype, filetype *Datatype, datarep string, info *Info) error {
	const op = "FileSetView"
	if err := f.check(op); err != nil {
		return err
	}
	if datarep == "" {
		datarep = "native"
	}
	return f.fail(op, f.d.SetView(op, disp, etype.obj(), filetype.obj(), datarep, info.obj(), nil))
}

// View returns f's view (MPI_File_get_view): its displacement, etype and filetype (a
// predefined type as itself, a derived one as a new Datatype with the same type map,
// which the program may Free) and datarep.
func (f *File) View() (disp int64, etype, filetype *Datatype, datarep string, err error) {
	const op = "FileGetView"
	if err := f.check(op); err != nil {
		return 0, nil, nil, "", err
	}
	disp, et, ft, rep := f.d.View(lookup)
	return disp, handleOf(et), handleOf(ft), rep, nil
}

// TypeExtent is dt's extent in f's data representation (MPI_File_get_type_extent):
// its extent in memory, for "native" and "internal"; in "external32" or a
// representation of RegisterDatarep, its extent in the file, with each predefined
// type at its size there (a registered representation's ExtentFunc's).
func (f *File) TypeExtent(dt *Datatype) (int64, error) {
	const op = "FileGetTypeExtent"
	if err := f.check(op); err != nil {
		return 0, err
	}
	n, err := f.d.TypeExtent(op, dt.obj())
	return n, f.fail(op, err)
}

// ByteOffset is the file byte where offset etypes of f's view lie
// (MPI_File_get_byte_offset).
func (f *File) ByteOffset(offset int64) (int64, error) {
	const op = "FileGetByteOffset"
	if err := f.check(op); err != nil {
		return 0, err
	}
	n, err := f.d.ByteOffset(op, offset)
	return n, f.fail(op, err)
}

// Seek moves f's file pointer (MPI_File_seek) to offset etypes from the view's start
// (whence io.SeekStart), the pointer (io.SeekCurrent) or the end of the file
// (io.SeekEnd: the first etype of the view at or after the file's end), and returns
// the new position, in etypes (MPI_File_get_position's). A position before the view's
// start is ErrArg; a file opened with ModeSequential has no file pointer of its own
// (ErrUnsupportedOperation).
func (f *File) Seek(offset int64, whence int) (int64, error) {
	const op = "FileSeek"
	if err := f.check(op); err != nil {
		return 0, err
	}
	w, err := seekWhence(op, whence)
	if err != nil {
		return 0, f.fail(op, err)
	}
	if err := f.d.Seek(op, offset, w); err != nil {
		return 0, f.fail(op, err)
	}
	n, err := f.d.Position(op)
	return n, f.fail(op, err)
}

// seekWhence is mpir's whence for io.Seeker's (io.SeekStart, ...), and the error of
// any other.
func seekWhence(op string, whence int) (int, error) {
	switch whence {
	case io.SeekStart:
		return mpir.SeekSet, nil
	case io.SeekCurrent:
		return mpir.SeekCur, nil
	case io.SeekEnd:
		return mpir.SeekEnd, nil
	}
	return -1, errorf(ClassArg, op, "whence %d is none of io.SeekStart, io.SeekCurrent, io.SeekEnd", whence)
}

// Position is f's file pointer, in etypes from the view's start (MPI_File_get_position).
func (f *File) Position() (int64, error) {
	const op = "FileGetPosition"
	if err := f.check(op); err != nil {
		return 0, err
	}
	n, err := f.d.Position(op)
	return n, f.fail(op, err)
}
