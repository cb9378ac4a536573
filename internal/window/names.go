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

// The accumulate operations.
const (
	RMASum     = rma.OpSum
	RMAProd    = rma.OpProd
	RMAMin     = rma.OpMin
	RMAMax     = rma.OpMax
	RMALand    = rma.OpLand
	RMALor     = rma.OpLor
	RMALxor    = rma.OpLxor
	RMABand    = rma.OpBand
	RMABor     = rma.OpBor
	RMABxor    = rma.OpBxor
	RMAMaxloc  = rma.OpMaxloc
	RMAMinloc  = rma.OpMinloc
	RMAReplace = rma.OpReplace
	RMANoOp    = rma.OpNoOp
)

// RMAApplies reports whether windows apply op to elements of kind k.
func RMAApplies(op RMAOp, k datatype.Kind) bool {
	_, err := rma.Lookup(op, k)
	return err == nil
}

// RMAAtomic reports whether an element of kind k is updated by one atomic
// instruction on node memory.
func RMAAtomic(k datatype.Kind) bool { return rma.Atomic(k) }
