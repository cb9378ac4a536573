package config

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// forget removes settings a test declared, so that it can run again (-count).
func forget(t *testing.T, names ...string) {
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range names {
			delete(settings, n)
		}
	})
}

func TestRules(t *testing.T) {
	forget(t, "test_count", "test_free", "test_bytes", "test_wait", "test_flag", "test_word", "test_word_num", "test_list")
	n := Int("test_count", 8, "").Range(2, 16)
	free := Int("test_free", -3, "")
	sz := Size("test_bytes", 4096, "").Range(1<<10, 1<<30)
	d := Duration("test_wait", time.Millisecond, "").Range(time.Microsecond, time.Second)
	b := Bool("test_flag", true, "")
	w := String("test_word", "auto", "").OneOf("auto", "off")
	wn := String("test_word_num", "auto", "").OneOf("auto", "keep").OrRange(1, 64)
	l := String("test_list", "a,b", "").ListOf("a", "b", "c")
	cases := []struct {
		s         *Setting
		rule      string
		good, bad []string
	}{
		{n.Setting, "an integer from 2 to 16", []string{"2", "16", "0x10"}, []string{"1", "17", "-2", "", "8.0", "eight"}},
		{free.Setting, "an integer", []string{"-9223372036854775808", "0"}, []string{"9223372036854775808", "1k"}},
		{sz.Setting, "a byte count from 1 KiB to 1 GiB", []string{"1k", "1024", "1GiB", "4 m"}, []string{"1023", "2g", "-1k", "9223372036854775807k", "lots"}},
		{d.Setting, "a duration from 1µs to 1s", []string{"1us", "1s", "250ms"}, []string{"0", "-1ms", "2s", "5", ""}},
		{b.Setting, "true or false", []string{"true", "0", "F"}, []string{"yes", ""}},
		{w.Setting, "one of auto, off", []string{"auto", "off"}, []string{"Auto", "on", "", " auto"}},
		{wn.Setting, "auto, keep or an integer from 1 to 64", []string{"keep", "1", "64"}, []string{"0", "65", "auto,keep", "0x10"}},
		{l.Setting, "a comma-separated list of a, b, c (at least one, each once)", []string{"a", "c, a", "b,,a"}, []string{"", ",", "a,a", "a,d", "A"}},
	}
	for _, c := range cases {
		if got := c.s.Rule(); got != c.rule {
			t.Errorf("%s: rule %q, want %q", c.s.Name, got, c.rule)
		}
		for _, v := range c.good {
			if err := c.s.Check(v); err != nil {
				t.Errorf("%s=%q refused: %v", c.s.Name, v, err)
			}
		}
		for _, v := range c.bad {
			err := c.s.Check(v)
			if err == nil {
				t.Errorf("%s=%q accepted, want it refused", c.s.Name, v)
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, c.s.Name) || !strings.Contains(msg, c.rule) {
				t.Errorf("%s=%q: message %q does not name the setting and the rule", c.s.Name, v, msg)
			}
		}
	}
}

// A declaration whose default breaks its own rule is refused when the program starts.
func TestDefaultMustObeyRule(t *testing.T) {
	forget(t, "test_bad_default")
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "test_bad_default") {
			t.Errorf("recovered %v, want a panic naming the setting", r)
		}
	}()
	Int("test_bad_default", 0, "").Range(1, 2)
}

// A refused value from the environment leaves the default in force, reports where the
// value came from, and is announced once when the value is first used.
func TestRefusedValueFallsBack(t *testing.T) {
	var warned bytes.Buffer
	old := warnings
	warnings = &warned
	defer func() { warnings = old }()
	t.Setenv("MPIGO_TEST_CELLS", "3")
	forget(t, "test_cells")
	s := Int("test_cells", 256, "").Range(4, 1<<20)
	if got := s.Get(); got != 256 {
		t.Errorf("Get = %d, want the default 256", got)
	}
	s.Get()
	want := `test_cells wants an integer from 4 to 1048576, not "3" (from the environment, MPIGO_TEST_CELLS)`
	if err := s.Err(); err == nil || err.Error() != want {
		t.Errorf("Err = %v, want %s", err, want)
	}
	if got := warned.String(); strings.Count(got, want) != 1 || !strings.Contains(got, `using the default "256"`) {
		t.Errorf("warnings %q, want one naming the value and the default", got)
	}
	if v, src := s.Value(); v != "256" || src != Default {
		t.Errorf("Value = %q from %v, want the default", v, src)
	}
}

func TestParseSize(t *testing.T) {
	for v, want := range map[string]int64{"4096": 4096, "64k": 64 << 10, "1MiB": 1 << 20, " 2 g ": 2 << 30, "0x10": 16, "8589934591g": 8589934591 << 30} {
		if n, err := ParseSize(v); err != nil || n != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", v, n, err, want)
		}
	}
	for _, v := range []string{"", "-1", "1.5k", "8589934592g", "9223372036854775808", "k"} {
		if n, err := ParseSize(v); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", v, n)
		}
	}
}

// Set takes a valid value until the owner of a setting read once has read it, and
// always for a Live one; a Launcher one never changes.
func TestSet(t *testing.T) {
	forget(t, "test_once", "test_live", "test_launcher")
	once := Int("test_once", 4, "").Range(1, 8)
	live := String("test_live", "a", "").OneOf("a", "b").Live().Same()
	launcher := Int("test_launcher", 1, "").Launcher()
	if live.When != Live || !live.Setting.Same || once.When != AtStart || once.Setting.Same {
		t.Fatalf("marks: live %v %v, once %v %v", live.When, live.Setting.Same, once.When, once.Setting.Same)
	}
	if err := once.Set("9"); err == nil || !strings.Contains(err.Error(), "from 1 to 8") {
		t.Errorf("Set(9) = %v, want the rule's refusal", err)
	}
	if err := once.Set("6"); err != nil {
		t.Fatalf("Set(6) before the first read: %v", err)
	}
	if v, src := once.Value(); v != "6" || src != Tool {
		t.Errorf("Value = %q, %v; want 6 from the tool", v, src)
	}
	if once.Fixed() {
		t.Errorf("Fixed before its first read")
	}
	if got := once.Get(); got != 6 {
		t.Errorf("Get = %d, want 6", got)
	}
	if err := once.Set("5"); !errors.Is(err, ErrFixed) || !once.Fixed() {
		t.Errorf("Set after the first read = %v (Fixed %v), want ErrFixed", err, once.Fixed())
	}
	live.Get()
	if err := live.Set("b"); err != nil || live.Get() != "b" {
		t.Errorf("Live: Set(b) = %v, Get = %q", err, live.Get())
	}
	if err := launcher.Set("2"); !errors.Is(err, ErrFixed) || !launcher.Fixed() {
		t.Errorf("Launcher: Set = %v, want ErrFixed", err)
	}
	if w := live.Words(); len(w) != 2 || once.Words() != nil {
		t.Errorf("Words: %v, %v", w, once.Words())
	}
	if lo, hi := once.Bounds(); lo != 1 || hi != 8 {
		t.Errorf("Bounds = %d, %d", lo, hi)
	}
}

// A write racing with the owner's first read either lands before it or is refused.
func TestSetRacesFirstRead(t *testing.T) {
	for i := 0; i < 200; i++ {
		name := fmt.Sprintf("test_race_%d", i)
		forget(t, name)
		s := Int(name, 1, "").Range(0, 9)
		var err error
		done := make(chan struct{})
		go func() { err = s.Set("7"); close(done) }()
		got := s.Get()
		<-done
		switch {
		case err == nil && got != 7:
			t.Fatalf("Set succeeded, but the first read saw %d", got)
		case err != nil && (!errors.Is(err, ErrFixed) || got != 1):
			t.Fatalf("Set = %v, and the first read saw %d", err, got)
		}
	}
}
