package main

/*
#define MPIGO_ABI_NO_PROTOTYPES 1
#include "mpi.h"
#include "handle.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/core"
)

// The handles a program creates (handle.h has the layout, which C decodes too):
// [kind | generation | slot] in a positive C int. Invariants:
//
//   - Every created handle is at least handleBase, above every predefined handle
//     (the standard reserves 1 to 4095 for those) and every sentinel such as MPI_BOTTOM;
//     handles of different kinds differ in their kind bits.
//   - A table holds one kind. A lookup finds an object only under the exact handle
//     it was made with: the slot stores that handle, and one comparison checks kind,
//     generation and slot. A freed slot, a handle of another kind, a stale generation
//     or garbage finds nothing, never another object.
//   - Reusing a slot bumps its generation. The tables reuse the slot freed longest
//     ago, and only once quarantine others wait, so a stale handle names nothing for
//     quarantine << genBits reuses of its kind's slots (requests excepted: see
//     request.go).
//   - What a failed lookup means is badHandle's: the error of the kind's class, the
//     message saying what the handle is (a freed object, another kind's, not a
//     handle).

// kind is what a created handle names (MPIGO_KIND_*).
type kind uint8

const (
	kComm    kind = C.MPIGO_KIND_COMM
	kType    kind = C.MPIGO_KIND_TYPE
	kTypeC   kind = C.MPIGO_KIND_CTYPE
	kGroup   kind = C.MPIGO_KIND_GROUP
	kInfo    kind = C.MPIGO_KIND_INFO
	kErrh    kind = C.MPIGO_KIND_ERRHANDLER
	kOp      kind = C.MPIGO_KIND_OP
	kRequest kind = C.MPIGO_KIND_REQUEST
	kMessage kind = C.MPIGO_KIND_MESSAGE
	kSession kind = C.MPIGO_KIND_SESSION
	kWin     kind = C.MPIGO_KIND_WIN
	kFile    kind = C.MPIGO_KIND_FILE
	kKeyval  kind = C.MPIGO_KIND_KEYVAL
	kCReq    kind = C.MPIGO_KIND_CREQ // a request p2pshort.c completed at once
	kCMsg    kind = C.MPIGO_KIND_CMSG // a message p2pshort.c's MPI_Mprobe took
	nKinds        = C.MPIGO_KINDS
)

// cMsgSlots bounds the slots of kCMsg's handles: p2pshort.c's table of messages.
const cMsgSlots = C.MPIGO_CMSGS

const (
	kindShift = C.MPIGO_KIND_SHIFT
	genShift  = C.MPIGO_GEN_SHIFT
	maxSlots  = C.MPIGO_SLOTS // per kind
	slotMask  = maxSlots - 1
	genMask   = (1<<C.MPIGO_GEN_BITS - 1) << genShift

	// handleBase is the least handle a program can be given: kind 1, generation 0,
	// slot 0. Below it lie the predefined handles.
	handleBase = 1 << kindShift

	// quarantine is how many freed slots of a kind wait before one is reused.
	quarantine = C.MPIGO_QUARANTINE
)

// newHandle is the first handle of slot i of kind k.
func newHandle(k kind, i int) uintptr { return uintptr(k)<<kindShift | uintptr(i) }

// nextGen is the handle of h's slot at its next generation.
func nextGen(h uintptr) uintptr { return h&^genMask | (h+1<<genShift)&genMask }

// slotOf is h's slot (of whichever kind h has).
func slotOf(h uintptr) int { return int(h & slotMask) }

// kindOf is the kind of a created handle, 0 for anything else.
func kindOf(h uintptr) kind {
	k := kind(h >> kindShift)
	switch {
	case k == 0 || k >= nKinds:
		return 0
	case k == kCMsg && slotOf(h) >= cMsgSlots:
		return 0 // p2pshort.c's table has no such slot
	}
	return k
}

// table holds the objects of one kind by slot, each with the handle it was made
// with. Every call looks its handles up, from any thread (MPI_THREAD_MULTIPLE), so a
// lookup takes no lock: slots lie in chunks that never move, found through a
// directory that add replaces whole when it grows, and a slot's handle is stored
// after its object and cleared before it goes, so a lookup that reads the handle it
// was given before and after the object has that handle's object. (A lock would cost
// every lookup two locked instructions, each a wait for the store buffer to drain,
// which on a ping-pong's path holds the ring lines just written.) add, remove and
// made take the mutex.
type table[T any] struct {
	kind kind
	mu   sync.Mutex
	dir  atomic.Pointer[[]*[tableChunk]entry[T]]
	n    int       // slots made
	free []uintptr // the handles of freed slots, freed longest ago first
}

const tableChunk = 256

type entry[T any] struct {
	h atomic.Uintptr // 0 while the slot is free
	o atomic.Pointer[T]
}

func (t *table[T]) add(o *T) uintptr {
	t.mu.Lock()
	defer t.mu.Unlock()
	var h uintptr
	if len(t.free) > quarantine {
		h = nextGen(t.free[0])
		t.free = t.free[1:]
	} else {
		if t.n == maxSlots {
			tableFull(t.kind)
		}
		h = newHandle(t.kind, t.n)
		if t.n%tableChunk == 0 {
			var d []*[tableChunk]entry[T]
			if old := t.dir.Load(); old != nil {
				d = append(d, *old...)
			}
			d = append(d, new([tableChunk]entry[T]))
			t.dir.Store(&d)
		}
		t.n++
	}
	e := t.slot(slotOf(h))
	e.o.Store(o)
	e.h.Store(h)
	return h
}

// slot is slot i's entry, nil when no slot i was made.
func (t *table[T]) slot(i int) *entry[T] {
	d := t.dir.Load()
	if d == nil || i/tableChunk >= len(*d) {
		return nil
	}
	return &(*d)[i/tableChunk][i%tableChunk]
}

func (t *table[T]) get(h uintptr) *T {
	e := t.slot(slotOf(h))
	if e == nil || e.h.Load() != h {
		return nil
	}
	o := e.o.Load()
	if e.h.Load() != h {
		return nil // removed meanwhile
	}
	return o
}

func (t *table[T]) remove(h uintptr) {
	t.mu.Lock()
	if e := t.slot(slotOf(h)); e != nil && e.h.Load() == h {
		e.h.Store(0)
		e.o.Store(nil)
		t.free = append(t.free, h)
	}
	t.mu.Unlock()
}

// made says whether h's slot has held an object (h has t's kind).
func (t *table[T]) made(h uintptr) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return kindOf(h) == t.kind && slotOf(h) < t.n
}

// tableFull ends the job: a process holds maxSlots objects of kind k, as many as its
// handles can name. Constructors have no way to report it without having started what
// they make; no program that frees what it makes gets near.
func tableFull(k kind) {
	core.Fatal(int(C.MPI_ERR_NO_MEM), fmt.Sprintf("%d %ss live at once: the most the C handles of a process can name",
		maxSlots, kinds[k].name))
}

// kindInfo is what the error of a bad handle of a kind says, and its class.
type kindInfo struct {
	name     string  // "communicator"
	class    int32   // MPI_ERR_COMM
	null     uintptr // MPI_COMM_NULL's value
	nullName string
	lo, hi   uintptr // the predefined handles of the kind lie in [lo, hi) (mpi.h)
	// made says whether h's slot ever held an object of the kind; nil when the
	// kind has no table.
	made func(h uintptr) bool
}

var kinds = [nKinds]kindInfo{
	kComm:    {"communicator", C.MPI_ERR_COMM, hCommNull, "MPI_COMM_NULL", 0x100, 0x108, nil},
	kType:    {"datatype", C.MPI_ERR_TYPE, hDatatypeNull, "MPI_DATATYPE_NULL", 0x200, 0x400, nil},
	kTypeC:   {"datatype", C.MPI_ERR_TYPE, hDatatypeNull, "MPI_DATATYPE_NULL", 0x200, 0x400, nil},
	kGroup:   {"group", C.MPI_ERR_GROUP, hGroupNull, "MPI_GROUP_NULL", 0x108, 0x110, nil},
	kInfo:    {"info object", C.MPI_ERR_INFO, hInfoNull, "MPI_INFO_NULL", 0x130, 0x138, nil},
	kErrh:    {"error handler", C.MPI_ERR_ERRHANDLER, hErrhNull, "MPI_ERRHANDLER_NULL", 0x140, 0x148, nil},
	kOp:      {"operation", C.MPI_ERR_OP, hOpNull, "MPI_OP_NULL", 0x020, 0x040, nil},
	kRequest: {"request", C.MPI_ERR_REQUEST, hRequestNull, "MPI_REQUEST_NULL", 0x180, 0x188, nil},
	kMessage: {"message", C.MPI_ERR_REQUEST, hMessageNull, "MPI_MESSAGE_NULL", 0x128, 0x130, nil},
	kSession: {"session", C.MPI_ERR_SESSION, hSessionNull, "MPI_SESSION_NULL", 0x120, 0x128, nil},
	kWin:     {"window", C.MPI_ERR_WIN, hWinNull, "MPI_WIN_NULL", 0x110, 0x118, nil},
	kFile:    {"file", C.MPI_ERR_FILE, hFileNull, "MPI_FILE_NULL", 0x118, 0x120, nil},
	kKeyval:  {"keyval", C.MPI_ERR_KEYVAL, 0, "MPI_KEYVAL_INVALID", 0, 0, nil},
	kCReq:    {"request", C.MPI_ERR_REQUEST, hRequestNull, "MPI_REQUEST_NULL", 0x180, 0x188, nil},
	kCMsg:    {"message", C.MPI_ERR_REQUEST, hMessageNull, "MPI_MESSAGE_NULL", 0x128, 0x130, nil},
}

func init() {
	for k, t := range map[kind]interface{ made(uintptr) bool }{
		kComm: &comms, kType: &types, kGroup: &groups, kInfo: &infos, kErrh: &errhandlers,
		kOp: &userOps, kMessage: &messages, kSession: &sessions, kWin: &wins, kKeyval: &keyvals, kFile: &files,
	} {
		kinds[k].made = t.made
	}
	kinds[kRequest].made = reqMade
	kinds[kTypeC].made = cTypeMade
	kinds[kCReq].made = func(uintptr) bool { return true } // made only by p2pshort.c
	kinds[kCMsg].made = func(uintptr) bool { return true } // made only by p2pshort.c
}

// predefKind is the kind whose predefined handles' range holds h, 0 for none.
func predefKind(h uintptr) kind {
	for k := range kinds {
		if h >= kinds[k].lo && h < kinds[k].hi {
			return kind(k)
		}
	}
	return 0
}

// sameKind says whether kinds a and b name the same MPI object kind: the datatypes
// Go and C made are both datatypes.
func sameKind(a, b kind) bool {
	return canonKind(a) == canonKind(b)
}

// canonKind is k, or the kind whose objects k's are too: Go's datatypes for those C
// made, Go's requests for those C completed.
func canonKind(k kind) kind {
	switch k {
	case kTypeC:
		return kType
	case kCReq:
		return kRequest
	case kCMsg:
		return kMessage
	}
	return k
}

// badHandle is the error of call op whose argument arg, handle h, names no live
// object of kind want: want's class, and what h is.
func badHandle(op, arg string, h uintptr, want kind) error {
	k := &kinds[want]
	if h == k.null {
		return errorf(k.class, op, "%s is %s", arg, k.nullName)
	}
	if want == kKeyval {
		return errorf(k.class, op, "%s %d %s", arg, int32(h), whatHandle(h, want))
	}
	return errorf(k.class, op, "%s %#x %s", arg, h, whatHandle(h, want))
}

// whatHandle says what h is, when it names no live object of kind want.
func whatHandle(h uintptr, want kind) string {
	name := kinds[want].name
	hk := kindOf(h)
	switch {
	case h < handleBase && want != kKeyval:
		if pk := predefKind(h); pk != 0 && !sameKind(pk, want) {
			return "is a predefined " + kinds[pk].name + ", not " + article(name)
		}
	case hk != 0 && !sameKind(hk, want):
		return "is " + article(kinds[hk].name) + ", not " + article(name)
	case hk == kCReq && cReqLive(h):
		return "is a nonblocking send's or receive's request, complete, which this call does not take"
	case hk != 0:
		if m := kinds[hk].made; m != nil && m(h) {
			return "is " + article(name) + " that was freed"
		}
	}
	if want == kKeyval {
		return "is not a keyval this program made"
	}
	return "is not " + article(name)
}

func article(noun string) string {
	switch noun[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + noun
	}
	return "a " + noun
}
