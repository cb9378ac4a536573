package main

// #define MPIGO_ABI_NO_PROTOTYPES 1
// #include "mpi.h"
// #include "p2pshort.h"
import "C"

import (
	"sync"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// Probes and matched receives: MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe,
// MPI_Mrecv and MPI_Imrecv (mpir's, internal/mpir/probe.go), with the handles of
// matched messages.

//export PMPI_Probe
func PMPI_Probe(src, tag int32, ch uintptr, st unsafe.Pointer) int32 {
	c, r := needComm("Probe", ch)
	if c == nil {
		return r
	}
	ps, err := mpir.Probe("Probe", c.c, nil, rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Probe", ch, err)
	}
	putStatus(st, c, &ps)
	return 0
}

//export goPMPI_Iprobe
func goPMPI_Iprobe(src, tag int32, ch uintptr, flag, st unsafe.Pointer) int32 {
	goHalves.Add(1)
	c, r := needComm("Iprobe", ch)
	if c == nil {
		return r
	}
	if flag == nil {
		return fail("Iprobe", ch, errorf(errArg, "Iprobe", "flag is NULL"))
	}
	ps, ok, err := mpir.Iprobe("Iprobe", c.c, rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Iprobe", ch, err)
	}
	setBool(flag, ok)
	if ok {
		putStatus(st, c, &ps)
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

// addMessage gives C the handle of the matched message m: MPI_MESSAGE_NO_PROC for
// the message from no process.
func addMessage(m core.Message, c *comm, ch uintptr, out unsafe.Pointer) {
	if m.IsNoProc() {
		setHandle(out, hMessageNoProc)
		return
	}
	setHandle(out, messages.add(&message{m: m, c: c, ch: ch}))
}

//export goPMPI_Mprobe
func goPMPI_Mprobe(src, tag int32, ch uintptr, out, st unsafe.Pointer) int32 {
	c, r := needComm("Mprobe", ch)
	if c == nil {
		return r
	}
	if out == nil { // the message taken would be lost
		return fail("Mprobe", ch, errorf(errArg, "Mprobe", "message is NULL"))
	}
	m, ps, err := mpir.Mprobe("Mprobe", c.c, nil, rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Mprobe", ch, err)
	}
	addMessage(m, c, ch, out)
	putStatus(st, c, &ps)
	return 0
}

//export goPMPI_Improbe
func goPMPI_Improbe(src, tag int32, ch uintptr, flag, out, st unsafe.Pointer) int32 {
	c, r := needComm("Improbe", ch)
	if c == nil {
		return r
	}
	if err := nullOut("Improbe", "flag, message", flag, out); err != nil { // a message taken would be lost
		return fail("Improbe", ch, err)
	}
	m, ps, ok, err := mpir.Improbe("Improbe", c.c, rankIn(src), tagIn(tag))
	if err != nil {
		return fail("Improbe", ch, err)
	}
	setBool(flag, ok)
	if ok {
		addMessage(m, c, ch, out)
		putStatus(st, c, &ps)
	}
	return 0
}

//export goPMPI_Mrecv
func goPMPI_Mrecv(buf unsafe.Pointer, count int32, dh uintptr, mp unsafe.Pointer, st unsafe.Pointer) int32 {
	return mrecv("Mrecv", buf, int64(count), dh, mp, st)
}

//export goPMPI_Mrecv_c
func goPMPI_Mrecv_c(buf unsafe.Pointer, count int64, dh uintptr, mp unsafe.Pointer, st unsafe.Pointer) int32 {
	return mrecv("Mrecv_c", buf, count, dh, mp, st)
}

// messageOf is the message of the handle at mp for call op, with its communicator
// (nil but for a message Mprobe made): the message from no process for
// MPI_MESSAGE_NO_PROC, the null message for MPI_MESSAGE_NULL (which mpir rejects).
// A message p2pshort.c's MPI_Mprobe took is adopted (adoptCMsg), the handle at mp
// then Go's. A handle that is none of these is an error.
func messageOf(op string, mp unsafe.Pointer) (m core.Message, c *comm, ch uintptr, err error) {
	if mp == nil {
		return m, nil, 0, errorf(errArg, op, "message is NULL")
	}
	switch h := *(*uintptr)(mp); h {
	case hMessageNoProc:
		return core.MessageNoProc(), nil, 0, nil
	case hMessageNull:
		return m, nil, 0, nil
	default:
		if kindOf(h) == kCMsg {
			if gh, ok := cmsgAdopted.take(h); ok {
				h = gh // adopted when its communicator was freed
				*(*uintptr)(mp) = h
			} else {
				// Adopted, the message is Go's: its handle becomes a Go one, so that
				// a call that fails on another argument leaves it to be received still.
				if m, c, ch, err = adoptCMsg(op, h); err == nil {
					*(*uintptr)(mp) = messages.add(&message{m: m, c: c, ch: ch})
				}
				return m, c, ch, err
			}
		}
		x := messages.get(h)
		if x == nil {
			return m, nil, 0, badHandle(op, "message", h, kMessage)
		}
		return x.m, x.c, x.ch, nil
	}
}

// adoptCMsg makes a message the engine matched of the one p2pshort.c's MPI_Mprobe
// took (handle h, of its table), so that the Go way receives it: under the engine's
// lock (core.Comm.Adopt), its record read and freed.
func adoptCMsg(op string, h uintptr) (m core.Message, c *comm, ch uintptr, err error) {
	var src, tag C.int32_t
	var n C.int64_t
	var cc C.uintptr_t
	if C.mpigo_cmsg_info(C.uintptr_t(h), &src, &tag, &n, &cc) == 0 {
		return m, nil, 0, badHandle(op, "message", h, kMessage)
	}
	ch = uintptr(cc)
	if c = commOf(ch); c == nil {
		return m, nil, 0, errorf(C.MPI_ERR_COMM, op, "message %#x was matched on communicator %#x, which was freed", h, ch)
	}
	m, ok := c.c.Adopt(int(src), int(tag), int(n), func(b []byte) bool {
		return C.mpigo_cmsg_drain(C.uintptr_t(h), unsafe.Pointer(unsafe.SliceData(b)), n) != 0
	})
	if !ok {
		return m, nil, 0, badHandle(op, "message", h, kMessage)
	}
	return m, c, ch, nil
}

// cmsgAdopted maps the handle of a message p2pshort.c's MPI_Mprobe took to the Go
// message that adopted it when its communicator was freed (adoptCMsgsOf): the program
// still holds the first, and MPI 4.1 sec. 6.4.3 lets it receive the message after
// the free, as it may a Go message, which keeps its communicator.
var cmsgAdopted adoptedMsgs

type adoptedMsgs struct {
	sync.Mutex
	m map[uintptr]uintptr
}

// take is the Go message's handle that adopted C message h, removed from the map.
func (a *adoptedMsgs) take(h uintptr) (uintptr, bool) {
	a.Lock()
	defer a.Unlock()
	gh, ok := a.m[h]
	delete(a.m, h)
	return gh, ok
}

// adoptCMsgsOf adopts the messages p2pshort.c's MPI_Mprobe took on communicator ch,
// which is about to be freed or disconnected: their records name it by its handle,
// which stops naming it then.
func adoptCMsgsOf(op string, ch uintptr) {
	if C.mpigo_p2p.eng == 0 {
		return
	}
	for from := C.uint32_t(0); ; {
		h := uintptr(C.mpigo_cmsg_next(C.uintptr_t(ch), &from))
		if h == 0 {
			return
		}
		m, c, _, err := adoptCMsg(op, h)
		if err != nil {
			continue
		}
		gh := messages.add(&message{m: m, c: c, ch: ch})
		cmsgAdopted.Lock()
		if cmsgAdopted.m == nil {
			cmsgAdopted.m = map[uintptr]uintptr{}
		}
		cmsgAdopted.m[h] = gh
		cmsgAdopted.Unlock()
	}
}

// received makes the handle at mp the null message: Mrecv and Imrecv took its
// message.
func received(mp unsafe.Pointer) {
	if h := *(*uintptr)(mp); h != hMessageNull && h != hMessageNoProc {
		messages.remove(h)
	}
	*(*uintptr)(mp) = hMessageNull
}

func mrecv(op string, buf unsafe.Pointer, count int64, dh uintptr, mp unsafe.Pointer, st unsafe.Pointer) int32 {
	m, c, ch, err := messageOf(op, mp)
	if err != nil {
		return fail(op, 0, err)
	}
	b, l, err := lentBuf(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	ps, err := mpir.Mrecv(op, c.dev(), b, &m)
	received(mp)
	putStatus(st, c, &ps)
	if err != nil {
		return fail(op, ch, err) // the engine may still hold l: left to the collector
	}
	l.Return()
	return 0
}

//export PMPI_Imrecv
func PMPI_Imrecv(buf unsafe.Pointer, count int32, dh uintptr, mp, out unsafe.Pointer) int32 {
	return imrecv("Imrecv", buf, int64(count), dh, mp, out)
}

//export PMPI_Imrecv_c
func PMPI_Imrecv_c(buf unsafe.Pointer, count int64, dh uintptr, mp, out unsafe.Pointer) int32 {
	return imrecv("Imrecv_c", buf, count, dh, mp, out)
}

func imrecv(op string, buf unsafe.Pointer, count int64, dh uintptr, mp, out unsafe.Pointer) int32 {
	if out == nil {
		return fail(op, 0, errorf(errArg, op, "request is NULL"))
	}
	m, c, ch, err := messageOf(op, mp)
	if err != nil {
		return fail(op, 0, err)
	}
	b, err := cbuf(op, buf, count, dh)
	if err != nil {
		return fail(op, ch, err)
	}
	q, err := mpir.Imrecv(op, c.dev(), b, &m)
	received(mp)
	if err != nil {
		return fail(op, ch, err)
	}
	addP2P(q, c, ch, false, out)
	return 0
}
