package core

import "testing"

// TestAwaitTakesTrue: Await returns at the first poll that reports true and polls no
// more, in each phase of the idle policy: a poll may take what it reports (a Waitany's
// completes and releases its request), so a second one would lose it. The sleep
// phase's poll, made with the waiter announced on doneWord, is the one to catch.
func TestAwaitTakesTrue(t *testing.T) {
	for _, phase := range []string{"first", "spin", "sleep"} {
		t.Run(phase, func(t *testing.T) {
			calls, after := 0, 0
			fired := false
			Await(func() bool {
				calls++
				if fired {
					after++
					return true
				}
				switch phase {
				case "first":
					fired = true
				case "spin":
					fired = calls == 3
				case "sleep":
					fired = sleepers.Load() > 0
				}
				return fired
			})
			if !fired || after != 0 {
				t.Errorf("%d polls, true reported: %v, polls after it: %d, want none", calls, fired, after)
			}
		})
	}
}
