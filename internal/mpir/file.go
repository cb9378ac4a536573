package mpir

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/collective"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/mpio"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/window"
)

// Files of MPI-IO (MPI 4.1 chapter 14), for both faces. A File is what MPI_File names
// once MPI_File_open has made it: the face holds a pointer to one (the Go package's
// *File, the C library's handle table) and converts arguments; everything MPI says
// about files happens here, over internal/mpio's system calls, views and sieving.
//
// Contracts:
//   - Collective calls agree. Every collective call on a file (open, close, set_size,
//     preallocate, set_info, set_atomicity, set_view, sync, the collective data
//     accesses) ends in an agreement over the file's own communicator (a duplicate
//     of the one it was opened on): each member's error, and a hash of the arguments
//     the standard requires to be the same everywhere. A call fails on every member
//     or on none: a member whose arguments were bad, or whose system call failed,
//     makes the others fail too, with an error naming it and its class, rather than
//     leaving them waiting; arguments that differ between members give every member
//     MPI_ERR_NOT_SAME.
//   - One order of collectives per file. A file's collective calls, blocking or
//     nonblocking, take a ticket when they are called and run in ticket order (the
//     lane), so that a nonblocking collective running in its goroutine and a later
//     blocking one agree with the same calls on the other members, as the standard's
//     rule that every member calls the collectives of a file in the same order
//     requires.
//   - Nonblocking operations run in goroutines (core.StartIO); their requests are the
//     device's and complete through the completion calls of both faces. The file
//     belongs to the operation until it completes: Close waits for them.
//   - Files start with MPI_FILE_NULL's handler (FileNull), the file default, which is
//     MPI_ERRORS_RETURN unless the program set another.
type File struct {
	comm  *core.Comm // a duplicate of the communicator it was opened on
	owner *Session   // the communicator's owner, the group's (nil: the world model)
	name  string     // as the program gave it
	path  string     // absolute, without a file system prefix
	amode mpio.Amode
	os    *mpio.File
	hints *Hints
	errh  Errh
	nodes int // how many nodes the members span

	// closed is set by Close, under mu; read without it by Check, on every call.
	closed atomic.Bool

	// Face is the face's own name for the file (the Go package's *File, the C
	// library's handle), given to the program's error handler and owning the
	// file's nonblocking operations.
	Face any

	mu      sync.Mutex // guards what follows
	view    *mpio.View
	etype   *Datatype // the view's types as the program passed them, nil for the default view
	ftype   *Datatype
	datarep string
	fp      int64 // the individual file pointer, a view position in bytes
	atomic  bool
	tun     mpio.Tuning             // the hints' and atomicity's, made when they change (settle)
	plain   bool                    // accessAt's short way applies (settle)
	cb      cbSettings              // the hints' for collective accesses, made alike
	split   split                   // the split collective under way
	dirty   atomic.Bool             // written since the last sync: Close syncs
	quick   atomic.Pointer[quickAt] // plainAt's record of the short way (settle); nil where it does not apply
	ops     sync.WaitGroup          // nonblocking operations under way
	lane    lane

	// The buffers of the lane's gathers (gatherInts) and agreements (agreeWith),
	// used by one call at a time.
	gbuf  []byte
	gints []int64
	abuf  [8 * agreeWords]byte

	// owed is this member's failure in a collective access that ended without an
	// agreement (each member did its own access and returned its own error); the
	// other members learn of it at the file's next Sync or Close (agreeSettling).
	// Used in the lane only, as the agreements are.
	owed error

	// The buffers of a joined ordered write (file_ordered.go): a member's message
	// to member 0, member 0's slot for each member's, and the records it writes.
	jbuf   []byte
	jout   [8 * joinOutFields]byte
	jslots [][]byte
	jparts [][]byte
	bd     atomic.Pointer[board] // the joined write's board (file_board.go), made by the first; read by the faces' Ordered
	bdOff  bool                  // the board was tried (made or not)

	// The shared file pointer (file_shared.go) is the word at spDisp of sp: slot
	// of the communicator's window slots, or (slots nil) a window of its own.
	sp     *window.Win
	spDisp int64
	slots  *spSlots
	slot   int
}

// The file system prefixes ROMIO accepts before a file name ("ufs:/path"): a name
// with one means the same file without it (mpigo asks the kernel for every file
// system alike).
var fsPrefixes = []string{"ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "panfs:", "xfs:", "testfs:", "daos:"}

// filePath is the absolute path of a file name as a program gives it.
func filePath(name string) (string, error) {
	for _, p := range fsPrefixes {
		if strings.HasPrefix(name, p) {
			name = name[len(p):]
			break
		}
	}
	if name == "" {
		return "", fmt.Errorf("the file name is empty")
	}
	return filepath.Abs(name)
}

// FileOpen opens the file name on c, every member at once (MPI_File_open): the
// members must pass the same name (the same file: names are compared once made
// absolute) and amode, else each gets MPI_ERR_NOT_SAME. owner is c's owner (its
// session, nil in the world model), which the file's group keeps. bad is an error
// the face met converting its arguments (a NULL name): it fails every member, as the
// checks here do. With MPI_MODE_CREATE member 0 creates the file before the others
// open it.
func FileOpen(op string, c *core.Comm, owner *Session, name string, amode int, in *Info, bad error) (*File, error) {
	if err := c.Check(op); err != nil {
		return nil, err
	}
	defer fileExit(prof.FileOpen, prof.EnterTimed(prof.FileOpen, c.Prof(), prof.NoPeer, -2, 0), 0)
	if c.IsInter() {
		return nil, core.Errorf(core.ClassComm, op, "%q is an intercommunicator: a file is opened on an intracommunicator", c.Name())
	}
	a := mpio.Amode(amode)
	path, local := "", bad
	if local == nil {
		local = ioErr(op, a.Check())
	}
	if local == nil {
		var err error
		if path, err = filePath(name); err != nil {
			local = core.Errorf(core.ClassBadFile, op, "filename %q: %v", name, err)
		}
	}
	nodes := nodesOf(c)
	hints, err := newFileHints(op, in, "cb_nodes", strconv.Itoa(nodes))
	if local == nil && err != nil {
		local = err
	}
	d, err := collective.Dup(c, op, nil)
	if err != nil {
		return nil, err
	}
	slots, err := slotsOf(op, c)
	if err != nil {
		collective.Free(d, op)
		return nil, err
	}
	f := &File{comm: d, owner: owner, name: name, path: path, amode: a, hints: hints, datarep: "native", nodes: nodes}
	d.Prof().SetName("file " + strconv.Quote(name)) // how a hung job's explanation names the file's collectives
	f.errh.Init(FileNull.Get())
	slot := -1 // member 0's choice of the pointer's slot, agreed with the arguments
	if d.Rank() == spOwner && local == nil {
		slot, local = slots.take(op)
	}
	var h argHash
	h.bytes([]byte(path))
	h.ints(amode)
	agreed, err := f.agreeWith(op, local, h.sum(), "open the file", uint64(slot))
	fail := func(err error) (*File, error) {
		if slot >= 0 && d.Rank() == spOwner {
			slots.release(slot)
		}
		f.closeOS()
		collective.Free(d, op)
		return nil, err
	}
	if err != nil {
		return fail(err)
	}
	slot = int(agreed)
	if err := f.openOS(op); err != nil {
		return fail(err)
	}
	if err := f.start(op); err != nil {
		return fail(err)
	}
	if err := f.openShared(op, slots, slot, f.fp); err != nil {
		_ = f.closeShared(op) // gives back the slot, or frees the file's window
		slot = -1
		return fail(err)
	}
	fileOpened()
	return f, nil
}

// openOS opens the file on every member, member 0 first where the file may be
// created, each member's failure agreed.
func (f *File) openOS(op string) error {
	perm := uint32(0o666)
	if p := f.hints.Value("file_perm"); p != "" {
		n, _ := strconv.ParseUint(p, 8, 32)
		perm = uint32(n)
	}
	open := func(create bool) error {
		var err error
		f.os, err = mpio.Open(f.path, f.amode, create, perm)
		return ioErr(op, err)
	}
	var err error
	if f.amode&mpio.Create != 0 {
		if f.comm.Rank() == 0 {
			err = open(true)
		}
		if err := f.agree(op, err, 0, "create the file"); err != nil {
			f.closeOS()
			return err
		}
		err = nil
		if f.comm.Rank() != 0 {
			err = open(false)
		}
	} else {
		err = open(false)
	}
	if err := f.agree(op, err, 0, "open the file"); err != nil {
		f.closeOS()
		return err
	}
	return nil
}

func (f *File) closeOS() {
	if f.os != nil {
		f.os.Close()
		f.os = nil
	}
}

// start gives a file just opened its view, pointers and hints' defaults.
func (f *File) start(op string) error {
	v, err := mpio.NewView(0, datatype.Byte, datatype.Byte)
	if err != nil {
		return ioErr(op, err)
	}
	f.view = v
	f.hints.setDefault("striping_unit", strconv.FormatInt(f.os.BlockSize(), 10))
	f.hints.clampInt("cb_nodes", int64(f.comm.Size()))
	f.mu.Lock()
	f.settle()
	f.mu.Unlock()
	if f.amode&mpio.Append != 0 {
		size, err := f.os.Size()
		if err != nil {
			return ioErr(op, err)
		}
		f.fp = size // and the shared pointer (openShared)
	}
	return nil
}

// Errh is the file's error handler.
func (f *File) Errh() *Errh { return &f.errh }

// What names the file in the message of a fatal error.
func (f *File) What() string { return "file " + strconv.Quote(f.name) }

// Name is the file's name as the program gave it.
func (f *File) Name() string { return f.name }

// Check is nil while f is open, else the error of class MPI_ERR_FILE.
func (f *File) Check(op string) error {
	if f == nil {
		return core.Errorf(core.ClassFile, op, "the file is MPI_FILE_NULL")
	}
	if f.closed.Load() {
		return core.Errorf(core.ClassFile, op, "the file %q was closed", f.name)
	}
	return nil
}

// Close closes f, every member at once (MPI_File_close): it waits for the file's
// nonblocking operations, syncs what this process wrote, closes, and with
// MPI_MODE_DELETE_ON_CLOSE member 0 deletes the file once every member has closed
// it. f is closed afterwards even if a step failed (the error says which).
func (f *File) Close(op string) error {
	defer fileExit(prof.FileClose, f.fileEnter(prof.FileClose, 0), 0)
	t := f.lane.take()
	f.lane.wait(t)
	defer f.lane.done()
	f.ops.Wait()
	f.mu.Lock()
	if f.closed.Load() {
		f.mu.Unlock()
		return core.Errorf(core.ClassFile, op, "the file %q was closed", f.name)
	}
	f.closed.Store(true)
	defer fileClosed()
	dirty := f.dirty.Load()
	f.quick.Store(nil)
	f.mu.Unlock()
	var err error
	if dirty {
		err = ioErr(op, f.os.Sync())
	}
	if cerr := ioErr(op, f.os.Close()); err == nil {
		err = cerr
	}
	err = f.agreeSettling(op, err, "close the file")
	if f.amode&mpio.DeleteOnClose != 0 && (err == nil || errors.Is(err, errOwed)) {
		// Once every member has closed it; and every member returns once it is gone.
		var derr error
		if f.comm.Rank() == 0 {
			derr = ioErr(op, mpio.Delete(f.path))
		}
		if derr = f.agree(op, derr, 0, "delete the file"); err == nil {
			err = derr
		}
	}
	if serr := f.closeShared(op); err == nil {
		err = serr
	}
	if berr := f.closeBoard(op); err == nil {
		err = berr
	}
	collective.Free(f.comm, op)
	return err
}

// FileDelete deletes the file name (MPI_File_delete): MPI_ERR_NO_SUCH_FILE if there
// is none. It is not collective. The info is read for its validity only: mpigo takes
// no hint for deleting.
func FileDelete(op, name string, in *Info) error {
	defer fileExit(prof.FileDelete, (*File)(nil).fileEnter(prof.FileDelete, 0), 0)
	if _, err := in.Pairs(); err != nil {
		return InfoErr(op, err)
	}
	path, err := filePath(name)
	if err != nil {
		return core.Errorf(core.ClassBadFile, op, "filename %q: %v", name, err)
	}
	return ioErr(op, mpio.Delete(path))
}

// Amode is the access mode the file was opened with (MPI_File_get_amode).
func (f *File) Amode() int { return int(f.amode) }

// Group is the group of the file's communicator (MPI_File_get_group): a new group,
// of the communicator's owner.
func (f *File) Group() *Group { return NewGroup(f.comm.Group(), f.owner) }

// Size is the file's size in bytes (MPI_File_get_size).
func (f *File) Size(op string) (int64, error) {
	n, err := f.os.Size()
	return n, ioErr(op, err)
}

// SetSize truncates or extends the file to size bytes, every member at once with the
// same size (MPI_File_set_size); member 0 makes the call.
func (f *File) SetSize(op string, size int64) error {
	defer fileExit(prof.FileSetSize, f.fileEnter(prof.FileSetSize, 0), 0)
	return f.resize(op, size, (*mpio.File).Truncate)
}

// Preallocate makes the file's first size bytes take storage, every member at once
// with the same size (MPI_File_preallocate): a larger size grows the file, a smaller
// one leaves it as it is.
func (f *File) Preallocate(op string, size int64) error {
	defer fileExit(prof.FilePreallocate, f.fileEnter(prof.FilePreallocate, 0), 0)
	return f.resize(op, size, (*mpio.File).Allocate)
}

func (f *File) resize(op string, size int64, do func(*mpio.File, int64) error) error {
	t := f.lane.take()
	f.lane.wait(t)
	defer f.lane.done()
	var local error
	switch {
	case size < 0:
		local = core.Errorf(core.ClassArg, op, "size %d is negative", size)
	case f.amode&mpio.Sequential != 0:
		local = core.Errorf(core.ClassUnsupportedOperation, op, "the file was opened with MPI_MODE_SEQUENTIAL")
	case !f.amode.CanWrite():
		local = core.Errorf(core.ClassReadOnly, op, "the file was opened with MPI_MODE_RDONLY")
	}
	var h argHash
	h.ints(int(size))
	if err := f.agree(op, local, h.sum(), "change the file's size"); err != nil {
		return err
	}
	var err error
	if f.comm.Rank() == 0 {
		f.wrote() // a new size or storage is synced as a write is
		err = ioErr(op, do(f.os, size))
	}
	return f.agree(op, err, 0, "change the file's size")
}

// Syncs is how many times this process's descriptor of the file was synced (fsync).
func (f *File) Syncs() int64 { return f.os.Syncs() }

// Copied is how many bytes this process's collective writes copied into the file's
// mapping (mpio.WriteMapped), for tests.
func (f *File) Copied() int64 { return f.os.Copied() }

// Sync writes what this process wrote to the file through to the storage device,
// every member at once (MPI_File_sync).
func (f *File) Sync(op string) error {
	defer fileExit(prof.FileSync, f.fileEnter(prof.FileSync, 0), 0)
	t := f.lane.take()
	f.lane.wait(t)
	defer f.lane.done()
	// Only a member that wrote since its last sync calls fsync, as ROMIO's does: fsync
	// writes the file's every dirty page whoever wrote it, and every writer's fsync
	// is over before the agreement lets any member return, so a member whose data an
	// aggregator wrote has nothing of its own to sync, and its fsync would only wait
	// for the writers' and ask the device to flush once more. The mark is taken
	// before the fsync, so that a write made meanwhile (a nonblocking one's) marks
	// the file again for the next sync or the close.
	var err error
	if f.amode.CanWrite() && f.dirty.Swap(false) {
		if err = ioErr(op, f.os.Sync()); err != nil {
			f.dirty.Store(true)
		}
	}
	return f.agreeSettling(op, err, "sync the file")
}

// SetAtomicity sets the file's consistency mode, every member at once with the same
// flag (MPI_File_set_atomicity): in atomic mode each access locks the bytes it spans.
func (f *File) SetAtomicity(op string, flag bool) error {
	defer fileExit(prof.FileSetAtomicity, f.fileEnter(prof.FileSetAtomicity, 0), 0)
	t := f.lane.take()
	f.lane.wait(t)
	defer f.lane.done()
	var h argHash
	h.bools(flag)
	if err := f.agree(op, nil, h.sum(), "set the atomicity"); err != nil {
		return err
	}
	f.mu.Lock()
	f.atomic = flag
	f.settle()
	f.mu.Unlock()
	return nil
}

// Atomicity reports whether the file is in atomic mode (MPI_File_get_atomicity).
func (f *File) Atomicity() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.atomic
}

// SetInfo sets the hints of in that mpigo takes and may change on an open file,
// every member at once (MPI_File_set_info). bad is the face's error reading the info
// argument, which fails every member.
func (f *File) SetInfo(op string, in *Info, bad error) error {
	defer fileExit(prof.FileSetInfo, f.fileEnter(prof.FileSetInfo, 0), 0)
	t := f.lane.take()
	f.lane.wait(t)
	defer f.lane.done()
	return f.setInfoLocked(op, in, bad)
}

// setInfoLocked is SetInfo in the lane already (set_view's info).
func (f *File) setInfoLocked(op string, in *Info, bad error) error {
	local := bad
	if local == nil {
		_, err := in.Pairs()
		local = InfoErr(op, err)
	}
	if err := f.agree(op, local, 0, "set the hints"); err != nil {
		return err
	}
	err := f.hints.Set(op, in)
	f.hints.clampInt("cb_nodes", int64(f.comm.Size()))
	f.mu.Lock()
	f.settle()
	f.mu.Unlock()
	return err
}

// Info is the hints in effect on the file (MPI_File_get_info): a new info.
func (f *File) Info() *Info { return f.hints.Info() }

// agree ends a collective call on the file: local is this member's error, same a
// hash of the arguments that must be the same everywhere (0 where none must). It
// returns local where this member failed, else an error naming the lowest member
// that failed (with its class), else MPI_ERR_NOT_SAME where the hashes differ. what
// says what the call was to do, for the messages.
func (f *File) agree(op string, local error, same uint64, what string) error {
	_, err := f.agreeWith(op, local, same, what, math.MaxUint64)
	return err
}

// agreeSettling is agree for Sync and Close, which also settle the members' owed
// failures: a member whose own part of an earlier collective access did not fail,
// where another's did, fails with that failure's class, naming the lowest such
// member. A member that owes one returned it already and is not told again; so a
// Close fails only where the other members' earlier failures were not seen, and
// the file is closed (and deleted, with MPI_MODE_DELETE_ON_CLOSE) all the same.
func (f *File) agreeSettling(op string, local error, what string) error {
	_, err := f.agreeAll(op, local, 0, what, math.MaxUint64, true)
	return err
}

// errOwed is the cause of a Sync's or Close's error that reports another member's
// failure in an earlier collective access: the call itself did what it had to.
var errOwed = errors.New("that call returned the error on that rank")

// The words of an agreement record: the lowest failed member and its class, the
// arguments' hash and whether the hashes differ, member 0's value, and the lowest
// member owing a failure (File.owed) and its class.
const (
	agreeWords = 7
	wordOwed   = 5
)

// agreeWith is agree that also gives every member member 0's v (the other members'
// v is not read).
func (f *File) agreeWith(op string, local error, same uint64, what string, v uint64) (uint64, error) {
	return f.agreeAll(op, local, same, what, v, false)
}

// agreeAll is agreeWith that, with settle, settles the owed failures (agreeSettling).
func (f *File) agreeAll(op string, local error, same uint64, what string, v uint64, settle bool) (uint64, error) {
	const none = math.MaxUint64
	buf := f.abuf[:]
	put := func(i int, v uint64) { binary.LittleEndian.PutUint64(buf[8*i:], v) }
	put(0, none)
	put(1, 0)
	if local != nil {
		put(0, uint64(f.comm.Rank()))
		put(1, uint64(core.ClassOf(local)))
	}
	put(2, same)
	put(3, 0)
	put(4, none)
	if f.comm.Rank() == 0 {
		put(4, v)
	}
	owed := f.owed
	put(wordOwed, none)
	put(wordOwed+1, 0)
	if settle && owed != nil {
		put(wordOwed, uint64(f.comm.Rank()))
		put(wordOwed+1, uint64(core.ClassOf(owed)))
		f.owed = nil
	}
	err := f.comm.InternalAllreduce(op, buf, len(buf), agreeOp, core.TagFileAgree)
	switch {
	case err != nil:
		return 0, core.MapErr(op, err)
	case local != nil:
		return 0, local
	case word(buf, 0) != none:
		return 0, core.Errorf(core.ErrorClass(word(buf, 1)), op,
			"rank %d of the file's group could not %s (its error says why), so the call failed on every rank", word(buf, 0), what)
	case word(buf, 3) != 0:
		return 0, core.Errorf(core.ClassNotSame, op,
			"the ranks of the file's group passed different arguments where every rank must pass the same (to %s)", what)
	case settle && owed == nil && word(buf, wordOwed) != none:
		return 0, core.Wrap(core.ErrorClass(word(buf, wordOwed+1)), op, fmt.Sprintf(
			"rank %d of the file's group failed its part of an earlier collective access of the file", word(buf, wordOwed)), errOwed)
	}
	return word(buf, 4), nil
}

// agreeOp combines two members' agreement records: the lowest failed rank with its
// class, the lowest v (member 0's: the others give none), whether the hashes
// differ, and the lowest rank owing a failure with its class.
func agreeOp(acc, in []byte) {
	if word(in, 0) < word(acc, 0) {
		copy(acc[:16], in[:16])
	}
	if word(in, 4) < word(acc, 4) {
		copy(acc[32:], in[32:40])
	}
	if word(in, wordOwed) < word(acc, wordOwed) {
		copy(acc[8*wordOwed:], in[8*wordOwed:8*wordOwed+16])
	}
	if word(in, 2) != word(acc, 2) || word(in, 3) != 0 {
		binary.LittleEndian.PutUint64(acc[24:], 1)
	}
}

// word is the i-th 8-byte word of b.
func word(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }

// bytes adds a byte string to the hash.
func (h *argHash) bytes(b []byte) {
	h.b = binary.LittleEndian.AppendUint64(h.b, uint64(len(b)))
	h.b = append(h.b, b...)
}

// lane orders a file's collective calls: each takes a ticket when called and runs
// when the tickets before it are done.
type lane struct {
	mu      sync.Mutex
	cond    *sync.Cond
	next    uint64     // the next ticket to give
	serving uint64     // the ticket that may run
	mirror  *[2]uint64 // where next and serving are mirrored (the file's board), nil: nowhere
}

// mirrorTo mirrors next and serving into m from now on (nil: no more).
func (l *lane) mirrorTo(m *[2]uint64) {
	l.mu.Lock()
	l.mirror = m
	l.show()
	l.mu.Unlock()
}

// show stores next and serving in the mirror; the caller holds mu.
func (l *lane) show() {
	if m := l.mirror; m != nil {
		atomic.StoreUint64(&m[0], l.next)
		atomic.StoreUint64(&m[1], l.serving)
	}
}

// take gives the next ticket.
func (l *lane) take() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.next
	l.next++
	l.show()
	return t
}

// wait waits for ticket t's turn.
func (l *lane) wait(t uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cond == nil {
		l.cond = sync.NewCond(&l.mu)
	}
	for l.serving != t {
		l.cond.Wait()
	}
}

// done ends the turn of the ticket running.
func (l *lane) done() {
	l.mu.Lock()
	l.serving++
	l.show()
	if l.cond != nil {
		l.cond.Broadcast()
	}
	l.mu.Unlock()
}

// The access modes, internal/mpio's, whose values are the ABI's (MPI_MODE_RDONLY is
// 16, ...), for the faces.
type Amode = mpio.Amode

const (
	ModeAppend        = mpio.Append
	ModeCreate        = mpio.Create
	ModeDeleteOnClose = mpio.DeleteOnClose
	ModeExcl          = mpio.Excl
	ModeRdonly        = mpio.Rdonly
	ModeRdwr          = mpio.Rdwr
	ModeSequential    = mpio.Sequential
	ModeUniqueOpen    = mpio.UniqueOpen
	ModeWronly        = mpio.Wronly
)
