package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
	"github.com/mpigo/mpigo/internal/prof"
)

// Buffered sends' buffers: the process's (MPI_Buffer_attach and its kin) and a
// communicator's (MPI_Comm_attach_buffer and its kin).

//export PMPI_Buffer_attach
func PMPI_Buffer_attach(p unsafe.Pointer, size int32) int32 {
	return PMPI_Buffer_attach_c(p, int64(size))
}

//export PMPI_Buffer_attach_c
func PMPI_Buffer_attach_c(p unsafe.Pointer, size int64) int32 {
	return attachBuffer("Buffer_attach_c", (*core.Comm)(nil), 0, p, size)
}

// attachBuffer attaches C memory (or MPI_BUFFER_AUTOMATIC) as o's buffer, its errors
// through ch's handler.
func attachBuffer(op string, o mpir.BufferOwner, ch uintptr, p unsafe.Pointer, size int64) int32 {
	b, auto, err := bufferIn(op, p, size)
	if err != nil {
		return fail(op, ch, err)
	}
	return fail(op, ch, mpir.AttachBuffer(op, o, b, auto))
}

// bufferIn is the buffer of an attach call: size bytes at p (nil for NULL, which
// mpir refuses), or auto for MPI_BUFFER_AUTOMATIC.
func bufferIn(op string, p unsafe.Pointer, size int64) (b []byte, auto bool, err error) {
	switch {
	case uintptr(p) == bufferAutomaticAddr:
		return nil, true, nil
	case size < 0:
		return nil, false, errorf(errBuffer, op, "size %d is negative", size)
	case p == nil:
		return nil, false, nil
	}
	return unsafe.Slice((*byte)(p), size), false, nil
}

// bufferOut stores what a detach call returns: the buffer's address and size,
// MPI_BUFFER_AUTOMATIC (and 0) for an automatic one.
func bufferOut(addr, size unsafe.Pointer, b []byte, auto bool) {
	if auto {
		*(*uintptr)(addr), *(*int64)(size) = bufferAutomaticAddr, 0
		return
	}
	*(*uintptr)(addr), *(*int64)(size) = uintptr(unsafe.Pointer(unsafe.SliceData(b))), int64(len(b))
}

//export PMPI_Buffer_detach
func PMPI_Buffer_detach(addr unsafe.Pointer, size unsafe.Pointer) int32 {
	var n int64
	r := PMPI_Buffer_detach_c(addr, narrowOut(size, &n))
	if r == 0 {
		setInt(size, int(n))
	}
	return r
}

//export PMPI_Buffer_detach_c
func PMPI_Buffer_detach_c(addr unsafe.Pointer, size unsafe.Pointer) int32 {
	return detachBuffer("Buffer_detach_c", (*core.Comm)(nil), 0, addr, size)
}

// narrowOut is where an int form has its wider form write the value it narrows into
// the caller's out: v, or NULL where out is, which the wider form refuses.
func narrowOut(out unsafe.Pointer, v *int64) unsafe.Pointer {
	if out == nil {
		return nil
	}
	return unsafe.Pointer(v)
}

// detachBuffer detaches o's buffer, its address (MPI_BUFFER_AUTOMATIC for an
// automatic one) and size into *addr and *size.
func detachBuffer(op string, o mpir.BufferOwner, ch uintptr, addr unsafe.Pointer, size unsafe.Pointer) int32 {
	if err := nullOut(op, "buffer_addr, size", addr, size); err != nil {
		return fail(op, ch, err)
	}
	b, auto, err := mpir.DetachBuffer(op, o)
	if err != nil {
		return fail(op, ch, err)
	}
	bufferOut(addr, size, b, auto)
	return 0
}

//export PMPI_Buffer_flush
func PMPI_Buffer_flush() int32 {
	return fail("Buffer_flush", 0, mpir.FlushBuffer(prof.BufferFlush, "Buffer_flush", (*core.Comm)(nil), nil))
}

//export PMPI_Buffer_iflush
func PMPI_Buffer_iflush(req unsafe.Pointer) int32 {
	if req == nil {
		return fail("Buffer_iflush", 0, errorf(errArg, "Buffer_iflush", "request is NULL"))
	}
	x, err := mpir.IflushBuffer(prof.BufferIflush, "Buffer_iflush", (*core.Comm)(nil), nil)
	return started("Buffer_iflush", nil, 0, req, x, err)
}

//export PMPI_Comm_attach_buffer
func PMPI_Comm_attach_buffer(ch uintptr, p unsafe.Pointer, size int32) int32 {
	return PMPI_Comm_attach_buffer_c(ch, p, int64(size))
}

//export PMPI_Comm_attach_buffer_c
func PMPI_Comm_attach_buffer_c(ch uintptr, p unsafe.Pointer, size int64) int32 {
	c, r := needComm("Comm_attach_buffer_c", ch)
	if c == nil {
		return r
	}
	return attachBuffer("Comm_attach_buffer_c", c.c, ch, p, size)
}

//export PMPI_Comm_detach_buffer
func PMPI_Comm_detach_buffer(ch uintptr, addr, size unsafe.Pointer) int32 {
	var n int64
	r := PMPI_Comm_detach_buffer_c(ch, addr, narrowOut(size, &n))
	if r == 0 {
		setInt(size, int(n))
	}
	return r
}

//export PMPI_Comm_detach_buffer_c
func PMPI_Comm_detach_buffer_c(ch uintptr, addr, size unsafe.Pointer) int32 {
	c, r := needComm("Comm_detach_buffer_c", ch)
	if c == nil {
		return r
	}
	return detachBuffer("Comm_detach_buffer_c", c.c, ch, addr, size)
}

//export PMPI_Comm_flush_buffer
func PMPI_Comm_flush_buffer(ch uintptr) int32 {
	c, r := needComm("Comm_flush_buffer", ch)
	if c == nil {
		return r
	}
	return fail("Comm_flush_buffer", ch, mpir.FlushBuffer(prof.CommFlushBuffer, "Comm_flush_buffer", c.c, c.c))
}

//export PMPI_Comm_iflush_buffer
func PMPI_Comm_iflush_buffer(ch uintptr, req unsafe.Pointer) int32 {
	c, r := needComm("Comm_iflush_buffer", ch)
	if c == nil {
		return r
	}
	if req == nil {
		return fail("Comm_iflush_buffer", ch, errorf(errArg, "Comm_iflush_buffer", "request is NULL"))
	}
	x, err := mpir.IflushBuffer(prof.CommIflushBuffer, "Comm_iflush_buffer", c.c, c.c)
	return started("Comm_iflush_buffer", c, ch, req, x, err)
}
