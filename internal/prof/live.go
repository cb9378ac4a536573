package prof

import "sync/atomic"

// Live reads of the record, for the tool information interface (MPI_T performance
// variables, internal/mpir): one call's totals as they are now, read where they are
// with atomic loads, as a snapshot reads them, without making one.

// LiveTotals returns call's totals so far: the number of calls, their bytes, and their
// time in seconds (measured, and estimated for the calls not timed, as the profile's
// summary gives it). It adds the calls the C library counts in its own memory. Any
// goroutine.
func LiveTotals(call Call) (n, bytes uint64, seconds float64) {
	if call == None || call >= NumCalls {
		return 0, 0, 0
	}
	var t Counter
	c := &counts[call]
	t.Bytes = atomic.LoadUint64(&c.Bytes)
	t.Timed, t.Ticks = atomic.LoadUint64(&c.Timed), atomic.LoadUint64(&c.Ticks)
	t.Quick, t.QuickTicks = atomic.LoadUint64(&c.Quick), atomic.LoadUint64(&c.QuickTicks)
	t.Waited, t.WaitTicks = atomic.LoadUint64(&c.Waited), atomic.LoadUint64(&c.WaitTicks)
	for b := range t.Hist {
		t.N += atomic.LoadUint64(&c.Hist[b])
	}
	matrix.Lock()
	for _, x := range matrix.tallies {
		if x.call == call {
			t.Bytes += atomic.LoadUint64(&x.t.Bytes)
			for b := range x.t.Hist {
				t.N += atomic.LoadUint64(&x.t.Hist[b])
			}
			x.t.addSamples(&t)
		}
	}
	matrix.Unlock()
	if t.N == 0 {
		return 0, 0, 0
	}
	return t.N, t.Bytes, t.Estimate() * secondsPerTick()
}

// secondsPerTick converts ticks, as measured from Start to now (1e-9 before Start:
// no call is timed then).
func secondsPerTick() float64 {
	if !started.Load() {
		return 1e-9
	}
	s := start // written by Start before started
	now := pairNow()
	if now.Ticks <= s.Ticks || now.Unix <= s.Unix {
		return 1e-9
	}
	return float64(now.Unix-s.Unix) / float64(now.Ticks-s.Ticks) / 1e9
}

// Calls lists every call the record counts (None excepted), in order.
func Calls() []Call {
	out := make([]Call, 0, NumCalls-1)
	for c := Call(1); c < NumCalls; c++ {
		out = append(out, c)
	}
	return out
}
