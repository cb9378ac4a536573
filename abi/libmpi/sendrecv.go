package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/mpir"
)

// A send and a receive as one call: MPI_Sendrecv and MPI_Sendrecv_replace, and their
// nonblocking forms, one request each (mpir's, internal/mpir/sendrecv.go).

// MPI_Sendrecv(_replace)(_c) are hand-written C first (p2pshort.c): these are their
// Go halves, and goSendrecvSent the half of one whose send C did.

//export goPMPI_Sendrecv
func goPMPI_Sendrecv(sbuf unsafe.Pointer, scount int32, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int32, rdt uintptr, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecv("Sendrecv", sbuf, int64(scount), sdt, dest, stag, rbuf, int64(rcount), rdt, src, rtag, ch, st)
}

//export goPMPI_Sendrecv_c
func goPMPI_Sendrecv_c(sbuf unsafe.Pointer, scount int64, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int64, rdt uintptr, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecv("Sendrecv_c", sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, ch, st)
}

func sendrecv(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int64, rdt uintptr, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	sb, sl, err := lentBuf(op, sbuf, scount, sdt)
	if err != nil {
		return fail(op, ch, err)
	}
	rb, rl, err := lentBuf(op, rbuf, rcount, rdt)
	if err != nil {
		sl.Return()
		return fail(op, ch, err)
	}
	ps, err := mpir.Sendrecv(op, c.c, nil, sb, rankIn(dest), tagIn(stag), rb, rankIn(src), tagIn(rtag))
	putStatus(st, c, &ps)
	if err != nil {
		return fail(op, ch, err) // the engine may still hold the layouts: left to the collector
	}
	sl.Return()
	rl.Return()
	return 0
}

// goSendrecvSent is the rest of an MPI_Sendrecv (replace: MPI_Sendrecv_replace; big:
// the large-count form, which errors name) whose
// arguments p2pshort.c checked and whose send of sn bytes it did (an eager message,
// gone whole): the receive, the call's record and its errors, as Sendrecv's.
//
//export goSendrecvSent
func goSendrecvSent(sn int64, dest, stag int32, rbuf unsafe.Pointer, rcount int64, rdt uintptr, src, rtag int32, ch uintptr, st unsafe.Pointer, replace, big int32) int32 {
	op := sendrecvNames[min(replace, 1)][min(big, 1)]
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	rb, rl, err := lentBuf(op, rbuf, rcount, rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	ps, err := mpir.SendrecvSent(op, c.c, replace != 0, int(sn), rankIn(dest), tagIn(stag), rb, rankIn(src), tagIn(rtag))
	putStatus(st, c, &ps)
	if err != nil {
		return fail(op, ch, err)
	}
	rl.Return()
	return 0
}

// sendrecvNames are goSendrecvSent's calls, by replace and big (the large-count form).
var sendrecvNames = [2][2]string{{"Sendrecv", "Sendrecv_c"}, {"Sendrecv_replace", "Sendrecv_replace_c"}}

//export goPMPI_Sendrecv_replace
func goPMPI_Sendrecv_replace(buf unsafe.Pointer, count int32, dh uintptr, dest, stag, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecvReplace("Sendrecv_replace", buf, int64(count), dh, dest, stag, src, rtag, ch, st)
}

//export goPMPI_Sendrecv_replace_c
func goPMPI_Sendrecv_replace_c(buf unsafe.Pointer, count int64, dh uintptr, dest, stag, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	return sendrecvReplace("Sendrecv_replace_c", buf, count, dh, dest, stag, src, rtag, ch, st)
}

func sendrecvReplace(op string, buf unsafe.Pointer, count int64, dh uintptr, dest, stag, src, rtag int32, ch uintptr, st unsafe.Pointer) int32 {
	c, r := needComm(op, ch)
	if c == nil {
		return r
	}
	b, l, err := lentBuf(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	ps, err := mpir.SendrecvReplace(op, c.c, nil, b, rankIn(dest), tagIn(stag), rankIn(src), tagIn(rtag))
	putStatus(st, c, &ps)
	if err != nil {
		return fail(op, ch, err) // the engine may still hold l: left to the collector
	}
	l.Return()
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
	return isendrecv("Isendrecv_c", sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, src, rtag, ch, out)
}

func isendrecv(op string, sbuf unsafe.Pointer, scount int64, sdt uintptr, dest, stag int32,
	rbuf unsafe.Pointer, rcount int64, rdt uintptr, src, rtag int32, ch uintptr, out unsafe.Pointer) int32 {
	c, r := commArg(op, ch, out, mNB)
	if c == nil {
		return r
	}
	sb, err := cbuf(op, sbuf, scount, sdt)
	if err != nil {
		return fail(op, ch, err)
	}
	rb, err := cbuf(op, rbuf, rcount, rdt)
	if err != nil {
		return fail(op, ch, err)
	}
	x, err := mpir.Isendrecv(op, c.c, sb, rankIn(dest), tagIn(stag), rb, rankIn(src), tagIn(rtag))
	return started(op, c, ch, out, x, err)
}

//export PMPI_Isendrecv_replace
func PMPI_Isendrecv_replace(buf unsafe.Pointer, count int32, dh uintptr, dest, stag, src, rtag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isendrecvReplace("Isendrecv_replace", buf, int64(count), dh, dest, stag, src, rtag, ch, out)
}

//export PMPI_Isendrecv_replace_c
func PMPI_Isendrecv_replace_c(buf unsafe.Pointer, count int64, dh uintptr, dest, stag, src, rtag int32, ch uintptr, out unsafe.Pointer) int32 {
	return isendrecvReplace("Isendrecv_replace_c", buf, count, dh, dest, stag, src, rtag, ch, out)
}

func isendrecvReplace(op string, buf unsafe.Pointer, count int64, dh uintptr, dest, stag, src, rtag int32, ch uintptr, out unsafe.Pointer) int32 {
	c, r := commArg(op, ch, out, mNB)
	if c == nil {
		return r
	}
	b, err := cbuf(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	x, err := mpir.IsendrecvReplace(op, c.c, b, rankIn(dest), tagIn(stag), rankIn(src), tagIn(rtag))
	return started(op, c, ch, out, x, err)
}
