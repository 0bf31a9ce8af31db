package peers

import (
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/ratewindow/ratewindow/core"
)

// newBucket is an x/time/rate token bucket holding limit tokens, refilled
// at limit per window.
func newBucket(limit int64, window time.Duration) *rate.Limiter {
	return rate.NewLimiter(rate.Every(window/time.Duration(limit)), int(limit))
}

// allowAt asks b for one token now, or at clk's time when clk is set.
func allowAt(b *rate.Limiter, clk core.Clock) bool {
	if clk == nil {
		return b.Allow()
	}
	return b.AllowN(clk.Now(), 1)
}

// xrateOne is a single x/time/rate bucket that ignores the key: the floor
// of any limiter, with no per-key lookup at all.
type xrateOne struct {
	b   *rate.Limiter
	clk core.Clock
}

func xrateOnePeer() Peer {
	return Peer{
		Name:      "xrate-one",
		Algorithm: "token bucket, one for all keys",
		Shared:    true,
		New: func(limit int64, window time.Duration, clk core.Clock) (Limiter, error) {
			if err := checkArgs(limit, window); err != nil {
				return nil, err
			}
			return &xrateOne{b: newBucket(limit, window), clk: clk}, nil
		},
	}
}

func (x *xrateOne) Allow(string) bool { return allowAt(x.b, x.clk) }

func (x *xrateOne) Close() {}

// xrateMap is the idiom found in many services: a map of x/time/rate
// buckets under one mutex, a bucket created on a key's first request.
type xrateMap struct {
	mu     sync.Mutex
	m      map[string]*rate.Limiter
	limit  int64
	window time.Duration
	clk    core.Clock
}

func xrateMapPeer() Peer {
	return Peer{
		Name:      "xrate-map",
		Algorithm: "token bucket per key, map under a mutex",
		New: func(limit int64, window time.Duration, clk core.Clock) (Limiter, error) {
			if err := checkArgs(limit, window); err != nil {
				return nil, err
			}
			return &xrateMap{m: make(map[string]*rate.Limiter), limit: limit, window: window, clk: clk}, nil
		},
	}
}

func (x *xrateMap) Allow(key string) bool {
	x.mu.Lock()
	b, ok := x.m[key]
	if !ok {
		b = newBucket(x.limit, x.window)
		x.m[key] = b
	}
	x.mu.Unlock()
	return allowAt(b, x.clk)
}

func (x *xrateMap) Close() {}
