// Package transport is the contract between the point-to-point engine and the ways of
// moving bytes to a peer: self, shared memory (shm) and TCP. A transport knows nothing
// of tags, communicators or matching: it moves packets to a peer, in order, and says
// what it can do and at what cost, so that the engine can choose a protocol for every
// message (seed 003: the transport recommends the protocol).
package transport

import (
	"errors"
	"time"
)

// Header is the fixed part of every packet. Its fields mean what the point-to-point
// engine says they mean; a transport copies it verbatim, ahead of the payload.
type Header struct {
	Kind    uint8 // packet kind (eager, rendezvous request, ...), defined by p2p
	Flags   uint8 // kind-specific flags
	_       [2]byte
	Src     int32  // sender's world rank
	Context uint32 // communicator context id
	Tag     int32  // message tag
	Len     uint64 // total message length in bytes
	SendID  uint64 // sender's request cookie
	RecvID  uint64 // receiver's request cookie
	Addr    uint64 // sender's buffer address, for single-copy reads
	Offset  uint64 // byte offset of this fragment in the message
}

// HeaderSize is the number of bytes a Header takes on the wire.
const HeaderSize = 56

// ErrWouldBlock is returned by Send when the packet does not fit now. Nothing was
// written; the caller makes progress (Poll) and tries again.
var ErrWouldBlock = errors.New("would block")

// ErrPeerGone is returned (wrapped) when a peer has died or closed its end.
var ErrPeerGone = errors.New("peer gone")

// Handler receives packets. Payload is valid only during the call.
type Handler interface {
	Packet(h *Header, payload []byte)
}

// Endpoint is a connection to one peer.
type Endpoint interface {
	// Send writes one packet, h then payload, or returns ErrWouldBlock having written
	// nothing. The transport has copied (or written out) both before it returns.
	Send(h *Header, payload []byte) error
	// MaxPayload is the largest payload one Send accepts.
	MaxPayload() int
	// Models lists the protocols this endpoint can carry and their cost, so the
	// engine can build its selection table for this peer.
	Models() []Model
}

// Transport reaches a set of peers.
type Transport interface {
	// Name is "self", "shm" or "tcp".
	Name() string
	// Reaches reports whether this transport can reach the world rank peer.
	Reaches(peer int) bool
	// Endpoint returns the endpoint for peer, connecting on first use.
	Endpoint(peer int) (Endpoint, error)
	// Poll hands every packet that has arrived to h, in per-peer order, without
	// blocking, and returns how many it handed over.
	Poll(h Handler) int
	// Close releases everything the transport holds (mappings, sockets, files).
	Close() error
}

// SingleCopy is implemented by transports that can copy straight from and into a
// peer's memory (Linux cross-memory attach). addr is an address in the peer's address
// space.
type SingleCopy interface {
	ReadFrom(peer int, dst []byte, addr uint64) error
	WriteTo(peer int, src []byte, addr uint64) error
}

// NodeCopier is the node transport's single-copy capability as the layers above the
// engine use it (node collectives reading a root's buffer, windows reaching a peer's
// memory): SingleCopy, many writes or reads in one call (WriteVec writes srcs[i] at
// addrs[i], ReadVec reads dsts[i] from addrs[i]), and whether this process may make
// such calls at all (CMA, with why not).
type NodeCopier interface {
	SingleCopy
	WriteVec(peer int, srcs [][]byte, addrs []uint64) error
	ReadVec(peer int, dsts [][]byte, addrs []uint64) error
	CMA() (bool, string)
}

// Mapper is implemented by node copiers that copy some of a peer's memory through a
// mapping of it (shm: memory from MPI_Alloc_mem), at memmove's speed for any length.
type Mapper interface {
	// Mapped reports whether [addr, addr+n) in peer's memory is copied that way.
	Mapped(peer int, addr uint64, n int) bool
	// Map maps [addr, addr+n) of peer's memory, which must be copied that way, for
	// loads and stores, and returns it with the call that unmaps it; nil if it cannot.
	// The mapping lasts until then, whatever the peer frees meanwhile.
	Map(peer int, addr uint64, n int) (mem []byte, unmap func())
	// Shares reports whether [addr, addr+n) of this process's memory lies in memory
	// its peers copy that way.
	Shares(addr uint64, n int) bool
}

// PeerPoller is implemented by transports that can poll one peer's packets alone
// (shm: that sender's ring), which a receive waiting for one peer polls first.
type PeerPoller interface {
	// PeerPoll returns a poller of peer's packets, or nil while none can be had yet
	// (shm: the peer has not sent to this rank yet).
	PeerPoll(peer int) PeerPoll
}

// PeerPoll polls one peer's packets: it hands at most max of those that have arrived
// to h, in order, and returns how many. Packets of other peers wait for Poll.
type PeerPoll interface {
	Poll(h Handler, max int) int
}

// CompactSender is implemented by an Endpoint that writes a small eager packet
// without a Header (shm: a compact cell), for the engine's short way of a small send.
type CompactSender interface {
	// CompactMax is the largest payload SendCompact takes.
	CompactMax() int
	// SendCompact writes the packet Send would for a header of Kind kind, no Flags,
	// Src src, Context ctx, Tag tag, Len len(payload) and every other field 0, with
	// payload (at most CompactMax bytes), or returns what Send would return.
	SendCompact(kind uint8, src int32, ctx uint32, tag int32, payload []byte) error
}

// HeadTaker is implemented by a PeerPoll that can hand over the packet at the head of
// its peer's packets alone, without a Handler (shm): the engine's short way for a
// blocking receive that nothing else could match, which the C library's short way
// (OutsideInbound) takes the same way. The caller must serialise it with the poller's
// Poll and the transport's.
type HeadTaker interface {
	// Take looks at the packet at the head: if its Kind is kind, its Flags 0, its Src
	// src, its Context ctx, its Tag tag (any tag when anyTag), its payload the whole
	// message (Len) and no longer than buf, it copies the payload into buf and
	// consumes the packet as Poll would (1, the payload's length n and the tag); 0 if
	// no packet is there; -1 if another is, which is left for Poll.
	Take(kind uint8, src int32, ctx uint32, tag int32, anyTag bool, buf []byte) (n int, gotTag int32, k int)
	// Arrived reports whether a packet is at the head, and takes nothing.
	Arrived() bool
}

// OutsideRing is implemented by an Endpoint whose ring code outside Go may write
// itself (shm): OutsideRing is the address of the ring's record in memory mapped
// outside Go's heap, which holds the ring's producer positions and where the ring
// lies, so that the C library's short way for small sends (abi/libmpi/p2pshort.c
// has the record's layout) writes a compact eager packet into the same ring as Send,
// in order with it. The caller must serialise it with the endpoint's Send, and stop
// using it before the transport closes; 0: none.
type OutsideRing interface {
	OutsideRing() uintptr
}

// OutsideInbound is implemented by a PeerPoll whose ring code outside Go may consume
// itself (shm): OutsideInbound is the address of the inbound ring's record in memory
// mapped outside Go's heap, which holds the consumer's positions and where the ring
// lies, so that the C library's short way for small receives (abi/libmpi/p2pshort.h
// has the record's layout) takes an eager packet at the ring's head as Poll would, in
// order with it. The caller must serialise it with the poller's Poll and the
// transport's, and stop using it before the transport closes; 0: none.
type OutsideInbound interface {
	OutsideInbound() uintptr
}

// Protocol is how a message travels.
type Protocol uint8

const (
	// Eager copies the message into the packet: one copy in, one copy out, no handshake.
	Eager Protocol = iota
	// Pipeline sends a request, and after the match streams fragments through the
	// transport's buffers: two copies, overlapped, sender and receiver copying at once.
	Pipeline
	// Get sends a request with the sender's address; the receiver copies the message
	// straight out of the sender's memory (single copy), then tells it it is done.
	Get
)

func (p Protocol) String() string {
	switch p {
	case Eager:
		return "eager"
	case Pipeline:
		return "pipeline"
	case Get:
		return "get"
	}
	return "protocol?"
}

// Model is a protocol's cost on an endpoint: Fixed + n/Bandwidth for an n-byte message,
// for n in [MinSize, MaxSize] (MaxSize 0: unbounded).
type Model struct {
	Protocol  Protocol
	MinSize   int64
	MaxSize   int64
	Fixed     time.Duration
	Bandwidth float64 // bytes per second
}

// Cost estimates the time an n-byte message takes.
func (m Model) Cost(n int64) time.Duration {
	return m.Fixed + time.Duration(float64(n)/m.Bandwidth*1e9)
}
