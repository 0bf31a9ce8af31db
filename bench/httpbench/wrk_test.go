package httpbench

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const wrkClean = `Running 10s test @ http://127.0.0.1:40123/
  2 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.21ms    1.02ms  25.31ms   88.12%
    Req/Sec    27.01k     2.31k   31.87k    71.50%
  537512 requests in 10.00s, 65.61MB read
Requests/sec:  53741.93
Transfer/sec:      6.56MB
`

const wrkDenied = `Running 1s test @ http://127.0.0.1:18931/nope
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    38.55ms   60.58ms 263.98ms   83.87%
    Req/Sec   506.00    410.07     1.12k    42.86%
  449 requests in 1.00s, 228.01KB read
  Socket errors: connect 0, read 12, write 1, timeout 3
  Non-2xx or 3xx responses: 449
Requests/sec:    446.79
Transfer/sec:    226.89KB
`

func TestParseWrk(t *testing.T) {
	for _, c := range []struct {
		name    string
		out     string
		want    Result
		wantErr bool
	}{
		{"clean run", wrkClean, Result{Requests: 537512, ReqPerSec: 53741.93, Latency: "1.21ms"}, false},
		{"denials and socket errors", wrkDenied, Result{Requests: 449, ReqPerSec: 446.79, Non2xx: 449, SocketErrors: 16, Latency: "38.55ms"}, false},
		{"empty", "", Result{}, true},
		{"no count", "Requests/sec:  10.0\n", Result{}, true},
		{"garbage rate", "  5 requests in 1.00s, 1KB read\nRequests/sec:  1.2.3\n", Result{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseWrk(c.out)
			if c.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestLoadArgs(t *testing.T) {
	l := Load{Threads: 2, Connections: 64}
	assert.Equal(t, []string{"-t2", "-c64", "-d10s", "http://x/"}, l.Args(10*time.Second, "http://x/"))
	assert.Equal(t, []string{"-t1", "-c1", "-d1s", "u"}, Load{}.Args(200*time.Millisecond, "u"),
		"zero values and sub-second runs are raised to wrk's minimum")
}

func TestMeasureFailsWithoutWrk(t *testing.T) {
	s, err := Start(Servers()[0])
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Stop()) }()
	_, err = s.Measure(t.Context(), Load{Wrk: "/nonexistent/wrk", Duration: time.Second})
	assert.ErrorContains(t, err, "nethttp-bare")
}

// TestStartedServesUntilStopped checks that a started server answers on
// its URL as often as asked, and no longer once stopped.
func TestStartedServesUntilStopped(t *testing.T) {
	s, err := Start(Servers()[0])
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(s.URL, "http://127.0.0.1:"), s.URL)
	c := &http.Client{Timeout: 5 * time.Second}
	for range 3 {
		resp, err := c.Get(s.URL)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	}
	c.CloseIdleConnections()
	require.NoError(t, s.Stop())
	_, err = c.Get(s.URL)
	assert.Error(t, err, "a stopped server must not answer")
}
