package datatype

import "sync"

// Layout is count items of a committed type over memory, seen as one packed stream
// that the point-to-point engine packs and unpacks in fragments at any offset (it
// has the methods of p2p.Layout). A blocking call borrows one from a pool
// (LendLayout) and gives it back once the engine is done with it (Return): a
// message of a derived datatype then costs no allocation; a nonblocking call, whose
// request holds the layout until it completes, makes its own (new(Layout)).
type Layout struct {
	cur Cursor
	mem []byte
}

// Init sets l to count items of t over mem, the buffer's base address at byte
// origin of mem (0 but for a type with a negative lower bound, or MPI_BOTTOM).
func (l *Layout) Init(t *Type, mem []byte, count, origin int64) error {
	if err := l.cur.Init(t, count); err != nil {
		return err
	}
	if origin != 0 {
		if err := l.cur.SetOrigin(origin); err != nil {
			return err
		}
	}
	l.mem = mem
	return nil
}

// Len is the packed size of the items.
func (l *Layout) Len() int64 { return l.cur.Size() }

// PackAt packs the stream's bytes from off into dst and says how many it packed.
func (l *Layout) PackAt(dst []byte, off int64) int {
	l.cur.Seek(off, 0)
	n, _ := l.cur.Pack(dst, l.mem)
	return n
}

// UnpackAt unpacks src into the stream's bytes from off and says how many it took.
func (l *Layout) UnpackAt(src []byte, off int64) int {
	l.cur.Seek(off, 0)
	n, _ := l.cur.Unpack(l.mem, src)
	return n
}

var layouts = sync.Pool{New: func() any { return new(Layout) }}

// LendLayout returns a Layout from the pool, for a call that Returns it when the
// engine no longer holds it.
func LendLayout() *Layout { return layouts.Get().(*Layout) }

// Return gives a lent layout back; nil is no layout. The pool keeps no reference to
// the caller's memory or type.
func (l *Layout) Return() {
	if l == nil {
		return
	}
	*l = Layout{}
	layouts.Put(l)
}
