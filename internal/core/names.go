package core

import (
	"unsafe"

	"github.com/mpigo/mpigo/internal/pm"

	"github.com/mpigo/mpigo/internal/p2p"
	"github.com/mpigo/mpigo/internal/topo"
)

// The engine's and the machine's types and values that the facade names, under the
// device's name: nothing above the device imports a package below it. Aliases and
// inlined calls, so that naming them here costs nothing.

// Buf is a buffer as the engine takes it: contiguous bytes, or a datatype's layout.
type Buf = p2p.Buf

// Bytes makes a contiguous Buf.
func Bytes(b []byte) Buf { return p2p.Bytes(b) }

// BytesAt makes a contiguous Buf of the n bytes at p.
func BytesAt(p *byte, n int) Buf { return p2p.BytesAt(p, n) }

// Packed makes a Buf of a datatype's layout.
func Packed(l p2p.Layout) Buf { return p2p.Packed(l) }

// Status is the engine's account of a completed operation (world ranks).
type Status = p2p.Status

// Request is the engine's handle of a nonblocking operation.
type Request = p2p.Request

// RequestOf makes a Request of a generalized or collective operation's record.
func RequestOf(p unsafe.Pointer, gen uint32) Request { return p2p.RequestOf(p, gen) }

// SetError is the engine's error of a call on a set of requests: the first request
// that failed, by its index.
type SetError = p2p.SetError

// Message is a matched message (Mprobe's), to be received by Mrecv.
type Message = p2p.Message

// MessageNoProc is the message from no process (MPI_MESSAGE_NO_PROC).
func MessageNoProc() Message { return p2p.NoProc() }

// Mode is a send's mode.
type Mode = p2p.Mode

// The send modes.
const (
	ModeStandard    = p2p.Standard
	ModeSynchronous = p2p.Synchronous
	ModeReady       = p2p.Ready
	ModeBuffered    = p2p.Buffered
)

// BsendOverhead is the room a buffered send takes in the attached buffer beyond its
// data.
const BsendOverhead = p2p.BsendOverhead

// HWResource is one of this node's hardware levels (topo.ResourceTypes) and
// whether the CPUs this process may run on lie within one instance of it.
type HWResource struct {
	Type   string
	Within bool
}

// HWResources lists the hardware levels this node has, widest first, read now.
func HWResources() ([]HWResource, error) {
	set, err := topo.Allowed()
	if err != nil {
		return nil, err
	}
	m := topo.Machine()
	var out []HWResource
	for _, typ := range topo.ResourceTypes {
		if len(m.Instances(typ)) > 0 {
			out = append(out, HWResource{typ, m.InstanceOf(typ, set) >= 0})
		}
	}
	return out, nil
}

// SpawnCmd is one command of a spawn, as the process manager takes it.
type SpawnCmd = pm.SpawnCmd
