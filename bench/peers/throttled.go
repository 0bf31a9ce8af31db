package peers

import (
	"context"
	"time"

	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"

	"github.com/ratewindow/ratewindow/core"
)

// throttledLimiter is throttled/v2's GCRA limiter on its memstore: L per W
// sustained with a burst of L (MaxBurst L−1), so L requests pass at once,
// as in every other peer.
type throttledLimiter struct {
	rl  *throttled.GCRARateLimiterCtx
	ctx context.Context
}

func throttledPeer() Peer {
	return Peer{
		Name:      "throttled",
		Algorithm: "GCRA (token bucket, burst L)",
		New: func(limit int64, window time.Duration, clk core.Clock) (Limiter, error) {
			if err := checkArgs(limit, window); err != nil {
				return nil, err
			}
			ms, err := memstore.New(0)
			if err != nil {
				return nil, err
			}
			if clk != nil {
				ms.SetTimeNow(clk.Now)
			}
			q := throttled.RateQuota{MaxRate: throttled.PerDuration(int(limit), window), MaxBurst: int(limit) - 1}
			rl, err := throttled.NewGCRARateLimiterCtx(throttled.WrapStoreWithContext(ms), q)
			if err != nil {
				return nil, err
			}
			return &throttledLimiter{rl: rl, ctx: context.Background()}, nil
		},
	}
}

func (t *throttledLimiter) Allow(key string) bool {
	limited, _, err := t.rl.RateLimitCtx(t.ctx, key, 1)
	return err == nil && !limited
}

func (t *throttledLimiter) Close() {}
