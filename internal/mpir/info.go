package mpir

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/mpigo/mpigo/internal/core"
	"github.com/mpigo/mpigo/internal/info"
)

// Info objects (MPI 4.1 chapter 10) are internal/info's; this file gives their errors
// MPI classes and fills MPI_INFO_ENV, which needs the runtime.

// Info is an info object (MPI_Info). A nil *Info is MPI_INFO_NULL.
type Info = info.Info

// The sizes of C buffers that hold any key or value (MPI_MAX_INFO_KEY,
// MPI_MAX_INFO_VAL), NUL included.
const (
	MaxInfoKey = info.MaxKey
	MaxInfoVal = info.MaxVal
)

// NewInfo makes an empty info (MPI_Info_create).
func NewInfo() *Info { return info.New() }

// InfoOf makes an info of pairs the implementation gives out (key, value, ...).
func InfoOf(kv ...string) *Info { return info.Of(kv...) }

// InfoErr gives an error of an info operation its MPI class for the call op: the
// key's and value's rules MPI_ERR_INFO_KEY and MPI_ERR_INFO_VALUE, a key not set
// MPI_ERR_INFO_NOKEY, a bad index or length MPI_ERR_ARG, and an info that cannot be
// used (MPI_INFO_NULL, freed, MPI_INFO_ENV written) MPI_ERR_INFO.
func InfoErr(op string, err error) error {
	if err == nil {
		return nil
	}
	class, msg := core.ClassInfo, ""
	switch {
	case errors.Is(err, info.ErrKey):
		class = core.ClassInfoKey
	case errors.Is(err, info.ErrValue):
		class = core.ClassInfoValue
	case errors.Is(err, info.ErrNoKey):
		class = core.ClassInfoNokey
	case errors.Is(err, info.ErrArg):
		class = core.ClassArg
	case errors.Is(err, info.ErrReadOnly):
		msg = "MPI_INFO_ENV is predefined (a duplicate can be changed)"
	}
	return core.Wrap(class, op, msg, err)
}

// MPI_INFO_ENV, filled at its first use.
var (
	envOnce sync.Once
	envInfo *Info
)

// InfoEnv is MPI_INFO_ENV (MPI 4.1 section 11.2.2), read-only: how this process was
// started. It holds the keys that describe an mpigo job: "command" (the program),
// "argv" (its arguments, separated by spaces), "maxprocs" (the number of processes
// the job started), "host", "arch" (GOARCH) and "wdir" (the working directory). The
// standard's other keys describe what was asked of the launcher beyond that ("soft",
// "file", and "thread_level", the thread level requested before the program started),
// which mpigo's launcher does not take: they are not set, as the standard allows. The
// thread level a program gets is MPI_Query_thread's, not this info's. Values are
// whole, even a command line longer than MPI_MAX_INFO_VAL.
func InfoEnv() *Info {
	envOnce.Do(func() {
		kv := []string{"command", os.Args[0], "argv", strings.Join(os.Args[1:], " "), "maxprocs", maxprocs()}
		if h, err := os.Hostname(); err == nil {
			kv = append(kv, "host", h)
		}
		kv = append(kv, "arch", runtime.GOARCH)
		if wd, err := os.Getwd(); err == nil {
			kv = append(kv, "wdir", wd)
		}
		envInfo = info.Fixed(kv...)
	})
	return envInfo
}

// InfoCreateEnv makes a writable copy of MPI_INFO_ENV (MPI_Info_create_env).
func InfoCreateEnv() *Info {
	d, _ := InfoEnv().Dup() // MPI_INFO_ENV is never freed
	return d
}

// maxprocs is the job's number of processes: the world's size once MPI runs, before
// that what the launcher says (mpigo's, or a PMI launcher's), and 1 for a program
// started alone.
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

// MemHints is what the info of MPI_Alloc_mem asks of the memory it allocates.
type MemHints struct {
	// Align is the alignment "mpi_minimum_memory_alignment" asks (MPI 4.1 section 9.2):
	// a power of two up to 1 GiB that the implementation must honour; 0 when absent.
	Align int
	// Mapped is "mpigo_node_mapped": whether the memory is to be memory the node's
	// ranks map (core.SharedMem), "true" or "false"; the face's default when absent.
	Mapped bool
}

// KeyNodeMapped is the info key of MemHints.Mapped.
const KeyNodeMapped = "mpigo_node_mapped"

// AllocHints reads MPI_Alloc_mem's info in; mapped is the face's default for
// MemHints.Mapped. A value outside a key's rule is an error of class
// MPI_ERR_INFO_VALUE; other keys are ignored.
func AllocHints(op string, in *Info, mapped bool) (MemHints, error) {
	h := MemHints{Mapped: mapped}
	pairs, err := in.Pairs()
	if err != nil {
		return h, InfoErr(op, err)
	}
	for _, p := range pairs {
		switch v := strings.TrimSpace(p[1]); p[0] {
		case "mpi_minimum_memory_alignment":
			a, err := strconv.Atoi(v)
			if err != nil || a <= 0 || a&(a-1) != 0 || a > 1<<30 {
				return h, core.Errorf(core.ClassInfoValue, op, "mpi_minimum_memory_alignment = %q: want a power of two up to 1 GiB", p[1])
			}
			h.Align = a
		case KeyNodeMapped:
			if !isBool(v) {
				return h, core.Errorf(core.ClassInfoValue, op, "%s = %q: want true or false", KeyNodeMapped, p[1])
			}
			h.Mapped = v == "true"
		}
	}
	return h, nil
}
