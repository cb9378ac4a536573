// Package attr implements MPI's attribute caching (MPI 4.1 section 7.7, on
// communicators, windows and datatypes): keyvals, and the attributes an object holds
// under them, with the rules the standard gives every binding.
//
// Contracts:
//   - A Keyval has a kind (communicator, datatype, window) and is used with objects of
//     that kind only (else ErrKind). Its copy and delete functions are Go function
//     values a binding builds around the user's; they receive the object as the
//     binding names it (obj), the keyval and the value, and are called with no lock
//     held, so that they may call back in (a delete function that deletes another
//     attribute of the same object is legal MPI).
//   - An object's Set keeps its attributes in the order they were set; setting a key
//     again counts as setting it then. DeleteAll deletes the last set first, as MPI
//     requires of MPI_COMM_SELF's attributes at MPI_Finalize.
//   - A delete function runs when an attribute is replaced, deleted or its object
//     freed; a copy function when the object is duplicated. One that fails makes the
//     call fail with its error (a *CallbackError) and changes nothing: the attribute
//     stays set, the duplicate is not made (CopyTo leaves the copies it made for the
//     caller to delete), the freeing stops at that attribute.
//   - A keyval lives while the program holds it (until Free) or an attribute uses it:
//     freed, it can no longer be set but its attributes are read, copied and deleted
//     as before, and it goes away with the last of them. Freeing it again while it is
//     still used does nothing, as MPICH's test/mpi/attr/keyval_double_free*.c
//     expects; once gone, every use is ErrKeyval.
//   - Predefined keyvals (MPI_TAG_UB, MPI_WIN_BASE, ...) cannot be set, deleted or
//     freed (ErrPredefined); their values are the runtime's, not this package's.
//
// The package knows nothing of the MPI runtime: its errors are its own sentinels
// (ErrKeyval, ErrKind, ErrFreed, ErrPredefined, all MPI_ERR_KEYVAL), and a callback's
// error comes back as a *CallbackError; internal/mpir gives them MPI classes.
package attr

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Kind is the kind of object a keyval's attributes go on.
type Kind uint8

const (
	Comm Kind = iota + 1 // communicators (MPI_Comm_create_keyval)
	Type                 // datatypes (MPI_Type_create_keyval)
	Win                  // windows (MPI_Win_create_keyval)
)

func (k Kind) String() string {
	switch k {
	case Comm:
		return "communicator"
	case Type:
		return "datatype"
	case Win:
		return "window"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// The classes of errors, for errors.Is; MPI maps each to MPI_ERR_KEYVAL.
var (
	ErrKeyval     = errors.New("invalid keyval")
	ErrKind       = errors.New("keyval of another kind of object")
	ErrFreed      = errors.New("keyval freed")
	ErrPredefined = errors.New("predefined keyval")
)

// errorf makes an error of class saying what broke which rule; errors.Is(err, class)
// holds.
func errorf(class error, format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{class}, a...)...)
}

// CallbackError is the error a copy or delete function returned, which made the call
// fail.
type CallbackError struct {
	Delete bool // a delete function's (else a copy function's)
	Err    error
}

func (e *CallbackError) Error() string {
	return "the attribute's " + e.What() + " function failed: " + e.Err.Error()
}

// What names the function: "copy" or "delete".
func (e *CallbackError) What() string {
	if e.Delete {
		return "delete"
	}
	return "copy"
}

func (e *CallbackError) Unwrap() error { return e.Err }

// CopyFunc is a keyval's copy function, called when obj, which has attribute val, is
// duplicated: it returns the duplicate's value and whether the duplicate gets one.
type CopyFunc func(obj any, k *Keyval, val any) (newVal any, keep bool, err error)

// DeleteFunc is a keyval's delete function, called when val stops being obj's
// attribute.
type DeleteFunc func(obj any, k *Keyval, val any) error

// Dup is the copy function that gives the duplicate the same value (MPI_COMM_DUP_FN
// and its kin). A nil CopyFunc gives it none (MPI_COMM_NULL_COPY_FN).
func Dup(_ any, _ *Keyval, val any) (any, bool, error) { return val, true, nil }

// Keyval names an attribute (MPI_x_create_keyval).
type Keyval struct {
	kind   Kind
	copy   CopyFunc
	delete DeleteFunc
	extra  any
	name   string // a predefined keyval's MPI name; "" for the program's

	mu      sync.Mutex
	refs    int  // the program's hold (until Free) and one per attribute set with it
	freed   bool // Free was called
	release func()
}

// New makes a keyval of kind with its copy and delete functions (nil: none) and the
// extra state a binding passes them (MPI's extra_state).
func New(kind Kind, copy CopyFunc, delete DeleteFunc, extra any) *Keyval {
	return &Keyval{kind: kind, copy: copy, delete: delete, extra: extra, refs: 1}
}

// Predefined makes a predefined keyval of kind, named as MPI names it.
func Predefined(kind Kind, name string) *Keyval {
	return &Keyval{kind: kind, name: name, refs: 1}
}

// Kind is the kind of object k's attributes go on.
func (k *Keyval) Kind() Kind { return k.kind }

// Extra is the extra state k was made with.
func (k *Keyval) Extra() any { return k.extra }

// IsPredefined says whether k is a predefined keyval.
func (k *Keyval) IsPredefined() bool { return k != nil && k.name != "" }

// Name is a predefined keyval's MPI name, "" for the program's.
func (k *Keyval) Name() string { return k.name }

// OnRelease makes k call f once, when it goes away: freed, with no attribute left
// (a binding forgets its handle then).
func (k *Keyval) OnRelease(f func()) {
	k.mu.Lock()
	k.release = f
	k.mu.Unlock()
}

// use is what a call does with a keyval, for check.
type use uint8

const (
	useGet use = iota
	useSet
	useDelete
	useFree
)

// check is nil when a call of kind may use k as u says, else the rule it breaks.
func (k *Keyval) check(kind Kind, u use) error {
	if k == nil {
		return errorf(ErrKeyval, "the keyval is invalid (MPI_KEYVAL_INVALID)")
	}
	if k.kind != kind {
		return errorf(ErrKind, "the keyval is a %s keyval, not a %s one", k.kind, kind)
	}
	if k.name != "" && u != useGet {
		return errorf(ErrPredefined, "the keyval %s is predefined: it cannot be set, deleted or freed", k.name)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.freed && k.refs == 0 {
		return errorf(ErrKeyval, "the keyval was freed and no attribute holds it any more")
	}
	if k.freed && u == useSet {
		return errorf(ErrFreed, "the keyval was freed: it can no longer be set")
	}
	return nil
}

// ref counts an attribute set with k; false when k has gone.
func (k *Keyval) ref() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.refs == 0 {
		return false
	}
	k.refs++
	return true
}

// unref drops one hold of k, releasing it with the last.
func (k *Keyval) unref() {
	k.mu.Lock()
	k.refs--
	var rel func()
	if k.refs == 0 {
		rel, k.release = k.release, nil
	}
	k.mu.Unlock()
	if rel != nil {
		rel()
	}
}

// Free frees k for a call of kind (MPI_x_free_keyval): it can no longer be set, and
// goes away once no attribute holds it. Freeing it again while an attribute holds it
// does nothing; after that, it is ErrKeyval.
func (k *Keyval) Free(kind Kind) error {
	if err := k.check(kind, useFree); err != nil {
		return err
	}
	k.mu.Lock()
	if k.freed {
		k.mu.Unlock()
		return nil // still held by an attribute: check refused a gone keyval
	}
	k.freed = true
	k.mu.Unlock()
	k.unref()
	return nil
}

func (k *Keyval) callDelete(obj, val any) error {
	if k.delete == nil {
		return nil
	}
	if err := k.delete(obj, k, val); err != nil {
		return &CallbackError{Delete: true, Err: err}
	}
	return nil
}

// entry is one attribute. Entries are compared by identity: an attribute replaced
// while a callback ran is a new entry.
type entry struct {
	k   *Keyval
	val any
}

// Set is the attributes of one object, in the order they were set. The zero Set is
// empty and ready; a Set must not be copied after first use.
type Set struct {
	mu   sync.Mutex
	list []*entry
}

// find is k's entry, nil if k is not set.
func (s *Set) find(k *Keyval) *entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.list {
		if e.k == k {
			return e
		}
	}
	return nil
}

// drop takes e out of the set, if it is still there, and says whether it was; the
// caller then drops e's hold of its keyval.
func (s *Set) drop(e *entry) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.Index(s.list, e)
	if i < 0 {
		return false
	}
	s.list = slices.Delete(s.list, i, i+1)
	return true
}

// Get returns the value of attribute k on an object of kind, and whether it is set
// (MPI_x_get_attr). A predefined keyval is never set here: its value is the
// runtime's.
func (s *Set) Get(kind Kind, k *Keyval) (any, bool, error) {
	if err := k.check(kind, useGet); err != nil {
		return nil, false, err
	}
	if e := s.find(k); e != nil {
		return e.val, true, nil
	}
	return nil, false, nil
}

// Put sets attribute k of obj, an object of kind, to val (MPI_x_set_attr); a value it
// had is deleted first, and if its delete function fails, nothing changes.
func (s *Set) Put(kind Kind, obj any, k *Keyval, val any) error {
	if err := k.check(kind, useSet); err != nil {
		return err
	}
	if old := s.find(k); old != nil {
		if err := k.callDelete(obj, old.val); err != nil {
			return err
		}
	}
	if !k.ref() {
		return errorf(ErrKeyval, "the keyval was freed and no attribute holds it any more")
	}
	s.mu.Lock()
	var replaced *entry
	if i := slices.IndexFunc(s.list, func(e *entry) bool { return e.k == k }); i >= 0 {
		replaced = s.list[i]
		s.list = slices.Delete(s.list, i, i+1)
	}
	s.list = append(s.list, &entry{k: k, val: val})
	s.mu.Unlock()
	if replaced != nil {
		k.unref()
	}
	return nil
}

// Delete deletes attribute k of obj, an object of kind, running its delete function
// (MPI_x_delete_attr); if that fails, the attribute stays. An attribute not set is
// nothing to delete.
func (s *Set) Delete(kind Kind, obj any, k *Keyval) error {
	if err := k.check(kind, useDelete); err != nil {
		return err
	}
	e := s.find(k)
	if e == nil {
		return nil
	}
	if err := k.callDelete(obj, e.val); err != nil {
		return err
	}
	if s.drop(e) {
		k.unref()
	}
	return nil
}

// CopyTo gives dst, the attributes of obj's duplicate, what the copy functions of
// obj's attributes keep, in obj's order (MPI_x_dup). If a copy function fails it
// stops there and returns its error, leaving in dst the copies made so far: the caller
// deletes them (DeleteAll) as it discards the duplicate.
func (s *Set) CopyTo(obj any, dst *Set) error {
	s.mu.Lock()
	list := slices.Clone(s.list)
	s.mu.Unlock()
	for _, e := range list {
		if e.k.copy == nil {
			continue
		}
		nv, keep, err := e.k.copy(obj, e.k, e.val)
		if err != nil {
			return &CallbackError{Err: err}
		}
		if !keep || !e.k.ref() {
			continue
		}
		dst.mu.Lock()
		dst.list = append(dst.list, &entry{k: e.k, val: nv})
		dst.mu.Unlock()
	}
	return nil
}

// DeleteAll deletes every attribute of obj, the last set first, running their delete
// functions (MPI_x_free). Where one fails, it stops and returns its error, the
// attributes from that one on staying set, unless all is true: then it deletes them
// all and returns the first error (what MPI_Finalize does with MPI_COMM_SELF's).
func (s *Set) DeleteAll(obj any, all bool) error {
	var first error
	for {
		s.mu.Lock()
		if len(s.list) == 0 {
			s.mu.Unlock()
			return first
		}
		e := s.list[len(s.list)-1]
		s.mu.Unlock()
		if err := e.k.callDelete(obj, e.val); err != nil {
			if !all {
				return err
			}
			first = cmp.Or(first, err)
		}
		if s.drop(e) {
			e.k.unref()
		}
	}
}

// Len is the number of attributes set.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.list)
}
