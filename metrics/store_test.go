package metrics_test

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// errStoreDown is what storeDouble returns while it is down.
var errStoreDown = errors.New("test store: down")

// storeDouble is a core.Store over core/memory that counts its calls and
// fails while down is set.
type storeDouble struct {
	mem   core.Store
	calls atomic.Int64
	down  atomic.Bool
}

func newStoreDouble() *storeDouble { return &storeDouble{mem: memory.New()} }

func (s *storeDouble) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	s.calls.Add(1)
	if s.down.Load() {
		return core.Result{}, errStoreDown
	}
	return s.mem.Take(ctx, key, ps, cost, now)
}

func (s *storeDouble) Peek(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	s.calls.Add(1)
	if s.down.Load() {
		return core.Result{}, errStoreDown
	}
	return s.mem.Peek(ctx, key, ps, cost, now)
}

func (s *storeDouble) Reset(ctx context.Context, key string, ps []core.Policy) error {
	if s.down.Load() {
		return errStoreDown
	}
	return s.mem.Reset(ctx, key, ps)
}
