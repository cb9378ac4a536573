package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
import "C"

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

// Probes and matched receives: MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe,
// MPI_Mrecv and MPI_Imrecv, with the handles of matched messages.

func probeStatus(st unsafe.Pointer, c *comm, ps *core.Status) { putStatus(st, c, ps) }

//export PMPI_Probe
func PMPI_Probe(src, tag int32, ch uintptr, st unsafe.Pointer) int32 {
	c, r := needComm("Probe", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Probe, c.enterTimed(prof.Probe, rankIn(src), tagIn(tag), 0), 0)
	ps, err := c.c.Probe("Probe", rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Probe", ch, err)
	}
	probeStatus(st, c, &ps)
	return 0
}

//export PMPI_Iprobe
func PMPI_Iprobe(src, tag int32, ch uintptr, flag, st unsafe.Pointer) int32 {
	c, r := needComm("Iprobe", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Iprobe, c.enterTimed(prof.Iprobe, rankIn(src), tagIn(tag), 0), 0)
	ps, ok, err := c.c.Iprobe("Iprobe", rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Iprobe", ch, err)
	}
	setBool(flag, ok)
	if ok {
		probeStatus(st, c, &ps)
	}
	return 0
}

// messages are the matched messages of Mprobe, until Mrecv takes them.
type message struct {
	m  core.Message
	c  *comm
	ch uintptr
}

var messages = table[message]{kind: kMessage}

func addMessage(m core.Message, c *comm, ch uintptr, ps *core.Status, out unsafe.Pointer) {
	if ps.Source == core.ProcNull {
		setHandle(out, hMessageNoProc)
		return
	}
	setHandle(out, messages.add(&message{m: m, c: c, ch: ch}))
}

//export PMPI_Mprobe
func PMPI_Mprobe(src, tag int32, ch uintptr, out, st unsafe.Pointer) int32 {
	c, r := needComm("Mprobe", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Mprobe, c.enterTimed(prof.Mprobe, rankIn(src), tagIn(tag), 0), 0)
	m, ps, err := c.c.Mprobe("Mprobe", rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Mprobe", ch, err)
	}
	addMessage(m, c, ch, &ps, out)
	probeStatus(st, c, &ps)
	return 0
}

//export PMPI_Improbe
func PMPI_Improbe(src, tag int32, ch uintptr, flag, out, st unsafe.Pointer) int32 {
	c, r := needComm("Improbe", ch)
	if c == nil {
		return r
	}
	defer prof.Exit(prof.Improbe, c.enterTimed(prof.Improbe, rankIn(src), tagIn(tag), 0), 0)
	m, ps, ok, err := c.c.Improbe("Improbe", rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Improbe", ch, err)
	}
	setBool(flag, ok)
	if ok {
		addMessage(m, c, ch, &ps, out)
		probeStatus(st, c, &ps)
	}
	return 0
}

//export PMPI_Mrecv
func PMPI_Mrecv(buf unsafe.Pointer, count int32, dh uintptr, mp unsafe.Pointer, st unsafe.Pointer) int32 {
	return mrecv(buf, int64(count), dh, mp, st)
}

//export PMPI_Mrecv_c
func PMPI_Mrecv_c(buf unsafe.Pointer, count int64, dh uintptr, mp unsafe.Pointer, st unsafe.Pointer) int32 {
	return mrecv(buf, count, dh, mp, st)
}

func mrecv(buf unsafe.Pointer, count int64, dh uintptr, mp unsafe.Pointer, st unsafe.Pointer) int32 {
	const op = "Mrecv"
	if mp == nil {
		return fail(op, 0, errorf(errArg, op, "message is NULL"))
	}
	h := *(*uintptr)(mp)
	if h == hMessageNoProc {
		putStatus(st, nil, &core.Status{Source: core.ProcNull, Tag: core.AnyTag})
		*(*uintptr)(mp) = hMessageNull
		return 0
	}
	m := messages.get(h)
	if m == nil {
		return fail(op, 0, badHandle(op, "message", h, kMessage))
	}
	b, err := cbuf(op, buf, count, dh)
	if err != nil {
		return fail(op, m.ch, err)
	}
	n := int(b.Len())
	t := m.c.enterTimed(prof.Mrecv, prof.NoPeer, -2, n)
	ps, err := core.Mrecv(b, &m.m)
	prof.Exit(prof.Mrecv, t, n)
	messages.remove(h)
	*(*uintptr)(mp) = hMessageNull
	if err != nil {
		err = core.MapErr(op, err)
		putStatus(st, m.c, &ps)
		return fail(op, m.ch, err)
	}
	putStatus(st, m.c, &ps)
	return 0
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
		return fail(op, 0, badHandle(op, "message", h, kMessage))
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
