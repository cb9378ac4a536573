package mpir

import (
	"math/bits"
	"sync"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/window"
)

// Where the shared file pointers live: one window per communicator files are opened
// on, not one per file, since making a window (mapping node shared memory, agreeing
// on it) costs several times what the rest of an open does.
//
// Contracts:
//   - A communicator's slot window is made by the first MPI_File_open on it
//     (collective, so every member makes it in the same call): spSlotCount slots
//     of an 8-byte word on member 0, locked (shared, MPI_MODE_NOCHECK) from then until it is
//     freed, as a file's own window was.
//   - Member 0 alone chooses slots: the lowest free one, zeroed when taken; the open's
//     agreement gives its choice to every member, so every member's file uses the
//     same word. Close releases the slot once the close's agreement has seen every
//     member enter it, so no member's access through the old file can touch the
//     word after member 0 gives it to another file.
//   - With every slot taken, a file makes its own window, as before the slots were.
//   - The window is freed (collectively) when the communicator is (Comm.Free), or,
//     with files still open on it then, by the last of their closes; the windows of
//     MPI_COMM_WORLD and MPI_COMM_SELF at MPI_Finalize, before the device stops.

// spSlotCount is how many files of a communicator share its window at once (one
// word of the bitmap); each pointer has a cache line (spSlotWords words), so that
// files' pointers moved by different ranks at once do not share one.
const (
	spSlotCount = 64
	spSlotWords = 8
)

// slotDisp is slot i's displacement in the window (in words, its displacement unit).
func slotDisp(i int) int64 { return int64(i) * spSlotWords }

// spSlots is a communicator's slot window.
type spSlots struct {
	w *window.Win

	mu     sync.Mutex // guards what follows
	used   uint64     // member 0's taken slots (bit i: slot i)
	open   int        // this member's open files using a slot
	orphan bool       // the communicator was freed: the last close frees w
}

// slotStores are the slot windows by device communicator.
var slotStores struct {
	sync.Mutex
	m map[*core.Comm]*spSlots
}

// slotsOf is c's slot window, made if c has none yet. Collective over c.
func slotsOf(op string, c *core.Comm) (*spSlots, error) {
	slotStores.Lock()
	s := slotStores.m[c]
	slotStores.Unlock()
	if s != nil {
		return s, nil
	}
	var size int64
	if c.Rank() == spOwner {
		size = 8 * spSlotWords * spSlotCount
	}
	w, err := window.Create(c, op, window.Args{Flavor: window.FlavorAllocate, Size: size, DispUnit: 8})
	if err != nil {
		return nil, err
	}
	// The fetch-and-adds are atomic among themselves, so no lock is taken
	// (MPI_MODE_NOCHECK); the epoch lasts as long as the window.
	if err := w.Lock(op, window.LockShared, spOwner, window.ModeNoCheck); err != nil {
		w.Free(op)
		return nil, err
	}
	s = &spSlots{w: w}
	slotStores.Lock()
	if slotStores.m == nil {
		slotStores.m = make(map[*core.Comm]*spSlots)
	}
	slotStores.m[c] = s
	slotStores.Unlock()
	return s, nil
}

// take is member 0's choice of a slot, zeroed, or -1 when none is free.
func (s *spSlots) take(op string) (int, error) {
	s.mu.Lock()
	i := bits.TrailingZeros64(^s.used)
	if i < spSlotCount {
		s.used |= 1 << i
	}
	s.mu.Unlock()
	if i == spSlotCount {
		return -1, nil
	}
	if _, err := spWord(op, s.w, slotDisp(i), 0, OpReplace); err != nil {
		s.release(i)
		return -1, err
	}
	return i, nil
}

// release gives slot i back (member 0's bitmap; other members keep none).
func (s *spSlots) release(i int) {
	s.mu.Lock()
	s.used &^= 1 << i
	s.mu.Unlock()
}

// opened counts a file that took a slot on this member.
func (s *spSlots) opened() {
	s.mu.Lock()
	s.open++
	s.mu.Unlock()
}

// closed gives back a file's slot i; the window is freed with the last file of a
// freed communicator. Collective over the file's group.
func (s *spSlots) closed(op string, rank, i int) error {
	if rank == spOwner {
		s.release(i)
	}
	s.mu.Lock()
	s.open--
	last := s.open == 0 && s.orphan
	s.mu.Unlock()
	if !last {
		return nil
	}
	return s.free(op)
}

func (s *spSlots) free(op string) error {
	err := s.w.Unlock(op, spOwner)
	if ferr := s.w.Free(op); err == nil {
		err = ferr
	}
	return err
}

// freeSlots frees c's slot window, if it has one, as c is freed (collective over
// c): now, or with the last of the files still open on c (now anyway with force).
func freeSlots(op string, c *core.Comm, force bool) error {
	slotStores.Lock()
	s := slotStores.m[c]
	delete(slotStores.m, c)
	slotStores.Unlock()
	if s == nil {
		return nil
	}
	s.mu.Lock()
	s.orphan = true
	now := s.open == 0 || force
	s.mu.Unlock()
	if !now {
		return nil
	}
	return s.free(op)
}

// finalizeSlots frees the slot windows of MPI_COMM_WORLD and MPI_COMM_SELF at
// MPI_Finalize, while the device still runs (files left open are the program's
// error; their slots go with the window).
func finalizeSlots(op string) error {
	err := freeSlots(op, core.World, true)
	if serr := freeSlots(op, core.Self, true); err == nil {
		err = serr
	}
	return err
}
