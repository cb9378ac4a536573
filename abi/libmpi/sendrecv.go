package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// A send and a receive as one call: MPI_Sendrecv and MPI_Sendrecv_replace, and their
// nonblocking forms, one request each (core.StartPair).

//export PMPI_Sendrecv
func PMPI_Sendrecv(sbuf unsafe.Pointer, scount int32, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int32, rdt uintptr, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecv(sbuf, int64(scount), sdt, dest, stag, rbuf, int64(rcount), rdt, src, rtag, ch, st)
}

//export PMPI_Sendrecv_c
func PMPI_Sendrecv_c(sbuf unsafe.Pointer, scount int64, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int64, rdt uintptr, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, ch, st)
}

func sendrecv(sbuf unsafe.Pointer, scount int64, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int64, rdt uintptr, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	const op = "Sendrecv"
	n := typeBytes(scount, sdt)
	defer prof.Exit(prof.Sendrecv, commOf(ch).enterTimed(prof.Sendrecv, rankIn(dest), tagIn(stag), n), n)
	var rq uintptr
	if r := irecv(prof.None, op, rbuf, rcount, rdt, src, rtag, ch, false, unsafe.Pointer(&rq)); r != 0 {
		return r
	}
	if r := send(prof.None, op, sbuf, scount, sdt, dest, stag, ch, core.ModeStandard); r != 0 {
		cancelReq(unsafe.Pointer(&rq), false)
		complete(op, unsafe.Pointer(&rq), nil, true, true)
		return r
	}
	_, _, err := complete(op, unsafe.Pointer(&rq), st, true, true)
	return fail(op, ch, err)
}

//export PMPI_Sendrecv_replace
func PMPI_Sendrecv_replace(buf unsafe.Pointer, count int32, dh uintptr, dest, stag, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecvReplace(buf, int64(count), dh, dest, stag, src, rtag, ch, st)
}

//export PMPI_Sendrecv_replace_c
func PMPI_Sendrecv_replace_c(buf unsafe.Pointer, count int64, dh uintptr, dest, stag, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecvReplace(buf, count, dh, dest, stag, src, rtag, ch, st)
}

// packed copies count items of dh at buf into a new contiguous buffer.
func packed(op string, buf unsafe.Pointer, count int64, dh uintptr, ch uintptr) ([]byte, int32) {
	t, err := typeOf(op, dh)
	if err != nil {
		return nil, fail(op, ch, err)
	}
	n, err := t.PackSize(count)
	if err != nil {
		return nil, fail(op, ch, core.TypeErr(op, err))
	}
	tmp := make([]byte, n)
	var pos int64
	if n > 0 {
		if r := PMPI_Pack_c(buf, count, dh, unsafe.Pointer(&tmp[0]), n, unsafe.Pointer(&pos), ch); r != 0 {
			return nil, r
		}
	}
	return tmp, 0
}

func sendrecvReplace(buf unsafe.Pointer, count int64, dh uintptr, dest, stag, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	const op = "Sendrecv_replace"
	n := typeBytes(count, dh)
	defer prof.Exit(prof.SendrecvReplace, commOf(ch).enterTimed(prof.SendrecvReplace, rankIn(dest), tagIn(stag), n), n)
	if commOf(ch) == nil {
		_, r := needComm(op, ch)
		return r
	}
	tmp, r := packed(op, buf, count, dh, ch)
	if r != 0 {
		return r
	}
	var err error
	var rq uintptr
	if r := irecv(prof.None, op, buf, count, dh, src, rtag, ch, false, unsafe.Pointer(&rq)); r != 0 {
		return r
	}
	c := commOf(ch)
	if err := c.c.Send(op, core.Bytes(tmp), rankIn(dest), tagIn(stag), core.ModeStandard); err != nil {
		cancelReq(unsafe.Pointer(&rq), false)
		complete(op, unsafe.Pointer(&rq), nil, true, true)
		return fail(op, ch, err)
	}
	_, _, err = complete(op, unsafe.Pointer(&rq), st, true, true)
	return fail(op, ch, err)
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
