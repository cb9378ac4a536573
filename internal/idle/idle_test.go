package idle

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPhases: a wait spins Spin polls, yields Yield polls, then sleeps; Spinning looks
// one poll ahead, as the engine's choice of polls per hold of its lock needs.
func TestPhases(t *testing.T) {
	a := NewAdaptive(Policy{Spin: 10, Yield: 5, Sleep: time.Millisecond}, 2)
	w := a.Begin()
	for n := 1; n <= 20; n++ {
		if got, want := w.Spinning(), n <= 10; got != want {
			t.Fatalf("before poll %d: Spinning %v, want %v", n, got, want)
		}
		spins := w.Next(1)
		if spins != (n <= 10) {
			t.Fatalf("poll %d: Next %v, want %v", n, spins, n <= 10)
		}
		if !spins && w.Yielding() != (n <= 15) {
			t.Fatalf("poll %d: Yielding %v, want %v", n, w.Yielding(), n <= 15)
		}
	}
	w.Nap()
	if w.Next(1) || w.Yielding() {
		t.Fatal("after a sleep: the next poll does not sleep again")
	}
	w.Restart()
	if w.Nap() != FirstNap {
		t.Fatal("after Restart: the first nap is not short")
	}
	if !w.Spinning() || !w.Next(8) || !w.Next(2) || w.Next(1) {
		t.Fatal("after Restart: the counting does not start over")
	}
}

// TestGosched: a spinning wait lets the other goroutines run once per 256 polls.
func TestGosched(t *testing.T) {
	a := NewAdaptive(Policy{Spin: 1000}, 2)
	w := a.Begin()
	var at []int
	for n := 1; w.Next(1); n++ {
		if w.Gosched() {
			at = append(at, n)
		}
	}
	if len(at) != 3 || at[0] != 256 || at[1] != 512 || at[2] != 768 {
		t.Fatalf("Gosched ran after polls %v, want [256 512 768]", at)
	}
}

// TestNap: the first sleep of a wait is short (FirstNap); each next one is twice as
// long, up to the policy's bound.
func TestNap(t *testing.T) {
	for _, sl := range []time.Duration{time.Millisecond, 10 * time.Microsecond} {
		a := NewAdaptive(Policy{Sleep: sl}, 2)
		w := a.Begin()
		want := min(sl, FirstNap)
		for i := range 8 {
			if d := w.Nap(); d != want {
				t.Errorf("sleep %v: nap %d is %v, want %v", sl, i, d, want)
			}
			want = min(2*want, sl)
		}
		if w := a.Begin(); w.Nap() != min(sl, FirstNap) {
			t.Errorf("sleep %v: a new wait's first nap is not short", sl)
		}
	}
	if a := NewAdaptive(Policy{}, 2); a.Policy().Sleep != DefaultSleep {
		t.Errorf("a zero Sleep became %v, want %v", a.Policy().Sleep, DefaultSleep)
	}
}

// TestAdapt: a wait that ends right after a yield that gave the core away makes the
// next waits spin MinSpin polls; waits that end without such a yield double it back
// (plus MinSpin) up to the policy's; one that ends long after such a yield changes
// nothing.
func TestAdapt(t *testing.T) {
	const spin, window = 1000, 4
	a := NewAdaptive(Policy{Spin: spin, Yield: 100}, window)
	end := func(polls int, switched bool) {
		w := a.Begin()
		w.Next(polls)
		w.switched = switched
		w.End()
	}
	end(spin+window, true)
	if a.Spin() != MinSpin {
		t.Fatalf("after a wait that ended right after a switch: spin %d, want %d", a.Spin(), MinSpin)
	}
	end(MinSpin+window+1, true) // past the window of this wait's spin (MinSpin)
	if a.Spin() != MinSpin {
		t.Fatalf("after a wait that ended long after a switch: spin %d, want %d", a.Spin(), MinSpin)
	}
	var got []int
	for a.Spin() < spin {
		end(3, false)
		got = append(got, a.Spin())
	}
	want := []int{48, 112, 240, 496, 1000}
	if len(got) != len(want) {
		t.Fatalf("spin grew back as %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("spin grew back as %v, want %v", got, want)
		}
	}
	// A policy that spins less than MinSpin never spins more.
	b := NewAdaptive(Policy{Spin: 5}, window)
	w := b.Begin()
	w.switched = true
	w.End()
	if b.Spin() != 5 {
		t.Errorf("a spin of 5 adapted to %d", b.Spin())
	}
}

// TestHandoffs: a wait with Policy.Handoffs leaves its yield phase once that many of
// its yields gave the core away (yields that did not count for nothing), and Restart
// gives it its handoffs back; without Handoffs only the count of yields ends it.
func TestHandoffs(t *testing.T) {
	a := NewAdaptive(Policy{Spin: 2, Yield: 100, Handoffs: 2}, 2)
	w := a.Begin()
	w.Next(3)
	if !w.Yielding() {
		t.Fatal("past the spin: not yielding")
	}
	w.gave = 1
	if !w.Next(1) && !w.Yielding() {
		t.Fatal("after one handoff of two: no longer yielding")
	}
	w.gave = 2
	if w.Yielding() {
		t.Fatal("after two handoffs of two: still yielding")
	}
	w.Restart()
	w.Next(3)
	if !w.Yielding() {
		t.Fatal("after Restart: the handoffs are not given back")
	}
	b := NewAdaptive(Policy{Spin: 2, Yield: 100}, 2)
	v := b.Begin()
	v.Next(3)
	v.gave = 1000
	if !v.Yielding() {
		t.Fatal("no Handoffs: a wait stops yielding before its Yield polls")
	}
}

func TestPolicy(t *testing.T) {
	d := Default()
	if got := (Policy{Spin: -1, Yield: 7}).Or(d); got != (Policy{Spin: 0, Yield: 7, Sleep: DefaultSleep}) {
		t.Errorf("Or: %+v", got)
	}
	if got := (Policy{}).Or(d); got != d {
		t.Errorf("zero Or Default: %+v, want %+v", got, d)
	}
	if got := d.Oversubscribed(); got.Spin != MinSpin || got.Yield != d.Yield || got.Handoffs != MaxHandoffs {
		t.Errorf("Oversubscribed: %+v", got)
	}
	if got := (Policy{Spin: 3}).Oversubscribed(); got.Spin != 3 {
		t.Errorf("Oversubscribed spin 3: %+v", got)
	}
	for _, v := range []string{"MPIGO_P2P_SPIN", "MPIGO_P2P_YIELD", "MPIGO_P2P_SLEEP", "MPIGO_CONFIG"} {
		if _, ok := os.LookupEnv(v); ok {
			t.Skipf("%s is set: the settings are not their defaults", v)
		}
	}
	if c := Configured(); c != d {
		t.Errorf("Configured with no settings: %+v, want %+v (a config file may set them)", c, d)
	}
}

func TestPublish(t *testing.T) {
	var x uint64
	Publish(&x, 42)
	if atomic.LoadUint64(&x) != 42 {
		t.Fatal("Publish did not store")
	}
}

// sleeper runs f on a thread of its own and returns that thread's id and a channel
// closed when f returns.
func sleeper(f func()) (int, chan struct{}) {
	tid := make(chan int)
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- unix.Gettid()
		f()
		close(done)
	}()
	return <-tid, done
}

// waitAsleep returns once thread tid sleeps in the kernel (state S), which a thread
// that has reached its futex wait does; it fails the test after d.
func waitAsleep(t *testing.T, tid int, done chan struct{}, d time.Duration) {
	t.Helper()
	path := "/proc/self/task/" + strconv.Itoa(tid) + "/stat"
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			t.Fatal("the sleeper returned before it was woken")
		default:
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Skipf("cannot see the sleeper's state: %v", err)
		}
		// pid (comm) state ...: the command may hold spaces, so look after the last ')'.
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "S" {
			return
		}
		runtime.Gosched()
	}
	t.Fatalf("the sleeper did not go to sleep in %v", d)
}

// TestWake: a waiter asleep on a futex word (past its short first nap, with a bound of
// a minute) returns promptly when another thread changes the word and wakes it.
func TestWake(t *testing.T) {
	a := NewAdaptive(Policy{Sleep: time.Minute}, 2)
	w := a.Begin()
	for w.Nap() < time.Minute { // the first naps are short
	}
	var word uint32
	start := time.Now()
	tid, done := sleeper(func() {
		for atomic.LoadUint32(&word) == 0 {
			w.Sleep(&word, 0)
		}
	})
	waitAsleep(t, tid, done, 10*time.Second)
	atomic.StoreUint32(&word, 1)
	FutexWake(&word)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the waiter was not woken (its sleep is bounded at a minute)")
	}
	t.Logf("woken after %v", time.Since(start))
}

// TestWakeUnchanged: a wake whose word did not change ends the sleep all the same (the
// caller looks again); FutexWait returns at once when the word no longer holds val.
func TestWakeUnchanged(t *testing.T) {
	var word uint32
	tid, done := sleeper(func() { FutexWait(&word, 0, time.Minute) })
	waitAsleep(t, tid, done, 10*time.Second)
	// A thread asleep may not have reached its futex yet (the scheduler's own sleep
	// looks the same from outside), and a wake before it is lost, as it should be:
	// wake again until the sleeper returns, each wake of a word that did not change.
	deadline := time.After(20 * time.Second)
	for woken := false; !woken; {
		FutexWake(&word)
		select {
		case <-done:
			woken = true
		case <-deadline:
			t.Fatal("FutexWake did not wake the sleeper")
		case <-time.After(100 * time.Millisecond):
		}
	}
	start := time.Now()
	FutexWait(&word, 1, time.Minute)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("FutexWait on a word that differs took %v", d)
	}
}

// TestTimeout: a sleep that nobody wakes returns after its bound, the first one after
// FirstNap, the next ones twice the last up to the policy's bound.
func TestTimeout(t *testing.T) {
	const bound = 3 * FirstNap
	a := NewAdaptive(Policy{Sleep: bound}, 2)
	w := a.Begin()
	var word uint32
	for i, want := range []time.Duration{FirstNap, 2 * FirstNap, bound, bound} {
		start := time.Now()
		w.Sleep(&word, 0)
		d := time.Since(start)
		if d < want || d > want+2*time.Second {
			t.Errorf("sleep %d: returned after %v, want %v (and not much more)", i, d, want)
		}
	}
}

// TestShared: while the node is shared every wait spins at most MinSpin polls and
// leaves its yields after MaxHandoffs handoffs, whatever its policy; the hooks hear
// each change, and the state now when they are added; once the node is the job's
// again the policy's spin is back.
func TestShared(t *testing.T) {
	var heard []bool
	OnShared(func(on bool) { heard = append(heard, on) })
	defer SetShared(false)
	a := NewAdaptive(Policy{Spin: 1000, Yield: 100}, 2)
	SetShared(true)
	if !Shared() || a.Spin() != MinSpin {
		t.Fatalf("shared: Shared %v, Spin %d; want true, %d", Shared(), a.Spin(), MinSpin)
	}
	w := a.Begin()
	if !w.Next(MinSpin) || w.Next(1) {
		t.Fatalf("shared: the wait does not spin %d polls", MinSpin)
	}
	w.gave = MaxHandoffs
	if w.Yielding() {
		t.Fatalf("shared: still yielding after %d handoffs", MaxHandoffs)
	}
	SetShared(false)
	if Shared() || a.Spin() != 1000 {
		t.Fatalf("the job's again: Shared %v, Spin %d; want false, 1000", Shared(), a.Spin())
	}
	w = a.Begin()
	w.Next(1001)
	w.gave = 1000
	if !w.Yielding() {
		t.Fatal("the job's again: a policy without Handoffs stops yielding early")
	}
	if len(heard) != 3 || heard[0] || !heard[1] || heard[2] {
		t.Fatalf("the hook heard %v, want [false true false]", heard)
	}
}
