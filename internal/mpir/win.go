package mpir

import (
	"cmp"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/window"
)

// Windows (MPI 4.1 chapter 12). The device (internal/window) makes windows, keeps
// their epochs and moves the data; this file and win_sync.go and win_ops.go hold what
// MPI says of each call, for both faces:
//
//   - The object a window handle names (Win): the device's window, its hints, error
//     handler, attributes and owner, and the face's own name for it (Handle).
//   - Creation: the arguments and their classes (a negative size MPI_ERR_SIZE, a
//     displacement unit below 1 MPI_ERR_DISP, the info's hints), the flavours.
//   - The calls on a window: MPI_Win_shared_query for every flavour (MPI 4.1), attach
//     and detach, name, group, info, attributes; the synchronisation calls' arguments
//     and epochs (win_sync.go); the operations' arguments, and which of them are
//     significant (win_ops.go).
//   - The profiling entry and exit of every call that reaches here.
//
// The device trusts what these checked: it checks only what it alone knows (a target
// displacement against the target's window, an attachment's memory). A face
// converts its arguments (Go slices and Typed buffers; C pointers, counts and
// handles), calls these, and raises their errors through the window's handler
// (Errh.Raise), with Handle as the window.

// Win is the object a window handle names, in either face.
type Win struct {
	d     *window.Win
	owner *Session
	hints *Hints

	// Errh is the window's error handler; Attrs its attributes.
	Errh  Errh
	Attrs Attrs
	// Handle is the face's own name for the window (its *mpi.Win, its C handle), set
	// by the face when it made the window: what the error handler and the attributes'
	// delete functions are given.
	Handle any

	last atomic.Pointer[groupRanks] // RanksOf's last translation
}

// WinArgs are a new window's arguments as a face has converted them.
type WinArgs struct {
	Flavor   window.Flavor
	Size     int64  // this rank's bytes (MPI_Win_create: len(Mem); dynamic: 0)
	DispUnit int64  // bytes per displacement unit (dynamic: 1)
	Mem      []byte // MPI_Win_create's memory
	Info     *Info  // nil: MPI_INFO_NULL
	// Alloc gives the memory of an allocated window where the device would hold it
	// in the Go heap (no node shared memory for it): the C face's, which hands C a
	// pointer to it. nil: Go's own.
	Alloc func(n int64) ([]byte, error)
	// Bad is the error the face met in this rank's arguments (a NULL output), nil if
	// none. It fails the creation on every rank, as do the checks here, so that no
	// rank waits in it for one that refused.
	Bad error
}

// winCalls are the record's calls of the creation calls, by flavour.
var winCalls = map[window.Flavor]prof.Call{
	window.FlavorCreate: prof.WinCreate, window.FlavorAllocate: prof.WinAllocate,
	window.FlavorShared: prof.WinAllocateShared, window.FlavorDynamic: prof.WinCreateDynamic,
}

// NewWin makes a window over c (collective: MPI_Win_create, MPI_Win_allocate,
// MPI_Win_allocate_shared, MPI_Win_create_dynamic by a.Flavor), owned by owner, with
// initial as its error handler (MPI's is MPI_ERRORS_ARE_FATAL; the Go face's
// ErrorsReturn). Errors are c's to raise.
func NewWin(op string, c *core.Comm, owner *Session, initial *Errhandler, a WinArgs) (*Win, error) {
	call := winCalls[a.Flavor]
	defer prof.Exit(call, prof.EnterTimed(call, c.Prof(), prof.NoPeer, -1, 0), 0)
	if err := c.Check(op); err != nil {
		return nil, err
	}
	bad := a.Bad
	if bad == nil && a.Size < 0 {
		bad = core.Errorf(core.ClassSize, op, "size %d is negative", a.Size)
	}
	if bad == nil && (a.DispUnit < 1 || a.DispUnit > 1<<31-1) {
		bad = core.Errorf(core.ClassDisp, op, "disp_unit %d must be a positive int", a.DispUnit)
	}
	hints, err := NewWinHints(op, a.Info)
	bad = cmp.Or(bad, err)
	da := window.Args{Flavor: a.Flavor, Size: a.Size, DispUnit: int(a.DispUnit), Mem: a.Mem, Alloc: a.Alloc, Bad: bad}
	if bad == nil {
		hints.ShapeWin(&da)
	}
	d, err := window.Create(c, op, da)
	if err != nil {
		return nil, err
	}
	w := &Win{d: d, owner: owner, hints: hints}
	w.Errh.Init(initial)
	return w, nil
}

// Dev is w's device window (nil for a nil w): what the faces' short ways call. It
// never changes, so a face may keep it beside w.
func (w *Win) Dev() *window.Win {
	if w == nil {
		return nil
	}
	return w.d
}

// Check returns nil when w can be used by op: MPI runs, w is not MPI_WIN_NULL and
// not freed (else ClassWin).
func (w *Win) Check(op string) error { return w.Dev().Check(op) }

// pc is the record's descriptor of w's communicator.
func (w *Win) pc() *prof.Comm { return w.d.Comm().Prof() }

// enter is prof.Enter for a call on w naming rank (of the window's group, or
// NoPeer) and moving n bytes: sampled, as point-to-point calls are.
func (w *Win) enter(call prof.Call, rank, n int) int64 {
	if w == nil || w.d == nil {
		return prof.Enter(call, nil, rank, -2, n)
	}
	return prof.Enter(call, w.pc(), rank, -2, n)
}

// Free frees w (collective; MPI_Win_free): the attributes' delete functions run
// first, the last set first; if one fails, Free returns its error and w stays, with
// that attribute and those set before it. Then every rank's operations complete and
// the device frees the window.
func (w *Win) Free(op string) error {
	if err := w.Check(op); err != nil {
		return err
	}
	defer prof.Exit(prof.WinFree, prof.EnterTimed(prof.WinFree, w.pc(), prof.NoPeer, -2, 0), 0)
	if err := FreeAttrs(op, &w.Attrs, w.Handle); err != nil {
		return err
	}
	return w.d.Free(op)
}

// Owner is the session whose communicator w was made over (nil: the world model).
func (w *Win) Owner() *Session { return w.owner }

// Group is w's group (MPI_Win_get_group), a new group of w's owner.
func (w *Win) Group(op string) (*Group, error) {
	if err := w.Check(op); err != nil {
		return nil, err
	}
	return NewGroup(w.d.Comm().Group(), w.owner), nil
}

// Name is w's name (MPI_Win_get_name): "" until SetName; MPI_WIN_NULL's is
// "MPI_WIN_NULL", as every predefined handle has its name.
func (w *Win) Name() string {
	if w == nil {
		return "MPI_WIN_NULL"
	}
	return w.d.Name()
}

// SetName names w (MPI_Win_set_name); a name longer than MaxObjectName bytes is cut
// there (MPI 4.1 section 7.8).
func (w *Win) SetName(op, name string) error {
	if err := w.Check(op); err != nil {
		return err
	}
	w.d.SetName(name[:min(len(name), MaxObjectName)])
	return nil
}

// What names w in the message of a fatal error.
func (w *Win) What() string { return "window " + w.Name() }

// SetInfo is MPI_Win_set_info: the hints of in that windows take and that may change
// after creation; MPI_INFO_NULL (nil) changes nothing.
func (w *Win) SetInfo(op string, in *Info) error {
	if err := w.Check(op); err != nil {
		return err
	}
	return w.hints.Set(op, in)
}

// Info is MPI_Win_get_info: a new info with every hint in effect.
func (w *Win) Info(op string) (*Info, error) {
	if err := w.Check(op); err != nil {
		return nil, err
	}
	return w.hints.Info(), nil
}

// Predefined is the values of w's predefined attributes.
func (w *Win) Predefined() WinAttrs { return WinAttrsOf(w.d) }

// SetAttr is MPI_Win_set_attr.
func (w *Win) SetAttr(op string, k *Keyval, val any) error {
	if err := w.Check(op); err != nil {
		return err
	}
	return SetAttr(op, AttrWin, &w.Attrs, w.Handle, k, val)
}

// Attr is MPI_Win_get_attr: a predefined attribute's value as WinAttrs types it, or
// the value set under k.
func (w *Win) Attr(op string, k *Keyval) (any, bool, error) {
	if err := w.Check(op); err != nil {
		return nil, false, err
	}
	return WinAttr(op, &w.Attrs, k, w.Predefined())
}

// DeleteAttr is MPI_Win_delete_attr.
func (w *Win) DeleteAttr(op string, k *Keyval) error {
	if err := w.Check(op); err != nil {
		return err
	}
	return DeleteAttr(op, AttrWin, &w.Attrs, w.Handle, k)
}

// SharedQuery is MPI_Win_shared_query, which MPI 4.1 (section 12.2.3) defines for
// every window: the memory of rank r that this process can load and store, its
// size being len(mem), and r's displacement unit. MPI_PROC_NULL names the lowest
// rank whose part is not empty. A part this process cannot load and store (another
// process's memory in a window of MPI_Win_create that is not over memory the node's
// ranks map, or one across nodes) gives no
// memory, as do a dynamic window's ranks, whose memory is what they attach.
func (w *Win) SharedQuery(op string, r int) (mem []byte, dispUnit int, err error) {
	if err := w.Check(op); err != nil {
		return nil, 0, err
	}
	n := w.d.Size()
	if r == core.ProcNull {
		r = 0 // all parts empty: rank 0's, empty too
		for q := range n {
			if _, size, _, _ := w.d.Segment(q); size > 0 {
				r = q
				break
			}
		}
	}
	if r < 0 || r >= n {
		return nil, 0, core.Errorf(core.ClassRank, op, "rank %d out of range [0,%d) of the window", r, n)
	}
	mem, _, unit, mapped := w.d.Segment(r)
	if !mapped || w.d.Flavor() == window.FlavorDynamic {
		return nil, unit, nil
	}
	return mem, unit, nil
}

// Attach is MPI_Win_attach: mem becomes the target of the operations that name its
// addresses, in a window of MPI_Win_create_dynamic (else ClassRMAFlavor). It returns
// the displacement that names mem's first byte (its address).
func (w *Win) Attach(op string, mem []byte) (int64, error) {
	if err := w.Check(op); err != nil {
		return 0, err
	}
	defer prof.Exit(prof.WinAttach, w.enter(prof.WinAttach, prof.NoPeer, len(mem)), len(mem))
	if err := w.dynamic(op); err != nil {
		return 0, err
	}
	return w.d.Attach(op, mem)
}

// Detach is MPI_Win_detach: the memory attached from base stops being a target.
func (w *Win) Detach(op string, base unsafe.Pointer) error {
	if err := w.Check(op); err != nil {
		return err
	}
	defer prof.Exit(prof.WinDetach, w.enter(prof.WinDetach, prof.NoPeer, 0), 0)
	if err := w.dynamic(op); err != nil {
		return err
	}
	return w.d.Detach(op, uintptr(base))
}

func (w *Win) dynamic(op string) error {
	if f := w.d.Flavor(); f != window.FlavorDynamic {
		return core.Errorf(core.ClassRMAFlavor, op, "attaching memory needs a window of MPI_Win_create_dynamic; this one is of %s", f)
	}
	return nil
}
