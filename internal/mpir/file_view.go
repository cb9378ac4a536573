package mpir

import (
	"math"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpio"
	"github.com/mpigo/mpigo/internal/prof"
)

// File views and positions (MPI 4.1 sections 14.3, 14.4.3 and 14.5): the view's
// rules are internal/mpio's (View); here are the checks of the arguments, the
// agreement and the file pointers.

// DisplacementCurrent is MPI_DISPLACEMENT_CURRENT: set_view's disp for a file opened
// with MPI_MODE_SEQUENTIAL, the shared file pointer's position.
const DisplacementCurrent = -1

// The whence of Seek (the faces map theirs: MPI_SEEK_SET, io.SeekStart, ...).
const (
	SeekSet = iota // the position is offset
	SeekCur        // the current position plus offset
	SeekEnd        // the end of the file plus offset
)

// SetView sets this member's view of the file, every member at once (MPI_File_set_view):
// disp (or DisplacementCurrent), etype, filetype, datarep, and the hints of in. The
// members must pass the same datarep and etypes of the same extent (else
// MPI_ERR_NOT_SAME); their displacements and filetypes may differ. Both pointers go
// to the view's start. bad is the face's error converting its arguments.
func (f *File) SetView(op string, disp int64, etype, ftype *Datatype, datarep string, in *Info, bad error) error {
	defer fileExit(prof.FileSetView, f.fileEnter(prof.FileSetView, 0), 0)
	t := f.lane.take()
	f.lane.wait(t)
	defer f.lane.done()
	var cur int64 // the shared pointer, where the view may start at it
	if f.amode&mpio.Sequential != 0 {
		var err error
		if cur, err = f.sharedNow(op); err != nil {
			return err
		}
	}
	v, rep, local := f.newView(op, disp, etype, ftype, datarep, cur)
	if bad != nil {
		local = bad
	}
	var h argHash
	h.bytes([]byte(rep))
	if local == nil {
		h.ints(int(v.Etype().Extent()))
	}
	if err := f.agree(op, local, h.sum(), "set the view"); err != nil {
		return err
	}
	f.mu.Lock()
	f.view, f.etype, f.ftype, f.datarep, f.fp = v, etype, ftype, rep, 0
	f.settle()
	f.mu.Unlock()
	if err := f.resetShared(op, 0); err != nil {
		return err
	}
	if in != nil {
		return f.setInfoLocked(op, in, nil)
	}
	return nil
}

// newView checks set_view's arguments and makes the view; cur is the shared
// pointer, where disp is MPI_DISPLACEMENT_CURRENT.
func (f *File) newView(op string, disp int64, etype, ftype *Datatype, datarep string, cur int64) (*mpio.View, string, error) {
	et, err := viewType(op, "etype", etype)
	if err != nil {
		return nil, "", err
	}
	ft, err := viewType(op, "filetype", ftype)
	if err != nil {
		return nil, "", err
	}
	rep := FileDatarep(datarep)
	if rep == "" {
		return nil, "", core.Errorf(core.ClassUnsupportedDatarep, op, "datarep %q is no data representation of this process (\"native\", \"internal\", \"external32\" or one MPI_Register_datarep registered)", datarep)
	}
	leaf := repLeaf(op, rep)
	if et, err = fileLayout(op, etype, et, leaf); err != nil {
		return nil, "", repErr(op, err)
	}
	if ft, err = fileLayout(op, ftype, ft, leaf); err != nil {
		return nil, "", repErr(op, err)
	}
	switch {
	case disp == DisplacementCurrent && f.amode&mpio.Sequential == 0:
		return nil, "", core.Errorf(core.ClassArg, op, "disp is MPI_DISPLACEMENT_CURRENT, which only a file opened with MPI_MODE_SEQUENTIAL takes")
	case disp == DisplacementCurrent:
		f.mu.Lock()
		disp = f.view.FileOff(cur)
		f.mu.Unlock()
	case disp < 0:
		return nil, "", core.Errorf(core.ClassArg, op, "disp %d is negative", disp)
	}
	v, err := mpio.NewView(disp, et, ft)
	if err == nil && f.amode&(mpio.Wronly|mpio.Rdwr) != 0 {
		err = v.Writable()
	}
	return v, rep, ioErr(op, err)
}

// viewType checks a type of a view: not null, not freed, committed.
func viewType(op, arg string, d *Datatype) (*datatype.Type, error) {
	t, err := Usable(op, arg, d)
	if err == nil && !t.IsCommitted() {
		err = NotCommitted(op, arg, d.Name())
	}
	return t, err
}

// View is the file's view (MPI_File_get_view): its displacement, types and datarep.
// A predefined type is the object the program passed (the default view's, MPI_BYTE,
// is lookup's); a derived one a new object of the same layout, which the program may
// free.
func (f *File) View(lookup Lookup) (disp int64, etype, ftype *Datatype, datarep string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	etype, ftype = f.etype, f.ftype
	if etype == nil { // the default view
		etype = lookup("MPI_BYTE")
		ftype = etype
	}
	return f.view.Disp(), partOf(etype, f.view.Etype()), partOf(ftype, f.view.Filetype()), f.datarep
}

// TypeExtent is the extent of d in the file's data representation
// (MPI_File_get_type_extent): its extent in memory, for native and internal; in
// external32 or a user's representation, its extent there (repExtent).
func (f *File) TypeExtent(op string, d *Datatype) (int64, error) {
	t, err := Usable(op, "datatype", d)
	if err != nil {
		return 0, err
	}
	f.mu.Lock()
	rep := f.datarep
	f.mu.Unlock()
	return repExtent(op, rep, d, t)
}

// ByteOffset is the file byte where the view's offset (in etypes) lies
// (MPI_File_get_byte_offset).
func (f *File) ByteOffset(op string, offset int64) (int64, error) {
	f.mu.Lock()
	v := f.view
	f.mu.Unlock()
	pos, err := viewPos(op, v, offset, 0)
	if err != nil {
		return 0, err
	}
	return v.FileOff(pos), nil
}

// viewPos is the view position of offset etypes, checked: nonnegative, and n bytes
// from there within the file offsets an int64 holds.
func viewPos(op string, v *mpio.View, offset, n int64) (int64, error) {
	if offset < 0 {
		return 0, core.Errorf(core.ClassArg, op, "offset %d is negative", offset)
	}
	es := v.EtypeSize()
	if offset > math.MaxInt64/es || !v.Fits(offset*es, n) {
		return 0, core.Errorf(core.ClassArg, op, "offset %d (etypes of %d bytes) lies beyond the largest file offset", offset, es)
	}
	return offset * es, nil
}

// Seek moves the individual file pointer (MPI_File_seek): to offset etypes of the
// view, from the view's start, the pointer, or the end of the file, per whence. A
// position before the view's start is refused.
func (f *File) Seek(op string, offset int64, whence int) error {
	if err := f.pointers(op); err != nil {
		return err
	}
	var end int64
	if whence == SeekEnd {
		size, err := f.Size(op)
		if err != nil {
			return err
		}
		f.mu.Lock()
		end = f.view.EOF(size)
		f.mu.Unlock()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	es := f.view.EtypeSize()
	var base int64
	switch whence {
	case SeekSet:
	case SeekCur:
		base = f.fp / es
	case SeekEnd:
		base = end / es
	default:
		return core.Errorf(core.ClassArg, op, "whence %d is none of MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END", whence)
	}
	if offset > 0 && base > math.MaxInt64-offset {
		return core.Errorf(core.ClassArg, op, "offset %d from %d etypes overflows", offset, base)
	}
	pos, err := viewPos(op, f.view, base+offset, 0)
	if err != nil {
		return core.Errorf(core.ClassArg, op, "seeking to etype %d of the view: a position must be nonnegative and within the largest file offset", base+offset)
	}
	f.fp = pos
	return nil
}

// Position is the individual file pointer, in etypes of the view (MPI_File_get_position).
func (f *File) Position(op string) (int64, error) {
	if err := f.pointers(op); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fp / f.view.EtypeSize(), nil
}

// pointers refuses the individual file pointer of a file opened with
// MPI_MODE_SEQUENTIAL, which has the shared one only.
func (f *File) pointers(op string) error {
	if f.amode&mpio.Sequential != 0 {
		return core.Errorf(core.ClassUnsupportedOperation, op,
			"the file was opened with MPI_MODE_SEQUENTIAL: it has no individual file pointer (only the shared one)")
	}
	return nil
}
