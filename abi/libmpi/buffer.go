package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
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
	return attachBuffer("Buffer_attach", nil, 0, p, size)
}

// attachBuffer attaches C memory as the buffer of c (the process's for nil).
func attachBuffer(op string, c *core.Comm, ch uintptr, p unsafe.Pointer, size int64) int32 {
	b, auto, err := bufferIn(op, p, size)
	if err != nil {
		return fail(op, ch, err)
	}
	return fail(op, ch, c.AttachBuffer(op, b, auto))
}

// bufferIn is the buffer of an attach call: size bytes at p, or auto for
// MPI_BUFFER_AUTOMATIC.
func bufferIn(op string, p unsafe.Pointer, size int64) (b []byte, auto bool, err error) {
	if uintptr(p) == bufferAutomaticAddr {
		return nil, true, nil
	}
	if p == nil || size < 0 {
		return nil, false, errorf(errBuffer, op, "buffer is NULL or size %d negative", size)
	}
	return unsafe.Slice((*byte)(p), size), false, nil
}

// bufferOut stores what a detach call returns: the buffer's address and size,
// MPI_BUFFER_AUTOMATIC (and 0) for an automatic one.
func bufferOut(addr, size unsafe.Pointer, b []byte, auto bool) {
	switch {
	case auto:
		*(*uintptr)(addr) = bufferAutomaticAddr
		*(*int64)(size) = 0
	case len(b) == 0:
		*(*uintptr)(addr) = 0
		*(*int64)(size) = 0
	default:
		*(*uintptr)(addr) = uintptr(unsafe.Pointer(&b[0]))
		*(*int64)(size) = int64(len(b))
	}
}

//export PMPI_Buffer_detach
func PMPI_Buffer_detach(addr unsafe.Pointer, size unsafe.Pointer) int32 {
	var n int64
	r := PMPI_Buffer_detach_c(addr, unsafe.Pointer(&n))
	if r == 0 {
		setInt(size, int(n))
	}
	return r
}

//export PMPI_Buffer_detach_c
func PMPI_Buffer_detach_c(addr unsafe.Pointer, size unsafe.Pointer) int32 {
	return detachBuffer("Buffer_detach", nil, 0, addr, size)
}

func detachBuffer(op string, c *core.Comm, ch uintptr, addr unsafe.Pointer, size unsafe.Pointer) int32 {
	if addr == nil || size == nil {
		return fail(op, ch, errorf(errArg, op, "buffer_addr or size is NULL"))
	}
	b, auto, err := c.DetachBuffer(op)
	if err != nil {
		return fail(op, ch, err)
	}
	bufferOut(addr, size, b, auto)
	return 0
}

//export PMPI_Buffer_flush
func PMPI_Buffer_flush() int32 {
	defer prof.Exit(prof.BufferFlush, prof.EnterTimed(prof.BufferFlush, nil, prof.NoPeer, -1, 0), 0)
	return fail("Buffer_flush", 0, (*core.Comm)(nil).FlushBuffer("Buffer_flush"))
}

//export PMPI_Buffer_iflush
func PMPI_Buffer_iflush(req unsafe.Pointer) int32 {
	defer prof.Exit(prof.BufferIflush, prof.EnterTimed(prof.BufferIflush, nil, prof.NoPeer, -1, 0), 0)
	return iflushBuffer("Buffer_iflush", nil, 0, req)
}

func iflushBuffer(op string, c *comm, ch uintptr, req unsafe.Pointer) int32 {
	if req == nil {
		return fail(op, ch, errorf(errArg, op, "request is NULL"))
	}
	var cc *core.Comm
	if c != nil {
		cc = c.c
	}
	p, err := cc.IflushBuffer(op)
	if err != nil {
		return fail(op, ch, err)
	}
	addPending(p, c, ch, nil, req)
	return 0
}

//export PMPI_Comm_attach_buffer
func PMPI_Comm_attach_buffer(ch uintptr, p unsafe.Pointer, size int32) int32 {
	return PMPI_Comm_attach_buffer_c(ch, p, int64(size))
}

//export PMPI_Comm_attach_buffer_c
func PMPI_Comm_attach_buffer_c(ch uintptr, p unsafe.Pointer, size int64) int32 {
	c, r := needComm("Comm_attach_buffer", ch)
	if c == nil {
		return r
	}
	return attachBuffer("Comm_attach_buffer", c.c, ch, p, size)
}

//export PMPI_Comm_detach_buffer
func PMPI_Comm_detach_buffer(ch uintptr, addr, size unsafe.Pointer) int32 {
	var n int64
	r := PMPI_Comm_detach_buffer_c(ch, addr, unsafe.Pointer(&n))
	if r == 0 {
		setInt(size, int(n))
	}
	return r
}

//export PMPI_Comm_detach_buffer_c
func PMPI_Comm_detach_buffer_c(ch uintptr, addr, size unsafe.Pointer) int32 {
	c, r := needComm("Comm_detach_buffer", ch)
	if c == nil {
		return r
	}
	return detachBuffer("Comm_detach_buffer", c.c, ch, addr, size)
}

//export PMPI_Comm_flush_buffer
func PMPI_Comm_flush_buffer(ch uintptr) int32 {
	c, r := needComm("Comm_flush_buffer", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.CommFlushBuffer, c.enterTimed(prof.CommFlushBuffer, prof.NoPeer, -1, 0), 0)
	return fail("Comm_flush_buffer", ch, c.c.FlushBuffer("Comm_flush_buffer"))
}

//export PMPI_Comm_iflush_buffer
func PMPI_Comm_iflush_buffer(ch uintptr, req unsafe.Pointer) int32 {
	c, r := needComm("Comm_iflush_buffer", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.CommIflushBuffer, c.enterTimed(prof.CommIflushBuffer, prof.NoPeer, -1, 0), 0)
	return iflushBuffer("Comm_iflush_buffer", c, ch, req)
}
