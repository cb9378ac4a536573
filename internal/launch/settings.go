package launch

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mpigo/mpigo/internal/config"
)

// CheckSettings refuses, before any rank starts, a setting value that breaks its
// rule: one given with --set (spec.Settings), as an MPIGO_ variable passed with -x
// (spec.Env), or found in the launcher's own environment or config file, which the
// local ranks inherit. Every rank would otherwise refuse it in Init, or stumble on it
// in the middle of the job. Each error names the setting, the value, the rule and
// where the value came from.
func CheckSettings(spec *Spec) error {
	var errs []error
	given := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(spec.Settings)) {
		v := spec.Settings[name]
		s, ok := config.Lookup(name)
		if !ok {
			errs = append(errs, fmt.Errorf("--set %s=%s: no such setting ('mpigo info' lists them)", name, v))
			continue
		}
		if err := s.Check(v); err != nil {
			errs = append(errs, fmt.Errorf("--set %s=%s: %v", name, v, err))
		}
		given[s.Name] = true
	}
	for _, kv := range spec.Env {
		name, v, _ := strings.Cut(kv, "=")
		s, ok := config.Lookup(name)
		if !ok || name != s.EnvName() {
			continue
		}
		if err := s.Check(v); err != nil {
			errs = append(errs, fmt.Errorf("-x %s: %v", kv, err))
		}
		given[s.Name] = true
	}
	for _, s := range config.All() {
		if err := s.Err(); err != nil && !given[s.Name] {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// settingOf is the value setting s has for the ranks of spec: its --set value, else an
// MPIGO_ variable passed with -x, else the launcher's own (its environment or config
// file, which the local ranks inherit).
func settingOf(spec *Spec, s *config.Setting) string {
	if v, ok := spec.Settings[s.Name]; ok {
		return v
	}
	for _, kv := range spec.Env {
		if name, v, _ := strings.Cut(kv, "="); name == s.EnvName() {
			return v
		}
	}
	v, _ := s.Value()
	return v
}
