package peers

import (
	"context"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// rwLimiter is ratewindow: a core.Limiter on the memory store with one
// policy.
type rwLimiter struct {
	l   *core.Limiter
	ctx context.Context
}

func ratewindowPeer(name, alg string, a core.Algorithm) Peer {
	return Peer{
		Name:      name,
		Algorithm: alg,
		Ours:      true,
		New: func(limit int64, window time.Duration, clk core.Clock) (Limiter, error) {
			if err := checkArgs(limit, window); err != nil {
				return nil, err
			}
			var opts []core.Option
			if clk != nil {
				opts = append(opts, core.WithClock(clk))
			}
			l, err := core.NewLimiter(memory.New(), []core.Policy{core.Per(limit, window).Using(a)}, opts...)
			if err != nil {
				return nil, err
			}
			return &rwLimiter{l: l, ctx: context.Background()}, nil
		},
	}
}

func (r *rwLimiter) Allow(key string) bool {
	d, err := r.l.Allow(r.ctx, key)
	return err == nil && d.Allowed
}

func (r *rwLimiter) Close() {}
