package mpi

import (
	"io"
	"sync"
)

// FileBytes is a file's bytes as the io package's interfaces see them: an
// io.ReaderAt, io.WriterAt and io.ReadWriteSeeker over the file's bytes from its
// first, whatever the file's view, for code that takes those (a zip.Reader, an
// io.SectionReader, io.Copy). Its calls are independent (each rank calls them
// alone), obey the file's access mode and atomicity, and return the file's errors
// after its handler has run. Its own offset, for Read, Write and Seek, is not the
// file pointer of FileRead and FileWrite, which counts etypes of the view.
type FileBytes struct {
	f   *File
	mu  sync.Mutex
	off int64
}

// Bytes returns a FileBytes of f, its offset at 0.
func (f *File) Bytes() *FileBytes { return &FileBytes{f: f} }

// ReadAt reads len(p) bytes at byte off of the file; fewer, with io.EOF, where the
// file ends.
func (b *FileBytes) ReadAt(p []byte, off int64) (int, error) {
	const op = "FileBytes.ReadAt"
	if err := b.f.check(op); err != nil {
		return 0, err
	}
	n, err := b.f.d.Bytes(op, p, off, false)
	if err != nil {
		return n, b.f.fail(op, err)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// WriteAt writes p at byte off of the file.
func (b *FileBytes) WriteAt(p []byte, off int64) (int, error) {
	const op = "FileBytes.WriteAt"
	if err := b.f.check(op); err != nil {
		return 0, err
	}
	n, err := b.f.d.Bytes(op, p, off, true)
	return n, b.f.fail(op, err)
}

// Read reads from b's offset and moves it past what it read.
func (b *FileBytes) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.ReadAt(p, b.off)
	b.off += int64(n)
	if n > 0 && err == io.EOF {
		err = nil // io.Reader's rule: the next call reports the end
	}
	return n, err
}

// Write writes at b's offset and moves it past what it wrote.
func (b *FileBytes) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.WriteAt(p, b.off)
	b.off += int64(n)
	return n, err
}

// Seek sets b's offset (io.Seeker): io.SeekEnd counts from the file's size.
func (b *FileBytes) Seek(offset int64, whence int) (int64, error) {
	const op = "FileBytes.Seek"
	b.mu.Lock()
	defer b.mu.Unlock()
	var base int64
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		base = b.off
	case io.SeekEnd:
		size, err := b.f.Size()
		if err != nil {
			return b.off, err
		}
		base = size
	default:
		return b.off, b.f.fail(op, errorf(ClassArg, op, "whence %d is none of io.SeekStart, io.SeekCurrent, io.SeekEnd", whence))
	}
	if base+offset < 0 {
		return b.off, b.f.fail(op, errorf(ClassArg, op, "offset %d from %d is before the file's start", offset, base))
	}
	b.off = base + offset
	return b.off, nil
}

var (
	_ io.ReaderAt        = (*FileBytes)(nil)
	_ io.WriterAt        = (*FileBytes)(nil)
	_ io.ReadWriteSeeker = (*FileBytes)(nil)
)
