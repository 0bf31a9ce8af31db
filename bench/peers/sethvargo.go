package peers

import (
	"context"
	"time"

	"github.com/sethvargo/go-limiter"
	"github.com/sethvargo/go-limiter/memorystore"

	"github.com/ratewindow/ratewindow/core"
)

// sethvargoLimiter is sethvargo/go-limiter's memorystore: a token bucket per
// key (a map under one RWMutex, a mutex per bucket) that refills all of its
// tokens once per interval, counted from the bucket's creation. It reads the
// clock itself.
type sethvargoLimiter struct {
	s   limiter.Store
	ctx context.Context
}

func sethvargoPeer() Peer {
	return Peer{
		Name:         "sethvargo",
		Algorithm:    "fixed window per key (bucket refilled each interval)",
		RealTimeOnly: true,
		New: func(limit int64, window time.Duration, _ core.Clock) (Limiter, error) {
			if err := checkArgs(limit, window); err != nil {
				return nil, err
			}
			s, err := memorystore.New(&memorystore.Config{Tokens: uint64(limit), Interval: window})
			if err != nil {
				return nil, err
			}
			return &sethvargoLimiter{s: s, ctx: context.Background()}, nil
		},
	}
}

func (s *sethvargoLimiter) Allow(key string) bool {
	_, _, _, ok, err := s.s.Take(s.ctx, key)
	return err == nil && ok
}

func (s *sethvargoLimiter) Close() { _ = s.s.Close(s.ctx) }
