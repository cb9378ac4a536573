// Package idle is how a rank waits for a peer: the idle policy that the point-to-point
// engine and the node-local collectives share, the futex its sleeps use, and the store
// that publishes a word to a waiter in another process.
//
// A wait polls its condition Policy.Spin times, then polls and yields the OS thread
// (sched_yield) Policy.Yield times, because when ranks outnumber cores the peer it
// waits for may need this core, then sleeps on a futex word, which what it waits for
// rings, for at most Policy.Sleep at a time, because a peer that dies wakes nobody.
// Once asleep it stays in the sleep phase: after a nap it polls once and sleeps again,
// with no spin or yield in between, so that a long wait costs one poll per nap (over
// TCP, a few system calls a millisecond), not a yield phase per nap. The naps grow:
// the first is short (FirstNap), each next one twice as long, up to Policy.Sleep, so
// that a condition nobody rings (a lock word in shared memory) is still seen soon in
// a short wait. Only a poll that finds something (Restart) starts the phases over.
//
// A rank whose node has more ranks than cores (Policy.Oversubscribed) spins a few polls
// only, and its wait sleeps once MaxHandoffs of its yields gave the core to another task
// (Policy.Handoffs): yielding on and on would put it behind every task on its core. So
// does every rank while its launcher says that other processes share the node
// (SetShared).
//
// The spin adapts (Adaptive): a wait that ends right after a yield that gave the core
// away was waiting for a rank that needed this core (the OS may leave two ranks on one
// core while other work runs), and spinning only delays it, so the next waits spin
// little until one ends without such a yield.
//
// The caller owns the loop, because what a poll is differs (a progress round under a
// lock, a flag in shared memory) and the poll must stay inline: it asks a Waiter, after
// each poll that found nothing, which phase the wait is in. The Waiter's methods are
// small enough to be inlined, so a loop written with them compiles to what one written
// with local counters does.
//
// A wait given a context.Context watches it through a Watch (watch.go): polled where
// the policy yields or sleeps, and able to wake the wait's sleep, allocating nothing.
//
// The policy's settings are p2p_spin, p2p_yield and p2p_sleep (named when only the
// engine had a policy); Configured reads them.
package idle

import (
	"time"

	"github.com/mpigo/mpigo/internal/config"
	"github.com/mpigo/mpigo/internal/prof"
	"github.com/mpigo/mpigo/internal/yield"
)

// Policy is the idle policy's parameters.
type Policy struct {
	Spin  int           // polls before a wait starts yielding the OS thread
	Yield int           // polls, each followed by a yield, before a wait sleeps
	Sleep time.Duration // longest sleep, after which the waiter looks again
	// Handoffs, if not 0, ends the yield phase early: a wait sleeps once this many of
	// its yields gave the core to another task.
	Handoffs int
}

// The settings' defaults.
const (
	DefaultSpin  = 4000
	DefaultYield = 200
	DefaultSleep = time.Millisecond
)

// Default returns the policy of the settings' defaults.
func Default() Policy { return Policy{Spin: DefaultSpin, Yield: DefaultYield, Sleep: DefaultSleep} }

var (
	setSpin = config.Int("p2p_spin", DefaultSpin,
		"polls a waiting rank spins through before it starts yielding the CPU").AtLeast(0)
	setYield = config.Int("p2p_yield", DefaultYield,
		"polls, each followed by sched_yield, before a waiting rank sleeps on its doorbell").AtLeast(0)
	setSleep = config.Duration("p2p_sleep", DefaultSleep,
		"longest sleep on the doorbell between checks (a dead peer rings nobody)").Range(time.Microsecond, time.Second)
)

// RankTimerSlack is the timer slack the ranks of a full node start with. The launcher
// applies it (internal/launch); it is declared here, with the rest of how a rank waits,
// so that a rank lists it too (the tool interface shows every setting).
//
// Why: after a Go program blocks and resumes (the end of Init, a rank's first
// collective, any wait that slept), the runtime's monitor thread (sysmon) wakes every
// 20 us for its next 50 rounds before it backs off to 10 ms. When a node's ranks
// leave no CPU idle, each wake-up interrupts a rank that is working or waiting on a
// peer, and a Barrier's first few hundred calls run markedly slower than the later
// ones (a Go runtime that backs off at once removes the difference; the figures:
// docs/BENCHMARKS.md, launch). A timer slack lets the kernel fire sysmon's short sleeps
// together with other timers, at most one slack late: with 1 ms the Barrier is at its
// steady-state speed from the first call. sysmon starts before any of a program's
// code runs, so only its parent can give it a slack: the launcher sets it on the
// thread that starts the rank, and the rank's threads inherit it.
//
// The cost: a timed sleep of the rank (a Go timer, a futex wait with a timeout) may
// end up to the slack later. Go's timers already round sleeps up to a millisecond,
// and mpigo's waits are woken by their peers, not by their timeouts.
var RankTimerSlack = config.Int("rank_timer_slack", 1000,
	"timer slack, in microseconds, that the launcher gives the ranks of a node with no more CPUs than ranks, so that Go's runtime monitor wakes them less often (0: the launcher's own slack)").Range(0, 1_000_000).Launcher()

// RankSchedSlice is the scheduler slice the ranks of an oversubscribed node (more ranks
// than CPUs) start with, on Linux 6.12 and later, whose fair scheduler (EEVDF) lets a
// task ask for a slice of its own (sched_setattr's sched_runtime; older kernels ignore
// it). The launcher applies it, as RankTimerSlack, and a rank's threads inherit it.
//
// Why: an oversubscribed rank's wait ends in a futex sleep (Policy.Oversubscribed), and
// the peer that raises its word wakes it. When another process keeps a CPU busy (a
// build, another job), the woken rank lands behind it, and the kernel lets the running
// task finish its slice (milliseconds) before the woken one runs, so that every short
// collective takes a millisecond or more. A woken task whose slice is shorter than the
// running one's may preempt it: with 100 us slices such collectives take a tenth of
// that. The cost, a rank that computes beside others being switched more often, did
// not show in CPU-bound runs, nor did the ranks run slower alone (docs/BENCHMARKS.md,
// oversubscribed beside a busy process).
var RankSchedSlice = config.Int("rank_sched_slice", 100,
	"scheduler slice, in microseconds, that the launcher asks for the ranks of a node with more ranks than CPUs (Linux 6.12 and later, which takes at least 100), so that a woken rank need not wait out another process's slice (0: the kernel's)").Range(0, 100_000).Launcher()

// Configured returns the policy the settings p2p_spin, p2p_yield and p2p_sleep give (a
// value outside a setting's rule gives its default).
func Configured() Policy {
	return Policy{Spin: int(setSpin.Get()), Yield: int(setYield.Get()), Sleep: setSleep.Get()}
}

// Or returns p with its zero counts and a Sleep not above zero taken from d, and
// negative counts made zero (none), as the engine's and the groups' options read them.
func (p Policy) Or(d Policy) Policy {
	if p.Spin == 0 {
		p.Spin = d.Spin
	}
	if p.Yield == 0 {
		p.Yield = d.Yield
	}
	if p.Sleep <= 0 {
		p.Sleep = d.Sleep
	}
	p.Spin, p.Yield = max(p.Spin, 0), max(p.Yield, 0)
	return p
}

// Oversubscribed returns p for a rank whose node has more ranks than cores: another
// rank needs this core, so p spins at most MinSpin polls, and sleeps once MaxHandoffs
// of a wait's yields gave the core away.
func (p Policy) Oversubscribed() Policy {
	p.Spin = min(p.Spin, MinSpin)
	p.Handoffs = MaxHandoffs
	return p
}

// MaxHandoffs is how many of its yields an oversubscribed rank's wait lets give the
// core away before it sleeps. Such a yield is what a short wait for ranks on the same
// core needs (they run at once, and nobody pays for a futex wake), but hundreds of them
// do harm: Linux's scheduler (EEVDF) moves a task's deadline a slice later on every
// sched_yield that finds another task to run, so a rank whose wait yields the core
// hundreds of times ends it behind every task on its core, other jobs' included, and
// its next step (a Bcast's root, a reader's copy) waits for their slices. A sleeping
// rank is woken by its peer's raise. A yield that finds nobody else to run costs only
// the system call and is not counted. Fewer handoffs made the short collectives slower
// (docs/BENCHMARKS.md, Oversubscribed waits).
const MaxHandoffs = 16

// MinSpin is the spin of an oversubscribed rank, and the least spin of an adapted one.
const MinSpin = 16

// FirstNap bounds a wait's first sleep. A peer publishes its word with a plain store
// on amd64 (Publish) and then looks whether anyone sleeps; the store may reach memory
// after that look, and a waiter that announced its sleep in that instant is woken by
// nobody. The short first nap bounds what that costs. Later naps double, up to the
// policy's Sleep.
const FirstNap = 50 * time.Microsecond

// goschedMask: a spinning waiter lets the process's other goroutines run once per
// goschedMask+1 polls (a Gosched costs about as much as a poll's whole round trip).
const goschedMask = 255

// Adaptive is a Policy applied to the successive waits of one waiter (an engine, a
// rank of a group), with the spin in force: the policy's, or less while waits find
// this core shared (see the package comment). Not safe for concurrent use.
type Adaptive struct {
	p      Policy
	window int // a wait "ends right after" a yield within window polls of its spin's end
	now    int // the spin of the next wait
}

// NewAdaptive applies p to a series of waits (negative counts are none; a Sleep not
// above zero is DefaultSleep). window is how many polls past its spin a wait that
// yielded the core away may take and still count as ended right after that yield; it
// depends on how the caller counts its polls.
func NewAdaptive(p Policy, window int) Adaptive {
	p = p.Or(Policy{Sleep: DefaultSleep})
	return Adaptive{p: p, window: window, now: p.Spin}
}

// Policy returns the policy applied.
func (a *Adaptive) Policy() Policy { return a.p }

// Spin returns the spin of the next wait (Begin's).
func (a *Adaptive) Spin() int {
	if shared.Load() {
		return min(a.now, MinSpin)
	}
	return a.now
}

// Begin starts a wait: by the policy, or by Policy.Oversubscribed while the node is
// shared (shared.go).
func (a *Adaptive) Begin() Waiter {
	spin, h := a.now, a.p.Handoffs
	if shared.Load() {
		spin, h = min(a.now, MinSpin), MaxHandoffs
	}
	return Waiter{a: a, spin: spin, yield: spin + a.p.Yield, handoffs: h}
}

// Waiter is one wait. After each poll that found nothing the caller counts it with
// Next, which says whether the wait still spins; past the spin, Yielding says whether
// it yields (Yield) or sleeps (Sleep, or the caller's own futex sleep bounded by Nap).
// Past the yield phase every poll that finds nothing is followed by a sleep, until
// Restart. When the condition holds, End adapts the spin of the next waits.
type Waiter struct {
	a        *Adaptive
	n        int           // polls that found nothing since the wait began or Restart
	spin     int           // the spin phase's last poll
	yield    int           // the yield phase's last poll
	nap      time.Duration // the last sleep's bound; 0 before the first
	switched bool          // a yield of this wait gave the core to another process
	gave     int           // yields that gave the core away since the wait began or Restart
	handoffs int           // the policy's Handoffs for this wait
}

// Next counts k polls that found nothing and reports whether the wait still spins.
func (w *Waiter) Next(k int) bool {
	w.n += k
	return w.n <= w.spin
}

// Spinning reports whether the next poll is still one of the spin phase.
func (w *Waiter) Spinning() bool { return w.n < w.spin }

// Gosched, in the spin phase, lets the process's other goroutines run (what the wait
// is for may be one of them) once every goschedMask+1 polls, and reports whether it did.
func (w *Waiter) Gosched() bool {
	if w.n&goschedMask != 0 {
		return false
	}
	yield.Gosched()
	return true
}

// Yielding reports whether the wait, past its spin, is still in its yield phase (else
// it sleeps): its yields are not used up, nor its handoffs (Policy.Handoffs).
func (w *Waiter) Yielding() bool {
	return w.n <= w.yield && (w.handoffs == 0 || w.gave < w.handoffs)
}

// Yield lets other goroutines, then other processes, run, and notes whether another
// process took the core meanwhile.
func (w *Waiter) Yield() {
	prof.Blocked() // the call being served really waits: time it from here
	if yield.OS() {
		w.switched = true
		w.gave++
	}
}

// YieldOS is Yield for a wait whose peer is another process (a flag in a node's shared
// memory): it yields the core only, with no runtime.Gosched first, which with one P
// per rank costs a round of Go's scheduler before every sched_yield and so delays the
// handoff to the peer this wait is for. Such a caller still calls Yield now and then,
// so that the process's other goroutines run in a long wait.
func (w *Waiter) YieldOS() {
	prof.Blocked()
	if yield.Switch() {
		w.switched = true
		w.gave++
	}
}

// Nap returns the bound of the next sleep: FirstNap for the first one (since the wait
// began or Restart), twice the last for the next ones, at most the policy's Sleep.
func (w *Waiter) Nap() time.Duration {
	prof.Blocked()
	if w.nap == 0 {
		w.nap = FirstNap
	} else {
		w.nap *= 2
	}
	w.nap = min(w.nap, w.a.p.Sleep)
	return w.nap
}

// Sleep sleeps until the word at addr no longer holds val and a waker calls FutexWake
// on it, or Nap's bound passes (see FutexWait).
func (w *Waiter) Sleep(addr *uint32, val uint32) { FutexWait(addr, val, w.Nap()) }

// Restart starts the wait's phases over, spin, yield and short naps: something
// happened that may be followed by what it waits for soon (the engine's progress
// found a packet).
func (w *Waiter) Restart() { w.n, w.nap, w.gave = 0, 0, 0 }

// End adapts the spin of the next waits to how this one, whose condition now holds,
// ended: after a yield that gave the core away, within the Adaptive's window of polls
// past its spin, the next waits spin little; after none, the spin grows back.
func (w *Waiter) End() {
	a := w.a
	if w.switched && w.n <= w.spin+a.window {
		a.now = min(a.p.Spin, MinSpin)
	} else if !w.switched && a.now < a.p.Spin {
		a.now = min(a.p.Spin, 2*a.now+MinSpin)
	}
}
