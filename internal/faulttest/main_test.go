package faulttest

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ratewindow/ratewindow/core"
)

// quiet drops go-redis's log lines: these tests make Redis fail on
// purpose, and every failed dial would be logged.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func TestMain(m *testing.M) {
	redis.SetLogger(quiet{})
	os.Exit(m.Run())
}

// takeCounter is a core.Store that counts the Take calls it passes on.
type takeCounter struct {
	core.Store
	takes atomic.Int64
}

func (c *takeCounter) Take(ctx context.Context, key string, policies []core.Policy, cost int64, now time.Time) (core.Result, error) {
	c.takes.Add(1)
	return c.Store.Take(ctx, key, policies, cost, now)
}
