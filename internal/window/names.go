package window

import (
	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/rma"
)

// The accumulate operations as windows apply them (internal/rma's), under the
// window package's name: the faces import no package below the device. Aliases
// and inlined calls, so that naming them here costs nothing.

// RMAOp is an accumulate operation as windows apply it.
type RMAOp = rma.Op

// RMAAtomic reports whether an element of kind k is updated by one atomic
// instruction on node memory.
func RMAAtomic(k datatype.Kind) bool { return rma.Atomic(k) }

// RMAWhyNot says why windows do not apply op to elements of kind k (nil: they do).
func RMAWhyNot(op RMAOp, k datatype.Kind) error {
	_, err := rma.Lookup(op, k)
	return err
}

// CASKind reports whether CompareAndSwap takes elements of kind k: integers, bools
// and bytes.
func CASKind(k datatype.Kind) bool { return rma.CompareSwapKind(k) }
