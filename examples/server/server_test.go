package main

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	ok   = http.StatusOK
	deny = http.StatusTooManyRequests
)

// TestEveryFramework runs each framework with a few flag combinations: the
// limit holds, /healthz is never limited, SIGTERM exits 0, and the
// "listening on" line is the only thing on stdout.
func TestEveryFramework(t *testing.T) {
	type check func(t *testing.T, url, admin string)
	combos := []struct {
		name  string
		args  []string
		check check
	}{
		{
			// A day-long fixed window: the test cannot straddle a boundary
			// except at midnight UTC.
			name: "fixed window",
			args: []string{"-algorithm", "fixed-window", "-limits", "3/24h"},
			check: func(t *testing.T, url, _ string) {
				r := get(t, url+"/", nil)
				assert.Equal(t, ok, r.status)
				assert.Equal(t, "ok\n", r.body)
				// The window is aligned to the Unix epoch: it ends at the
				// next midnight UTC, and t says so.
				reset, found := strings.CutPrefix(r.header.Get("RateLimit"), `"24h";r=2;t=`)
				require.True(t, found, r.header.Get("RateLimit"))
				secs, err := strconv.ParseInt(reset, 10, 64)
				require.NoError(t, err)
				assert.InDelta(t, 86400-time.Now().Unix()%86400, secs, 2)
				assert.Equal(t, []int{ok, ok, deny}, statuses(t, url+"/", 3, nil))
				assert.Equal(t, []int{ok, ok, ok, ok, ok}, statuses(t, url+"/healthz", 5, nil))
				r = get(t, url+"/", nil)
				assert.Equal(t, deny, r.status)
				assert.Equal(t, "application/json", r.header.Get("Content-Type"))
				assert.NotEmpty(t, r.header.Get("Retry-After"))
				assert.Contains(t, r.body, `"error":"rate_limited"`)
			},
		},
		{
			name: "sliding log, two limits, draft-6 headers",
			args: []string{"-algorithm", "sliding-log", "-limits", "2/1h,5/24h", "-headers", "draft-6"},
			check: func(t *testing.T, url, _ string) {
				r := get(t, url+"/", nil)
				assert.Equal(t, "2;w=3600, 5;w=86400", r.header.Get("RateLimit-Policy"))
				assert.Equal(t, "2", r.header.Get("RateLimit-Limit"))
				assert.Equal(t, "1", r.header.Get("RateLimit-Remaining"))
				assert.Empty(t, r.header.Get("RateLimit"))
				assert.Equal(t, []int{ok, deny, deny}, statuses(t, url+"/", 3, nil))
			},
		},
		{
			name: "observe-only, header key",
			args: []string{"-observe", "-key", "header:X-Api-Key", "-limits", "2/1m"},
			check: func(t *testing.T, url, admin string) {
				a := map[string]string{"X-Api-Key": "a"}
				assert.Equal(t, []int{ok, ok, ok, ok}, statuses(t, url+"/", 4, a))
				r := get(t, url+"/", a)
				assert.Equal(t, ok, r.status)
				assert.True(t, strings.HasPrefix(r.header.Get("RateLimit"), `"1m";r=0;`), r.header.Get("RateLimit"))
				assert.Empty(t, r.header.Get("Retry-After"))
				b := get(t, url+"/", map[string]string{"X-Api-Key": "b"})
				assert.True(t, strings.HasPrefix(b.header.Get("RateLimit"), `"1m";r=1;`), b.header.Get("RateLimit"))
				// /metrics counts the would-deny decisions (three of them), never
				// by key, and is not itself limited.
				m := get(t, admin+"/metrics", nil)
				require.Equal(t, ok, m.status)
				assert.Regexp(t, `ratewindow_requests_total\{outcome="would_deny",policy="1m",route="[^"]*"\} 3\n`, m.body)
				assert.Regexp(t, `ratewindow_requests_total\{outcome="allowed",policy="1m",route="[^"]*"\} 3\n`, m.body)
				assert.NotContains(t, m.body, `"a"`)
			},
		},
	}
	for _, fw := range frameworks {
		for _, c := range combos {
			t.Run(fw+"/"+c.name, func(t *testing.T) {
				p := start(t, append([]string{"-framework", fw}, c.args...)...)
				c.check(t, p.url, p.admin)
				code, rest := p.stop(t, syscall.SIGTERM)
				assert.Equal(t, 0, code, "stderr %q", p.stderr.String())
				assert.Empty(t, rest, "stdout after the first line")
				if strings.Contains(c.name, "observe") {
					// Observe-only logs the would-deny decisions on stderr: the
					// first, and then at most one a second.
					n := strings.Count(p.stderr.String(), "request would be denied (observe-only)")
					assert.True(t, n >= 1 && n <= 3, "%d records: %s", n, p.stderr.String())
				}
			})
		}
	}
}

// TestHeaderKeyFallsBackToIP: without the header, clients share the IP's
// quota.
func TestHeaderKeyFallsBackToIP(t *testing.T) {
	p := start(t, "-key", "header:X-Api-Key", "-limits", "2/1m")
	assert.Equal(t, []int{ok, ok, deny}, statuses(t, p.url+"/", 3, nil))
	assert.Equal(t, []int{ok, ok, deny}, statuses(t, p.url+"/", 3, map[string]string{"X-Api-Key": "k"}))
	assert.Equal(t, []int{deny}, statuses(t, p.url+"/", 1, map[string]string{"X-Api-Key": " "}))
	code, _ := p.stop(t, syscall.SIGINT)
	assert.Equal(t, 0, code)
}

// TestTrustedProxies: X-Forwarded-For counts only when the peer is a
// trusted proxy.
func TestTrustedProxies(t *testing.T) {
	xff := func(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }
	t.Run("untrusted peer: header ignored", func(t *testing.T) {
		p := start(t, "-limits", "2/1m")
		assert.Equal(t, []int{ok, ok}, statuses(t, p.url+"/", 2, xff("198.51.100.1")))
		assert.Equal(t, []int{deny}, statuses(t, p.url+"/", 1, xff("198.51.100.2")))
	})
	t.Run("trusted peer: rightmost untrusted entry", func(t *testing.T) {
		p := start(t, "-limits", "2/1m", "-trusted-proxies", "127.0.0.0/8,10.0.0.0/8")
		assert.Equal(t, []int{ok, ok, deny}, statuses(t, p.url+"/", 3, xff("198.51.100.1")))
		assert.Equal(t, []int{ok, ok, deny}, statuses(t, p.url+"/", 3, xff("198.51.100.1, 198.51.100.2, 10.1.2.3")))
	})
}

// TestBadFlags: exit 2, one line on stderr, nothing on stdout, and checked
// before binding (the address given is taken, yet the flag error wins).
func TestBadFlags(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	for _, args := range [][]string{
		{"-limits", "ten/1s"},
		{"-framework", "martini"},
		{"-trusted-proxies", "10.0.0.0/33"},
		{"-nosuchflag"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runExit(t, append([]string{"-addr", taken.Addr().String()}, args...)...)
			assert.Equal(t, 2, code)
			assert.Empty(t, stdout)
			oneLine(t, stderr)
		})
	}
}
