package storetest_test

import (
	"context"
	"sync"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// broken is a Store decorator that breaks one promise of the store under
// it. Each hook left nil passes the call through.
type broken struct {
	inner core.Store
	take  func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error)
	peek  func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error)
	reset func(ctx context.Context, key string, ps []core.Policy) error
	// state rewrites each policy's state of every Result, Take's and Peek's.
	state func(st *core.PolicyState, p core.Policy, cost int64, now time.Time)
}

func (b *broken) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	take := b.inner.Take
	if b.take != nil {
		take = b.take
	}
	return b.rewrite(take(ctx, key, ps, cost, now))(ps, cost, now)
}

func (b *broken) Peek(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	peek := b.inner.Peek
	if b.peek != nil {
		peek = b.peek
	}
	return b.rewrite(peek(ctx, key, ps, cost, now))(ps, cost, now)
}

func (b *broken) Reset(ctx context.Context, key string, ps []core.Policy) error {
	if b.reset != nil {
		return b.reset(ctx, key, ps)
	}
	return b.inner.Reset(ctx, key, ps)
}

func (b *broken) rewrite(r core.Result, err error) func([]core.Policy, int64, time.Time) (core.Result, error) {
	return func(ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
		if err == nil && b.state != nil && len(ps) <= core.MaxPolicies {
			for i, p := range ps {
				b.state(&r.States[i], p, cost, now)
			}
		}
		return r, err
	}
}

func allAllowed(r core.Result, ps []core.Policy) bool {
	for i := range ps {
		if !r.States[i].Allowed {
			return false
		}
	}
	return true
}

// keyLog is what the mutants whose fault depends on a key's history
// remember: per key, the latest instant, the keys seen, the first limit
// of each policy, the policies charged.
type keyLog struct {
	mu     sync.Mutex
	last   map[string]time.Time
	keys   map[string]bool
	limits map[string]int64
	pols   map[string][]core.Policy
}

func newKeyLog() *keyLog {
	return &keyLog{last: map[string]time.Time{}, keys: map[string]bool{}, limits: map[string]int64{}, pols: map[string][]core.Policy{}}
}

// see records now as key's latest instant, unless a later one is
// recorded, and returns the one recorded before the call, if any.
func (kl *keyLog) see(key string, now time.Time) (last time.Time, seen bool) {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	last, seen = kl.last[key]
	if !seen || now.After(last) {
		kl.last[key] = now
	}
	return last, seen
}

// latest returns key's latest instant recorded, if any.
func (kl *keyLog) latest(key string) (time.Time, bool) {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	last, ok := kl.last[key]
	return last, ok
}

// setLatest records now as key's latest instant, whatever is recorded.
func (kl *keyLog) setLatest(key string, now time.Time) {
	kl.mu.Lock()
	kl.last[key] = now
	kl.mu.Unlock()
}

func longest(ps []core.Policy) time.Duration {
	var w time.Duration
	for _, p := range ps {
		w = max(w, p.Window)
	}
	return w
}

// truncating keys by their first n bytes.
func truncating(n int) core.Store {
	m := memory.New()
	cut := func(key string) string { return key[:min(n, len(key))] }
	return &broken{inner: m,
		take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			return m.Take(ctx, cut(key), ps, cost, now)
		},
		peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			return m.Peek(ctx, cut(key), ps, cost, now)
		},
		reset: func(ctx context.Context, key string, ps []core.Policy) error {
			return m.Reset(ctx, cut(key), ps)
		}}
}

// clocked passes every call the instant adjust makes of now and of the
// latest instant the key was called at.
func clocked(adjust func(last, now time.Time, ps []core.Policy) time.Time) core.Store {
	m, kl := memory.New(), newKeyLog()
	fix := func(key string, ps []core.Policy, now time.Time) time.Time {
		if last, ok := kl.see(key, now); ok && !now.After(last) {
			return adjust(last, now, ps)
		}
		return now
	}
	return &broken{inner: m,
		take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			return m.Take(ctx, key, ps, cost, fix(key, ps, now))
		},
		peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			return m.Peek(ctx, key, ps, cost, fix(key, ps, now))
		}}
}

// expiring forgets a key windows × a window after its last admission: the
// longest window of the call's policies, or with first the first's.
func expiring(windows int, first bool) core.Store {
	m, kl := memory.New(), newKeyLog()
	expire := func(ctx context.Context, key string, ps []core.Policy, now time.Time) error {
		ttl := longest(ps)
		if first {
			ttl = ps[0].Window
		}
		if last, ok := kl.latest(key); ok && now.Sub(last) >= time.Duration(windows)*ttl {
			return m.Reset(ctx, key, ps)
		}
		return nil
	}
	return &broken{inner: m,
		take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			if len(ps) == 0 {
				return m.Take(ctx, key, ps, cost, now)
			}
			if err := expire(ctx, key, ps, now); err != nil {
				return core.Result{}, err
			}
			r, err := m.Take(ctx, key, ps, cost, now)
			if err == nil && allAllowed(r, ps) {
				kl.setLatest(key, now)
			}
			return r, err
		},
		peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			if len(ps) > 0 {
				if err := expire(ctx, key, ps, now); err != nil {
					return core.Result{}, err
				}
			}
			return m.Peek(ctx, key, ps, cost, now)
		}}
}

// rewriting is a memory store whose Take and Peek, and Reset when
// resetToo, are called with the key rewritten by key and the policies by
// policies (nil leaves either as it is).
func rewriting(key func(string) string, policies func(key string, ps []core.Policy) []core.Policy, resetToo bool) core.Store {
	m := memory.New()
	in := func(k string, ps []core.Policy) (string, []core.Policy) {
		if policies != nil {
			ps = policies(k, ps)
		}
		if key != nil {
			k = key(k)
		}
		return k, ps
	}
	b := &broken{inner: m,
		take: func(ctx context.Context, k string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			k, ps = in(k, ps)
			return m.Take(ctx, k, ps, cost, now)
		},
		peek: func(ctx context.Context, k string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			k, ps = in(k, ps)
			return m.Peek(ctx, k, ps, cost, now)
		}}
	if resetToo {
		b.reset = func(ctx context.Context, k string, ps []core.Policy) error {
			k, ps = in(k, ps)
			return m.Reset(ctx, k, ps)
		}
	}
	return b
}

// retimed is a memory store whose Take and Peek are called at the instant
// at makes of the call's.
func retimed(at func(time.Time) time.Time) core.Store {
	m := memory.New()
	return &broken{inner: m,
		take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			return m.Take(ctx, key, ps, cost, at(now))
		},
		peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			return m.Peek(ctx, key, ps, cost, at(now))
		}}
}

// logMovedWithinWindow is a memory store whose sliding logs (calls of
// one sliding-log policy) are moved to now whenever the clock steps back
// behind the newest request, even by less than a window: every unit is
// kept, as one request at now, so it leaves the window earlier than the
// requests it stands for.
func logMovedWithinWindow() core.Store {
	m := memory.New()
	var mu sync.Mutex
	newest := map[string]int64{}
	move := func(ctx context.Context, key string, ps []core.Policy, now time.Time, take bool) {
		if len(ps) != 1 || ps[0].Algorithm != core.SlidingLog {
			return
		}
		ms := now.UnixMilli()
		n, ok := newest[key]
		if !ok || n <= ms {
			return
		}
		if n > ms+ps[0].Window.Milliseconds() {
			if take {
				newest[key] = ms // the memory store moves it itself
			}
			return
		}
		p, err := m.Peek(ctx, key, ps, 1, now)
		if err != nil || m.Reset(ctx, key, ps) != nil {
			return
		}
		if count := ps[0].Limit - p.States[0].Remaining; count > 0 {
			_, _ = m.Take(ctx, key, ps, count, now)
		}
		newest[key] = ms
	}
	return &broken{inner: m,
		take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			move(ctx, key, ps, now, true)
			r, err := m.Take(ctx, key, ps, cost, now)
			if err == nil && len(ps) == 1 && r.States[0].Allowed {
				newest[key] = max(newest[key], now.UnixMilli())
			}
			return r, err
		},
		peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			move(ctx, key, ps, now, false)
			return m.Peek(ctx, key, ps, cost, now)
		},
		reset: func(ctx context.Context, key string, ps []core.Policy) error {
			mu.Lock()
			defer mu.Unlock()
			delete(newest, key)
			return m.Reset(ctx, key, ps)
		},
	}
}
