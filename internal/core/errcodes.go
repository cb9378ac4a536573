package core

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// ErrorCode is an MPI error code. Every class is also a code (ErrorCode(class)); AddCode
// makes finer codes of a class, which an Error carries beside its class.
type ErrorCode int

// firstAdded is the first number AddClass and AddCode give out. The numbers between
// LastCode and it are left to a face that names single errors by codes of its own (the
// C library's codes carry their class and a slot of its ring of messages, as MPICH's
// do), so that an added code never equals one of those.
const firstAdded ErrorCode = 1 << 30

// MaxErrorString is MPI_MAX_ERROR_STRING (MPICH's value): the longest string, in bytes,
// that AddString takes.
const MaxErrorString = 512

// added holds the process's added classes and codes. They are local to the process, as
// MPI says: two ranks may give the same number to different classes.
var added struct {
	sync.Mutex
	last  ErrorCode                // the largest number given out: MPI_LASTUSEDCODE
	class map[ErrorCode]ErrorClass // every added class (to itself) and code (to its class)
	codes map[ErrorClass]int       // how many added codes each class has
	text  map[ErrorCode]string
}

// classText says what each predefined class means, for CodeString (after MPI 4.1's
// tables 9.1 and 9.2).
var classText = map[ErrorClass]string{
	ClassSuccess: "no error", ClassBuffer: "invalid buffer pointer", ClassCount: "invalid count argument",
	ClassType: "invalid datatype argument", ClassTag: "invalid tag argument", ClassComm: "invalid communicator",
	ClassRank: "invalid rank", ClassRequest: "invalid request (handle)", ClassRoot: "invalid root",
	ClassGroup: "invalid group", ClassOp: "invalid operation", ClassTopology: "invalid topology",
	ClassDims: "invalid dimension argument", ClassArg: "invalid argument of some other kind",
	ClassUnknown: "unknown error", ClassTruncate: "message truncated on receive",
	ClassOther: "known error not in this list (see the message)", ClassIntern: "internal MPI (implementation) error",
	ClassPending: "pending request", ClassInStatus: "error code is in status",
	ClassAccess: "permission denied", ClassAmode: "error related to the amode passed to MPI_FILE_OPEN",
	ClassAssert: "invalid assertion argument", ClassBadFile: "invalid file name (e.g., path name too long)",
	ClassBase: "invalid base argument", ClassConversion: "an error in a user supplied data conversion function",
	ClassDisp: "invalid displacement argument", ClassDupDatarep: "conversion functions could not be registered: a data representation of that name is already defined",
	ClassFileExists: "file exists", ClassFileInUse: "file operation could not be completed: the file is in use",
	ClassFile: "invalid file handle", ClassInfoKey: "key longer than MPI_MAX_INFO_KEY",
	ClassInfoNokey: "invalid key passed to MPI_INFO_DELETE", ClassInfoValue: "value longer than MPI_MAX_INFO_VAL",
	ClassInfo: "invalid info argument", ClassIO: "other I/O error", ClassKeyval: "invalid keyval",
	ClassLocktype: "invalid locktype argument", ClassName: "invalid service name passed to MPI_LOOKUP_NAME",
	ClassNoMem: "MPI_ALLOC_MEM failed because memory is exhausted", ClassNotSame: "collective argument not identical on all processes, or collective routines called in a different order by different processes",
	ClassNoSpace: "not enough space", ClassNoSuchFile: "file does not exist",
	ClassPort: "invalid port name passed to MPI_COMM_CONNECT", ClassQuota: "quota exceeded",
	ClassReadOnly: "read-only file or file system", ClassRMAAttach: "memory cannot be attached (e.g., because of resource exhaustion)",
	ClassRMAConflict: "conflicting accesses to window", ClassRMARange: "target memory is not part of the window (for a dynamic window: not attached)",
	ClassRMAShared: "memory cannot be shared (e.g., some process in the group of the specified communicator cannot expose shared memory)",
	ClassRMASync:   "invalid synchronization of RMA calls", ClassService: "invalid service name passed to MPI_UNPUBLISH_NAME",
	ClassSize: "invalid size argument", ClassSpawn: "error in spawning processes",
	ClassUnsupportedDatarep:   "unsupported datarep passed to MPI_FILE_SET_VIEW",
	ClassUnsupportedOperation: "unsupported operation, such as seeking on a file that supports sequential access only",
	ClassWin:                  "invalid window argument", ClassRMAFlavor: "passed window has the wrong flavor for the called function",
	ClassProcAborted:   "operation failed because a peer process has aborted",
	ClassValueTooLarge: "value is too large to store", ClassSession: "invalid session argument",
	ClassErrhandler: "invalid error handler argument", ClassABI: "error related to the MPI ABI (e.g., Fortran information set a second time)",
	ClassProcFailed: "a process failed (MPIX_ERR_PROC_FAILED)",
}

// LastUsedCode is the value of MPI_LASTUSEDCODE: the largest class or code in use.
func LastUsedCode() ErrorCode {
	added.Lock()
	defer added.Unlock()
	return max(added.last, LastCode)
}

// next gives out a new number; the caller holds the lock. Numbers are never reused, so a
// removed code cannot be mistaken for a later one.
func nextCode(op string) (ErrorCode, error) {
	n := max(added.last+1, firstAdded)
	if n > math.MaxInt32 { // codes are C ints in MPI's bindings
		return 0, Errorf(ClassOther, op, "no error codes left (the largest, %d, is in use)", math.MaxInt32)
	}
	if added.class == nil {
		added.class, added.codes, added.text = map[ErrorCode]ErrorClass{}, map[ErrorClass]int{}, map[ErrorCode]string{}
	}
	added.last = n
	return n, nil
}

// AddClass makes a new error class (MPI_Add_error_class).
func AddClass(op string) (ErrorClass, error) {
	added.Lock()
	defer added.Unlock()
	n, err := nextCode(op)
	if err != nil {
		return 0, err
	}
	added.class[n] = ErrorClass(n)
	return ErrorClass(n), nil
}

// isClass reports whether c is a predefined or added class; the caller holds the lock.
func isClass(c ErrorClass) bool {
	if c.Predefined() {
		return true
	}
	k, ok := added.class[ErrorCode(c)]
	return ok && k == c
}

// AddCode makes a new error code of class (MPI_Add_error_code).
func AddCode(op string, class ErrorClass) (ErrorCode, error) {
	added.Lock()
	defer added.Unlock()
	if class == ClassSuccess || !isClass(class) {
		return 0, Errorf(ClassArg, op, "class %d is not an error class (want a predefined class other than ClassSuccess, or one AddErrorClass made)", int(class))
	}
	n, err := nextCode(op)
	if err != nil {
		return 0, err
	}
	added.class[n] = class
	added.codes[class]++
	return n, nil
}

// isAdded reports whether code is an added class or code; the caller holds the lock.
func isAdded(code ErrorCode) bool {
	_, ok := added.class[code]
	return ok
}

// AddString gives an added class or code its text, replacing any it had
// (MPI_Add_error_string). Predefined classes keep theirs.
func AddString(op string, code ErrorCode, s string) error {
	if len(s) > MaxErrorString {
		return Errorf(ClassArg, op, "the string is %d bytes long: at most MaxErrorString (%d)", len(s), MaxErrorString)
	}
	added.Lock()
	defer added.Unlock()
	if !isAdded(code) {
		return notAdded(op, code, "AddErrorClass or AddErrorCode")
	}
	added.text[code] = s
	return nil
}

// notAdded is the error for a code that no Add call made.
func notAdded(op string, code ErrorCode, by string) error {
	if code >= 0 && code <= LastCode {
		return Errorf(ClassArg, op, "code %d is predefined (at most LastErrorCode): only codes %s made may be changed", int(code), by)
	}
	return Errorf(ClassArg, op, "code %d was not made by %s (or was removed)", int(code), by)
}

// RemoveClass removes a class AddClass made, once it has no codes left
// and its string (MPI_Remove_error_class).
func RemoveClass(op string, class ErrorClass) error {
	added.Lock()
	defer added.Unlock()
	code := ErrorCode(class)
	if k, ok := added.class[code]; !ok || k != class {
		return notAdded(op, code, "AddErrorClass")
	}
	if n := added.codes[class]; n > 0 {
		return Errorf(ClassArg, op, "class %d still has %d codes: remove them first (RemoveErrorCode)", int(class), n)
	}
	// Like a code (RemoveCode), a class goes only after its string: mpi4py
	// and MPICH check it, and a string left behind could never be removed.
	if _, has := added.text[code]; has {
		return Errorf(ClassArg, op, "class %d still has a string: remove it first (RemoveErrorString)", int(class))
	}
	delete(added.class, code)
	delete(added.codes, class)
	return nil
}

// RemoveCode removes a code AddCode made, once its string is removed
// (MPI_Remove_error_code).
func RemoveCode(op string, code ErrorCode) error {
	added.Lock()
	defer added.Unlock()
	class, ok := added.class[code]
	if !ok || ErrorCode(class) == code {
		return notAdded(op, code, "AddErrorCode")
	}
	if _, has := added.text[code]; has {
		return Errorf(ClassArg, op, "code %d still has a string: remove it first (RemoveErrorString)", int(code))
	}
	delete(added.class, code)
	added.codes[class]--
	return nil
}

// RemoveString removes the string AddString gave an added class or code
// (MPI_Remove_error_string).
func RemoveString(op string, code ErrorCode) error {
	added.Lock()
	defer added.Unlock()
	if _, has := added.text[code]; !has {
		if !isAdded(code) {
			return notAdded(op, code, "AddErrorClass or AddErrorCode")
		}
		return Errorf(ClassArg, op, "code %d has no string (AddErrorString gives one)", int(code))
	}
	delete(added.text, code)
	return nil
}

// ClassOfCode is the class of an error code (MPI_Error_class): a class is its own.
func ClassOfCode(op string, code ErrorCode) (ErrorClass, error) {
	if ErrorClass(code).Predefined() {
		return ErrorClass(code), nil
	}
	added.Lock()
	defer added.Unlock()
	if c, ok := added.class[code]; ok {
		return c, nil
	}
	return 0, Errorf(ClassArg, op, "%d is not an error code (neither predefined nor added)", int(code))
}

// CodeString is the text of an error code (MPI_Error_string): a predefined class's
// name and meaning; an added class's or code's string, empty when it has none.
func CodeString(op string, code ErrorCode) (string, error) {
	if name, ok := ErrorClass(code).name(); ok {
		if t := classText[ErrorClass(code)]; t != "" {
			return name + ": " + t, nil
		}
		return name, nil // the tool interface's classes: the name says it
	}
	added.Lock()
	defer added.Unlock()
	if !isAdded(code) {
		return "", Errorf(ClassArg, op, "%d is not an error code (neither predefined nor added)", int(code))
	}
	return added.text[code], nil
}

// addedString is an added code's string, if it has one.
func addedString(code ErrorCode) (string, bool) {
	added.Lock()
	defer added.Unlock()
	s, ok := added.text[code]
	return s, ok
}

// codeText names e's code: its string, or its number and class.
func (e *Error) codeText() string {
	if e.Code == 0 {
		return e.Class.String()
	}
	if s, ok := addedString(e.Code); ok && s != "" {
		return s
	}
	return fmt.Sprintf("error code %d of %v", int(e.Code), e.Class)
}

// NewCodeError makes an error of an error code, predefined or added: its class is the
// code's; a code that does not exist gives an error of class ClassArg saying so.
func NewCodeError(op string, code ErrorCode, msg string) *Error {
	class, err := ClassOfCode(op, code)
	if err != nil {
		var e *Error
		errors.As(err, &e)
		return e
	}
	e := &Error{Class: class, Msg: msg}
	if ErrorCode(class) != code {
		e.Code = code
	}
	return e
}

// CodeOf is the error code of err: its added code, else its class (ClassSuccess for
// nil, ClassOther for an error that did not come from MPI).
func CodeOf(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) && e.Code != 0 {
		return e.Code
	}
	return ErrorCode(ClassOf(err))
}
