package peers

import (
	"sort"
	"sync/atomic"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// Timeline is the time an accuracy run lives in: a fake clock that Sleep
// advances, or the wall clock.
type Timeline interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// FakeTimeline is a Timeline, and a clock for the limiters, that moves only
// when Sleep advances it. It is safe for concurrent use.
type FakeTimeline struct{ ns atomic.Int64 }

// NewFakeTimeline returns a FakeTimeline reading t.
func NewFakeTimeline(t time.Time) *FakeTimeline {
	f := &FakeTimeline{}
	f.ns.Store(t.UnixNano())
	return f
}

// Now returns the fake time.
func (f *FakeTimeline) Now() time.Time { return time.Unix(0, f.ns.Load()) }

// Sleep advances the fake time by d.
func (f *FakeTimeline) Sleep(d time.Duration) { f.ns.Add(int64(d)) }

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

// FakeStart is the instant fake-clock accuracy runs begin at: a multiple
// of every window of a whole number of seconds up to 100 s, so windows
// aligned to the epoch begin there too.
var FakeStart = time.Unix(1_800_000_000, 0)

// AccuracyResult is the outcome of one boundary attack on one peer.
type AccuracyResult struct {
	Peer      string
	Algorithm string
	Limit     int64
	Window    time.Duration
	// RealTime is true when the run used the wall clock.
	RealTime bool
	// Admitted counts every request admitted during the run (3 windows).
	Admitted int
	// MaxInWindow is the most admitted in any rolling window [t, t+W).
	MaxInWindow int
}

// MeasureAccuracy runs BoundaryAttack on a fresh limiter of p, with limit
// per window on a fake clock, or, for a peer that runs only in real time,
// per realWindow (at least twice the peer's clock granularity) on the wall
// clock. A real-time run lasts three windows plus the wait of p.Align.
func MeasureAccuracy(p Peer, limit int64, window, realWindow time.Duration) (AccuracyResult, error) {
	res := AccuracyResult{Peer: p.Name, Algorithm: p.Algorithm, Limit: limit, Window: window, RealTime: p.RealTimeOnly}
	var (
		clk core.Clock
		tl  Timeline = RealTimeline{}
	)
	if p.RealTimeOnly {
		res.Window = max(realWindow, 2*p.Granularity)
	} else {
		fc := NewFakeTimeline(FakeStart)
		clk, tl = fc, fc
	}
	l, err := p.New(limit, res.Window, clk)
	if err != nil {
		return res, err
	}
	defer l.Close()
	if p.Align != nil {
		p.Align()
	}
	admitted := BoundaryAttack(l, "attacker", limit, res.Window, res.Window/100, tl)
	res.Admitted = len(admitted)
	res.MaxInWindow = MaxInWindow(admitted, res.Window)
	return res, nil
}
