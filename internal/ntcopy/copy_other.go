//go:build !amd64

package ntcopy

import "unsafe"

// Have says whether this platform has Copy: not this one, so callers use ordinary
// stores.
const Have = false

// SplitCaches is false where Copy is not available.
const SplitCaches = false

// Copy is not available here (Have is false).
func Copy(dst, src unsafe.Pointer, lines uintptr) {
	panic("ntcopy: Copy called on a platform without non-temporal stores")
}

// Gather8 is not available here (Have is false).
func Gather8(dst, src unsafe.Pointer, stride, lines uintptr) {
	panic("ntcopy: Gather8 called on a platform without non-temporal stores")
}

// MoveREP is 0: Move never copies with REP MOVSB on this platform.
func MoveREP() int { return 0 }

// Move is copy(dst, src) for large copies whose destination stays in cache: this
// platform's copy.
func Move(dst, src []byte) int { return copy(dst, src) }

// MoveCached is Move for a copy whose source and destination this core keeps in its
// caches: this platform's copy.
func MoveCached(dst, src []byte) int { return copy(dst, src) }

// MoveVec is 0, 0: MoveCached never takes a vector loop on this platform.
func MoveVec() (lo, hi int) { return 0, 0 }
