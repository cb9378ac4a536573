package shm

import (
	"encoding/binary"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/config"
	"golang.org/x/sys/unix"
)

// Memory the ranks of a node map (MPI_Alloc_mem).
//
// Alloc backs each allocation of memMin or more with an anonymous memfd of its own,
// and carves smaller ones from arenas: memfds of arenaSize, each serving blocks of one
// power-of-two size, which live as long as the process (a freed block goes to its
// size's free list). It lists each such memfd in this process's memory table: one
// page of another memfd, which peers open through /proc/<pid>/fd/<fd> (its fd is
// published beside the pid, pm.KeyPID). A single-copy
// read or write of a peer's memory that lies wholly in one listed allocation maps that
// allocation once and copies with memmove: process_vm_readv and process_vm_writev pin
// every page on every call, which costs about as much as the copy, while a mapping
// faults each page in once.
//
// The table is a seqlock. Alloc and Free, under memReg's mutex, make its version odd,
// change one entry, and make it even again; a reader takes the entry that holds its
// range between two equal, even reads of the version. An entry names its file by
// inode number, and a reader keeps its mappings by inode: a mapping keeps its file,
// and so the file's inode number, alive, so an inode that is both listed and mapped is
// one and the same memory. A reader drops the mappings of allocations no longer listed
// when it next sees the version change. Memory its owner frees while a peer still
// copies stays valid for that peer; MPI forbids freeing a buffer in use, and nothing
// worse can follow.

var setAllocMem = config.Bool("shm_alloc_mem", true,
	"MPI_Alloc_mem serves its allocations from shared memory that the ranks of the node map "+
		"on their first single-copy transfer to or from it, so that later transfers need no page pinning")

// mappedBytes counts the bytes copied through mappings of peers' allocations.
var mappedBytes atomic.Uint64

// MappedBytes is how many bytes this process has copied to and from its peers'
// MPI_Alloc_mem memory through mappings, without single-copy system calls.
func MappedBytes() uint64 { return mappedBytes.Load() }

// Layout of the memory table: a header line (the version, the entries in use), then
// entries of base, size and inode (uint64s) and the owner's fd (uint32).
const (
	memMin       = 16 << 10 // an allocation this long or longer has a memfd of its own
	smallMin     = 64       // the smallest block of an arena
	arenaSize    = 1 << 20
	smallClasses = 9 // blocks of 64 B to 16 KiB
	memHeader    = 64
	memEntrySize = 32
	memEntries   = (pageSize - memHeader) / memEntrySize
	offMemVer    = 0
	offMemCount  = 8
)

// memReg is this process's memory table and what it lists.
var memReg struct {
	sync.Mutex
	made   bool   // the table was tried
	fd     int    // its memfd, or -1 if it could not be made (Alloc then serves nothing)
	table  []byte // mapped
	allocs map[uintptr]memAlloc
	// The arenas' blocks: per size class the arena blocks are carved from (-1 for
	// none yet) and the blocks freed; the size class of every block in use.
	arenas []memArena
	carve  [smallClasses]int
	free   [smallClasses][]unsafe.Pointer
	blocks map[unsafe.Pointer]int
}

// memArena is a memfd whose blocks are of one size; used is how much is carved.
type memArena struct {
	mem  []byte
	used int
}

// memAlloc is one allocation Alloc made.
type memAlloc struct {
	mem  []byte
	fd   int
	slot int
}

// memTableFd is the fd of this process's memory table, made on first use; -1 if it
// cannot be made.
func memTableFd() int {
	memReg.Lock()
	defer memReg.Unlock()
	return memTableLocked()
}

func memTableLocked() int {
	if memReg.made {
		return memReg.fd
	}
	memReg.made, memReg.fd = true, -1
	fd, err := unix.MemfdCreate("mpigo-memtable", unix.MFD_CLOEXEC)
	if err != nil {
		return -1
	}
	seg, err := mapFd(fd, pageSize)
	if err != nil {
		unix.Close(fd)
		return -1
	}
	memReg.fd, memReg.table = fd, seg.mem
	memReg.allocs = map[uintptr]memAlloc{}
	memReg.blocks = map[unsafe.Pointer]int{}
	for c := range memReg.carve {
		memReg.carve[c] = -1
	}
	return fd
}

// Alloc returns size bytes of zeroed memory that the node's peers may map, aligned to
// align (0 or a power of two up to a page) and to at least 64 bytes, or nil when it
// does not serve the request: of no bytes, aligned beyond a page, with shm_alloc_mem
// off, with the table full, or where memfds cannot be made. The caller then allocates
// as it would otherwise. Free gives the memory back.
func Alloc(size, align int) unsafe.Pointer {
	if size <= 0 || align > pageSize || !setAllocMem.Get() {
		return nil
	}
	memReg.Lock()
	defer memReg.Unlock()
	if memTableLocked() < 0 {
		return nil
	}
	if size < memMin {
		return allocBlock(max(size, align))
	}
	slot := memFreeSlot()
	if slot < 0 {
		return nil
	}
	seg, fd, ino, ok := memfdMap(roundUp(size, pageSize))
	if !ok {
		return nil
	}
	p := seg.base
	memReg.allocs[uintptr(p)] = memAlloc{mem: seg.mem, fd: fd, slot: slot}
	memPublish(slot, uint64(uintptr(p)), uint64(len(seg.mem)), ino, fd)
	return p
}

// memfdMap makes an anonymous memfd of size bytes and maps it; its inode names it in
// the table.
func memfdMap(size int) (seg *segment, fd int, ino uint64, ok bool) {
	fd, err := unix.MemfdCreate("mpigo-mem", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, -1, 0, false
	}
	var st unix.Stat_t
	seg, err = mapFd(fd, size)
	if err == nil {
		err = unix.Fstat(fd, &st)
	}
	if err != nil {
		if seg != nil {
			unix.Munmap(seg.mem)
		}
		unix.Close(fd)
		return nil, -1, 0, false
	}
	return seg, fd, st.Ino, true
}

// allocBlock is a block of at least n (below memMin) bytes from an arena, zeroed, or
// nil where no arena can be had. memReg is held.
func allocBlock(n int) unsafe.Pointer {
	c := max(bits.Len(uint(n-1)), bits.Len(smallMin-1)) - bits.Len(smallMin-1)
	size := smallMin << c
	var p unsafe.Pointer
	if f := memReg.free[c]; len(f) > 0 {
		p = f[len(f)-1]
		memReg.free[c] = f[:len(f)-1]
		clear(unsafe.Slice((*byte)(p), size))
	} else {
		a := memReg.carve[c]
		if a < 0 || memReg.arenas[a].used+size > arenaSize {
			if a = newArena(); a < 0 {
				return nil
			}
			memReg.carve[c] = a
		}
		ar := &memReg.arenas[a]
		p = unsafe.Pointer(&ar.mem[ar.used])
		ar.used += size
	}
	memReg.blocks[p] = c
	return p
}

// newArena makes and lists an arena and returns its index, or -1. memReg is held.
func newArena() int {
	slot := memFreeSlot()
	if slot < 0 {
		return -1
	}
	seg, fd, ino, ok := memfdMap(arenaSize)
	if !ok {
		return -1
	}
	memPublish(slot, uint64(uintptr(seg.base)), arenaSize, ino, fd)
	memReg.arenas = append(memReg.arenas, memArena{mem: seg.mem})
	return len(memReg.arenas) - 1
}

// Free gives back memory Alloc returned and reports true, or reports false if p is
// not such memory (or was given back already).
func Free(p unsafe.Pointer) bool {
	memReg.Lock()
	defer memReg.Unlock()
	if c, ok := memReg.blocks[p]; ok {
		delete(memReg.blocks, p)
		memReg.free[c] = append(memReg.free[c], p)
		return true
	}
	a, ok := memReg.allocs[uintptr(p)]
	if !ok {
		return false
	}
	delete(memReg.allocs, uintptr(p))
	memPublish(a.slot, 0, 0, 0, 0)
	unix.Munmap(a.mem)
	unix.Close(a.fd)
	return true
}

// Listed reports whether the n bytes at addr lie in one memfd this process lists (an
// allocation of Alloc's or an arena), which peers can map (Transport.Map).
func Listed(addr uint64, n int) bool {
	memReg.Lock()
	defer memReg.Unlock()
	if memReg.table == nil || n < 0 {
		return false
	}
	t := memReg.table
	for i := range int(atomic.LoadUint32(memU32(t, offMemCount))) {
		e := memEntry(i)
		if (memRef{base: *memU64(t, e), size: *memU64(t, e+8)}).holds(addr, uint64(n)) {
			return true
		}
	}
	return false
}

// memFreeSlot is a table entry not in use, counted in when it is past the count; -1
// if the table is full. memReg is held.
func memFreeSlot() int {
	n := int(atomic.LoadUint32(memU32(memReg.table, offMemCount)))
	for i := range n {
		if atomic.LoadUint64(memU64(memReg.table, memEntry(i)+8)) == 0 {
			return i
		}
	}
	if n == memEntries {
		return -1
	}
	return n
}

// memPublish writes entry slot of the table under the seqlock; size 0 frees it.
// memReg is held.
func memPublish(slot int, base, size, ino uint64, fd int) {
	t := memReg.table
	ver := memU64(t, offMemVer)
	v := atomic.LoadUint64(ver)
	atomic.StoreUint64(ver, v+1)
	e := memEntry(slot)
	atomic.StoreUint64(memU64(t, e), base)
	atomic.StoreUint64(memU64(t, e+8), size)
	atomic.StoreUint64(memU64(t, e+16), ino)
	atomic.StoreUint32(memU32(t, e+24), uint32(fd))
	if cnt := memU32(t, offMemCount); int(atomic.LoadUint32(cnt)) <= slot {
		atomic.StoreUint32(cnt, uint32(slot+1))
	}
	atomic.StoreUint64(ver, v+2)
}

func memEntry(i int) int               { return memHeader + i*memEntrySize }
func memU64(t []byte, off int) *uint64 { return (*uint64)(unsafe.Pointer(&t[off])) }
func memU32(t []byte, off int) *uint32 { return (*uint32)(unsafe.Pointer(&t[off])) }
func appendMemFd(b []byte, fd int) []byte {
	return binary.LittleEndian.AppendUint32(b, uint32(max(fd, 0)))
}

// peerMem is a peer's memory table and this process's mappings of what it lists.
type peerMem struct {
	pid   int
	mu    sync.Mutex // held across a copy, so that no sweep unmaps its source
	table []byte     // the peer's table, mapped read-only; nil once closed
	maps  map[uint64][]byte
	seen  uint64 // the table's version when maps was last swept
	// pins counts, per inode, the mappings Transport.Map handed out and not yet given
	// back; gone holds those of allocations no longer listed, unmapped at the last unpin.
	pins map[uint64]int
	gone map[uint64][]byte
}

// openPeerMem maps the memory table of process pid, whose fd there is fd; nil when
// it has none or it cannot be opened (single-copy calls are then the only way).
func openPeerMem(pid, fd int) *peerMem {
	if fd <= 0 {
		return nil
	}
	f, err := unix.Open(procFd(pid, fd), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(f)
	table, err := unix.Mmap(f, 0, pageSize, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	return &peerMem{pid: pid, table: table, maps: map[uint64][]byte{}, pins: map[uint64]int{}, gone: map[uint64][]byte{}}
}

// copy copies between buf and n = len(buf) bytes at addr in the peer (into buf, or
// with write from it) through a mapping, and reports whether it could: the range must
// lie in one allocation the peer lists.
func (m *peerMem) copy(buf []byte, addr uint64, write bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	ref, mem := m.lookup(addr, uint64(len(buf)), true)
	if mem == nil {
		return false
	}
	copyAt(mem, addr-ref.base, buf, write)
	mappedBytes.Add(uint64(len(buf)))
	return true
}

// pin is the n bytes at addr of this process's mapping of the allocation that holds
// them (mapping it if need be), which stays mapped until unpin(ino), whatever the
// owner frees meanwhile; nil if the range is in no listed allocation.
func (m *peerMem) pin(addr, n uint64) (part []byte, ino uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ref, mem := m.lookup(addr, n, true)
	if mem == nil {
		return nil, 0
	}
	m.pins[ref.ino]++
	off := addr - ref.base
	return mem[off : off+n : off+n], ref.ino
}

// unpin ends a pin of the mapping of inode ino, and unmaps it if it was the last pin
// of an allocation no longer listed.
func (m *peerMem) unpin(ino uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pins[ino]--; m.pins[ino] > 0 {
		return
	}
	delete(m.pins, ino)
	if mem, ok := m.gone[ino]; ok {
		unix.Munmap(mem)
		delete(m.gone, ino)
	}
}

// mapped reports whether [addr, addr+n) lies in one listed allocation that is mapped
// here, mapping it if need be.
func (m *peerMem) mapped(addr, n uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, mem := m.lookup(addr, n, true)
	return mem != nil
}

// copyVec is copy of many pieces, bufs[i] at addrs[i], in up to vecAllocs
// allocations: all through mappings, or none (it then reports false).
func (m *peerMem) copyVec(bufs [][]byte, addrs []uint64, write bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	var refs [vecAllocs]memRef
	var mems [vecAllocs][]byte
	k := 0
	for i, b := range bufs {
		if holder(refs[:k], addrs[i], uint64(len(b))) >= 0 {
			continue
		}
		// No sweep here: it could unmap an allocation an earlier piece found, if its
		// owner freed it meanwhile (an error of the program, which must not crash us).
		ref, mem := m.lookup(addrs[i], uint64(len(b)), false)
		if mem == nil || k == vecAllocs {
			return false
		}
		refs[k], mems[k] = ref, mem
		k++
	}
	moved := 0
	for i, b := range bufs {
		j := holder(refs[:k], addrs[i], uint64(len(b)))
		copyAt(mems[j], addrs[i]-refs[j].base, b, write)
		moved += len(b)
	}
	mappedBytes.Add(uint64(moved))
	return true
}

// vecAllocs is the most allocations one copyVec reaches.
const vecAllocs = 4

// holder is the index of the entry of refs that holds [addr, addr+n), or -1.
func holder(refs []memRef, addr, n uint64) int {
	for j, r := range refs {
		if r.holds(addr, n) {
			return j
		}
	}
	return -1
}

// copyAt copies between buf and mem[off:]: into buf, or with write from it.
func copyAt(mem []byte, off uint64, buf []byte, write bool) {
	if write {
		copy(mem[off:], buf)
	} else {
		copy(buf, mem[off:])
	}
}

// memRef is a table entry as a reader read it.
type memRef struct {
	base, size, ino uint64
	fd              int
}

// holds reports whether the allocation holds [addr, addr+n).
func (r memRef) holds(addr, n uint64) bool {
	return r.size != 0 && addr >= r.base && addr-r.base <= r.size && n <= r.size-(addr-r.base)
}

// lookup is the entry of the allocation that holds [addr, addr+n) and this process's
// mapping of it, or a nil mapping; with sweep, it first drops the mappings of
// allocations freed since the last sweep. m.mu is held.
func (m *peerMem) lookup(addr, n uint64, sweep bool) (memRef, []byte) {
	if m.table == nil {
		return memRef{}, nil
	}
	for range 8 {
		v, ref, ok := m.find(addr, n)
		if !ok {
			continue // the owner was writing the table
		}
		if sweep && v != m.seen {
			m.sweep()
		}
		if ref.size == 0 {
			return ref, nil
		}
		mem, known := m.maps[ref.ino]
		if !known {
			mem = m.mapAlloc(ref)
			m.maps[ref.ino] = mem // nil too: it is not tried again while listed
		}
		return ref, mem
	}
	return memRef{}, nil
}

// find reads the entry that holds [addr, addr+n) (size 0 if none) and the table's
// version; ok is false if the owner changed the table meanwhile.
func (m *peerMem) find(addr, n uint64) (ver uint64, ref memRef, ok bool) {
	t := m.table
	v := atomic.LoadUint64(memU64(t, offMemVer))
	if v&1 != 0 {
		return 0, ref, false
	}
	cnt := min(int(atomic.LoadUint32(memU32(t, offMemCount))), memEntries)
	for i := range cnt {
		e := memEntry(i)
		r := memRef{base: atomic.LoadUint64(memU64(t, e)), size: atomic.LoadUint64(memU64(t, e+8))}
		if r.holds(addr, n) {
			r.ino, r.fd = atomic.LoadUint64(memU64(t, e+16)), int(atomic.LoadUint32(memU32(t, e+24)))
			ref = r
			break
		}
	}
	return v, ref, atomic.LoadUint64(memU64(t, offMemVer)) == v
}

// sweep unmaps the allocations the table no longer lists, and notes its version;
// m.mu is held. If the owner is writing the table meanwhile, it leaves that for later.
func (m *peerMem) sweep() {
	t := m.table
	v := atomic.LoadUint64(memU64(t, offMemVer))
	if v&1 != 0 {
		return
	}
	listed := make(map[uint64]bool, len(m.maps))
	cnt := min(int(atomic.LoadUint32(memU32(t, offMemCount))), memEntries)
	for i := range cnt {
		e := memEntry(i)
		if atomic.LoadUint64(memU64(t, e+8)) != 0 {
			listed[atomic.LoadUint64(memU64(t, e+16))] = true
		}
	}
	if atomic.LoadUint64(memU64(t, offMemVer)) != v {
		return
	}
	for ino, mem := range m.maps {
		if !listed[ino] {
			switch {
			case m.pins[ino] > 0:
				m.gone[ino] = mem
			case mem != nil:
				unix.Munmap(mem)
			}
			delete(m.maps, ino)
		}
	}
	m.seen = v
}

// mapAlloc maps the peer's allocation ref, or returns nil. The fd it opens must be
// the listed file: the owner may have freed it, and reused its number, since.
func (m *peerMem) mapAlloc(ref memRef) []byte {
	f, err := unix.Open(procFd(m.pid, ref.fd), unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(f)
	var st unix.Stat_t
	if unix.Fstat(f, &st) != nil || st.Ino != ref.ino || uint64(st.Size) < ref.size {
		return nil
	}
	mem, err := unix.Mmap(f, 0, int(ref.size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	return mem
}

// close unmaps the table and every mapping.
func (m *peerMem) close() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, mem := range m.maps {
		if mem != nil {
			unix.Munmap(mem)
		}
	}
	for _, mem := range m.gone {
		unix.Munmap(mem)
	}
	m.maps, m.gone = nil, nil
	if m.table != nil {
		unix.Munmap(m.table)
		m.table = nil
	}
}
