// Package info implements MPI's info objects (MPI 4.1 chapter 10): an ordered set of
// (key, value) strings with the rules the standard gives every binding.
//
// Contracts:
//   - A key has 1 to MaxKey-1 bytes and a value at most MaxVal-1 (MPI_MAX_INFO_KEY
//     and MPI_MAX_INFO_VAL count C's terminating NUL, so that a C buffer of that
//     size holds any of them); Set refuses others with ErrKey or ErrValue. Keys and
//     values are kept as given: no space is stripped (that is Fortran's rule).
//   - Keys are numbered 0 to Nkeys()-1 in the order they were first set: a key set
//     again keeps its number, a deleted key's followers move down one.
//   - A nil *Info is MPI_INFO_NULL: every method returns ErrNull. A freed one returns
//     ErrFreed, a read-only one (MPI_INFO_ENV) refuses Set, Delete and Free with
//     ErrReadOnly. Dup of any live info is a writable copy.
//   - Every method may be called from many goroutines at once.
//
// The package knows nothing of the MPI runtime: its errors are its own sentinels
// (ErrKey, ErrValue, ErrNoKey, ErrArg, ErrNull, ErrFreed, ErrReadOnly), which the
// semantics layer (internal/mpir) gives their MPI classes.
package info

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

const (
	// MaxKey is MPI_MAX_INFO_KEY, the size of a C buffer that holds any key with its
	// NUL: a key has at most MaxKey-1 bytes.
	MaxKey = 256
	// MaxVal is MPI_MAX_INFO_VAL, the size of a C buffer that holds any value Set
	// takes with its NUL: a value has at most MaxVal-1 bytes.
	MaxVal = 1024
)

// The classes of errors, for errors.Is. The MPI layer maps them to MPI_ERR_INFO_KEY,
// MPI_ERR_INFO_VALUE, MPI_ERR_INFO_NOKEY, MPI_ERR_ARG and (the last three)
// MPI_ERR_INFO.
var (
	ErrKey      = errors.New("invalid info key")
	ErrValue    = errors.New("invalid info value")
	ErrNoKey    = errors.New("info key not set")
	ErrArg      = errors.New("invalid argument")
	ErrNull     = errors.New("the info is MPI_INFO_NULL")
	ErrFreed    = errors.New("the info was freed")
	ErrReadOnly = errors.New("the info is read-only")
)

// errorf makes an error of class saying what broke which rule; errors.Is(err, class)
// holds.
func errorf(class error, format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{class}, a...)...)
}

// Info is an info object. The zero value is not usable; New makes one.
type Info struct {
	mu       sync.Mutex
	keys     []string // in the order they were first set: Nthkey's numbering
	vals     map[string]string
	freed    bool
	readOnly bool
}

// New makes an empty info (MPI_Info_create).
func New() *Info { return &Info{vals: map[string]string{}} }

// Fixed makes a read-only info of pairs (key, value, key, value, ...), taken whole:
// MPI_INFO_ENV, whose values (a long command line) may exceed what Set takes.
func Fixed(kv ...string) *Info {
	in := New()
	for i := 0; i+1 < len(kv); i += 2 {
		in.put(kv[i], kv[i+1])
	}
	in.readOnly = true
	return in
}

// Of makes a writable info of pairs (key, value, key, value, ...), which the caller
// knows to obey the rules: the infos an implementation returns (Comm_get_info's).
func Of(kv ...string) *Info {
	in := Fixed(kv...)
	in.readOnly = false
	return in
}

// put sets key to value with no check; the caller holds mu or owns in alone.
func (in *Info) put(key, value string) {
	if _, ok := in.vals[key]; !ok {
		in.keys = append(in.keys, key)
	}
	in.vals[key] = value
}

// CheckKey is nil for a key MPI allows, else an error of class ErrKey saying why.
func CheckKey(key string) error {
	if key == "" {
		return errorf(ErrKey, "the key is empty")
	}
	if len(key) >= MaxKey {
		return errorf(ErrKey, "the key is %d bytes long: at most %d (MPI_MAX_INFO_KEY less its NUL)", len(key), MaxKey-1)
	}
	return nil
}

// CheckValue is nil for a value Set takes, else an error of class ErrValue.
func CheckValue(key, value string) error {
	if len(value) >= MaxVal {
		return errorf(ErrValue, "the value of %q is %d bytes long: at most %d (MPI_MAX_INFO_VAL less its NUL)", key, len(value), MaxVal-1)
	}
	return nil
}

// lock locks in if it may be used, else returns why not (in unlocked).
func (in *Info) lock() error {
	if in == nil {
		return ErrNull
	}
	in.mu.Lock()
	if in.freed {
		in.mu.Unlock()
		return ErrFreed
	}
	return nil
}

// lockWrite is lock, refusing a read-only info.
func (in *Info) lockWrite() error {
	if err := in.lock(); err != nil {
		return err
	}
	if in.readOnly {
		in.mu.Unlock()
		return ErrReadOnly
	}
	return nil
}

// Set sets key to value, replacing any value it had (MPI_Info_set).
func (in *Info) Set(key, value string) error {
	if err := CheckKey(key); err != nil {
		return in.orState(err, true)
	}
	if err := CheckValue(key, value); err != nil {
		return in.orState(err, true)
	}
	if err := in.lockWrite(); err != nil {
		return err
	}
	defer in.mu.Unlock()
	in.put(key, value)
	return nil
}

// orState returns the error of in's state (null, freed, read-only when write),
// which comes before an argument's, else err.
func (in *Info) orState(err error, write bool) error {
	lock := in.lock
	if write {
		lock = in.lockWrite
	}
	if serr := lock(); serr != nil {
		return serr
	}
	in.mu.Unlock()
	return err
}

// Get returns key's value, whole, and whether key is set (MPI_Info_get_string with
// room enough; MPI_Info_get_valuelen is its length).
func (in *Info) Get(key string) (value string, ok bool, err error) {
	if err := CheckKey(key); err != nil {
		return "", false, in.orState(err, false)
	}
	if err := in.lock(); err != nil {
		return "", false, err
	}
	defer in.mu.Unlock()
	value, ok = in.vals[key]
	return value, ok, nil
}

// GetN is MPI_Info_get: key's value cut to at most valuelen bytes (a C buffer holds
// one more, for the NUL). A negative valuelen is an error of class ErrArg.
func (in *Info) GetN(key string, valuelen int) (value string, ok bool, err error) {
	if valuelen < 0 {
		return "", false, in.orState(errorf(ErrArg, "valuelen = %d: want 0 or more", valuelen), false)
	}
	value, ok, err = in.Get(key)
	if len(value) > valuelen {
		value = value[:valuelen]
	}
	return value, ok, err
}

// GetString is MPI_Info_get_string: key's value cut to fit a buffer of buflen bytes
// with its NUL (buflen-1 bytes; nothing is written when buflen is 0), and need, the
// buflen that holds the whole value (its length plus one). A negative buflen is an
// error of class ErrArg.
func (in *Info) GetString(key string, buflen int) (value string, need int, ok bool, err error) {
	if buflen < 0 {
		return "", 0, false, in.orState(errorf(ErrArg, "buflen = %d: want 0 or more", buflen), false)
	}
	value, ok, err = in.Get(key)
	if !ok {
		return "", 0, ok, err
	}
	need = len(value) + 1
	if len(value) > buflen-1 {
		value = value[:max(buflen-1, 0)]
	}
	return value, need, ok, err
}

// Delete removes key (MPI_Info_delete); a key that is not set is an error of class
// ErrNoKey.
func (in *Info) Delete(key string) error {
	if err := CheckKey(key); err != nil {
		return in.orState(err, true)
	}
	if err := in.lockWrite(); err != nil {
		return err
	}
	defer in.mu.Unlock()
	if _, ok := in.vals[key]; !ok {
		return errorf(ErrNoKey, "key %q is not set", key)
	}
	delete(in.vals, key)
	in.keys = slices.DeleteFunc(in.keys, func(k string) bool { return k == key })
	return nil
}

// Nkeys is the number of keys set (MPI_Info_get_nkeys).
func (in *Info) Nkeys() (int, error) {
	if err := in.lock(); err != nil {
		return 0, err
	}
	defer in.mu.Unlock()
	return len(in.keys), nil
}

// Nthkey is key number n, 0 to Nkeys()-1 (MPI_Info_get_nthkey); another n is an
// error of class ErrArg.
func (in *Info) Nthkey(n int) (string, error) {
	if err := in.lock(); err != nil {
		return "", err
	}
	defer in.mu.Unlock()
	if n < 0 || n >= len(in.keys) {
		return "", errorf(ErrArg, "n = %d: want 0 to the number of keys less one (%d keys)", n, len(in.keys))
	}
	return in.keys[n], nil
}

// Pairs returns the pairs in Nthkey's order; MPI_INFO_NULL has none (a call that takes
// hints reads it as no hints).
func (in *Info) Pairs() ([][2]string, error) {
	if in == nil {
		return nil, nil
	}
	if err := in.lock(); err != nil {
		return nil, err
	}
	defer in.mu.Unlock()
	out := make([][2]string, len(in.keys))
	for i, k := range in.keys {
		out[i] = [2]string{k, in.vals[k]}
	}
	return out, nil
}

// Keys lists the keys in Nthkey's order.
func (in *Info) Keys() ([]string, error) {
	if err := in.lock(); err != nil {
		return nil, err
	}
	defer in.mu.Unlock()
	return slices.Clone(in.keys), nil
}

// Dup makes a new, writable info with the same pairs, numbered alike (MPI_Info_dup).
func (in *Info) Dup() (*Info, error) {
	if err := in.lock(); err != nil {
		return nil, err
	}
	defer in.mu.Unlock()
	d := &Info{keys: slices.Clone(in.keys), vals: make(map[string]string, len(in.vals))}
	for k, v := range in.vals {
		d.vals[k] = v
	}
	return d, nil
}

// Free frees the info (MPI_Info_free): every later call on it returns ErrFreed.
func (in *Info) Free() error {
	if err := in.lockWrite(); err != nil {
		return err
	}
	defer in.mu.Unlock()
	in.freed, in.keys, in.vals = true, nil, nil
	return nil
}
