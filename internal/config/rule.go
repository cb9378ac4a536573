package config

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rule is what values a setting accepts beyond its kind's syntax. The launcher checks
// every value against it before starting a rank, so a value a rank would refuse, or
// one that would break a collective later, stops the job at once with a message.
type rule struct {
	lo, hi int64    // int, size, duration (in ns): the valid range; string: that of num
	num    bool     // string: an integer in [lo, hi] is valid besides words
	words  []string // string: the valid values; list: the valid items
	desc   string   // a rule given by its declaration in words, checked by check
	check  func(string) error
}

// kindRule is a kind's rule before the declaration narrows it: any value of the kind
// that is not negative, except for int, whose declaration states its range.
func kindRule(kind string) rule {
	switch kind {
	case "int":
		return rule{lo: math.MinInt64, hi: math.MaxInt64}
	case "size", "duration":
		return rule{lo: 0, hi: math.MaxInt64}
	}
	return rule{}
}

// Rule describes the values the setting accepts, as mpigo info shows it.
func (s *Setting) Rule() string {
	r := s.rule
	switch s.Kind {
	case "int":
		return "an integer" + r.span(math.MinInt64, strconv.FormatInt)
	case "size":
		return "a byte count" + r.span(0, func(n int64, _ int) string { return sizeText(n) })
	case "duration":
		return "a duration" + r.span(0, func(n int64, _ int) string { return time.Duration(n).String() })
	case "bool":
		return "true or false"
	case "list":
		return "a comma-separated list of " + strings.Join(r.words, ", ") + " (at least one, each once)"
	}
	switch {
	case r.desc != "":
		return r.desc
	case r.num:
		return strings.Join(r.words, ", ") + " or an integer" + r.span(math.MinInt64, strconv.FormatInt)
	case r.words != nil:
		return "one of " + strings.Join(r.words, ", ")
	}
	return "any text"
}

// syntax gives examples of the kinds whose spelling is not obvious, for messages.
func (s *Setting) syntax() string {
	switch s.Kind {
	case "size":
		return " (written like 4096, 64k, 1MiB)"
	case "duration":
		return " (written like 250us, 1ms, 2s)"
	}
	return ""
}

// span describes [lo, hi] with format, leaving out a bound at the kind's floor or at
// the top of int64.
func (r rule) span(floor int64, format func(int64, int) string) string {
	switch {
	case r.lo <= floor && r.hi == math.MaxInt64:
		return ""
	case r.hi == math.MaxInt64:
		return " of at least " + format(r.lo, 10)
	}
	return " from " + format(r.lo, 10) + " to " + format(r.hi, 10)
}

// sizeText writes a byte count in the largest binary unit that divides it.
func sizeText(n int64) string {
	for _, u := range []struct {
		m    int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.m && n%u.m == 0 {
			return fmt.Sprintf("%d %s", n/u.m, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}

// Check reports whether v is a valid value for s, naming the setting, the value and
// the rule when it is not.
func (s *Setting) Check(v string) error {
	if !s.valid(v) {
		return fmt.Errorf("%s wants %s%s, not %q", s.Name, s.Rule(), s.syntax(), v)
	}
	return nil
}

func (s *Setting) valid(v string) bool {
	r := s.rule
	switch s.Kind {
	case "int":
		n, err := strconv.ParseInt(v, 0, 64)
		return err == nil && r.holds(n)
	case "size":
		n, err := ParseSize(v)
		return err == nil && r.holds(n)
	case "duration":
		d, err := time.ParseDuration(v)
		return err == nil && r.holds(int64(d))
	case "bool":
		_, err := strconv.ParseBool(v)
		return err == nil
	case "list":
		return r.validList(v)
	}
	return r.validString(v)
}

func (r rule) holds(n int64) bool { return r.lo <= n && n <= r.hi }

func (r rule) validString(v string) bool {
	switch {
	case r.check != nil:
		return r.check(v) == nil
	case slices.Contains(r.words, v):
		return true
	case r.num:
		n, err := strconv.ParseInt(v, 10, 64)
		return err == nil && r.holds(n)
	}
	return r.words == nil
}

// validList accepts items of words separated by commas (spaces around them and empty
// items are ignored, as the list's reader does), at least one, none twice.
func (r rule) validList(v string) bool {
	var seen []string
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !slices.Contains(r.words, item) || slices.Contains(seen, item) {
			return false
		}
		seen = append(seen, item)
	}
	return len(seen) > 0
}

// narrow replaces s's rule, making sure the default obeys it: a declaration whose
// default breaks its own rule is a programming error, found when the program starts.
func (s *Setting) narrow(r rule) {
	s.rule = r
	if err := s.Check(s.Def); err != nil {
		panic("config: the default of " + err.Error())
	}
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
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("not a byte size (examples: 4096, 64k, 1MiB)")
	}
	return n * mult, nil
}

// Words is the set of values of a setting that takes exactly one of a few words
// (OneOf, without OrRange), nil for any other.
func (s *Setting) Words() []string {
	if s.Kind != "string" || s.rule.num || s.rule.check != nil {
		return nil
	}
	return s.rule.words
}

// Bounds is the valid range of an int, size or duration (in ns) setting.
func (s *Setting) Bounds() (lo, hi int64) { return s.rule.lo, s.rule.hi }
