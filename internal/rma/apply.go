package rma

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/op"
)

// Piece is a run of target memory: Len bytes at Off from the window's base.
type Piece = datatype.Piece

// Span returns the lowest and one past the highest byte the pieces touch.
func Span(ps []Piece) (lo, hi int64) {
	if len(ps) == 0 {
		return 0, 0
	}
	lo, hi = ps[0].Off, ps[0].Off+ps[0].Len
	for _, p := range ps[1:] {
		lo, hi = min(lo, p.Off), max(hi, p.Off+p.Len)
	}
	return lo, hi
}

// Check says whether every piece lies inside a window of size bytes, and if not
// which rule the access breaks, in words for an error message.
func Check(ps []Piece, size int64) error {
	for _, p := range ps {
		if p.Off < 0 || p.Len < 0 || p.Off > size || p.Len > size-p.Off {
			return fmt.Errorf("the access reaches bytes [%d,%d) of the target's window, which has %d bytes", p.Off, p.Off+p.Len, size)
		}
	}
	return nil
}

// Put copies the packed stream src into mem at the pieces.
func Put(mem []byte, ps []Piece, src []byte) {
	for _, p := range ps {
		src = src[copy(mem[p.Off:p.Off+p.Len], src):]
	}
}

// Get copies mem at the pieces into the packed stream dst.
func Get(dst, mem []byte, ps []Piece) {
	for _, p := range ps {
		dst = dst[copy(dst, mem[p.Off:p.Off+p.Len]):]
	}
}

// Acc applies op on elements of kind k: mem at the pieces (the target, in packed
// order) ⊕= origin (a packed stream as long as the pieces). With old non-nil it first
// receives the target's values (GetAccumulate, FetchAndOp). lock is the target's
// accumulate lock, taken unless k is updated with atomics. scratch, when long enough,
// spares an allocation for targets in several pieces.
func Acc(mem []byte, ps []Piece, origin, old []byte, op Op, k datatype.Kind, lock *uint32, scratch []byte) error {
	fn, err := Lookup(op, k)
	if err != nil {
		return err
	}
	if Atomic(k) {
		accAtomic(mem, ps, origin, old, op, fn)
		return nil
	}
	Lock(lock)
	defer Unlock(lock)
	if len(ps) == 1 {
		t := mem[ps[0].Off : ps[0].Off+ps[0].Len]
		if old != nil {
			copy(old, t)
		}
		fn(t, origin)
		return nil
	}
	// Pair types and pieces that cut elements: gather, combine, scatter.
	var n int64
	for _, p := range ps {
		n += p.Len
	}
	tmp := scratch
	if int64(len(tmp)) < n {
		tmp = make([]byte, n)
	}
	tmp = tmp[:n]
	Get(tmp, mem, ps)
	if old != nil {
		copy(old, tmp)
	}
	fn(tmp, origin)
	Put(mem, ps, tmp)
	return nil
}

// AccContig is Acc on one contiguous run, target (len(origin) bytes of whole
// elements of kind k) ⊕= origin, without old values; it reports false, doing
// nothing, when op is not defined on k (Lookup says why).
func AccContig(target, origin []byte, op Op, k datatype.Kind, lock *uint32) bool {
	if op >= NumOps || int(k) >= len(kernels[op]) {
		return false
	}
	fn := kernels[op][k]
	if fn == nil {
		return false
	}
	if Atomic(k) {
		accAtomic(target, []Piece{{Off: 0, Len: int64(len(target))}}, origin, nil, op, fn)
		return true
	}
	Lock(lock)
	fn(target, origin)
	Unlock(lock)
	return true
}

// CasWord replaces *a by swap if it holds cmp, atomically, and returns what it held.
func CasWord(a *uint64, cmp, swap uint64) uint64 {
	for {
		was := atomic.LoadUint64(a)
		if was != cmp || atomic.CompareAndSwapUint64(a, cmp, swap) {
			return was
		}
	}
}

func word(b []byte, i int) *uint64 { return (*uint64)(unsafe.Pointer(&b[i])) }

// accAtomic updates 8-byte integers one by one with the CPU's atomic instructions.
func accAtomic(mem []byte, ps []Piece, origin, old []byte, op Op, fn Kernel) {
	j := 0
	for _, p := range ps {
		for o := p.Off; o+8 <= p.Off+p.Len; o, j = o+8, j+8 {
			w := word(mem, int(o))
			v := binary.LittleEndian.Uint64(origin[j:])
			var was uint64
			switch op {
			case OpSum:
				was = atomic.AddUint64(w, v) - v
			case OpBand:
				was = atomic.AndUint64(w, v)
			case OpBor:
				was = atomic.OrUint64(w, v)
			case OpReplace:
				was = atomic.SwapUint64(w, v)
			case OpNoOp:
				was = atomic.LoadUint64(w)
			default:
				var a [8]byte
				for {
					was = atomic.LoadUint64(w)
					binary.LittleEndian.PutUint64(a[:], was)
					fn(a[:], origin[j:j+8])
					if atomic.CompareAndSwapUint64(w, was, binary.LittleEndian.Uint64(a[:])) {
						break
					}
				}
			}
			if old != nil {
				binary.LittleEndian.PutUint64(old[j:], was)
			}
		}
	}
}

// CompareSwap replaces the element of kind k at off in mem by swap if it equals cmp,
// and returns the value it held in old (MPI_Compare_and_swap). Any integer, bool or
// byte kind, as MPI allows.
func CompareSwap(mem []byte, off int64, cmp, swap, old []byte, k datatype.Kind, lock *uint32) {
	n := int64(len(swap))
	if Atomic(k) {
		was := CasWord(word(mem, int(off)), binary.LittleEndian.Uint64(cmp), binary.LittleEndian.Uint64(swap))
		binary.LittleEndian.PutUint64(old, was)
		return
	}
	Lock(lock)
	t := mem[off : off+n]
	copy(old, t)
	if bytes.Equal(t, cmp) {
		copy(t, swap)
	}
	Unlock(lock)
}

// CompareSwapKind reports whether MPI allows CompareAndSwap on elements of kind k:
// integers, bools and bytes (C integer, logical and byte types).
func CompareSwapKind(k datatype.Kind) bool {
	return op.CompareSwapDefined(op.KindClass(k))
}

// Lock takes a spin lock word (the accumulate lock): 0 free, 1 held. A holder keeps
// it for one operation's copy, so waiting spins, letting other goroutines run.
func Lock(w *uint32) {
	if !atomic.CompareAndSwapUint32(w, 0, 1) {
		lockSlow(w)
	}
}

func lockSlow(w *uint32) {
	for i := 1; !atomic.CompareAndSwapUint32(w, 0, 1); i++ {
		if i&63 == 63 {
			runtime.Gosched()
		}
	}
}

// The passive-target lock word: shared holders count in the low bits, an exclusive
// holder sets excl.
const excl = 1 << 63

// TryShared takes a shared hold of the lock word w if no exclusive holder has it.
func TryShared(w *uint64) bool {
	for {
		v := atomic.LoadUint64(w)
		if v&excl != 0 {
			return false
		}
		if atomic.CompareAndSwapUint64(w, v, v+1) {
			return true
		}
	}
}

// TryExclusive takes w exclusively if nobody holds it.
func TryExclusive(w *uint64) bool { return atomic.CompareAndSwapUint64(w, 0, excl) }

// Release gives up a hold taken by TryShared (exclusive false) or TryExclusive.
func Release(w *uint64, exclusive bool) {
	if exclusive {
		atomic.AndUint64(w, ^uint64(excl))
	} else {
		atomic.AddUint64(w, ^uint64(0))
	}
}
