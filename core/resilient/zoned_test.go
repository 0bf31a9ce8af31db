package resilient_test

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/resilient"
)

// zoned is a core.Store over core/memory whose keys live in failure
// domains, as a Redis Cluster's keys live on masters: the domain of
// "zone/rest" is "zone" (a key can be moved to another zone with move).
// Each zone can be taken down, and its calls are counted.
type zoned struct {
	mem   core.Store
	mu    sync.Mutex
	down  map[string]bool
	calls map[string]int
	moved map[string]string
}

var _ resilient.Domainer = (*zoned)(nil)

func newZoned() *zoned {
	return &zoned{mem: memory.New(), down: map[string]bool{}, calls: map[string]int{}, moved: map[string]string{}}
}

// Domain implements resilient.Domainer.
func (z *zoned) Domain(key string) string {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.zoneOf(key)
}

func (z *zoned) zoneOf(key string) string {
	if zone, ok := z.moved[key]; ok {
		return zone
	}
	zone, _, _ := strings.Cut(key, "/")
	return zone
}

// move serves key from zone from now on.
func (z *zoned) move(key, zone string) {
	z.mu.Lock()
	z.moved[key] = zone
	z.mu.Unlock()
}

func (z *zoned) setDown(zone string, down bool) {
	z.mu.Lock()
	z.down[zone] = down
	z.mu.Unlock()
}

// count returns the calls that reached zone.
func (z *zoned) count(zone string) int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.calls[zone]
}

func (z *zoned) fail(key string) error {
	z.mu.Lock()
	defer z.mu.Unlock()
	zone := z.zoneOf(key)
	z.calls[zone]++
	if z.down[zone] {
		return errDown
	}
	return nil
}

func (z *zoned) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	if err := z.fail(key); err != nil {
		return core.Result{}, err
	}
	return z.mem.Take(ctx, key, ps, cost, now)
}

func (z *zoned) Peek(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	if err := z.fail(key); err != nil {
		return core.Result{}, err
	}
	return z.mem.Peek(ctx, key, ps, cost, now)
}

func (z *zoned) Reset(ctx context.Context, key string, ps []core.Policy) error {
	if err := z.fail(key); err != nil {
		return err
	}
	return z.mem.Reset(ctx, key, ps)
}
