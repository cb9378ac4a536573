// Package config holds mpigo's runtime settings: each is declared once by the package
// that uses it, with a default and a line of help, and takes its value from (first
// match wins) a flag of `mpigo run --set NAME=VALUE`, an MPIGO_NAME environment variable,
// the config file, or the default. `mpigo info` lists every setting with its value and
// where the value came from, as `ompi_info --all` does.
package config

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Source says where a setting's value came from.
type Source uint8

const (
	Default Source = iota
	File
	Env
	Flag
)

func (s Source) String() string {
	return [...]string{"default", "file", "environment", "flag"}[s]
}

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
	Name  string // lower case with underscores: eager_limit
	Help  string
	Def   string
	Kind  string // "int", "size", "bool", "string", "duration"
	once  sync.Once
	value string
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
	s := &Setting{Name: name, Help: help, Def: def, Kind: kind}
	settings[name] = s
	return s
}

// EnvName is the environment variable that sets this setting.
func (s *Setting) EnvName() string { return EnvPrefix + strings.ToUpper(s.Name) }

func (s *Setting) resolve() {
	s.once.Do(func() {
		s.value, s.src = s.Def, Default
		if v, ok := fileValues()[s.Name]; ok {
			s.value, s.src = v, File
		}
		if v, ok := os.LookupEnv(s.EnvName()); ok {
			s.value, s.src = v, Env
			for _, f := range strings.Split(os.Getenv(FlagsVar), ",") {
				if f == s.Name {
					s.src = Flag
				}
			}
		}
		if err := check(s.Kind, s.value); err != nil {
			s.err = fmt.Errorf("setting %s=%q (from %s): %v", s.Name, s.value, s.src, err)
			s.value, s.src = s.Def, Default
		}
	})
}

// Value returns the setting's value as text and where it came from.
func (s *Setting) Value() (string, Source) { s.resolve(); return s.value, s.src }

// Err reports a value that could not be parsed (the default is used instead).
func (s *Setting) Err() error { s.resolve(); return s.err }

// Check reports whether v is a valid value for s (an int, a size, a bool), naming
// the rule when it is not.
func (s *Setting) Check(v string) error {
	if err := check(s.Kind, v); err != nil {
		return fmt.Errorf("%s wants %s %s: %v", s.Name, article(s.Kind), s.Kind, err)
	}
	return nil
}

func article(kind string) string {
	if kind == "int" {
		return "an"
	}
	return "a"
}

func check(kind, v string) error {
	switch kind {
	case "int":
		_, err := strconv.ParseInt(v, 0, 64)
		return err
	case "size":
		_, err := ParseSize(v)
		return err
	case "bool":
		_, err := strconv.ParseBool(v)
		return err
	}
	return nil
}

// ParseSize reads a byte count: 4096, 4k, 64KiB, 1M, 2g.
func ParseSize(v string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(v))
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suf)), u.m
			break
		}
	}
	n, err := strconv.ParseInt(t, 0, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a byte size (examples: 4096, 64k, 1MiB)")
	}
	return n * mult, nil
}

// IntSetting is an integer setting.
type IntSetting struct{ *Setting }

// Int declares an integer setting.
func Int(name string, def int64, help string) IntSetting {
	return IntSetting{declare(name, "int", strconv.FormatInt(def, 10), help)}
}

// Get returns the value.
func (s IntSetting) Get() int64 { v, _ := s.Value(); n, _ := strconv.ParseInt(v, 0, 64); return n }

// SizeSetting is a byte-count setting.
type SizeSetting struct{ *Setting }

// Size declares a byte-count setting.
func Size(name string, def int64, help string) SizeSetting {
	return SizeSetting{declare(name, "size", strconv.FormatInt(def, 10), help)}
}

// Get returns the value in bytes.
func (s SizeSetting) Get() int64 { v, _ := s.Value(); n, _ := ParseSize(v); return n }

// BoolSetting is a boolean setting.
type BoolSetting struct{ *Setting }

// Bool declares a boolean setting.
func Bool(name string, def bool, help string) BoolSetting {
	return BoolSetting{declare(name, "bool", strconv.FormatBool(def), help)}
}

// Get returns the value.
func (s BoolSetting) Get() bool { v, _ := s.Value(); b, _ := strconv.ParseBool(v); return b }

// StringSetting is a free-form or enumerated setting.
type StringSetting struct{ *Setting }

// String declares a text setting.
func String(name, def, help string) StringSetting {
	return StringSetting{declare(name, "string", def, help)}
}

// Get returns the value.
func (s StringSetting) Get() string { v, _ := s.Value(); return v }

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
