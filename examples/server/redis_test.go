package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/testredis"
)

// TestRedisDown: with nothing listening at the Redis address, the server
// starts, -fail closed answers 503 and -fail open passes, each at once
// (a refused dial, not seconds of retries); /healthz answers either way.
func TestRedisDown(t *testing.T) {
	dead := testredis.DeadAddr(t)
	for _, c := range []struct {
		fail   string
		status int
	}{{"closed", 503}, {"open", 200}} {
		t.Run(c.fail, func(t *testing.T) {
			p := start(t, "-store", "redis", "-redis-addrs", dead, "-fail", c.fail)
			begin := time.Now()
			r := get(t, p.url+"/", nil)
			took := time.Since(begin)
			t.Logf("answered in %v", took)
			assert.Less(t, took, 250*time.Millisecond)
			assert.Equal(t, c.status, r.status)
			assert.Empty(t, r.header.Get("RateLimit"))
			if c.status == 503 {
				assert.Equal(t, "application/json", r.header.Get("Content-Type"))
				assert.Contains(t, r.body, `"error":"rate_limiter_unavailable"`)
			} else {
				assert.Equal(t, "ok\n", r.body)
			}
			assert.Equal(t, 200, get(t, p.url+"/healthz", nil).status)
			code, _ := p.stop(t, syscall.SIGTERM)
			assert.Equal(t, 0, code)
		})
	}
}

// TestRedisDownLogsJSON: the server's log is JSON lines while Redis is
// down. go-redis would add a plain-text line of its own for every failed
// dial, so for every request, unthrottled; the failure is reported by the
// logging hook, at most once a second.
func TestRedisDownLogsJSON(t *testing.T) {
	p := start(t, "-store", "redis", "-redis-addrs", testredis.DeadAddr(t))
	assert.Equal(t, []int{ok, ok}, statuses(t, p.url+"/", 2, nil), "fails open")
	code, _ := p.stop(t, syscall.SIGTERM)
	assert.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSuffix(p.stderr.String(), "\n"), "\n")
	require.NotEmpty(t, lines)
	for _, line := range lines {
		assert.True(t, json.Valid([]byte(line)), "not JSON: %q", line)
	}
	assert.Contains(t, p.stderr.String(), `"msg":"ratewindow: limiter failed, request passed"`)
}

// TestTwoProcessesShareOneLimit: two servers (different frameworks) on
// one Redis admit exactly the limit between them, under concurrent load.
func TestTwoProcessesShareOneLimit(t *testing.T) {
	for _, c := range []struct {
		name  string
		addrs func(t *testing.T) string
		alg   string
	}{
		{"standalone", func(t *testing.T) string { return testredis.Addr(t) }, "fixed-window"},
		{"cluster", func(t *testing.T) string { return strings.Join(testredis.ClusterAddrs(t), ",") }, "sliding-log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			addrs := c.addrs(t)
			const limit, workers, each = 10, 6, 5
			// A fixed window of a day ends at midnight UTC: count in one.
			now := time.Now()
			if left := now.Truncate(24 * time.Hour).Add(24 * time.Hour).Sub(now); left < 30*time.Second {
				time.Sleep(left + 100*time.Millisecond)
			}
			args := []string{"-store", "redis", "-redis-addrs", addrs, "-algorithm", c.alg,
				"-limits", "10/24h", "-key", "header:X-Api-Key", "-fail", "closed"}
			a := start(t, append([]string{"-framework", "nethttp"}, args...)...)
			b := start(t, append([]string{"-framework", "fiber"}, args...)...)
			// A fresh key per run: the test Redis outlives this test.
			var rnd [8]byte
			_, _ = rand.Read(rnd[:])
			key := map[string]string{"X-Api-Key": "shared-" + hex.EncodeToString(rnd[:])}

			var (
				mu     sync.Mutex
				counts = map[int]int{}
				wg     sync.WaitGroup
			)
			for i := range workers {
				url := a.url
				if i%2 == 1 {
					url = b.url
				}
				wg.Go(func() {
					for range each {
						r, err := roundTrip(url+"/", key)
						mu.Lock()
						if err != nil {
							counts[-1]++
						} else {
							counts[r]++
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			require.Equal(t, map[int]int{ok: limit, deny: workers*each - limit}, counts)
		})
	}
}

// TestRedisMisconfigured: one node of a cluster given as the only address
// is refused at startup, with a one-line message that says why.
func TestRedisMisconfigured(t *testing.T) {
	code, stdout, stderr := runExit(t, "-store", "redis", "-redis-addrs", testredis.ClusterAddrs(t)[0])
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout, "never bound")
	oneLine(t, stderr)
	assert.Contains(t, stderr, "Redis Cluster node")
}
