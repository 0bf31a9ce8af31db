package peers

import (
	"math"
	"sync"
	"time"

	"github.com/go-chi/httprate"

	"github.com/ratewindow/ratewindow/core"
)

// httprateLimiter drives httprate's in-memory LimitCounter the way
// httprate.RateLimiter.OnLimit does: under one mutex, read the current and
// previous window counts, estimate prev×(W−elapsed)/W + curr, round it,
// and increment when rate+1 ≤ limit. Only the response headers are left
// out (they would add allocations that are not the limiter's). Windows are
// aligned to multiples of W, as httprate aligns them for custom counters.
type httprateLimiter struct {
	mu      sync.Mutex
	counter httprate.LimitCounter
	limit   int
	window  time.Duration
	now     func() time.Time
}

func httpratePeer() Peer {
	return Peer{
		Name:      "httprate",
		Algorithm: "sliding window counter",
		New: func(limit int64, window time.Duration, clk core.Clock) (Limiter, error) {
			if err := checkArgs(limit, window); err != nil {
				return nil, err
			}
			h := &httprateLimiter{
				counter: httprate.NewLocalLimitCounter(window),
				limit:   int(limit),
				window:  window,
				now:     time.Now,
			}
			if clk != nil {
				h.now = clk.Now
			}
			return h, nil
		},
	}
}

func (h *httprateLimiter) Allow(key string) bool {
	now := h.now().UTC()
	curr := now.Truncate(h.window)
	prev := curr.Add(-h.window)

	h.mu.Lock()
	defer h.mu.Unlock()
	currCount, prevCount, err := h.counter.Get(key, curr, prev)
	if err != nil {
		return false
	}
	w := float64(h.window)
	rate := int(math.Round(float64(prevCount)*(w-float64(now.Sub(curr)))/w + float64(currCount)))
	if rate+1 > h.limit {
		return false
	}
	return h.counter.IncrementBy(key, curr, 1) == nil
}

func (h *httprateLimiter) Close() {}
