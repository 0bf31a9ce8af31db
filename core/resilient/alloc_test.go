package resilient_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/resilient"
)

// TestHotPathsAllocateNothing: the decorator adds no allocation to an
// allowed decision, to a remembered denial, or to a fallback decision.
func TestHotPathsAllocateNothing(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.Per(1_000_000_000, time.Hour), core.Per(1, time.Hour).Named("tight"))
	allow := ps[:1]

	s, err := resilient.New(memory.New(), resilient.WithDenyCache(), resilient.WithFallback(2))
	require.NoError(t, err)
	_, _ = s.Take(ctx, "k", allow, 1, t0)
	assert.Zero(t, testing.AllocsPerRun(200, func() { _, _ = s.Take(ctx, "k", allow, 1, t0) }), "allowed")

	_, _ = s.Take(ctx, "d", ps, 1, t0)
	r, _ := s.Take(ctx, "d", ps, 1, t0)
	require.False(t, r.States[1].Allowed)
	assert.Zero(t, testing.AllocsPerRun(200, func() { _, _ = s.Take(ctx, "d", ps, 1, t0) }), "remembered denial")

	d := newDouble()
	d.down.Store(true)
	f, err := resilient.New(d, resilient.WithFallback(2))
	require.NoError(t, err)
	_, _ = f.Take(ctx, "k", allow, 1, t0)
	assert.Zero(t, testing.AllocsPerRun(200, func() { _, _ = f.Take(ctx, "k", allow, 1, t0) }), "fallback")
	assert.Equal(t, resilient.Open, f.State())

	// With a breaker per domain: closed, and open with the fallback
	// deciding while another domain is closed.
	z := newZoned()
	zs, err := resilient.New(z, resilient.WithFailureThreshold(1), resilient.WithFallback(2))
	require.NoError(t, err)
	_, _ = zs.Take(ctx, "a/k", allow, 1, t0)
	assert.Zero(t, testing.AllocsPerRun(200, func() { _, _ = zs.Take(ctx, "a/k", allow, 1, t0) }), "allowed, domains")
	z.setDown("b", true)
	_, _ = zs.Take(ctx, "b/k", allow, 1, t0)
	require.Equal(t, resilient.Open, zs.State())
	assert.Zero(t, testing.AllocsPerRun(200, func() { _, _ = zs.Take(ctx, "a/k", allow, 1, t0) }), "allowed, another domain open")
	assert.Zero(t, testing.AllocsPerRun(200, func() { _, _ = zs.Take(ctx, "b/k", allow, 1, t0) }), "fallback, domains")
}

// domainOf names the domain of a key as zoned does, over any store.
type domainOf struct{ core.Store }

func (domainOf) Domain(key string) string {
	zone, _, _ := strings.Cut(key, "/")
	return zone
}

func BenchmarkTake(b *testing.B) {
	ctx := context.Background()
	ps := policies(core.Per(1_000_000_000, time.Hour))
	bare := memory.New()
	s, err := resilient.New(memory.New(), resilient.WithDenyCache())
	require.NoError(b, err)
	domains, err := resilient.New(domainOf{memory.New()}, resilient.WithDenyCache())
	require.NoError(b, err)
	for _, c := range []struct {
		name  string
		store core.Store
	}{{"memory", bare}, {"resilient", s}, {"domains", domains}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					_, _ = c.store.Take(ctx, "k", ps, 1, t0)
				}
			})
		})
	}
}
