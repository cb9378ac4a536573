package mpi

import (
	"sync/atomic"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/prof"
)

type rmaOp = core.RMAOp

// NewWinErrHandler makes a handler for windows that calls fn with the window and the
// error (MPI_Win_create_errhandler); the error is then returned.
func NewWinErrHandler(fn func(w *Win, err error)) *ErrHandler {
	return &ErrHandler{wfn: fn, name: "user (window)"}
}

// SetErrHandler sets the window's handler (MPI_Win_set_errhandler): ErrorsReturn,
// ErrorsAreFatal or one of NewWinErrHandler; nil restores ErrorsReturn.
func (w *Win) SetErrHandler(h *ErrHandler) error {
	if err := w.dev().Check("WinSetErrhandler"); err != nil {
		return w.fail("WinSetErrhandler", err)
	}
	if err := h.fits("WinSetErrhandler", kindWin); err != nil {
		return w.fail("WinSetErrhandler", err)
	}
	if h == ErrorsReturn {
		h = nil
	}
	w.mu.Lock()
	w.errh = h
	w.mu.Unlock()
	return nil
}

// ErrHandler returns the window's handler (MPI_Win_get_errhandler).
func (w *Win) ErrHandler() *ErrHandler {
	if w == nil {
		return ErrorsReturn
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.errh == nil {
		return ErrorsReturn
	}
	return w.errh
}

// CallErrHandler invokes the window's handler on err (MPI_Win_call_errhandler).
func (w *Win) CallErrHandler(err error) error {
	if err == nil {
		return nil
	}
	return w.invoke("WinCallErrhandler", err)
}

// fail is the window's side of the error seam: err goes to the window's handler (to
// Self's for a nil window, as for communicators). On success it costs one comparison.
func (w *Win) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	return w.raise(op, err)
}

func (w *Win) raise(op string, err error) error { return w.invoke(op, core.MapErr(op, err)) }

func (w *Win) invoke(op string, err error) error {
	if w == nil || w.d == nil {
		return Self.invoke(op, err)
	}
	prof.OnError() // the program may exit on it: a profiled rank writes what it has
	h := w.ErrHandler()
	if h.wfn != nil {
		h.wfn(w, err)
	}
	if h.fatal {
		fatal(op, "window "+w.Name(), err)
	}
	return err
}

// WinKeyval names an attribute of windows (MPI_Win_create_keyval). Windows are never
// duplicated, so it has no copy function; delete is told when a value goes away
// (DeleteAttr, a replacing SetAttr, Free).
type WinKeyval struct {
	delete func(w *Win, k *WinKeyval, val any) error
	freed  atomic.Bool
	fixed  func(w *Win) any
}

// NewWinKeyval makes a window keyval; delete may be nil.
func NewWinKeyval(delete func(w *Win, k *WinKeyval, val any) error) *WinKeyval {
	return &WinKeyval{delete: delete}
}

// The predefined window attributes (MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR,
// _MODEL): Attr gives a []byte, int, int, Flavor and int.
var (
	WinBase         = &WinKeyval{fixed: func(w *Win) any { return w.Base() }}
	WinSizeKey      = &WinKeyval{fixed: func(w *Win) any { return w.Size() }}
	WinDispUnitKey  = &WinKeyval{fixed: func(w *Win) any { return w.DispUnit() }}
	WinCreateFlavor = &WinKeyval{fixed: func(w *Win) any { return w.CreateFlavor() }}
	WinModel        = &WinKeyval{fixed: func(w *Win) any { return w.Model() }}
)

// WinFreeKeyval frees k (MPI_Win_free_keyval): SetAttr no longer takes it; values
// already set stay until deleted.
func WinFreeKeyval(k *WinKeyval) error {
	if k == nil || k.fixed != nil {
		return Self.fail("WinFreeKeyval", errorf(ClassKeyval, "WinFreeKeyval", "the keyval is nil or predefined"))
	}
	if k.freed.Swap(true) {
		return Self.fail("WinFreeKeyval", errorf(ClassKeyval, "WinFreeKeyval", "the keyval was already freed"))
	}
	return nil
}

// SetAttr attaches val to w under k (MPI_Win_set_attr), deleting any earlier value.
func (w *Win) SetAttr(k *WinKeyval, val any) error {
	if err := w.dev().Check("WinSetAttr"); err != nil {
		return w.fail("WinSetAttr", err)
	}
	if k == nil || k.fixed != nil {
		return w.fail("WinSetAttr", errorf(ClassKeyval, "WinSetAttr", "the keyval is nil or predefined (read-only)"))
	}
	if k.freed.Load() {
		return w.fail("WinSetAttr", errorf(ClassKeyval, "WinSetAttr", "the keyval was freed (WinFreeKeyval)"))
	}
	w.mu.Lock()
	old, had := w.attrs[k]
	if w.attrs == nil {
		w.attrs = map[*WinKeyval]any{}
	}
	w.attrs[k] = val
	w.mu.Unlock()
	if had && k.delete != nil {
		return w.fail("WinSetAttr", k.delete(w, k, old))
	}
	return nil
}

// Attr returns w's attribute k and whether it is set (MPI_Win_get_attr).
func (w *Win) Attr(k *WinKeyval) (any, bool) {
	if k == nil || w.dev().Check("WinGetAttr") != nil {
		return nil, false
	}
	if k.fixed != nil {
		return k.fixed(w), true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	v, ok := w.attrs[k]
	return v, ok
}

// DeleteAttr removes w's attribute k, calling its delete function
// (MPI_Win_delete_attr).
func (w *Win) DeleteAttr(k *WinKeyval) error {
	if err := w.dev().Check("WinDeleteAttr"); err != nil {
		return w.fail("WinDeleteAttr", err)
	}
	if k == nil || k.fixed != nil {
		return w.fail("WinDeleteAttr", errorf(ClassKeyval, "WinDeleteAttr", "the keyval is nil or predefined (read-only)"))
	}
	w.mu.Lock()
	v, ok := w.attrs[k]
	delete(w.attrs, k)
	w.mu.Unlock()
	if ok && k.delete != nil {
		return w.fail("WinDeleteAttr", k.delete(w, k, v))
	}
	return nil
}

func (w *Win) deleteAttrs() error {
	w.mu.Lock()
	attrs := w.attrs
	w.attrs = nil
	w.mu.Unlock()
	for k, v := range attrs {
		if k.delete != nil {
			if err := k.delete(w, k, v); err != nil {
				return err
			}
		}
	}
	return nil
}
