package resilient_test

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

// errDown is what the double returns while it is "down".
var errDown = errors.New("double: store down")

// double is a core.Store over core/memory that counts its calls and can be
// told to fail, to block until the caller's context is done, or to return a
// given error.
type double struct {
	mem   core.Store
	calls atomic.Int64
	down  atomic.Bool
	block atomic.Bool
	err   atomic.Pointer[error]
	// entered, if set, receives a value when a blocking call starts.
	entered chan struct{}
}

func newDouble() *double { return &double{mem: memory.New()} }

func (d *double) fail() error {
	d.calls.Add(1)
	if p := d.err.Load(); p != nil {
		return *p
	}
	if d.down.Load() {
		return errDown
	}
	return nil
}

func (d *double) wait(ctx context.Context) error {
	if !d.block.Load() {
		return nil
	}
	if d.entered != nil {
		d.entered <- struct{}{}
	}
	<-ctx.Done()
	return ctx.Err()
}

func (d *double) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	if err := d.fail(); err != nil {
		return core.Result{}, err
	}
	if err := d.wait(ctx); err != nil {
		return core.Result{}, err
	}
	return d.mem.Take(ctx, key, ps, cost, now)
}

func (d *double) Peek(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	if err := d.fail(); err != nil {
		return core.Result{}, err
	}
	if err := d.wait(ctx); err != nil {
		return core.Result{}, err
	}
	return d.mem.Peek(ctx, key, ps, cost, now)
}

func (d *double) Reset(ctx context.Context, key string, ps []core.Policy) error {
	if err := d.fail(); err != nil {
		return err
	}
	return d.mem.Reset(ctx, key, ps)
}

// t0 is a fixed instant aligned to every window the tests use.
var t0 = time.UnixMilli(1_800_000_000_000)

func policies(ps ...core.Policy) []core.Policy {
	out, err := policytest.Validate(ps)
	if err != nil {
		panic(err)
	}
	return out
}
