package rma

import (
	"fmt"

	"github.com/mpigo/mpigo/internal/datatype"
	"github.com/mpigo/mpigo/internal/op"
)

// Op is an accumulate operation: one of internal/op's predefined operations, whose
// number crosses the wire as one byte.
type Op = op.Op

// The operations this package and the windows name: those the atomics do in one
// instruction (Sum, Band, Bor, Replace: target = origin, NoOp: target kept, a
// GetAccumulate that only reads). The others are internal/op's.
const (
	OpSum     = op.Sum
	OpBand    = op.Band
	OpBor     = op.Bor
	OpReplace = op.Replace
	OpNoOp    = op.NoOp
	NumOps    = op.NumOps
)

// Kernel combines whole elements: called as fn(target, origin), it sets
// target[i] = target[i] op origin[i] for len(target) bytes (len(origin) >=
// len(target)).
type Kernel = op.Kernel

// kernels[o][k] is o's accumulate kernel on kind k where MPI allows o on the
// predefined type of that kind (internal/op's table, by the kind's class), nil
// elsewhere: taken from internal/op once, so that a short accumulate finds its kernel
// with one load.
var kernels [NumOps][datatype.NumKinds]Kernel

func init() {
	for o := range NumOps {
		for k := range datatype.NumKinds {
			if op.Check(o, op.KindClass(k), k, "", "") == nil {
				kernels[o][k] = op.Accumulate(o, k)
			}
		}
	}
}

// Lookup returns op's kernel on elements of kind k, or an error naming the rule
// when MPI does not define op on k.
func Lookup(o Op, k datatype.Kind) (Kernel, error) {
	if o < NumOps && k < datatype.NumKinds && kernels[o][k] != nil {
		return kernels[o][k], nil
	}
	if !o.Valid() {
		return nil, fmt.Errorf("%v is not an accumulate operation", o)
	}
	return nil, op.Check(o, op.KindClass(k), k, o.String(), "elements of "+k.String())
}

// Atomic reports whether elements of kind k are updated with the CPU's atomic
// instructions (8-byte integers) rather than under the target's accumulate lock.
func Atomic(k datatype.Kind) bool {
	switch k {
	case datatype.KindInt64, datatype.KindUint64, datatype.KindInt, datatype.KindUint:
		return true
	}
	return false
}
