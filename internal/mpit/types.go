package mpit

import (
	"errors"
	"fmt"
)

// Type is the type of a variable's values or of an event's element: the MPI datatype
// the C binding names it by.
type Type uint8

const (
	TypeInt              Type = iota + 1 // MPI_INT: int32
	TypeCount                            // MPI_COUNT: int64
	TypeUnsignedLongLong                 // MPI_UNSIGNED_LONG_LONG: uint64
	TypeDouble                           // MPI_DOUBLE: float64
	TypeChar                             // MPI_CHAR: a string, NUL-terminated in C
)

// Size is the bytes of one element of t.
func (t Type) Size() int {
	switch t {
	case TypeInt:
		return 4
	case TypeChar:
		return 1
	}
	return 8
}

func (t Type) String() string {
	switch t {
	case TypeInt:
		return "MPI_INT"
	case TypeCount:
		return "MPI_COUNT"
	case TypeUnsignedLongLong:
		return "MPI_UNSIGNED_LONG_LONG"
	case TypeDouble:
		return "MPI_DOUBLE"
	case TypeChar:
		return "MPI_CHAR"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Value is one value of a variable, in the field its Type says: Int for TypeInt and
// TypeCount, Uint for TypeUnsignedLongLong, Float for TypeDouble, Str for TypeChar.
type Value struct {
	Int   int64
	Uint  uint64
	Float float64
	Str   string
}

// Enum is an enumeration: names for the values of an MPI_INT variable.
type Enum struct {
	Name  string
	Items []EnumItem
}

// EnumItem is one value of an enumeration and its name.
type EnumItem struct {
	Value int
	Name  string
}

// Item returns item i of e, for op: an error of class MPI_T_ERR_INVALID_ITEM when e
// has no such item.
func (e *Enum) Item(op string, i int) (EnumItem, error) {
	if i < 0 || i >= len(e.Items) {
		return EnumItem{}, errorf(CodeInvalidItem, op, "index %d is out of range: enumeration %s has %d items (0 to %d)", i, e.Name, len(e.Items), len(e.Items)-1)
	}
	return e.Items[i], nil
}

// NameOf is the name of e's item of value v, "" if none.
func (e *Enum) NameOf(v int) string {
	for _, it := range e.Items {
		if it.Value == v {
			return it.Name
		}
	}
	return ""
}

func (c Code) String() string      { return name(codeNames, c) }
func (s Safety) String() string    { return name(safetyNames, s) }
func (o Order) String() string     { return name(orderNames, o) }
func (v Verbosity) String() string { return name(verbosityNames, v) }
func (b Bind) String() string      { return name(bindNames, b) }
func (s Scope) String() string     { return name(scopeNames, s) }
func (c Class) String() string     { return name(classNames, c) }

func name[T ~int32](names map[T]string, v T) string {
	if n, ok := names[v]; ok {
		return n
	}
	return fmt.Sprintf("%d", int32(v))
}

// Valid reports whether s is one of the four safety levels.
func (s Safety) Valid() bool { _, ok := safetyNames[s]; return ok }

// levels are the safety levels from the least to the most restrictive.
var levels = [...]Safety{SafetyNone, SafetyMPIRestricted, SafetyThreadSafe, SafetyAsyncSignalSafe}

// level is s's position in levels.
func (s Safety) level() int {
	for i, l := range levels {
		if l == s {
			return i
		}
	}
	return -1
}

// Error is an error of the tool information interface: its return code, the call
// and what went wrong.
type Error struct {
	Code Code
	Op   string
	Msg  string
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("%s: %v", e.Op, e.Code)
	}
	return fmt.Sprintf("%s: %s (%v)", e.Op, e.Msg, e.Code)
}

// Is matches a sentinel of the same code (one with no message), so that
// errors.Is(err, ErrInvalidIndex) asks for the code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Msg == "" && t.Op == "" && t.Code == e.Code
}

// Errorf makes an error of code for the call op.
func Errorf(code Code, op, format string, args ...any) *Error {
	return &Error{Code: code, Op: op, Msg: fmt.Sprintf(format, args...)}
}

func errorf(code Code, op, format string, args ...any) *Error {
	return Errorf(code, op, format, args...)
}

// CodeOf is err's return code: MPI_SUCCESS (0) for nil, MPI_T_ERR_INVALID for an
// error of no code.
func CodeOf(err error) Code {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInvalid
}

// Sentinels, one per return code, for errors.Is.
var (
	ErrCannotInit      = &Error{Code: CodeCannotInit}
	ErrNotAccessible   = &Error{Code: CodeNotAccessible}
	ErrNotInitialized  = &Error{Code: CodeNotInitialized}
	ErrNotSupported    = &Error{Code: CodeNotSupported}
	ErrMemory          = &Error{Code: CodeMemory}
	ErrInvalid         = &Error{Code: CodeInvalid}
	ErrInvalidIndex    = &Error{Code: CodeInvalidIndex}
	ErrInvalidItem     = &Error{Code: CodeInvalidItem}
	ErrInvalidSession  = &Error{Code: CodeInvalidSession}
	ErrInvalidHandle   = &Error{Code: CodeInvalidHandle}
	ErrInvalidName     = &Error{Code: CodeInvalidName}
	ErrOutOfHandles    = &Error{Code: CodeOutOfHandles}
	ErrOutOfSessions   = &Error{Code: CodeOutOfSessions}
	ErrCvarSetNotNow   = &Error{Code: CodeCvarSetNotNow}
	ErrCvarSetNever    = &Error{Code: CodeCvarSetNever}
	ErrPvarNoWrite     = &Error{Code: CodePvarNoWrite}
	ErrPvarNoStartstop = &Error{Code: CodePvarNoStartstop}
	ErrPvarNoAtomic    = &Error{Code: CodePvarNoAtomic}
)
