package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// ErrStoreDown is what FailingStore returns.
var ErrStoreDown = errors.New("adaptertest: store is down")

// FailingStore is a core.Store whose every call fails with ErrStoreDown.
type FailingStore struct{}

// Take implements core.Store.
func (FailingStore) Take(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, ErrStoreDown
}

// Peek implements core.Store.
func (FailingStore) Peek(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, ErrStoreDown
}

// Reset implements core.Store.
func (FailingStore) Reset(context.Context, string, []core.Policy) error { return ErrStoreDown }

// HangingStore is a core.Store whose calls return only when their context
// ends, with the context's error: a store that never answers in time.
type HangingStore struct{}

func wait(ctx context.Context) error {
	<-ctx.Done()
	return fmt.Errorf("adaptertest: hanging store: %w", ctx.Err())
}

// Take implements core.Store.
func (HangingStore) Take(ctx context.Context, _ string, _ []core.Policy, _ int64, _ time.Time) (core.Result, error) {
	return core.Result{}, wait(ctx)
}

// Peek implements core.Store.
func (HangingStore) Peek(ctx context.Context, _ string, _ []core.Policy, _ int64, _ time.Time) (core.Result, error) {
	return core.Result{}, wait(ctx)
}

// Reset implements core.Store.
func (HangingStore) Reset(ctx context.Context, _ string, _ []core.Policy) error { return wait(ctx) }
