package config

import (
	"math"
	"strconv"
	"time"
)

// IntSetting is an integer setting.
type IntSetting struct{ *Setting }

// Int declares an integer setting. Its declaration states the valid range with Range
// or AtLeast.
func Int(name string, def int64, help string) IntSetting {
	return IntSetting{declare(name, "int", strconv.FormatInt(def, 10), help)}
}

// Range makes the setting accept only lo to hi, inclusive.
func (s IntSetting) Range(lo, hi int64) IntSetting { s.narrow(rule{lo: lo, hi: hi}); return s }

// AtLeast makes the setting accept only lo and above.
func (s IntSetting) AtLeast(lo int64) IntSetting { return s.Range(lo, math.MaxInt64) }

// Get returns the value.
func (s IntSetting) Get() int64 { n, _ := strconv.ParseInt(s.get(), 0, 64); return n }

// SizeSetting is a byte-count setting; it is never negative.
type SizeSetting struct{ *Setting }

// Size declares a byte-count setting.
func Size(name string, def int64, help string) SizeSetting {
	return SizeSetting{declare(name, "size", strconv.FormatInt(def, 10), help)}
}

// Range makes the setting accept only lo to hi bytes, inclusive.
func (s SizeSetting) Range(lo, hi int64) SizeSetting { s.narrow(rule{lo: lo, hi: hi}); return s }

// Get returns the value in bytes.
func (s SizeSetting) Get() int64 { n, _ := ParseSize(s.get()); return n }

// DurationSetting is a length of time, written as Go writes durations (250us, 1ms).
type DurationSetting struct{ *Setting }

// Duration declares a duration setting; it is never negative.
func Duration(name string, def time.Duration, help string) DurationSetting {
	return DurationSetting{declare(name, "duration", def.String(), help)}
}

// Range makes the setting accept only lo to hi, inclusive.
func (s DurationSetting) Range(lo, hi time.Duration) DurationSetting {
	s.narrow(rule{lo: int64(lo), hi: int64(hi)})
	return s
}

// Get returns the value.
func (s DurationSetting) Get() time.Duration { d, _ := time.ParseDuration(s.get()); return d }

// BoolSetting is a boolean setting.
type BoolSetting struct{ *Setting }

// Bool declares a boolean setting.
func Bool(name string, def bool, help string) BoolSetting {
	return BoolSetting{declare(name, "bool", strconv.FormatBool(def), help)}
}

// Get returns the value.
func (s BoolSetting) Get() bool { b, _ := strconv.ParseBool(s.get()); return b }

// StringSetting is a free-form or enumerated setting.
type StringSetting struct{ *Setting }

// String declares a text setting. Its declaration states the valid values with OneOf,
// ListOf or Rule; without one it takes any text.
func String(name, def, help string) StringSetting {
	return StringSetting{declare(name, "string", def, help)}
}

// OneOf makes the setting accept only these words, spelt exactly.
func (s StringSetting) OneOf(words ...string) StringSetting {
	s.narrow(rule{words: words})
	return s
}

// OrRange makes a OneOf setting accept an integer from lo to hi as well.
func (s StringSetting) OrRange(lo, hi int64) StringSetting {
	s.narrow(rule{words: s.rule.words, num: true, lo: lo, hi: hi})
	return s
}

// ListOf makes the setting a comma-separated list of these words, each at most once.
func (s StringSetting) ListOf(words ...string) StringSetting {
	s.Kind = "list"
	s.narrow(rule{words: words})
	return s
}

// Rule makes the setting accept the values check accepts; desc says which they are.
func (s StringSetting) Rule(desc string, check func(string) error) StringSetting {
	s.narrow(rule{desc: desc, check: check})
	return s
}

// Get returns the value.
func (s StringSetting) Get() string { return s.get() }

// The declarations' other marks. Live: the owner reads the setting each time it
// applies, or applies a write when told (When Live); Same: every rank must use the
// same value. Each typed setting has them so that a declaration reads as one chain.

// Live marks the setting as read each time it applies.
func (s IntSetting) Live() IntSetting { s.When = Live; return s }

// Same marks the setting as one every rank must set alike.
func (s IntSetting) Same() IntSetting { s.Setting.Same = true; return s }

// Launcher marks the setting as the launcher's: applied before the rank started.
func (s IntSetting) Launcher() IntSetting { s.When = Launcher; return s }

// Live marks the setting as read each time it applies.
func (s SizeSetting) Live() SizeSetting { s.When = Live; return s }

// Same marks the setting as one every rank must set alike.
func (s SizeSetting) Same() SizeSetting { s.Setting.Same = true; return s }

// Live marks the setting as read each time it applies.
func (s DurationSetting) Live() DurationSetting { s.When = Live; return s }

// Live marks the setting as read each time it applies.
func (s BoolSetting) Live() BoolSetting { s.When = Live; return s }

// Launcher marks the setting as the launcher's (IntSetting.Launcher).
func (s BoolSetting) Launcher() BoolSetting { s.When = Launcher; return s }

// Same marks the setting as one every rank must set alike.
func (s BoolSetting) Same() BoolSetting { s.Setting.Same = true; return s }

// Live marks the setting as read each time it applies.
func (s StringSetting) Live() StringSetting { s.When = Live; return s }

// Same marks the setting as one every rank must set alike.
func (s StringSetting) Same() StringSetting { s.Setting.Same = true; return s }
