package mpir

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mpigo/mpigo/internal/window"
)

// Hints are the info hints in effect on a communicator, a window or a file (MPI 4.1
// sections 7.4.4, 12.2.7 and 14.2.8): every hint mpigo takes for that kind of object,
// at the value the program gave or at its default; a hint with no default (an empty
// one) is in effect, and reported, once the program gives it. The program gives hints when it makes the object
// (an info argument) and with MPI_x_set_info, which changes only the hints its info
// names and mpigo takes; mpigo ignores other keys, and values a hint does not take, as
// the standard lets it. MPI_x_get_info reports the hints in effect, which the standard
// defines as the supported hints with their defaults and the user's hints that were
// not ignored: so a key mpigo ignores is not reported back.
//
// A Hints is shared by the views of one communicator (a value set through one is in
// effect on all) and copied by a duplication. Its methods may be called from many
// goroutines at once.
type Hints struct {
	kind *hintKind
	mu   sync.Mutex
	vals []string // vals[i] is kind.keys[i]'s value
}

// hintKind is the table of the hints one kind of object takes.
type hintKind struct {
	keys []hintKey
}

// hintKey is one hint: its key, its default, the values it takes and whether it can
// change after creation.
type hintKey struct {
	name, def string
	takes     func(string) bool
	// atCreation: the hint shapes how the object is made (alloc_shared_noncontig lays
	// out a shared window's memory), so MPI_x_set_info leaves it as created.
	atCreation bool
}

// The communicator hints (MPI 4.1 section 7.4.4), each "true" or "false". They are
// the program's promises; mpigo records and reports them, and its matching stays
// correct without them.
var commHints = &hintKind{keys: []hintKey{
	{name: "mpi_assert_no_any_tag", def: "false", takes: isBool},
	{name: "mpi_assert_no_any_source", def: "false", takes: isBool},
	{name: "mpi_assert_exact_length", def: "false", takes: isBool},
	{name: "mpi_assert_allow_overtaking", def: "false", takes: isBool},
}}

// The window hints (MPI 4.1 sections 12.2.1 and 12.7.1). mpigo honours
// alloc_shared_noncontig (each rank's part of a shared window starts on its own page)
// and records the promises of the others.
var winHints = &hintKind{keys: []hintKey{
	{name: "no_locks", def: "false", takes: isBool},
	{name: "accumulate_ordering", def: "rar,raw,war,waw", takes: isOrdering},
	{name: "accumulate_ops", def: "same_op_no_op", takes: func(v string) bool { return v == "same_op" || v == "same_op_no_op" }},
	{name: "same_size", def: "false", takes: isBool},
	{name: "same_disp_unit", def: "false", takes: isBool},
	{name: "alloc_shared_noncontig", def: "false", takes: isBool, atCreation: true},
	{name: "mpi_accumulate_granularity", def: "8", takes: isCount},
}}

func isBool(v string) bool { return v == "true" || v == "false" }

func isCount(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n >= 0
}

// isOrdering takes "none" or a list of rar, raw, war and waw separated by commas.
func isOrdering(v string) bool {
	if v == "none" {
		return true
	}
	for _, o := range strings.Split(v, ",") {
		if !slices.Contains([]string{"rar", "raw", "war", "waw"}, o) {
			return false
		}
	}
	return true
}

// newHints makes the hints of an object of kind made with info in: the defaults (the
// kind's, or the object's own in defs, key and value in turn), with the hints of in
// that mpigo takes. MPI_INFO_NULL gives the defaults.
func newHints(op string, kind *hintKind, in *Info, defs ...string) (*Hints, error) {
	h := &Hints{kind: kind, vals: make([]string, len(kind.keys))}
	for i, k := range kind.keys {
		h.vals[i] = k.def
	}
	for i := 0; i+1 < len(defs); i += 2 {
		if k := h.index(defs[i]); k >= 0 {
			h.vals[k] = defs[i+1]
		}
	}
	return h, h.take(op, in, true)
}

// index is the place of hint key in h's kind, -1 if it takes none of that name.
func (h *Hints) index(key string) int {
	return slices.IndexFunc(h.kind.keys, func(k hintKey) bool { return k.name == key })
}

// NewCommHints makes the hints of a new communicator given info in (MPI_INFO_NULL:
// every hint at its default).
func NewCommHints(op string, in *Info) (*Hints, error) { return newHints(op, commHints, in) }

// NewWinHints makes the hints of a new window given info in.
func NewWinHints(op string, in *Info) (*Hints, error) { return newHints(op, winHints, in) }

// DefaultCommHints are a communicator's hints when no info gave any.
func DefaultCommHints() *Hints {
	h, _ := NewCommHints("", nil)
	return h
}

// take sets the hints of in that mpigo takes; creating says whether the object is
// being made (else hints taken at creation stay).
func (h *Hints) take(op string, in *Info, creating bool) error {
	pairs, err := in.Pairs()
	if err != nil {
		return InfoErr(op, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range pairs {
		i := h.index(p[0])
		if i < 0 {
			continue
		}
		if k := h.kind.keys[i]; k.takes(p[1]) && (creating || !k.atCreation) {
			h.vals[i] = p[1]
		}
	}
	return nil
}

// Set is MPI_x_set_info: it sets the hints of in that mpigo takes and that may change
// after creation; the others keep their values. MPI_INFO_NULL changes nothing.
func (h *Hints) Set(op string, in *Info) error { return h.take(op, in, false) }

// Info is MPI_x_get_info: a new info with every hint in effect, in the kind's order.
func (h *Hints) Info() *Info {
	h.mu.Lock()
	defer h.mu.Unlock()
	kv := make([]string, 0, 2*len(h.vals))
	for i, k := range h.kind.keys {
		if h.vals[i] != "" {
			kv = append(kv, k.name, h.vals[i])
		}
	}
	return InfoOf(kv...)
}

// Dup copies the hints, for a duplicated communicator (MPI_Comm_dup keeps them).
func (h *Hints) Dup() *Hints {
	h.mu.Lock()
	defer h.mu.Unlock()
	return &Hints{kind: h.kind, vals: slices.Clone(h.vals)}
}

// Bool is whether hint key is "true".
func (h *Hints) Bool(key string) bool { return h.Value(key) == "true" }

// Value is hint key's value, "" for a hint not in effect.
func (h *Hints) Value(key string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if i := h.index(key); i >= 0 {
		return h.vals[i]
	}
	return ""
}

// Int is hint key's value as an integer, 0 for a hint not in effect (the kinds take
// only integers for a hint read so).
func (h *Hints) Int(key string) int64 {
	n, _ := strconv.ParseInt(h.Value(key), 10, 64)
	return n
}

// ShapeWin gives the window a is about to make the hints mpigo honours at creation:
// alloc_shared_noncontig, for a shared window.
func (h *Hints) ShapeWin(a *window.Args) {
	a.Noncontig = a.Flavor == window.FlavorShared && h.Bool("alloc_shared_noncontig")
}
