package mpi

import (
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpir"
)

// NewWinErrHandler makes a handler for windows that calls fn with the window and the
// error (MPI_Win_create_errhandler); the error is then returned.
func NewWinErrHandler(fn func(w *Win, err error)) *ErrHandler {
	return newErrHandler(mpir.KindWin, fn)
}

// SetErrHandler sets the window's handler (MPI_Win_set_errhandler): ErrorsReturn,
// ErrorsAreFatal, ErrorsAbort or one of NewWinErrHandler (else ErrErrhandler); nil
// restores ErrorsReturn.
func (w *Win) SetErrHandler(h *ErrHandler) error {
	const op = "WinSetErrhandler"
	if err := w.obj().Check(op); err != nil {
		return w.fail(op, err)
	}
	_, err := w.w.Errh.Set(op, mpir.KindWin, h.dev())
	return w.fail(op, err)
}

// ErrHandler returns the window's handler (MPI_Win_get_errhandler).
func (w *Win) ErrHandler() *ErrHandler {
	if w.obj() == nil {
		return ErrorsReturn
	}
	return errhOf(w.w.Errh.Get())
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
	if w.obj() == nil {
		return (*Comm)(nil).invoke(op, err)
	}
	return w.w.Errh.Raise(op, w, w.w.What, err)
}

// WinKeyval names an attribute of windows (MPI_Win_create_keyval). Windows are never
// duplicated, so it has no copy function; delete is told when a value goes away
// (DeleteAttr, a replacing SetAttr, Free).
type WinKeyval struct {
	k *mpir.Keyval
}

// NewWinKeyval makes a window keyval; delete may be nil.
func NewWinKeyval(delete func(w *Win, k *WinKeyval, val any) error) *WinKeyval {
	kv := &WinKeyval{}
	kv.k = mpir.NewKeyval(mpir.AttrWin, nil, deleteFunc(delete, kv), nil)
	return kv
}

// obj is the keyval k stands for: nil for nil.
func (k *WinKeyval) obj() *mpir.Keyval {
	if k == nil {
		return nil
	}
	return k.k
}

// The predefined window attributes (MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR,
// _MODEL): Attr gives a []byte, int, int, Flavor and int.
var (
	WinBase         = &WinKeyval{k: mpir.KeyWinBase}
	WinSizeKey      = &WinKeyval{k: mpir.KeyWinSize}
	WinDispUnitKey  = &WinKeyval{k: mpir.KeyWinDispUnit}
	WinCreateFlavor = &WinKeyval{k: mpir.KeyWinCreateFlavor}
	WinModel        = &WinKeyval{k: mpir.KeyWinModel}
)

// WinFreeKeyval frees k (MPI_Win_free_keyval): SetAttr no longer takes it; values
// already set stay until deleted, and k goes with the last of them. Freeing it again
// meanwhile does nothing; after that, and for a predefined or nil keyval, it is an
// error of class ErrKeyval.
func WinFreeKeyval(k *WinKeyval) error {
	return Self.fail("WinFreeKeyval", mpir.FreeKeyval("WinFreeKeyval", mpir.AttrWin, k.obj()))
}

// SetAttr attaches val to w under k (MPI_Win_set_attr), deleting any earlier value; if
// that value's delete function fails, its error is SetAttr's and the value stays.
func (w *Win) SetAttr(k *WinKeyval, val any) error {
	return w.fail("WinSetAttr", w.obj().SetAttr("WinSetAttr", k.obj(), val))
}

// Attr returns w's attribute k and whether it is set (MPI_Win_get_attr). A nil or
// freed window or an invalid keyval gives false, after the error goes to the handler.
func (w *Win) Attr(k *WinKeyval) (any, bool) {
	v, ok, err := w.obj().Attr("WinGetAttr", k.obj())
	if err != nil {
		w.fail("WinGetAttr", err)
		return nil, false
	}
	return v, ok
}

// DeleteAttr removes w's attribute k, calling its delete function
// (MPI_Win_delete_attr); if that fails, its error is DeleteAttr's and the attribute
// stays.
func (w *Win) DeleteAttr(k *WinKeyval) error {
	return w.fail("WinDeleteAttr", w.obj().DeleteAttr("WinDeleteAttr", k.obj()))
}
