package mpi

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mpigo/mpigo/internal/core"
)

// Info is a set of (key, value) strings: hints to the calls that take one
// (communicators now; windows and files take the same type), and the description of
// the environment, InfoEnv (MPI_Info, MPI 4.1 chapter 10). A nil *Info is
// MPI_INFO_NULL: calls that take an info read it as no hints, and Info's own methods
// refuse it with an error of class ErrInfo, as they refuse a freed one. Every Info
// call may be made at any time, before Init and after Finalize too, and from many
// goroutines at once; their errors go to Self's error handler.
type Info struct {
	mu    sync.Mutex
	keys  []string // in the order they were first set: Nthkey's numbering
	vals  map[string]string
	freed bool
	env   bool      // InfoEnv: filled on first use, read-only
	fill  sync.Once // fills InfoEnv
}

const (
	// MaxInfoKey is MPI_MAX_INFO_KEY, the longest key in bytes (MPICH's value).
	MaxInfoKey = 255
	// MaxInfoVal is MPI_MAX_INFO_VAL, the longest value in bytes Set takes (MPICH's value).
	MaxInfoVal = 1024
)

// InfoEnv describes how this process was started (MPI_INFO_ENV): "command" (the
// program, os.Args[0]), "argv" (its arguments, separated by spaces), "maxprocs" (the
// number of ranks the job started), "host" (this machine's name), "arch" (GOARCH) and
// "wdir" (the working directory). The standard's other keys, "soft", "file" and
// "thread_level", describe requests mpigo's launcher does not take, so they are not
// set. Values are whole, even a command line longer than MaxInfoVal (Get never cuts a
// value). InfoEnv is read-only and cannot be freed: InfoCreateEnv gives a copy to
// change.
var InfoEnv = &Info{env: true}

// InfoCreate makes an empty Info (MPI_Info_create).
func InfoCreate() *Info { return &Info{vals: map[string]string{}} }

// InfoCreateEnv makes a new Info holding what InfoEnv holds (MPI_Info_create_env; Go
// programs have their arguments in os.Args).
func InfoCreateEnv() *Info {
	d, _ := InfoEnv.dup()
	return d
}

// fillEnv gives InfoEnv its pairs, the first time it is used.
func (in *Info) fillEnv() {
	in.vals = map[string]string{}
	put := func(k, v string) {
		in.keys = append(in.keys, k)
		in.vals[k] = v
	}
	put("command", os.Args[0])
	put("argv", strings.Join(os.Args[1:], " "))
	put("maxprocs", maxprocs())
	if h, err := os.Hostname(); err == nil {
		put("host", h)
	}
	put("arch", runtime.GOARCH)
	if wd, err := os.Getwd(); err == nil {
		put("wdir", wd)
	}
}

// maxprocs is the job's number of ranks: World's size once MPI runs, before that what
// the launcher says (mpigo's, or a PMI launcher's), and 1 for a program started alone.
func maxprocs() string {
	if core.Live() {
		return strconv.Itoa(core.WorldSize()) // with sessions only too
	}
	for _, v := range []string{"MPIGO_SIZE", "PMI_SIZE"} {
		if s := os.Getenv(v); s != "" {
			return s
		}
	}
	return "1"
}

// valid is nil when op may use in, else the error (class ErrInfo) saying why not.
func (in *Info) valid(op string) error {
	if in == nil {
		return errorf(ClassInfo, op, "the info is nil (MPI_INFO_NULL)")
	}
	if in.env {
		in.fill.Do(in.fillEnv)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.freed {
		return errorf(ClassInfo, op, "the info was freed")
	}
	return nil
}

// writable is valid, and refuses InfoEnv.
func (in *Info) writable(op string) error {
	if err := in.valid(op); err != nil {
		return err
	}
	if in.env {
		return errorf(ClassInfo, op, "InfoEnv is predefined and read-only (InfoCreateEnv gives a copy to change)")
	}
	return nil
}

// checkKey refuses keys MPI does not allow: empty, or longer than MaxInfoKey.
func checkKey(op, key string) error {
	if key == "" {
		return errorf(ClassInfoKey, op, "the key is empty")
	}
	if len(key) > MaxInfoKey {
		return errorf(ClassInfoKey, op, "the key is %d bytes long: at most MaxInfoKey (%d)", len(key), MaxInfoKey)
	}
	return nil
}

// Set sets key to value, replacing any value it had; a key set again keeps its number
// (MPI_Info_set). A key must be 1 to MaxInfoKey bytes (else ErrInfoKey), a value at
// most MaxInfoVal bytes (else ErrInfoValue).
func (in *Info) Set(key, value string) error {
	if err := in.writable("InfoSet"); err != nil {
		return Self.fail("InfoSet", err)
	}
	if err := checkKey("InfoSet", key); err != nil {
		return Self.fail("InfoSet", err)
	}
	if len(value) > MaxInfoVal {
		return Self.fail("InfoSet", errorf(ClassInfoValue, "InfoSet", "the value of %q is %d bytes long: at most MaxInfoVal (%d)", key, len(value), MaxInfoVal))
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, ok := in.vals[key]; !ok {
		in.keys = append(in.keys, key)
	}
	in.vals[key] = value
	return nil
}

// Get returns key's value and whether key is set (MPI_Info_get_string; the length
// MPI_Info_get_valuelen reports is len(value)). The value is never cut short.
func (in *Info) Get(key string) (value string, ok bool, err error) {
	if err := in.valid("InfoGet"); err != nil {
		return "", false, Self.fail("InfoGet", err)
	}
	if err := checkKey("InfoGet", key); err != nil {
		return "", false, Self.fail("InfoGet", err)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	value, ok = in.vals[key]
	return value, ok, nil
}

// Delete removes key (MPI_Info_delete); a key that is not set is an error of class
// ErrInfoNokey. The keys after it move down one number.
func (in *Info) Delete(key string) error {
	if err := in.writable("InfoDelete"); err != nil {
		return Self.fail("InfoDelete", err)
	}
	if err := checkKey("InfoDelete", key); err != nil {
		return Self.fail("InfoDelete", err)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, ok := in.vals[key]; !ok {
		return Self.fail("InfoDelete", errorf(ClassInfoNokey, "InfoDelete", "key %q is not set", key))
	}
	delete(in.vals, key)
	in.keys = slices.DeleteFunc(in.keys, func(k string) bool { return k == key })
	return nil
}

// Nkeys is the number of keys set (MPI_Info_get_nkeys).
func (in *Info) Nkeys() (int, error) {
	if err := in.valid("InfoGetNkeys"); err != nil {
		return 0, Self.fail("InfoGetNkeys", err)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.keys), nil
}

// Nthkey is key number n, from 0 to Nkeys()-1, in the order the keys were first set
// (MPI_Info_get_nthkey); another n is an error of class ErrArg.
func (in *Info) Nthkey(n int) (string, error) {
	if err := in.valid("InfoGetNthkey"); err != nil {
		return "", Self.fail("InfoGetNthkey", err)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if n < 0 || n >= len(in.keys) {
		return "", Self.fail("InfoGetNthkey", errorf(ClassArg, "InfoGetNthkey", "n = %d: want 0 to Nkeys()-1 (%d keys)", n, len(in.keys)))
	}
	return in.keys[n], nil
}

// Keys lists the keys in Nthkey's order.
func (in *Info) Keys() ([]string, error) {
	if err := in.valid("InfoKeys"); err != nil {
		return nil, Self.fail("InfoKeys", err)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Clone(in.keys), nil
}

// Dup makes a new Info with the same pairs, numbered alike (MPI_Info_dup). A
// duplicate of InfoEnv can be changed.
func (in *Info) Dup() (*Info, error) {
	d, err := in.dup()
	return d, Self.fail("InfoDup", err)
}

func (in *Info) dup() (*Info, error) {
	if err := in.valid("InfoDup"); err != nil {
		return nil, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	d := &Info{keys: slices.Clone(in.keys), vals: make(map[string]string, len(in.vals))}
	for k, v := range in.vals {
		d.vals[k] = v
	}
	return d, nil
}

// Free frees the Info (MPI_Info_free): every later call on it returns an error of class
// ErrInfo. InfoEnv cannot be freed.
func (in *Info) Free() error {
	if err := in.writable("InfoFree"); err != nil {
		return Self.fail("InfoFree", err)
	}
	in.mu.Lock()
	in.freed, in.keys, in.vals = true, nil, nil
	in.mu.Unlock()
	return nil
}

// pairs returns in's pairs in order; nil (MPI_INFO_NULL) has none.
func (in *Info) pairs(op string) ([][2]string, error) {
	if in == nil {
		return nil, nil
	}
	if err := in.valid(op); err != nil {
		return nil, err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([][2]string, len(in.keys))
	for i, k := range in.keys {
		out[i] = [2]string{k, in.vals[k]}
	}
	return out, nil
}

// commHints are the communicator hints mpigo takes (MPI 4.1, section 7.4.4), each
// "true" or "false", "false" by default. They are the program's promises; mpigo records
// and reports them, and its matching stays correct without them.
var commHints = []string{
	"mpi_assert_no_any_tag",
	"mpi_assert_no_any_source",
	"mpi_assert_exact_length",
	"mpi_assert_allow_overtaking",
}

// applyHints sets in hints the communicator hints among pairs. As MPI says of hints,
// keys mpigo does not know, and values other than "true" and "false", are ignored.
func applyHints(hints map[string]string, pairs [][2]string) map[string]string {
	for _, p := range pairs {
		if slices.Contains(commHints, p[0]) && (p[1] == "true" || p[1] == "false") {
			if hints == nil {
				hints = map[string]string{}
			}
			hints[p[0]] = p[1]
		}
	}
	return hints
}

// SetInfo updates c's hints with those of info that mpigo takes (MPI_Comm_set_info):
// the mpi_assert_no_any_tag, mpi_assert_no_any_source, mpi_assert_exact_length and
// mpi_assert_allow_overtaking assertions, "true" or "false". Hints info does not name
// keep their values; other keys are ignored, as MPI allows. A nil info changes
// nothing. Every rank of c calls it, with the same assertions.
func (c *Comm) SetInfo(info *Info) error {
	if err := c.check("SetInfo"); err != nil {
		return err
	}
	pairs, err := info.pairs("SetInfo")
	if err != nil {
		return c.fail("SetInfo", err)
	}
	c.mu.Lock()
	c.hints = applyHints(c.hints, pairs)
	if c.plain != nil { // a view's: its plain form is the view without its context
		c.plain.hints = c.hints
	}
	c.mu.Unlock()
	return nil
}

// Info returns a new Info holding the hints in effect on c (MPI_Comm_get_info): every
// hint mpigo takes, at its value or default. The caller owns it.
func (c *Comm) Info() (*Info, error) {
	if err := c.check("Info"); err != nil {
		return nil, err
	}
	in := InfoCreate()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range commHints {
		v, ok := c.hints[k]
		if !ok {
			v = "false"
		}
		in.keys = append(in.keys, k)
		in.vals[k] = v
	}
	return in, nil
}

// cloneHints copies c's hints, for a duplicate.
func (c *Comm) cloneHints() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hints == nil {
		return nil
	}
	h := make(map[string]string, len(c.hints))
	for k, v := range c.hints {
		h[k] = v
	}
	return h
}
