package shm

import (
	"encoding/binary"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Region is a block of shared memory that a few ranks of one node map, for uses other
// than the transport's rings (the node-local collectives of internal/shmcoll). Its
// creator makes it as an anonymous memfd and hands Addr to the others, who open it
// through /proc/<pid>/fd/<fd> with OpenPart: there is never a name in /dev/shm, and
// the memory goes away once the last process that mapped it unmaps it or exits.
type Region struct {
	// Mem is the mapping, page aligned, read and write, shared with the other mappers.
	Mem  []byte
	fd   int // the creator's memfd, until CloseFd; -1 for an opened region
	addr []byte
}

const regionAddrLen = 16 // version, 3 spare, pid, fd, size (uint32 each but size)

// CreatePart makes a region of size bytes (rounded up to whole pages), zeroed, and
// maps it, its first populate bytes faulted in ahead of use; the other pages fault in
// when first touched. For memory a program may never touch whole (a window's, of any
// size, or the reductions' slots of the node collectives): faulting in a gigabyte
// costs seconds, and the pages of a memfd read as zero untouched. name shows in
// /proc/<pid>/fd and /proc/<pid>/maps, to tell regions apart.
func CreatePart(name string, size, populate int) (*Region, error) {
	if size <= 0 || size > 1<<40 {
		return nil, fmt.Errorf("shared memory: region of %d bytes: the size must be in (0, 1 TiB]", size)
	}
	size = roundUp(size, pageSize)
	fd, err := unix.MemfdCreate(namePrefix+sanitize(name), unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("shared memory: memfd for a region of %d bytes: %w", size, err)
	}
	seg, err := mapFd(fd, size)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	populateRegion(seg.mem, populate)
	a := make([]byte, regionAddrLen)
	a[0] = version
	binary.LittleEndian.PutUint32(a[4:], uint32(os.Getpid()))
	binary.LittleEndian.PutUint32(a[8:], uint32(fd))
	binary.LittleEndian.PutUint32(a[12:], uint32(size/pageSize))
	return &Region{Mem: seg.mem, fd: fd, addr: a}, nil
}

// Addr is how other processes of the node open the region (with OpenPart), for as
// long as the creator keeps its descriptor (until CloseFd or Close).
func (r *Region) Addr() []byte { return r.addr }

// OpenPart maps the region another process of this node created, from its Addr, its
// first populate bytes faulted in ahead of use (as CreatePart).
func OpenPart(addr []byte, populate int) (*Region, error) {
	if len(addr) != regionAddrLen || addr[0] != version {
		return nil, fmt.Errorf("shared memory: region address of %d bytes is malformed or of another version", len(addr))
	}
	pid := int(binary.LittleEndian.Uint32(addr[4:]))
	fdn := int(binary.LittleEndian.Uint32(addr[8:]))
	size := int(binary.LittleEndian.Uint32(addr[12:])) * pageSize
	path := procFd(pid, fdn)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("shared memory: opening region %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("shared memory: stat region %s: %w", path, err)
	}
	if st.Size < int64(size) {
		return nil, fmt.Errorf("shared memory: region %s has %d bytes, its creator announced %d", path, st.Size, size)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("shared memory: mapping region %s: %w", path, err)
	}
	populateRegion(mem, populate)
	return &Region{Mem: mem, fd: -1, addr: append([]byte(nil), addr...)}, nil
}

// populateRegion maps the first n bytes' pages of mem in ahead of use, so that the
// first collectives take no page faults; failure (kernels before 5.14) only means
// they fault in later.
func populateRegion(mem []byte, n int) {
	if n = min(roundUp(max(n, 0), pageSize), len(mem)); n > 0 {
		unix.Madvise(mem[:n], unix.MADV_POPULATE_WRITE)
	}
}

// CloseFd closes the creator's descriptor once every peer has opened the region; the
// mapping stays. Nobody can open the region afterwards. It does nothing on an opened
// region or a second time.
func (r *Region) CloseFd() error {
	if r.fd < 0 {
		return nil
	}
	err := unix.Close(r.fd)
	r.fd = -1
	return err
}

// Close unmaps the region (and closes the creator's descriptor). The other processes'
// mappings stay valid.
func (r *Region) Close() error {
	err := r.CloseFd()
	if r.Mem != nil {
		if uerr := unix.Munmap(r.Mem); uerr != nil && err == nil {
			err = uerr
		}
		r.Mem = nil
	}
	return err
}
