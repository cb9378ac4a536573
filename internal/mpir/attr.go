package mpir

import (
	"errors"

	"github.com/mpigo/mpigo/internal/attr"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/window"
)

// Attributes and keyvals (MPI 4.1 section 7.7) are internal/attr's; this file names
// the predefined attributes and gives them their values, which are the runtime's,
// and gives attr's errors their MPI classes. A face keeps an Attrs in each of its
// communicators, datatypes and windows, and passes the object as it names it (obj) to
// the calls that may run the user's copy and delete functions.

// The attribute types, under mpir's name.
type (
	Keyval     = attr.Keyval
	Attrs      = attr.Set
	AttrKind   = attr.Kind
	CopyFunc   = attr.CopyFunc
	DeleteFunc = attr.DeleteFunc
)

// The kinds of objects attributes go on.
const (
	AttrComm = attr.Comm
	AttrType = attr.Type
	AttrWin  = attr.Win
)

// NewKeyval makes a keyval (MPI_x_create_keyval).
func NewKeyval(kind AttrKind, copy CopyFunc, delete DeleteFunc, extra any) *Keyval {
	return attr.New(kind, copy, delete, extra)
}

// CopyDup is the copy function MPI_x_DUP_FN: the duplicate gets the same value.
var CopyDup CopyFunc = attr.Dup

// The predefined communicator attributes (MPI 4.1 sections 9.1.2, 9.5 and 11.10), on
// every communicator.
var (
	KeyTagUB         = attr.Predefined(AttrComm, "MPI_TAG_UB")
	KeyHost          = attr.Predefined(AttrComm, "MPI_HOST")
	KeyIO            = attr.Predefined(AttrComm, "MPI_IO")
	KeyWtimeIsGlobal = attr.Predefined(AttrComm, "MPI_WTIME_IS_GLOBAL")
	KeyUniverseSize  = attr.Predefined(AttrComm, "MPI_UNIVERSE_SIZE")
	KeyAppNum        = attr.Predefined(AttrComm, "MPI_APPNUM")
	KeyLastUsedCode  = attr.Predefined(AttrComm, "MPI_LASTUSEDCODE")
)

// The predefined window attributes (MPI 4.1 section 12.2.6).
var (
	KeyWinBase         = attr.Predefined(AttrWin, "MPI_WIN_BASE")
	KeyWinSize         = attr.Predefined(AttrWin, "MPI_WIN_SIZE")
	KeyWinDispUnit     = attr.Predefined(AttrWin, "MPI_WIN_DISP_UNIT")
	KeyWinCreateFlavor = attr.Predefined(AttrWin, "MPI_WIN_CREATE_FLAVOR")
	KeyWinModel        = attr.Predefined(AttrWin, "MPI_WIN_MODEL")
)

// AttrErr gives an error of an attribute call its MPI class for the call op: a
// keyval's misuse MPI_ERR_KEYVAL; a copy or delete function's error is the call's,
// as it is where it has an MPI class (a C function's code), else of class
// MPI_ERR_OTHER, wrapping it.
func AttrErr(op string, err error) error {
	if err == nil {
		return nil
	}
	var cb *attr.CallbackError
	if errors.As(err, &cb) {
		var e *core.Error
		if errors.As(cb.Err, &e) {
			return cb.Err
		}
		return core.Wrap(core.ClassOther, op, "an attribute "+cb.What()+" function failed", cb.Err)
	}
	return core.Wrap(core.ClassKeyval, op, "", err)
}

// FreeKeyval frees k, a keyval of kind (MPI_x_free_keyval).
func FreeKeyval(op string, kind AttrKind, k *Keyval) error { return AttrErr(op, k.Free(kind)) }

// SetAttr sets attribute k of obj, an object of kind whose attributes are s
// (MPI_x_set_attr).
func SetAttr(op string, kind AttrKind, s *Attrs, obj any, k *Keyval, val any) error {
	return AttrErr(op, s.Put(kind, obj, k, val))
}

// DeleteAttr deletes attribute k of obj (MPI_x_delete_attr); one not set is nothing to
// delete.
func DeleteAttr(op string, kind AttrKind, s *Attrs, obj any, k *Keyval) error {
	return AttrErr(op, s.Delete(kind, obj, k))
}

// TypeAttr is MPI_Type_get_attr: datatypes have no predefined attribute.
func TypeAttr(op string, s *Attrs, k *Keyval) (any, bool, error) {
	v, ok, err := s.Get(AttrType, k)
	return v, ok, AttrErr(op, err)
}

// CommAttr is MPI_Comm_get_attr: a predefined attribute's value (CommPredefined), or
// the attribute k set in s.
func CommAttr(op string, s *Attrs, k *Keyval) (any, bool, error) {
	if v, ok := CommPredefined(k); ok {
		return v, true, nil
	}
	v, ok, err := s.Get(AttrComm, k)
	return v, ok, AttrErr(op, err)
}

// CommPredefined is the value of the predefined communicator attribute k, the same on
// every communicator: MPI_TAG_UB the largest tag;
// MPI_HOST MPI_PROC_NULL, an mpigo job having no host process; MPI_IO
// MPI_ANY_SOURCE, every process doing the language's I/O; MPI_WTIME_IS_GLOBAL false,
// each process's clock being its own; MPI_UNIVERSE_SIZE (UniverseSize) how many
// processes the job may have in all, spawned ones included, and MPI_APPNUM (AppNum)
// the index of this process's command, each only where the process manager says (MPI
// 4.1 section 11.10: an attribute MPI cannot give is not there); MPI_LASTUSEDCODE the
// largest error class or code in use (a core.ErrorCode). Ranks are the device's
// (core.ProcNull, core.AnySource), the flag a bool, the rest ints. ok is false for a
// keyval that is no predefined communicator attribute, or one that is not there.
func CommPredefined(k *Keyval) (v any, ok bool) {
	switch k {
	case KeyTagUB:
		return int(core.MaxTag), true
	case KeyHost:
		return int(core.ProcNull), true
	case KeyIO:
		return int(core.AnySource), true
	case KeyWtimeIsGlobal:
		return false, true
	case KeyUniverseSize:
		return present(UniverseSize())
	case KeyAppNum:
		return present(AppNum())
	case KeyLastUsedCode:
		return core.LastUsedCode(), true
	}
	return nil, false
}

// present is a predefined attribute's value n where ok says it is there.
func present(n int, ok bool) (any, bool) {
	if !ok {
		return nil, false
	}
	return n, true
}

// The memory models (MPI_WIN_SEPARATE, MPI_WIN_UNIFIED).
const (
	ModelSeparate = 1
	ModelUnified  = 2
)

// WinAttrs are the values of a window's predefined attributes (MPI 4.1 section
// 12.2.6).
type WinAttrs struct {
	Base     []byte        // this process's memory (MPI_WIN_BASE); nil for a dynamic window
	Size     int           // its bytes (MPI_WIN_SIZE)
	DispUnit int           // MPI_WIN_DISP_UNIT
	Flavor   window.Flavor // how the window was made (MPI_WIN_CREATE_FLAVOR)
	Model    int           // ModelUnified: every mpigo window's public and private copies are one memory
}

// WinAttrsOf is the values of w's predefined attributes.
func WinAttrsOf(w *window.Win) WinAttrs {
	m := w.Mem()
	return WinAttrs{Base: m, Size: len(m), DispUnit: w.DispUnit(), Flavor: w.Flavor(), Model: ModelUnified}
}

// Value is the value of the predefined window attribute k, typed as WinAttrs's
// field; ok is false for a keyval that is no predefined window attribute.
func (a WinAttrs) Value(k *Keyval) (v any, ok bool) {
	switch k {
	case KeyWinBase:
		return a.Base, true
	case KeyWinSize:
		return a.Size, true
	case KeyWinDispUnit:
		return a.DispUnit, true
	case KeyWinCreateFlavor:
		return a.Flavor, true
	case KeyWinModel:
		return a.Model, true
	}
	return nil, false
}

// WinAttr is MPI_Win_get_attr: a predefined attribute's value (a's), or the attribute
// k set in s.
func WinAttr(op string, s *Attrs, k *Keyval, a WinAttrs) (any, bool, error) {
	if v, ok := a.Value(k); ok {
		return v, true, nil
	}
	v, ok, err := s.Get(AttrWin, k)
	return v, ok, AttrErr(op, err)
}

// CopyAttrs gives to, the attributes of obj's duplicate dup, what the copy functions
// of obj's attributes s keep (MPI_Comm_dup, MPI_Type_dup). If a copy function fails,
// the copies made so far are deleted (with dup as their object, their delete
// functions' errors dropped: the copy's is the call's) and its error returned; the
// caller discards dup.
func CopyAttrs(op string, s *Attrs, obj any, to *Attrs, dup any) error {
	if err := s.CopyTo(obj, to); err != nil {
		_ = to.DeleteAll(dup, true)
		return AttrErr(op, err)
	}
	return nil
}

// FreeAttrs deletes the attributes of obj, about to be freed (MPI_x_free), the last
// set first. If a delete function fails, the call fails with its error and obj must
// stay: the attributes from that one on stay set.
func FreeAttrs(op string, s *Attrs, obj any) error { return AttrErr(op, s.DeleteAll(obj, false)) }

// FinalizeAttrs deletes MPI_COMM_SELF's attributes at MPI_Finalize (MPI 4.1 section
// 11.2.4), the last set first, every one even where a delete function fails: the first
// error is returned, and MPI ends all the same. name is what the face calls
// MPI_COMM_SELF, for the error's message.
func FinalizeAttrs(op string, s *Attrs, obj any, name string) error {
	err := s.DeleteAll(obj, true)
	var cb *attr.CallbackError
	var e *core.Error
	if errors.As(err, &cb) && !errors.As(cb.Err, &e) {
		return core.Wrap(core.ClassOther, op, "a delete function of an attribute of "+name+" failed", cb.Err)
	}
	return AttrErr(op, err)
}
