package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// A policy taken from a Limiter and changed through its exported fields
// is a new policy: its Fingerprint is that of a policy written afresh with
// the same fields, not the one it was copied from.
func TestFingerprintFollowsTheFields(t *testing.T) {
	l, _ := newLimiter(t, core.PerSecond(5).Named("a"))
	orig := l.Policies()[0]
	for name, change := range map[string]func(p *core.Policy){
		"Name":      func(p *core.Policy) { p.Name = "b" },
		"Window":    func(p *core.Policy) { p.Window = time.Hour },
		"Algorithm": func(p *core.Policy) { p.Algorithm = core.SlidingLog },
	} {
		p := orig
		change(&p)
		fresh := core.Policy{Name: p.Name, Limit: p.Limit, Window: p.Window, Algorithm: p.Algorithm}
		assert.NotEqual(t, orig.Fingerprint(), p.Fingerprint(), "changed %s", name)
		assert.Equal(t, fresh.Fingerprint(), p.Fingerprint(), "changed %s", name)
	}
	p := orig
	p.Limit = 50
	assert.Equal(t, orig.Fingerprint(), p.Fingerprint(), "the Limit is not part of it")
	p = orig
	p.Name, p.Window, p.Algorithm = "", 0, 0
	assert.Equal(t, core.Policy{}.Fingerprint(), p.Fingerprint(), "cleared like the zero Policy")
}

// A store decorator that renames a Limiter's policies (per tenant, say)
// gets counts of its own for each name from the memory store.
func TestRenamedPolicyCountsApart(t *testing.T) {
	l, clock := newLimiter(t, core.PerSecond(5).Named("a"))
	a := l.Policies()
	b := []core.Policy{a[0]}
	b[0].Name = "tenant/a"
	s := memory.New()
	ctx := context.Background()
	r, err := s.Take(ctx, "k", a, 5, clock.Now())
	require.NoError(t, err)
	require.True(t, r.States[0].Allowed)
	r, err = s.Take(ctx, "k", b, 5, clock.Now())
	require.NoError(t, err)
	assert.True(t, r.States[0].Allowed, "tenant/a has spent nothing")
	assert.Equal(t, int64(0), r.States[0].Remaining)
}
