package shm

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// ringPos is the producer's positions in one ring, which only the sender writes.
type ringPos struct {
	cellPos, dataPos uint64 // next cell, next data byte (absolute)
	consCell         uint64 // cached consumer positions
	consData         uint64
}

// outsideRing is one outbound ring's record (transport.OutsideRing), in a page the
// endpoint maps for it outside Go's heap: the producer's positions, which Send keeps
// there rather than in the outbound, and where the ring lies. C code that reads it
// (abi/libmpi/p2pshort.h, struct mpigo_ring, field for field) writes a packet (a
// compact cell, or a cell and its payload in the data ring) into the same ring as
// Send and advances the same positions, so that packets of both stay in one order; it
// holds no Go memory. The positions have their own cache
// line: the sender writes them per packet, the rest is written once.
type outsideRing struct {
	pos          ringPos
	_            [4]uint64
	cells        uintptr // the cells, in the receiver's segment mapped here
	cons         uintptr // the consumer's positions (*[2]uint64)
	closed       uintptr // the receiver's closed flag (*uint32)
	doorSeq      uintptr // the receiver's doorbell (transport.Doorbell's two words)
	doorSleepers uintptr
	cellMask     uint64
	nCells       uint64
	_            uint64
	data         uintptr // the data ring, in the receiver's segment mapped here
	dataMask     uint64
	dataSize     uint64
	// plainMax is the largest payload the C way copies into the data ring: below
	// shm_nt_min, from where the sender's copy chooser decides how Send copies it.
	plainMax uint64
	// cc is the copy chooser's words (streamcopy.go): C copies a payload past plainMax
	// the way they say and counts it in them.
	cc ccWords
}

// The record's layout is C's: three cache lines.
var _ [0]struct{} = [unsafe.Sizeof(outsideRing{}) - 3*lineSize]struct{}{}

// mapOutside maps e's record and moves its positions there.
func (e *outbound) mapOutside(seg *segment) error {
	mem, err := unix.Mmap(-1, 0, pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return err
	}
	r := (*outsideRing)(unsafe.Pointer(unsafe.SliceData(mem)))
	r.cells = uintptr(e.cells)
	r.cons = uintptr(unsafe.Pointer(e.cons))
	r.closed = uintptr(unsafe.Pointer(e.closed))
	r.doorSeq = uintptr(unsafe.Pointer(seg.u32(offDoorbell)))
	r.doorSleepers = uintptr(unsafe.Pointer(seg.u32(offDoorbell + 4)))
	r.cellMask, r.nCells = e.cellMask, e.nCells
	r.data, r.dataMask, r.dataSize = uintptr(e.data), e.dataMask, e.dataSize
	r.plainMax = uint64(min(e.cc.min-1, e.maxPayload))
	r.cc = *e.cc.w
	r.cc.max = uint64(min(e.cc.max, e.maxPayload))
	if e.cc.min-1 > e.maxPayload { // the chooser is off (or its payloads are never whole)
		r.cc.max = 0
	}
	e.cc.w = &r.cc
	e.outside, e.pos = mem, &r.pos
	return nil
}

// OutsideRing implements transport.OutsideRing.
func (e *outbound) OutsideRing() uintptr { return uintptr(unsafe.Pointer(e.pos)) }

// Compact cells, as C writes them too (p2pshort.c): the header's first 16 bytes at 8,
// SendID at offCompactSendID, the payload at offInline, the stamp's meta word.
const (
	// OutsideInline is the largest payload of a compact cell, which the C way writes.
	OutsideInline = inlineMax
	// OutsideCompact is the bit of a stamp's high word that marks a compact cell.
	OutsideCompact = compactBit
)

// inPos is the consumer's positions in one ring, which only the receiver writes.
type inPos struct {
	pos, dataPos uint64 // next cell, next data byte (absolute)
	// published and publishedData are the positions last stored in cons; they lag
	// pos and dataPos by less than lazyCells and lazyData (a quarter of each ring).
	published     uint64
	publishedData uint64
}

// outsideInbound is one inbound ring's record (transport.OutsideInbound), in a page
// the receiver maps for it outside Go's heap: the consumer's positions, which drain
// keeps there, and where the ring lies. C code that reads it (abi/libmpi/p2pshort.h,
// struct mpigo_inring, field for field) takes a packet at the ring's head as drain
// does and advances the same positions, so that the two consume one stream in order.
type outsideInbound struct {
	pos       inPos
	_         [4]uint64
	cells     uintptr // the cells, in this rank's segment
	data      uintptr // the data ring
	cons      uintptr // the consumer's positions as the sender reads them (*[2]uint64)
	block     uintptr // the sender's blocked flag (*uint32)
	cellMask  uint64
	dataMask  uint64
	dataSize  uint64
	lazyCells uint64
	lazyData  uint64
	// doorSeq and doorSleepers are the sender's doorbell once wakeSender has mapped it
	// (0 before): C rings it as wakeSender does when the sender met a full ring.
	doorSeq      uintptr
	doorSleepers uintptr
	lazyPayload  uint64
	_            [4]uint64
}

// The record's layout is C's: three cache lines.
var _ [0]struct{} = [unsafe.Sizeof(outsideInbound{}) - 3*lineSize]struct{}{}

// mapOutside maps in's record and moves its positions there.
func (in *inbound) mapOutside() error {
	mem, err := unix.Mmap(-1, 0, pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return err
	}
	r := (*outsideInbound)(unsafe.Pointer(unsafe.SliceData(mem)))
	r.cells, r.data = uintptr(in.cells), uintptr(in.data)
	r.cons = uintptr(unsafe.Pointer(in.cons))
	r.block = uintptr(unsafe.Pointer(in.block))
	r.cellMask, r.dataMask, r.dataSize = in.cellMask, in.dataMask, in.dataSize
	r.lazyCells, r.lazyData, r.lazyPayload = in.lazyCells, in.lazyData, lazyPayload
	in.outside, in.rp = mem, &r.pos
	return nil
}

// OutsideInbound implements transport.OutsideInbound.
func (in *inbound) OutsideInbound() uintptr {
	if in.outside == nil {
		return 0
	}
	return uintptr(unsafe.Pointer(in.rp))
}

// noteDoor shows C the sender's doorbell (its two words), once mapped.
func (in *inbound) noteDoor(seq, sleepers *uint32) {
	if in.outside == nil {
		return
	}
	r := (*outsideInbound)(unsafe.Pointer(in.rp))
	r.doorSeq, r.doorSleepers = uintptr(unsafe.Pointer(seq)), uintptr(unsafe.Pointer(sleepers))
}
