package peers

import (
	"sort"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// Timeline is the time an accuracy run lives in: a fake clock that Sleep
// advances, or the wall clock.
type Timeline interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// FakeTimeline is a Timeline on a core.FakeClock; Sleep advances it.
type FakeTimeline struct{ *core.FakeClock }

// Sleep advances the fake clock by d.
func (f FakeTimeline) Sleep(d time.Duration) { f.Advance(d) }

// RealTimeline is the wall clock.
type RealTimeline struct{}

// Now returns time.Now().
func (RealTimeline) Now() time.Time { return time.Now() }

// Sleep calls time.Sleep.
func (RealTimeline) Sleep(d time.Duration) { time.Sleep(d) }

// BoundaryAttack is the client that makes a limiter of limit L per window
// W admit the most in some rolling window of length W:
//
//  1. one request at t0, which starts the window of limiters whose windows
//     begin at a key's first request (and is the only request of that
//     window for the others, when t0 is on a window boundary);
//  2. nothing until t0 + W − step, so a token bucket refills completely;
//  3. from then until t0 + 3W, every step, requests until one is denied
//     (at most limit+1 per step).
//
// A fixed window admits L−1 just before its boundary and L just after; a
// token bucket admits a full burst and then its refill; a sliding counter
// lets the previous window's count decay; an exact log admits no more
// than L. BoundaryAttack returns the times of the admitted requests, read
// from tl after each admission.
func BoundaryAttack(l Limiter, key string, limit int64, window, step time.Duration, tl Timeline) []time.Time {
	var admitted []time.Time
	t0 := tl.Now()
	if l.Allow(key) {
		admitted = append(admitted, tl.Now())
	}
	if d := window - step - tl.Now().Sub(t0); d > 0 {
		tl.Sleep(d)
	}
	for tl.Now().Sub(t0) < 3*window {
		for i := int64(0); i <= limit; i++ {
			if !l.Allow(key) {
				break
			}
			admitted = append(admitted, tl.Now())
		}
		tl.Sleep(step)
	}
	return admitted
}

// MaxInWindow returns the largest number of times that fall in one
// half-open interval [t, t+window), over every t.
func MaxInWindow(times []time.Time, window time.Duration) int {
	ts := append([]time.Time(nil), times...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	best, j := 0, 0
	for i := range ts {
		// The best interval starts at some admitted time ts[i].
		if j < i {
			j = i
		}
		for j < len(ts) && ts[j].Sub(ts[i]) < window {
			j++
		}
		best = max(best, j-i)
	}
	return best
}
