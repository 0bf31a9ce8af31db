package resilient

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/standin"
	"github.com/ratewindow/ratewindow/core/memory"
)

// downStore is a primary that always fails, so every call goes to the
// fallback.
type downStore struct{}

var errPrimaryDown = errors.New("primary down")

func (downStore) Take(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, errPrimaryDown
}

func (downStore) Peek(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, errPrimaryDown
}

func (downStore) Reset(context.Context, string, []core.Policy) error { return errPrimaryDown }

// hookedStore runs afterTake after each Take of the store it wraps, and
// tells resetting when a Reset reaches it.
type hookedStore struct {
	core.Store
	afterTake func()
	resetting chan struct{}
}

func (h *hookedStore) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	r, err := h.Store.Take(ctx, key, ps, cost, now)
	h.afterTake()
	return r, err
}

func (h *hookedStore) Reset(ctx context.Context, key string, ps []core.Policy) error {
	close(h.resetting)
	return h.Store.Reset(ctx, key, ps)
}

// A Reset that comes while the fallback charges a call policy by policy
// (a cost above one policy's local share, not the other's) waits for the
// call: it must not clear the policy already charged and leave the other's
// charge standing, which neither order of the two calls gives.
func TestFallbackResetDuringUnequalChargesIsAllOrNothing(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{
		core.Per(4, time.Second).Named("short"), // a local share of 2
		core.Per(20, time.Minute).Named("long"), // a local share of 10
	})
	require.NoError(t, err)
	ps := l.Policies()
	s, err := New(downStore{}, WithFallback(2))
	require.NoError(t, err)
	ctx := context.Background()
	at := time.UnixMilli(1_800_000_000_000)

	hooked := &hookedStore{Store: s.fallback.store, resetting: make(chan struct{})}
	s.fallback.store = hooked
	var once sync.Once
	done := make(chan struct{})
	hooked.afterTake = func() {
		once.Do(func() {
			// The short policy is charged, the long one not yet.
			started := make(chan struct{})
			go func() {
				defer close(done)
				close(started)
				_ = s.Reset(ctx, "k", ps)
			}()
			<-started
			select {
			case <-hooked.resetting: // the Reset went through: the old code
			case <-time.After(200 * time.Millisecond): // it waits for the call
			}
		})
	}
	r, err := s.Take(ctx, "k", ps, 5, at)
	require.ErrorIs(t, err, standin.ErrFallback)
	require.True(t, r.States[0].Allowed && r.States[1].Allowed, "the call of cost 5 is admitted on empty shares")
	<-done

	r, err = s.Peek(ctx, "k", ps, 1, at)
	require.ErrorIs(t, err, standin.ErrFallback)
	short, long := r.States[0].Remaining, r.States[1].Remaining
	resetFirst := short == 0 && long == 5 // the Reset, then the call
	takeFirst := short == 2 && long == 10 // the call, then the Reset
	assert.True(t, resetFirst || takeFirst, "left: short %d of 2, long %d of 10", short, long)
}
