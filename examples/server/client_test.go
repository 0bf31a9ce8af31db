package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	ratelimitclient "github.com/ratewindow/ratewindow/client"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// Pacing against the demo server, over loopback: a caller sends twice the
// limit through the client transport and sees only 200s (and no 429 is
// even sent back on the wire), in about the shortest time the server's
// algorithm allows.
//
// The shortest time is computed, not guessed: the same policies on a fake
// clock starting at the same instant, a greedy sender that retries each
// denial after exactly its RetryAfter (which is honest: the earliest
// instant the request is admitted). The client can only do worse, so
// elapsed ≥ minimum. What the client adds is its waits: it reads whole
// seconds from the fields and adds up to 5% jitter, so its own time (each
// request's time in the client less the round trip below it: the
// server's, Redis's and the loopback's) is allowed the minimum plus 10%,
// a small constant, and the time this process was kept from running (see
// watchStalls): on a loaded machine a timer that should end a wait fires
// late by as much, and nine subtests in one process under the race
// detector all send at the same whole second.
//
// The start is placed just after a whole second, so the windows of the
// fixed and sliding-window algorithms (aligned to the Unix epoch) begin
// where the whole-second t values say they do.
func TestClientPacesAgainstServer(t *testing.T) {
	const (
		limit = 5
		n     = 2 * limit
		slack = 250 * time.Millisecond
	)
	type run struct{ store, algorithm, headers string }
	var runs []run
	for _, store := range []string{"memory", "redis"} {
		for _, alg := range []string{"fixed-window", "sliding-window", "sliding-log"} {
			runs = append(runs, run{store, alg, "draft-8"})
		}
	}
	for _, mode := range []string{"draft-7", "draft-6", "legacy"} {
		runs = append(runs, run{"memory", "sliding-log", mode})
	}
	for _, r := range runs {
		t.Run(r.store+"/"+r.algorithm+"/"+r.headers, func(t *testing.T) {
			args := []string{"-algorithm", r.algorithm, "-limits", fmt.Sprintf("%d/1s", limit),
				"-key", "header:X-Client", "-headers", r.headers}
			if r.store == "redis" {
				args = append(args, "-store", "redis", "-redis-addrs", testredis.Addr(t))
			}
			t.Parallel()
			url, cfg := serveInProcess(t, args)
			key := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())

			var onWire atomic.Int64
			var below atomic.Int64 // nanoseconds in the round trips under the client
			counting := roundTripFunc(func(req *http.Request) (*http.Response, error) {
				sent := time.Now()
				resp, err := http.DefaultTransport.RoundTrip(req)
				below.Add(int64(time.Since(sent)))
				if err == nil && resp.StatusCode == http.StatusTooManyRequests {
					onWire.Add(1)
				}
				return resp, err
			})
			tr, err := ratelimitclient.New(counting)
			require.NoError(t, err)
			c := &http.Client{Transport: tr, Timeout: 10 * time.Second}

			start := afterWholeSecond(t)
			stalled := watchStalls()
			var paced time.Duration // in c.Do, less the round trips below the client
			for i := range n {
				req, err := http.NewRequest("GET", url+"/", nil)
				require.NoError(t, err)
				req.Header.Set("X-Client", key)
				before, called := below.Load(), time.Now()
				resp, err := c.Do(req)
				paced += time.Since(called) - time.Duration(below.Load()-before)
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				require.Equal(t, http.StatusOK, resp.StatusCode, "request %d", i)
			}
			elapsed := time.Since(start)
			lost := stalled()
			least := minimum(t, cfg.policies, start, n)

			assert.Zero(t, onWire.Load(), "the client paced itself: no 429 was sent back")
			assert.GreaterOrEqual(t, elapsed, least)
			assert.LessOrEqual(t, paced, least+least/10+slack+lost, "minimum %v, process stalled %v", least, lost)
			t.Logf("elapsed %v (%v in the client, the rest in round trips), minimum %v, process stalled %v",
				elapsed.Round(time.Millisecond), paced.Round(time.Millisecond), least.Round(time.Millisecond), lost.Round(time.Millisecond))
		})
	}
}

// afterWholeSecond sleeps until 20 ms after a whole second and returns
// the time then. A sleep that overshoots by more than 80 ms (a busy
// machine) tries the next second, up to five times: the whole-second
// fields would otherwise announce waits the fake clock does not need.
func afterWholeSecond(t *testing.T) time.Time {
	t.Helper()
	for range 5 {
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 20*time.Millisecond)))
		now := time.Now()
		if now.Sub(now.Truncate(time.Second)) < 100*time.Millisecond {
			return now
		}
	}
	t.Fatal("each of five sleeps to 20 ms after a whole second overshot by more than 80 ms")
	return time.Time{}
}

// watchStalls starts a goroutine that sleeps 5 ms at a time until the
// returned func is called, which returns how much later than 2 ms after
// their due time its wakings came, in all: time in which a ready goroutine
// of this process waited for a CPU. On an idle machine it is a few
// milliseconds.
func watchStalls() func() time.Duration {
	const tick, grace = 5 * time.Millisecond, 2 * time.Millisecond
	done := make(chan struct{})
	total := make(chan time.Duration)
	go func() {
		var late time.Duration
		for {
			due := time.Now().Add(tick)
			select {
			case <-done:
				total <- late
				return
			case <-time.After(tick):
				late += max(0, time.Since(due)-grace)
			}
		}
	}()
	return func() time.Duration {
		close(done)
		return <-total
	}
}

// minimum is the shortest time in which n requests starting at start are
// all admitted by policies: a greedy sender on a fake clock.
func minimum(t *testing.T, policies []core.Policy, start time.Time, n int) time.Duration {
	t.Helper()
	clock := clocktest.New(start)
	l, err := core.NewLimiter(memory.New(), policies, core.WithClock(clock))
	require.NoError(t, err)
	for range n {
		for {
			d, err := l.Allow(context.Background(), "k")
			require.NoError(t, err)
			if d.Allowed {
				break
			}
			require.Positive(t, d.RetryAfter)
			clock.Advance(d.RetryAfter)
		}
	}
	return clock.Now().Sub(start)
}

// serveInProcess runs the demo server of args on a free loopback port
// until the test ends, and returns its URL and configuration. The admin
// listener is off.
func serveInProcess(t *testing.T, args []string) (string, *config) {
	t.Helper()
	cfg, err := parseFlags(append([]string{"-addr", "127.0.0.1:0", "-admin-addr", ""}, args...))
	require.NoError(t, err)
	srv, err := build(cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", cfg.addr)
	require.NoError(t, err)
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.public.serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.public.shutdown(ctx)
		<-served
		srv.release()
	})
	return "http://" + ln.Addr().String(), cfg
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Four goroutines share one transport, and so one quota, on one server:
// none of them sees a 429. Requests in flight at once can still draw an
// occasional 429 on the wire (a response's r does not count the requests
// sent after it), which the transport retries.
func TestClientSharedByGoroutines(t *testing.T) {
	t.Parallel()
	url, cfg := serveInProcess(t, []string{"-algorithm", "sliding-log", "-limits", "5/1s"})
	tr, err := ratelimitclient.New(nil)
	require.NoError(t, err)
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	const goroutines, each = 4, 5
	start := time.Now()
	statuses := make(chan int, goroutines*each)
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				resp, err := c.Get(url + "/")
				if err != nil {
					statuses <- 0
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				statuses <- resp.StatusCode
			}
		}()
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		assert.Equal(t, http.StatusOK, s)
	}
	assert.GreaterOrEqual(t, time.Since(start), minimum(t, cfg.policies, start, goroutines*each))
}
