package mpi

import "github.com/mpigo/mpigo/internal/mpir"

// A ConversionFunc converts between memory and a file in a data representation of
// the program's (RegisterDatarep): count data items (the predefined entries of dt's
// type signature, dt tiled over mem from its base address mem[0]) from item position
// on, and file, exactly those items' bytes in the file's representation, back to
// back. A read's converts file into mem, a write's mem into file. An access calls it
// with successive chunks of its items, each with the next position. dt is the
// datatype the access was given (a slice's: its element type, count counting
// elements). An error it returns fails the access, in class ErrConversion, and
// errors.Is and errors.As find it.
type ConversionFunc func(mem []byte, dt *Datatype, count int, file []byte, position int) error

// An ExtentFunc is the size in a file of the data representation (RegisterDatarep)
// of one item of the predefined datatype dt: the size by which the etypes and
// filetypes of views of the representation lay out the file, and File.TypeExtent's.
// An error it returns fails the call that needed it, in class ErrConversion.
type ExtentFunc func(dt *Datatype) (int64, error)

// RegisterDatarep defines the data representation name for this process
// (MPI_Register_datarep): File.SetView then takes name as its datarep, and the
// accesses of the view convert through read and write, the view's types laid out in
// the file by extent's sizes. A nil read or write (MPI_CONVERSION_FN_NULL) moves the
// data of that direction as memory holds it, which needs extent to give every type
// accessed its size in memory (else the access is ErrConversion). A name defined
// already, "native", "internal" and "external32" in any case included, is
// ErrDupDatarep; an empty name, one longer than 127 bytes or a nil extent is
// ErrArg. Errors go to FileNull's handler.
func RegisterDatarep(name string, read, write ConversionFunc, extent ExtentFunc) error {
	const op = "RegisterDatarep"
	if err := ready(op); err != nil {
		return FileNull.fail(op, err)
	}
	var ext mpir.ExtentFunc
	if extent != nil {
		ext = func(d *mpir.Datatype) (int64, error) { return extent(handleOf(d)) }
	}
	return FileNull.fail(op, mpir.RegisterDatarep(op, name, conversion(read), conversion(write), ext))
}

// conversion is mpir's form of fn: nil for nil. The Go face's buffers have their
// base address at mem[0] (origin 0).
func conversion(fn ConversionFunc) mpir.Conversion {
	if fn == nil {
		return nil
	}
	return func(mem []byte, origin int64, d *mpir.Datatype, count int64, file []byte, position int64) error {
		return fn(mem[origin:], handleOf(d), int(count), file, int(position))
	}
}
