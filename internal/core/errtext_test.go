package core

import "testing"

// userText drops the parts of a cause that name the call again or repeat the part
// before them, and nothing else.
func TestUserText(t *testing.T) {
	cases := []struct{ op, in, want string }{
		{"Recv", "message truncated: 128-byte message, 64-byte receive buffer", "message truncated: 128-byte message, 64-byte receive buffer"},
		{"Bsend", "Bsend: attached buffer too small: 4096-byte message", "attached buffer too small: 4096-byte message"},
		{"GroupIncl", "Incl: ranks[1] = 5 out of range [0,2)", "ranks[1] = 5 out of range [0,2)"},
		{"Send", "rank 1 exited: peer gone", "rank 1 exited: peer gone"},
		{"Send", "a reason: with a colon: kept", "a reason: with a colon: kept"},
		{"Send", "no colon at all", "no colon at all"},
		{"Send", "Send", "Send"},
		{"Split", "Split: Split: colour 3", "colour 3"},
		{"Bcast", "message truncated: Tags: 5", "message truncated: Tags: 5"},
		{"Send", "timeout: timeout: 5s", "timeout: 5s"},
	}
	for _, c := range cases {
		if got := userText(c.op, c.in); got != c.want {
			t.Errorf("userText(%q, %q) = %q, want %q", c.op, c.in, got, c.want)
		}
	}
}
