// Package config holds mpigo's runtime settings: each is declared once by the package
// that uses it, with a default, a line of help and the rule its values obey (a range,
// a set of words), and takes its value from (first match wins) a flag of `mpigo run
// --set NAME=VALUE`, an MPIGO_NAME environment variable, the config file, or the
// default. A value that breaks the rule is refused by the launcher before any rank
// starts; a program that meets one anyway uses the default and says so on stderr.
// `mpigo info` lists every setting with its value, where the value came from and its
// rule, as `ompi_info --all` does.
//
// A program may also write a setting (Set: the tool information interface's control
// variables, MPI_T_cvar_write). What a write can change is the declaration's to say
// (When): most settings are read once, when their owner starts, and take a write only
// before that first read; a Live one is read each time it applies (or its owner is told
// to read it again), so a write takes effect for what follows; a Launcher one was
// applied by the launcher before the rank started and never changes in a rank. A
// declaration also says whether every rank must use the same value (Same).
package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Source says where a setting's value came from.
type Source uint8

const (
	Default Source = iota
	File
	Env
	Flag
	Tool // written by the program (Set: the tool information interface)
)

func (s Source) String() string {
	return [...]string{"default", "file", "environment", "flag", "tool"}[s]
}

// When says when a setting's value may change in a running rank.
type When uint8

const (
	// AtStart: the owner reads the value once, when it starts (Init, or the first use);
	// a write is taken before that read only.
	AtStart When = iota
	// Live: the owner reads the value each time it applies (a window's creation, a new
	// connection), or applies a new one when told (internal/core's Retune); a write
	// takes effect for what follows.
	Live
	// Launcher: the launcher applied the value before the rank started; a rank cannot
	// change it.
	Launcher
)

// EnvPrefix starts the environment variable of every setting: MPIGO_EAGER_LIMIT.
const EnvPrefix = "MPIGO_"

// FlagsVar is set by the launcher to the comma-separated names whose MPIGO_ variables
// came from its --set flags, so ranks can report them as flags.
const FlagsVar = "MPIGO_FLAG_SETTINGS"

// FileVar names the config file; without it, $XDG_CONFIG_HOME/mpigo/config (or
// ~/.config/mpigo/config) and then /etc/mpigo.conf are read, the first that exists.
const FileVar = "MPIGO_CONFIG"

// Setting is one named runtime setting.
type Setting struct {
	Name string // lower case with underscores: eager_limit
	Help string
	Def  string
	Kind string // "int", "size", "bool", "duration", "string" or "list"
	When When
	// Same: every rank must use the same value (a collective's algorithm, the
	// transports); otherwise each rank's value concerns that rank alone.
	Same bool
	rule rule

	once     sync.Once
	warnOnce sync.Once
	// setMu orders writes (Set) against the owner's first read (get): a write either
	// lands before that read or is refused, never lost between the two.
	setMu sync.Mutex
	used  atomic.Bool // the owner has read the value (get)
	value atomic.Pointer[string]
	src   Source
	err   error
}

var (
	mu       sync.Mutex
	settings = map[string]*Setting{}
)

// declare registers a setting; it is called from package-level var initialisers.
func declare(name, kind, def, help string) *Setting {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := settings[name]; dup {
		panic("config: setting " + name + " declared twice")
	}
	s := &Setting{Name: name, Help: help, Def: def, Kind: kind, rule: kindRule(kind)}
	settings[name] = s
	return s
}

// EnvName is the environment variable that sets this setting.
func (s *Setting) EnvName() string { return EnvPrefix + strings.ToUpper(s.Name) }

func (s *Setting) resolve() {
	s.once.Do(func() {
		v, src := s.Def, Default
		if fv, ok := fileValues()[s.Name]; ok {
			v, src = fv, File
		}
		if ev, ok := os.LookupEnv(s.EnvName()); ok {
			v, src = ev, Env
			for _, f := range strings.Split(os.Getenv(FlagsVar), ",") {
				if f == s.Name {
					src = Flag
				}
			}
		}
		s.src = src
		if err := s.Check(v); err != nil {
			s.err = fmt.Errorf("%v (from %s)", err, s.origin())
			v, s.src = s.Def, Default
		}
		s.value.Store(&v)
	})
}

// origin says where a value of the setting's source was found, for messages.
func (s *Setting) origin() string {
	switch s.src {
	case Flag:
		return "mpigo run --set"
	case Env:
		return "the environment, " + s.EnvName()
	case File:
		return "the config file " + FilePath()
	}
	return "the default"
}

// Value returns the setting's value as text and where it came from.
func (s *Setting) Value() (string, Source) {
	s.resolve()
	s.setMu.Lock()
	defer s.setMu.Unlock()
	return *s.value.Load(), s.src
}

// Err reports a value that broke the setting's rule (the default is used instead),
// naming the setting, the value, the rule and where the value came from.
func (s *Setting) Err() error {
	s.resolve()
	s.setMu.Lock()
	defer s.setMu.Unlock()
	return s.err
}

// The errors of Set beside a value the rule refuses.
var (
	// ErrFixed: the setting cannot change in this process any more: its owner read it
	// when it started, or the launcher applied it before the rank started.
	ErrFixed = errors.New("the setting cannot change in this process any more")
)

// Set makes v the setting's value in this process, from now on (its source becomes
// Tool). It refuses a value that breaks the rule (naming the setting, the value and
// the rule), and, with ErrFixed, a setting whose value can no longer change: one
// read once that its owner has read (AtStart), or one the launcher applied
// (Launcher). A Live setting's owner sees the value at its next use of it.
func (s *Setting) Set(v string) error {
	s.resolve()
	if s.When == Launcher {
		return fmt.Errorf("%s: %w (the launcher applied it before the rank started)", s.Name, ErrFixed)
	}
	if err := s.Check(v); err != nil {
		return err
	}
	s.setMu.Lock()
	defer s.setMu.Unlock()
	if s.When == AtStart && s.used.Load() {
		return fmt.Errorf("%s: %w (read once, when its owner started)", s.Name, ErrFixed)
	}
	s.value.Store(&v)
	s.src, s.err = Tool, nil
	return nil
}

// Fixed reports whether Set would refuse every value with ErrFixed now.
func (s *Setting) Fixed() bool {
	s.setMu.Lock()
	defer s.setMu.Unlock()
	return s.When == Launcher || s.When == AtStart && s.used.Load()
}

// warnings receives the notice of a refused value (a variable for tests).
var warnings io.Writer = os.Stderr

// get is the value a program uses. A refused value was meant to change something, so
// the first use says on stderr that the default stands in for it: a rank started
// without mpigo's launcher (which refuses such values before starting anything) would
// otherwise run with a setting other than the one asked for, unnoticed.
//
// The first read marks the setting used, under setMu, so that a write (Set) of a
// setting read once either comes before it or is refused; later reads load the value
// alone.
func (s *Setting) get() string {
	s.resolve()
	if !s.used.Load() {
		s.setMu.Lock()
		s.used.Store(true)
		err := s.err
		s.setMu.Unlock()
		if err != nil {
			s.warnOnce.Do(func() {
				fmt.Fprintf(warnings, "mpigo: ignoring setting: %v; using the default %q\n", err, s.Def)
			})
		}
	}
	return *s.value.Load()
}

// All returns every declared setting, sorted by name.
func All() []*Setting {
	mu.Lock()
	defer mu.Unlock()
	out := make([]*Setting, 0, len(settings))
	for _, s := range settings {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a setting by name (eager_limit, EAGER_LIMIT or MPIGO_EAGER_LIMIT).
func Lookup(name string) (*Setting, bool) {
	n := strings.ToLower(strings.TrimPrefix(strings.ToUpper(name), EnvPrefix))
	mu.Lock()
	defer mu.Unlock()
	s, ok := settings[n]
	return s, ok
}

var (
	fileOnce sync.Once
	fileVals map[string]string
	filePath string
)

// FilePath is the config file read, or "" when there is none.
func FilePath() string { fileValues(); return filePath }

func fileValues() map[string]string {
	fileOnce.Do(func() {
		fileVals = map[string]string{}
		var cands []string
		if p := os.Getenv(FileVar); p != "" {
			cands = []string{p}
		} else {
			if d, err := os.UserConfigDir(); err == nil {
				cands = append(cands, filepath.Join(d, "mpigo", "config"))
			}
			cands = append(cands, "/etc/mpigo.conf")
		}
		for _, p := range cands {
			f, err := os.Open(p)
			if err != nil {
				continue
			}
			filePath = p
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				line := strings.TrimSpace(sc.Text())
				if line == "" || line[0] == '#' {
					continue
				}
				k, v, ok := strings.Cut(line, "=")
				if !ok {
					continue
				}
				k = strings.ToLower(strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(k)), EnvPrefix))
				fileVals[k] = strings.TrimSpace(v)
			}
			f.Close()
			return
		}
	})
	return fileVals
}
