package peers

import (
	"context"
	"time"

	ululelimiter "github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/memory"

	"github.com/ratewindow/ratewindow/core"
)

// ululeLimiter is ulule/limiter/v3 on its memory store: a fixed window per
// key that starts at the key's first request. Every request is counted,
// allowed or not. It reads the clock itself.
type ululeLimiter struct {
	l   *ululelimiter.Limiter
	ctx context.Context
}

func ululePeer() Peer {
	return Peer{
		Name:         "ulule",
		Algorithm:    "fixed window from first request",
		RealTimeOnly: true,
		New: func(limit int64, window time.Duration, _ core.Clock) (Limiter, error) {
			if err := checkArgs(limit, window); err != nil {
				return nil, err
			}
			l := ululelimiter.New(memory.NewStore(), ululelimiter.Rate{Period: window, Limit: limit})
			return &ululeLimiter{l: l, ctx: context.Background()}, nil
		},
	}
}

func (u *ululeLimiter) Allow(key string) bool {
	c, err := u.l.Get(u.ctx, key)
	return err == nil && !c.Reached
}

func (u *ululeLimiter) Close() {}
