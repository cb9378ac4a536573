package mpir

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/mpit"
)

// Every setting of mpigo's (internal/config) is a control variable of its name, in
// the order `mpigo info` lists them. Its type follows the setting's kind: an integer
// is MPI_INT where its range fits, else MPI_COUNT; a byte count MPI_UNSIGNED_LONG_LONG;
// a duration MPI_DOUBLE in seconds (MPI_Wtime's unit); a boolean, and a text that is
// one of a few words, MPI_INT with an enumeration (false, true; the words in the
// order declared); other text and lists MPI_CHAR.
//
// Its scope says who may set it (config.When, config.Same): a setting the launcher
// applied is CONSTANT; one every rank must set alike ALL_EQ; the rest LOCAL. A write
// takes the setting's rule (MPI_T_ERR_INVALID otherwise); a setting read once, when
// its owner starts, takes it only until then (MPI_T_ERR_CVAR_SET_NEVER after); a Live
// one takes it any time, for what follows (the device re-reads its own: core.Retune).

// charCount is the count of a text variable: room for any value, NUL included.
const charCount = 1024

// boolEnum names a boolean setting's values.
var boolEnum = &mpit.Enum{Name: "bool", Items: []mpit.EnumItem{{Value: 0, Name: "false"}, {Value: 1, Name: "true"}}}

// addCVars adds every setting and returns their indices by name.
func addCVars(r *mpit.Registry) map[string]int {
	idx := map[string]int{}
	for _, s := range config.All() {
		idx[s.Name] = r.AddCVar(cvarOf(s))
	}
	return idx
}

// cvarOf is setting s as a control variable.
func cvarOf(s *config.Setting) *mpit.CVar {
	v := &mpit.CVar{Name: s.Name, Verbosity: verbosityOf(s.Name), Bind: mpit.BindNoObject, Count: 1}
	switch {
	case s.Kind == "int":
		v.Type = mpit.TypeInt
		if lo, hi := s.Bounds(); lo < math.MinInt32 || hi > math.MaxInt32 {
			v.Type = mpit.TypeCount
		}
	case s.Kind == "size":
		v.Type = mpit.TypeUnsignedLongLong
	case s.Kind == "duration":
		v.Type = mpit.TypeDouble
	case s.Kind == "bool":
		v.Type, v.Enum = mpit.TypeInt, boolEnum
	case s.Words() != nil:
		v.Type, v.Enum = mpit.TypeInt, wordsEnum(s)
	default:
		v.Type, v.Count = mpit.TypeChar, charCount
	}
	v.Scope = mpit.ScopeLocal
	when := "a write takes effect for what follows"
	switch {
	case s.When == config.Launcher:
		v.Scope, when = mpit.ScopeConstant, "the launcher applied it before this process started: it cannot change here"
	case s.Same:
		v.Scope = mpit.ScopeAllEq
	}
	if s.When == config.AtStart {
		when = "read once, when its owner starts (MPI_Init for most): a write takes effect only before then"
	}
	v.Desc = strings.TrimSuffix(s.Help, ".") + ". Valid values: " + s.Rule() + ". " + upper(when) + "."
	if s.Same {
		v.Desc += " Every process must set the same value."
	}
	v.Read = func() mpit.Value { return cvarValue(s, v) }
	if v.Scope != mpit.ScopeConstant {
		v.Write = func(op string, val mpit.Value) error { return cvarWrite(op, s, v, val) }
	}
	return v
}

func upper(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// wordsEnum is the enumeration of a setting of a few words: its name, its words.
func wordsEnum(s *config.Setting) *mpit.Enum {
	e := &mpit.Enum{Name: s.Name}
	for i, w := range s.Words() {
		e.Items = append(e.Items, mpit.EnumItem{Value: i, Name: w})
	}
	return e
}

// cvarValue is s's value now as v's type holds it.
func cvarValue(s *config.Setting, v *mpit.CVar) mpit.Value {
	text, _ := s.Value()
	switch {
	case v.Enum == boolEnum:
		b, _ := strconv.ParseBool(text)
		if b {
			return mpit.Value{Int: 1}
		}
		return mpit.Value{}
	case v.Enum != nil:
		for _, it := range v.Enum.Items {
			if it.Name == text {
				return mpit.Value{Int: int64(it.Value)}
			}
		}
		return mpit.Value{}
	}
	switch v.Type {
	case mpit.TypeInt, mpit.TypeCount:
		n, _ := strconv.ParseInt(text, 0, 64)
		return mpit.Value{Int: n}
	case mpit.TypeUnsignedLongLong:
		n, _ := config.ParseSize(text)
		return mpit.Value{Uint: uint64(n)}
	case mpit.TypeDouble:
		d, _ := time.ParseDuration(text)
		return mpit.Value{Float: d.Seconds()}
	}
	return mpit.Value{Str: text}
}

// cvarText is val, of v's type, as s's text.
func cvarText(v *mpit.CVar, val mpit.Value) string {
	switch {
	case v.Enum != nil:
		return v.Enum.NameOf(int(val.Int))
	}
	switch v.Type {
	case mpit.TypeInt, mpit.TypeCount:
		return strconv.FormatInt(val.Int, 10)
	case mpit.TypeUnsignedLongLong:
		return strconv.FormatUint(val.Uint, 10)
	case mpit.TypeDouble:
		if math.IsNaN(val.Float) || math.IsInf(val.Float, 0) || math.Abs(val.Float) > math.MaxInt64/1e9 {
			return "not a duration"
		}
		return time.Duration(math.Round(val.Float * 1e9)).String()
	}
	return val.Str
}

// cvarWrite writes val to s, and has the device apply it.
func cvarWrite(op string, s *config.Setting, v *mpit.CVar, val mpit.Value) error {
	err := s.Set(cvarText(v, val))
	switch {
	case errors.Is(err, config.ErrFixed):
		return mpit.Errorf(mpit.CodeCvarSetNever, op, "%v", err)
	case err != nil:
		return mpit.Errorf(mpit.CodeInvalid, op, "%v", err)
	}
	if s.When == config.Live {
		if err := core.Retune(); err != nil {
			return mpit.Errorf(mpit.CodeInvalid, op, "%s: %v", s.Name, err)
		}
	}
	return nil
}

// verbosityOf says who a setting is for: the user, a tuner, or mpigo's developers.
func verbosityOf(name string) mpit.Verbosity {
	switch name {
	case "transports", "eager_limit", "profile", "bind_to", "gomaxprocs", "p2p_protocol", "tcp_interfaces":
		return mpit.VerbosityUserBasic
	case "rank_timer_slack", "group_storage", "rma_shm", "coll_shm", "coll_bcast", "coll_allreduce", "coll_allgather",
		"coll_alltoall", "p2p_spin", "p2p_yield", "p2p_sleep", "shm_eager_limit", "tcp_socket_buffer":
		return mpit.VerbosityTunerBasic
	case "coll_check", "proto_info", "shm_calibrate", "profile_events", "shm_memory":
		return mpit.VerbosityMpidevDetail
	}
	return mpit.VerbosityTunerDetail
}
