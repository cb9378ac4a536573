package shm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Layout of a rank's segment. The segment belongs to the receiver: every sender on the
// node has a fixed slot in it (indexed by the sender's local rank) holding the rings
// that carry its packets to the owner. Keeping the rings in the receiver's memory means
// that the receiver never maps anyone (it polls its own pages), packets already written
// survive the death of their sender, and only senders ever attach to a peer. The slots
// of senders that never talk are never touched, so they cost address space but no
// memory: tmpfs and memfd pages are allocated on first write.
//
//	control block (ctrlSize bytes, a multiple of the page size)
//	  line 0: magic, version, local size, cells, ring bytes, slot size, owner pid, closed
//	  line 1: doorbell (seq, sleepers): written by senders, read by the owner only to sleep
//	  line 2: connection generation: bumped by a sender after it set its bit
//	  line 3..: connected bitmap, one bit per local sender
//	slot s (slotSize bytes, page aligned), for the sender of local rank s:
//	  line 0: sender's world rank + 1, sender's pid (written once by the sender), and
//	          the sender's "blocked" flag (set when it met a full ring)
//	  line 1: consumer positions (cells consumed, data bytes consumed), written by the owner
//	  cells: nCells cells of 128 bytes, each a stamp word then 120 bytes
//	  data: ringBytes bytes of payload, a power of two
const (
	magic      = 0x6d70_6967_6f73_686d // "mpigoshm"
	version    = 2                     // changes with the layout, so that mixed builds on a node refuse each other
	lineSize   = 64
	cellSize   = 128
	pageSize   = 4096
	inlineMax  = 96 // payload bytes that fit in a compact cell
	compactBit = 1 << 31

	offMagic     = 0
	offVersion   = 8
	offLocalSize = 12
	offCells     = 16
	offRingBytes = 20
	offSlotSize  = 24 // uint64
	offOwnerPid  = 32
	offClosed    = 36
	offDoorbell  = 1 * lineSize
	offConnGen   = 2 * lineSize
	offConnected = 3 * lineSize

	slotMeta  = 0
	slotBlock = 8 // in the meta line: the sender found the ring full and may sleep
	slotCons  = lineSize
	slotCells = 2 * lineSize
)

// layout is the geometry of one segment; the owner chooses it and senders read it from
// the control block, so ranks with different settings still agree.
type layout struct {
	localSize int
	cells     int // power of two
	ringBytes int // power of two
	ctrlSize  int
	slotSize  int
}

func newLayout(localSize, cells, ringBytes int) layout {
	l := layout{localSize: localSize, cells: cells, ringBytes: ringBytes}
	bitmap := (localSize + 63) / 64 * 8
	l.ctrlSize = roundUp(offConnected+bitmap, pageSize)
	l.slotSize = roundUp(slotCells+cells*cellSize+ringBytes, pageSize)
	return l
}

func (l layout) size() int { return l.ctrlSize + l.localSize*l.slotSize }

func (l layout) slotOff(s int) int { return l.ctrlSize + s*l.slotSize }

func roundUp(n, a int) int { return (n + a - 1) / a * a }

// segment is one mapping of a rank's segment, its own or a peer's.
type segment struct {
	mem  []byte
	base unsafe.Pointer
	l    layout
}

func (s *segment) u32(off int) *uint32 { return (*uint32)(unsafe.Add(s.base, off)) }
func (s *segment) u64(off int) *uint64 { return (*uint64)(unsafe.Add(s.base, off)) }

// writeControl fills the owner's control block before anyone can see the segment.
func (s *segment) writeControl(pid int) {
	l := s.l
	*s.u32(offVersion) = version
	*s.u32(offLocalSize) = uint32(l.localSize)
	*s.u32(offCells) = uint32(l.cells)
	*s.u32(offRingBytes) = uint32(l.ringBytes)
	*s.u64(offSlotSize) = uint64(l.slotSize)
	*s.u32(offOwnerPid) = uint32(pid)
	atomic.StoreUint64(s.u64(offMagic), magic)
}

// readControl checks a peer's control block and returns its layout.
func readControl(mem []byte) (layout, error) {
	if len(mem) < pageSize {
		return layout{}, fmt.Errorf("segment of %d bytes is smaller than a control block", len(mem))
	}
	b := unsafe.Pointer(&mem[0])
	if atomic.LoadUint64((*uint64)(b)) != magic {
		return layout{}, errors.New("segment has no mpigo shm magic number")
	}
	if v := *(*uint32)(unsafe.Add(b, offVersion)); v != version {
		return layout{}, fmt.Errorf("segment version %d, want %d (mixed mpigo versions on one node?)", v, version)
	}
	l := newLayout(int(*(*uint32)(unsafe.Add(b, offLocalSize))), int(*(*uint32)(unsafe.Add(b, offCells))),
		int(*(*uint32)(unsafe.Add(b, offRingBytes))))
	if uint64(l.slotSize) != *(*uint64)(unsafe.Add(b, offSlotSize)) || l.size() > len(mem) {
		return layout{}, fmt.Errorf("segment layout inconsistent (slot %d bytes, size %d of %d bytes)",
			l.slotSize, l.size(), len(mem))
	}
	return l, nil
}

// Memory modes.
const (
	modeMemfd = 1 // anonymous memfd; peers open /proc/<pid>/fd/<fd>
	modeFile  = 2 // a file in /dev/shm, unlinked at Close
)

// ShmDir is where file-mode segments live; FilePrefix(job) starts their names.
const ShmDir = "/dev/shm"

// Name is the name of job's shared-memory object part: "mpigo-<job>-<part>". A
// file-mode segment is a file of that name in ShmDir, a memfd segment shows it in
// /proc/<pid>/fd, so either tells whose it is.
func Name(job, part string) string { return namePrefix + sanitize(job) + "-" + part }

// namePrefix starts the name of every shared-memory object mpigo makes.
const namePrefix = "mpigo-"

// FilePrefix is the path prefix of every file the shm transport of job may create. The
// transport removes its file at Close; a rank killed with -9 cannot, so the launcher
// removes leftovers with RemoveLeftovers(job) once the job has ended. With memfd (the
// default where it works) there is never a file to remove.
func FilePrefix(job string) string { return filepath.Join(ShmDir, Name(job, "")) }

// RemoveLeftovers deletes the files FilePrefix(job) names. The launcher calls it after
// every rank of job has exited.
func RemoveLeftovers(job string) error {
	names, err := filepath.Glob(FilePrefix(job) + "*")
	if err != nil {
		return err
	}
	var first error
	for _, n := range names {
		if err := os.Remove(n); err != nil && !errors.Is(err, os.ErrNotExist) && first == nil {
			first = err
		}
	}
	return first
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == 0 {
			return '_'
		}
		return r
	}, s)
}

// address is what a rank publishes under pm.KeyShm: how to open its segment.
type address struct {
	mode int
	pid  int
	fd   int
	size int
	base uint64 // where the owner mapped it: a known address for probing single-copy reads
	path string // file mode only
}

func (a address) encode() []byte {
	b := make([]byte, 0, 24+len(a.path))
	b = append(b, version, byte(a.mode), 0, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(a.pid))
	b = binary.LittleEndian.AppendUint32(b, uint32(a.fd))
	b = binary.LittleEndian.AppendUint64(b, uint64(a.size))
	b = binary.LittleEndian.AppendUint64(b, a.base)
	return append(b, a.path...)
}

func decodeAddress(b []byte) (address, error) {
	if len(b) < 28 || b[0] != version || (b[1] != modeMemfd && b[1] != modeFile) {
		return address{}, fmt.Errorf("shm address of %d bytes is malformed or of another version", len(b))
	}
	return address{
		mode: int(b[1]),
		pid:  int(binary.LittleEndian.Uint32(b[4:])),
		fd:   int(binary.LittleEndian.Uint32(b[8:])),
		size: int(binary.LittleEndian.Uint64(b[12:])),
		base: binary.LittleEndian.Uint64(b[20:]),
		path: string(b[28:]),
	}, nil
}

// createSegment makes this rank's segment in the given mode (0: memfd, then file).
func createSegment(mode int, job string, rank, pid int, l layout) (*segment, address, int, error) {
	size := l.size()
	if mode == 0 || mode == modeMemfd {
		fd, err := unix.MemfdCreate(Name(job, strconv.Itoa(rank)), unix.MFD_CLOEXEC)
		if err == nil {
			seg, err := mapFd(fd, size)
			if err == nil {
				return seg, address{mode: modeMemfd, pid: pid, fd: fd, size: size}, fd, nil
			}
			unix.Close(fd)
		}
		if mode == modeMemfd {
			return nil, address{}, -1, fmt.Errorf("shared memory: memfd segment of %d bytes: %w", size, err)
		}
	}
	path := FilePrefix(job) + strconv.Itoa(rank) + "-" + strconv.Itoa(pid)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, address{}, -1, fmt.Errorf("shared memory: creating %s: %w", path, err)
	}
	seg, err := mapFd(fd, size)
	unix.Close(fd)
	if err != nil {
		os.Remove(path)
		return nil, address{}, -1, err
	}
	return seg, address{mode: modeFile, pid: pid, size: size, path: path}, -1, nil
}

func mapFd(fd, size int) (*segment, error) {
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		return nil, fmt.Errorf("shared memory: sizing segment to %d bytes: %w", size, err)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("shared memory: mapping segment of %d bytes: %w", size, err)
	}
	return &segment{mem: mem, base: unsafe.Pointer(&mem[0])}, nil
}

// procFd is the path under which a process of the same user opens descriptor fd of
// process pid (a memfd, which has no other name).
func procFd(pid, fd int) string { return "/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(fd) }

// openSegment maps a peer's segment.
func openSegment(a address) (*segment, error) {
	path := a.path
	if a.mode == modeMemfd {
		path = procFd(a.pid, a.fd)
	}
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Size < int64(a.size) {
		return nil, fmt.Errorf("%s has %d bytes, its owner published %d", path, st.Size, a.size)
	}
	mem, err := unix.Mmap(fd, 0, a.size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("mapping %s: %w", path, err)
	}
	l, err := readControl(mem)
	if err != nil {
		unix.Munmap(mem)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &segment{mem: mem, base: unsafe.Pointer(&mem[0]), l: l}, nil
}

// populate maps in the pages of one slot ahead of use: its cells and the first
// populateRing bytes of its data ring (all of it on a node of two ranks), so that a pair's first messages take no page
// faults in the middle of a message (about a microsecond each on a VM). Failure
// (kernels before 5.14) is harmless: the pages fault in on first use.
func (s *segment) populate(slot int) {
	ring := min(s.l.ringBytes, populateRing)
	if s.l.localSize <= 2 {
		ring = s.l.ringBytes
	}
	n := roundUp(slotCells+s.l.cells*cellSize+ring, pageSize)
	unix.Madvise(s.mem[slot:slot+min(n, s.l.slotSize)], unix.MADV_POPULATE_WRITE)
}

// populateRing is how much of a data ring populate maps in where the node has more
// than two ranks. The rest faults in on the first lap: both ends of a pair map every
// page they touch, and a resident page counts in each one's memory, so populating
// whole rings made every pair that ever exchanged a message cost each rank its ring
// (a 16-rank job's root held 15 MiB of them after Init). A pair that streams laps the
// ring at once and pays the faults once; but short messages lap it slowly, a fault
// every few dozen, which on a VM whose faults cost microseconds tripled a 256-byte
// ping-pong of a thousand rounds. With two ranks the whole ring is mapped in: one
// ring each way, a megabyte per rank.
const populateRing = 64 << 10
