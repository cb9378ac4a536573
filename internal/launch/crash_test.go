package launch

import "testing"

// crashLine finds the Go runtime's first line of a panic or a fatal error, at the
// start of a line only.
func TestCrashLine(t *testing.T) {
	cases := []struct{ lines, want string }{
		{"", ""},
		{"all well\n", ""},
		{"a line that says panic: but not first\n", ""},
		{"log\npanic: boom\n\ngoroutine 1 [running]:\n", "panic: boom"},
		{"panic: first [recovered]\n\tpanic: second\n", "panic: first [recovered]"},
		{"runtime: goroutine stack exceeds 1048576-byte limit\nfatal error: stack overflow\n", "fatal error: stack overflow"},
		{"panic: no newline", "panic: no newline"},
	}
	for _, c := range cases {
		if got := crashLine([]byte(c.lines)); got != c.want {
			t.Errorf("crashLine(%q) = %q, want %q", c.lines, got, c.want)
		}
	}
}
