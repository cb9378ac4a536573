package core

// The error classes of one-sided communication (MPICH's numbers).
const (
	ClassWin         ErrorClass = 45 // MPI_ERR_WIN: a nil or freed window
	ClassLocktype    ErrorClass = 47 // MPI_ERR_LOCKTYPE
	ClassRMAConflict ErrorClass = 49 // MPI_ERR_RMA_CONFLICT
	ClassRMASync     ErrorClass = 50 // MPI_ERR_RMA_SYNC: an operation or call outside its epoch
	ClassSize        ErrorClass = 51 // MPI_ERR_SIZE
	ClassDisp        ErrorClass = 52 // MPI_ERR_DISP
	ClassAssert      ErrorClass = 53 // MPI_ERR_ASSERT
	ClassRMARange    ErrorClass = 55 // MPI_ERR_RMA_RANGE: an access outside the target's window
	ClassRMAAttach   ErrorClass = 56 // MPI_ERR_RMA_ATTACH
	ClassRMAShared   ErrorClass = 57 // MPI_ERR_RMA_SHARED
	ClassRMAFlavor   ErrorClass = 58 // MPI_ERR_RMA_FLAVOR: a call the window's flavour does not allow
)

// ClassDispUnit is the class of a bad displacement unit: MPI_ERR_DISP.
const ClassDispUnit = ClassDisp

// Sentinels for errors.Is.
var (
	ErrWin         = &Error{Class: ClassWin}
	ErrLocktype    = &Error{Class: ClassLocktype}
	ErrRMAConflict = &Error{Class: ClassRMAConflict}
	ErrRMASync     = &Error{Class: ClassRMASync}
	ErrSize        = &Error{Class: ClassSize}
	ErrDisp        = &Error{Class: ClassDisp}
	ErrAssert      = &Error{Class: ClassAssert}
	ErrRMARange    = &Error{Class: ClassRMARange}
	ErrRMAAttach   = &Error{Class: ClassRMAAttach}
	ErrRMAShared   = &Error{Class: ClassRMAShared}
	ErrRMAFlavor   = &Error{Class: ClassRMAFlavor}
)

func init() {
	for c, n := range map[ErrorClass]string{ClassWin: "MPI_ERR_WIN", ClassLocktype: "MPI_ERR_LOCKTYPE",
		ClassRMAConflict: "MPI_ERR_RMA_CONFLICT", ClassRMASync: "MPI_ERR_RMA_SYNC", ClassSize: "MPI_ERR_SIZE",
		ClassDisp: "MPI_ERR_DISP", ClassAssert: "MPI_ERR_ASSERT", ClassRMARange: "MPI_ERR_RMA_RANGE",
		ClassRMAAttach: "MPI_ERR_RMA_ATTACH", ClassRMAShared: "MPI_ERR_RMA_SHARED", ClassRMAFlavor: "MPI_ERR_RMA_FLAVOR"} {
		classNames[c] = n
	}
	for c, t := range map[ErrorClass]string{ClassWin: "invalid window", ClassLocktype: "invalid lock type",
		ClassRMAConflict: "conflicting accesses to a window", ClassRMASync: "wrong synchronisation of RMA calls",
		ClassSize: "invalid size", ClassDisp: "invalid displacement", ClassAssert: "invalid assertion",
		ClassRMARange: "target memory is not part of the window", ClassRMAAttach: "memory cannot be attached",
		ClassRMAShared: "memory cannot be shared", ClassRMAFlavor: "wrong flavor of window"} {
		classText[c] = t
	}
}
