package faulttest

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/breakertest"
)

// probes is a primary store that counts the calls that reach it once the
// breaker has been open for settle (the breaker's probes: it lets no other
// call through until it closes), and those of them that started while an
// earlier one, started less than an open interval before, was still in
// flight (a probe older than that is given up: the next call probes in
// its place, and on a loaded machine one may outlive its deadline).
type probes struct {
	core.Store
	settle, interval time.Duration
	opened           atomic.Int64 // Unix nanoseconds of the first opening, 0 before
	sent             atomic.Int64

	mu       sync.Mutex
	inFlight map[*time.Time]struct{} // the starts of the probes in flight
	overlaps int
}

// open is the breaker's hook.
func (p *probes) open(from, to resilient.State) {
	if to == resilient.Open {
		p.opened.CompareAndSwap(0, time.Now().UnixNano())
	}
}

func (p *probes) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	if o := p.opened.Load(); o != 0 && time.Since(time.Unix(0, o)) > p.settle {
		p.sent.Add(1)
		start := time.Now()
		p.mu.Lock()
		for other := range p.inFlight {
			// 50 ms of slack: the breaker reads its clock a moment
			// before the call gets here, and on a busy machine that
			// moment may be tens of milliseconds. Probes let through
			// together start within a few milliseconds of each other,
			// and one given up at the deadline (100 ms) well short of
			// the interval (200 ms) less this slack.
			if start.Sub(*other) < p.interval-50*time.Millisecond {
				p.overlaps++
			}
		}
		p.inFlight[&start] = struct{}{}
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			delete(p.inFlight, &start)
			p.mu.Unlock()
		}()
	}
	return p.Store.Take(ctx, key, ps, cost, now)
}

// TestFrozenRedisBehindTheBreaker freezes redis-server (SIGSTOP: it
// accepts connections and never answers) under 8 concurrent callers
// behind a breaker with a fallback. Every call is answered within its
// deadline, by the fallback once the breaker is open; the breaker opens
// once and stays open, probing one call at a time, once per interval at
// most; when the server resumes (SIGCONT) one probe closes it and Redis
// decides again.
func TestFrozenRedisBehindTheBreaker(t *testing.T) {
	t.Parallel()
	const (
		deadline = 100 * time.Millisecond
		interval = 200 * time.Millisecond
		frozen   = 1500 * time.Millisecond
	)
	srv := startRedis(t)
	rs, err := redisstore.New(srv.client(t))
	require.NoError(t, err)
	hook := &probes{Store: rs, settle: deadline + 50*time.Millisecond, interval: interval, inFlight: map[*time.Time]struct{}{}}
	var changes breakertest.Log
	store, err := resilient.New(hook, resilient.WithFailureThreshold(3), resilient.WithOpenInterval(interval),
		resilient.WithFallback(1), resilient.WithOnStateChange(func(from, to resilient.State) {
			changes.Record(from, to)
			hook.open(from, to)
		}))
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.Per(1_000_000, time.Hour)})
	require.NoError(t, err)
	call := func(key string) (core.Decision, time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		start := time.Now()
		d, err := l.Allow(ctx, key)
		return d, time.Since(start), err
	}
	// Warm up on the live Redis with a deadline a busy machine cannot
	// exhaust: a warm-up call that ran out of time would be the
	// fallback's.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	d, err := l.Allow(ctx, "warm")
	cancel()
	require.NoError(t, err)
	require.False(t, d.Fallback)

	watch := watchStalls()
	defer watch.stop()
	srv.mu.Lock()
	proc := srv.cmd.Process
	srv.mu.Unlock()
	require.NoError(t, proc.Signal(syscall.SIGSTOP))
	resumed := false
	defer func() {
		if !resumed {
			_ = proc.Signal(syscall.SIGCONT)
		}
	}()
	begin := time.Now()
	end := begin.Add(frozen)
	var wg sync.WaitGroup
	var calls, fellBack atomic.Int64
	for g := range 8 {
		wg.Go(func() {
			for i := 0; time.Now().Before(end); i++ {
				from := time.Now()
				d, took, err := call("k" + strconv.Itoa(g) + "-" + strconv.Itoa(i%5))
				calls.Add(1)
				if !assert.NoError(t, err, "the fallback decides") {
					return
				}
				assert.True(t, d.Fallback, "decided by the fallback while Redis is frozen")
				if d.Fallback {
					fellBack.Add(1)
				}
				// A wide margin over the deadline for a busy machine: a call
				// that waited for the frozen server would take until the
				// server resumed, up to the whole freeze.
				bound := answerBound + watch.stalled(from, from.Add(took))
				assert.Less(t, took, bound, "answered within its deadline")
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(begin)
	assert.NotEqual(t, resilient.Closed, store.State(), "not closed while frozen")
	require.NoError(t, proc.Signal(syscall.SIGCONT))
	resumed = true

	hook.mu.Lock()
	overlaps := hook.overlaps
	hook.mu.Unlock()
	t.Logf("%d calls in %v, %d by the fallback, %d probes", calls.Load(), elapsed.Round(time.Millisecond),
		fellBack.Load(), hook.sent.Load())
	assert.Zero(t, overlaps, "one probe at a time")
	assert.LessOrEqual(t, hook.sent.Load(), int64(elapsed/interval)+1, "a probe per open interval at most")
	assert.GreaterOrEqual(t, hook.sent.Load(), int64(2), "the breaker keeps probing")
	got := changes.List()
	require.NotEmpty(t, got)
	assert.Equal(t, "closed->open", got[0])
	for _, c := range got[1:] {
		assert.Contains(t, []string{"open->half-open", "half-open->open"}, c, "never closed while frozen: %v", got)
	}

	// Resumed: within a few intervals a probe closes the breaker, and
	// Redis decides again.
	require.Eventually(t, func() bool {
		d, _, err := call("after")
		return err == nil && !d.Fallback && store.State() == resilient.Closed
	}, 10*interval, 10*time.Millisecond)
	assert.Equal(t, "half-open->closed", changes.List()[len(changes.List())-1])
}
