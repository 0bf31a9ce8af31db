package peers

import (
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2/middleware/limiter"

	"github.com/ratewindow/ratewindow/core"
)

// Limiter is one rate limiter under test, reduced to the one question every
// limiter answers.
type Limiter interface {
	// Allow decides one request of cost 1 for key and charges it when it
	// is allowed.
	Allow(key string) bool
	// Close stops the limiter's background goroutines, if any.
	Close()
}

// Peer describes one limiter of the comparison and builds it.
type Peer struct {
	// Name is short and unique; benchmarks use it as their sub-name
	// ("ratewindow-sliding", "httprate").
	Name string
	// Algorithm names the algorithm in plain words ("fixed window").
	Algorithm string
	// Ours is true for ratewindow's own rows.
	Ours bool
	// RealTimeOnly is true when the limiter reads the wall clock itself and
	// cannot be given a fake one.
	RealTimeOnly bool
	// Shared is true when the limiter keeps one state for all keys (one
	// x/time/rate bucket): it has no per-key cost to measure.
	Shared bool
	// Granularity is the resolution of the limiter's own clock; zero means
	// fine enough not to matter.
	Granularity time.Duration
	// Align, if set, is called just before an accuracy run starts, to
	// begin it on a tick of the limiter's own clock.
	Align func()
	// New builds the limiter for limit requests per window. clk is the
	// clock to read; nil means the library's own, the way it runs in
	// production. Peers with RealTimeOnly ignore clk.
	New func(limit int64, window time.Duration, clk core.Clock) (Limiter, error)
}

// All returns every in-memory peer, ratewindow's algorithms first.
func All() []Peer {
	return []Peer{
		ratewindowPeer("ratewindow-fixed", "fixed window", core.FixedWindow),
		ratewindowPeer("ratewindow-sliding", "sliding window counter", core.SlidingWindow),
		ratewindowPeer("ratewindow-log", "sliding log", core.SlidingLog),
		httpratePeer(),
		sethvargoPeer(),
		ululePeer(),
		throttledPeer(),
		xrateOnePeer(),
		xrateMapPeer(),
	}
}

// Accuracy returns the peers of the accuracy comparison: every peer of
// All that keeps a state per key, and Fiber's limiter middleware with its
// fixed and its sliding window.
func Accuracy() []Peer {
	var ps []Peer
	for _, p := range All() {
		if !p.Shared {
			ps = append(ps, p)
		}
	}
	return append(ps,
		fiberPeer("fiber-limiter", "fixed window from first request", limiter.FixedWindow{}),
		fiberPeer("fiber-limiter-sliding", "sliding window counter", limiter.SlidingWindow{}),
	)
}

// Find returns the peer called name among All and Accuracy.
func Find(name string) (Peer, error) {
	for _, p := range append(All(), Accuracy()...) {
		if p.Name == name {
			return p, nil
		}
	}
	return Peer{}, fmt.Errorf("peers: no peer named %q", name)
}

// checkArgs rejects what no adapter can express.
func checkArgs(limit int64, window time.Duration) error {
	if limit < 1 || limit > 1<<40 {
		return fmt.Errorf("peers: limit %d outside [1, 2^40]", limit)
	}
	if window < time.Millisecond || window/time.Duration(limit) <= 0 {
		return fmt.Errorf("peers: window %v too short for limit %d", window, limit)
	}
	return nil
}
