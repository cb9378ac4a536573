package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// The large-count persistent point-to-point forms, the nonblocking matched receive,
// MPI_Isendrecv(_replace) (a send and a receive as one request, core.StartPair) and
// MPI_Comm_idup.

//export PMPI_Send_init_c
func PMPI_Send_init_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.SendInit, "Send_init", buf, count, dh, dest, tag, ch, core.ModeStandard, true, out)
}

//export PMPI_Ssend_init_c
func PMPI_Ssend_init_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.SsendInit, "Ssend_init", buf, count, dh, dest, tag, ch, core.ModeSynchronous, true, out)
}

//export PMPI_Rsend_init_c
func PMPI_Rsend_init_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.RsendInit, "Rsend_init", buf, count, dh, dest, tag, ch, core.ModeReady, true, out)
}

//export PMPI_Bsend_init_c
func PMPI_Bsend_init_c(buf unsafe.Pointer, count int64, dh uintptr, dest, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isend(prof.BsendInit, "Bsend_init", buf, count, dh, dest, tag, ch, core.ModeBuffered, true, out)
}

//export PMPI_Recv_init_c
func PMPI_Recv_init_c(buf unsafe.Pointer, count int64, dh uintptr, src, tag int32, ch uintptr, out unsafe.Pointer) int32 {
	return irecv(prof.RecvInit, "Recv_init", buf, count, dh, src, tag, ch, true, out)
}

//export PMPI_Imrecv
func PMPI_Imrecv(buf unsafe.Pointer, count int32, dh uintptr, mp, out unsafe.Pointer) int32 {
	return imrecv(buf, int64(count), dh, mp, out)
}

//export PMPI_Imrecv_c
func PMPI_Imrecv_c(buf unsafe.Pointer, count int64, dh uintptr, mp, out unsafe.Pointer) int32 {
	return imrecv(buf, count, dh, mp, out)
}

func imrecv(buf unsafe.Pointer, count int64, dh uintptr, mp, out unsafe.Pointer) int32 {
	const op = "Imrecv"
	if mp == nil || out == nil {
		return fail(op, 0, errorf(errArg, op, "message or request is NULL"))
	}
	h := *(*uintptr)(mp)
	if h == hMessageNoProc {
		// A receive from MPI_PROC_NULL: a request that is complete at once.
		var q core.Request
		var err error
		q, err = core.World.Irecv(op, core.Bytes(nil), core.ProcNull, 0, false)
		if err != nil {
			return fail(op, 0, err)
		}
		addP2P(q, nil, 0, false, out)
		*(*uintptr)(mp) = hMessageNull
		return 0
	}
	m := messages.get(h)
	if m == nil {
		return fail(op, 0, errorf(errRequest, op, "message %#x is not a message from MPI_Mprobe", h))
	}
	b, err := cbuf(op, buf, count, dh)
	if err != nil {
		return fail(op, m.ch, err)
	}
	n := int(b.Len())
	t := m.c.enterTimed(prof.Imrecv, prof.NoPeer, -2, n)
	q, err := core.Imrecv(b, &m.m)
	prof.Exit(prof.Imrecv, t, n)
	messages.remove(h)
	*(*uintptr)(mp) = hMessageNull
	if err != nil {
		return fail(op, m.ch, core.MapErr(op, err))
	}
	addP2P(q, m.c, m.ch, false, out)
	return 0
}

//export PMPI_Isendrecv
func PMPI_Isendrecv(sbuf unsafe.Pointer, scount int32, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int32, rdt uintptr, src, rtag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isendrecv("Isendrecv", sbuf, int64(scount), sdt, dest, stag, rbuf, int64(rcount), rdt, src, rtag, ch, out)
}

//export PMPI_Isendrecv_c
func PMPI_Isendrecv_c(sbuf unsafe.Pointer, scount int64, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int64, rdt uintptr, src, rtag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isendrecv("Isendrecv", sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, ch, out)
}

func isendrecv(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int64, rdt uintptr, src, rtag int32, ch uintptr, out unsafe.Pointer) int32 {
	c, r := commArg(op, ch, out, mNB)
	if c == nil {
		return r
	}
	rb, err := cbuf(op, rbuf, rcount, rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	sb, err := cbuf(op, sbuf, scount, sdt)
	if err != nil {
		return fail(op, ch, err)
	}
	n := int(sb.Len())
	defer prof.Exit(prof.Isendrecv, c.enterTimed(prof.Isendrecv, rankIn(dest), tagIn(stag), n), n)
	return pair(op, c, ch, sb, dest, stag, rb, src, rtag, out)
}

// pair starts a receive and a send as one request.
func pair(op string, c *comm, ch uintptr, sb core.Buf, dest, stag int32, rb core.Buf, src, rtag int32, out unsafe.Pointer) int32 {
	rq, err := c.c.Irecv(op, rb, rankIn(src), tagIn(rtag), false)
	if err != nil {
		return fail(op, ch, err)
	}
	sq, err := c.c.Isend(op, sb, rankIn(dest), tagIn(stag), core.ModeStandard, false)
	if err != nil {
		core.Cancel(&rq)
		core.WaitInto(&rq, nil)
		return fail(op, ch, err)
	}
	addPending(core.StartPair(op, sq, rq, nil), c, ch, nil, out)
	return 0
}

//export PMPI_Isendrecv_replace
func PMPI_Isendrecv_replace(buf unsafe.Pointer, count int32, dh uintptr, dest, stag, src, rtag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isendrecvReplace(buf, int64(count), dh, dest, stag, src, rtag, ch, out)
}

//export PMPI_Isendrecv_replace_c
func PMPI_Isendrecv_replace_c(buf unsafe.Pointer, count int64, dh uintptr, dest, stag, src, rtag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isendrecvReplace(buf, count, dh, dest, stag, src, rtag, ch, out)
}

// isendrecvReplace sends a packed copy of the buffer, so that the receive can go
// straight into it.
func isendrecvReplace(buf unsafe.Pointer, count int64, dh uintptr, dest, stag, src, rtag int32, ch uintptr, out unsafe.Pointer) int32 {
	const op = "Isendrecv_replace"
	c, r := commArg(op, ch, out, mNB)
	if c == nil {
		return r
	}
	tmp, r := packed(op, buf, count, dh, ch)
	if r != 0 {
		return r
	}
	rb, err := cbuf(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	n := len(tmp)
	defer prof.Exit(prof.IsendrecvReplace, c.enterTimed(prof.IsendrecvReplace, rankIn(dest), tagIn(stag), n), n)
	return pair(op, c, ch, core.Bytes(tmp), dest, stag, rb, src, rtag, out)
}

//export PMPI_Comm_idup
func PMPI_Comm_idup(ch uintptr, out, req unsafe.Pointer) int32 {
	return idup("Comm_idup", ch, 0, out, req)
}

//export PMPI_Comm_idup_with_info
func PMPI_Comm_idup_with_info(ch uintptr, info uintptr, out, req unsafe.Pointer) int32 {
	return idup("Comm_idup_with_info", ch, info, out, req)
}

// idup duplicates in the background; the new handle is written when the request
// completes (the standard lends newcomm to MPI until then).
func idup(op string, ch uintptr, info uintptr, out, req unsafe.Pointer) int32 {
	c, r := commArg(op, ch, req, mNB)
	if c == nil {
		return r
	}
	if out == nil {
		return fail(op, ch, errorf(errArg, op, "newcomm is NULL"))
	}
	defer prof.Exit(prof.Idup, c.enterTimed(prof.Idup, prof.NoPeer, -1, 0), 0)
	hints := c.hintsFor(info)
	if info == hInfoNull {
		hints = nil // MPI_Comm_idup_with_info with no hints: none
	}
	addPending(core.Go(op, func() error {
		nc, err := c.c.Dup(op)
		if err != nil {
			return err
		}
		nh := newComm(nc, c)
		n := commOf(nh)
		n.topo, n.hints = c.topo, hints
		if err := copyAttrs(c, ch, n, nh); err != nil {
			discardComm(nh)
			return err
		}
		setHandle(out, nh)
		return nil
	}), c, ch, nil, req)
	return 0
}
