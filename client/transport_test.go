package client_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/client"
)

// always answers every request with status and the given fields, and
// counts the requests and the bodies it read.
type always struct {
	status int
	fields map[string]string
	calls  atomic.Int64
	mu     sync.Mutex
	bodies []string
}

func (a *always) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.calls.Add(1)
	b, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	a.bodies = append(a.bodies, string(b))
	a.mu.Unlock()
	for k, v := range a.fields {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.status)
}

func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func newClient(t *testing.T, opts ...client.Option) *http.Client {
	t.Helper()
	tr, err := client.New(nil, opts...)
	require.NoError(t, err)
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}
}

func do(t *testing.T, c *http.Client, req *http.Request) *http.Response {
	t.Helper()
	resp, err := c.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp
}

func request(t *testing.T, ctx context.Context, method, url string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	require.NoError(t, err)
	return req
}

// roundTripFunc is a base RoundTripper made of a func.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestRetryBudget(t *testing.T) {
	for _, tt := range []struct {
		name  string
		opts  []client.Option
		calls int64
	}{
		{"default: three retries", nil, 4},
		{"two retries", []client.Option{client.WithMaxRetries(2)}, 3},
		{"no retry", []client.Option{client.WithMaxRetries(0)}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
				srv := &always{status: status, fields: map[string]string{"Retry-After": "0"}}
				resp := do(t, newClient(t, tt.opts...), request(t, context.Background(), "GET", serve(t, srv), nil))
				assert.Equal(t, status, resp.StatusCode, "the caller gets the server's last answer")
				assert.Equal(t, tt.calls, srv.calls.Load())
			}
		})
	}
}

func TestRetrySucceeds(t *testing.T) {
	var calls atomic.Int64
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	resp := do(t, newClient(t), request(t, context.Background(), "GET", url, nil))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, int64(3), calls.Load())
}

// Without Retry-After, a 429 is retried after the announced reset, or
// after a backoff when the reset says nothing (t=0): never at once.
func TestRetryWithoutRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		field string
		least time.Duration
	}{
		{`"p";r=0;t=1`, time.Second},
		{`"p";r=0;t=0`, 500 * time.Millisecond},
		{"", 500 * time.Millisecond},
	} {
		srv := &always{status: http.StatusTooManyRequests, fields: map[string]string{}}
		if tt.field != "" {
			srv.fields["RateLimit"] = tt.field
		}
		start := time.Now()
		resp := do(t, newClient(t, client.WithMaxRetries(1), client.WithoutPacing()), request(t, context.Background(), "GET", serve(t, srv), nil))
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		assert.Equal(t, int64(2), srv.calls.Load())
		assert.GreaterOrEqual(t, time.Since(start), tt.least, tt.field)
	}
}

func TestOtherStatusesAreNotRetried(t *testing.T) {
	for _, status := range []int{200, 400, 404, 500, 502} {
		srv := &always{status: status, fields: map[string]string{"Retry-After": "0"}}
		resp := do(t, newClient(t), request(t, context.Background(), "GET", serve(t, srv), nil))
		assert.Equal(t, status, resp.StatusCode)
		assert.Equal(t, int64(1), srv.calls.Load(), "status %d", status)
	}
}

func TestContextDeadline(t *testing.T) {
	// Retry-After 5 s cannot fit in a 300 ms deadline: the 429 comes back
	// at once rather than a timeout after a useless wait.
	srv := &always{status: http.StatusTooManyRequests, fields: map[string]string{"Retry-After": "5"}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	resp := do(t, newClient(t), request(t, ctx, "GET", serve(t, srv), nil))
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, int64(1), srv.calls.Load())
	assert.Less(t, time.Since(start), 250*time.Millisecond)
}

func TestMaxWait(t *testing.T) {
	srv := &always{status: http.StatusTooManyRequests, fields: map[string]string{"Retry-After": "2"}}
	start := time.Now()
	resp := do(t, newClient(t, client.WithMaxWait(time.Second)), request(t, context.Background(), "GET", serve(t, srv), nil))
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, int64(1), srv.calls.Load())
	assert.Less(t, time.Since(start), time.Second)
}

func TestCancelEndsTheWait(t *testing.T) {
	srv := &always{status: http.StatusTooManyRequests, fields: map[string]string{"Retry-After": "10"}}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := newClient(t).Do(request(t, ctx, "GET", serve(t, srv), nil))
	assert.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, int64(1), srv.calls.Load())
}

// onceOnly is a body http.NewRequest cannot recreate.
type onceOnly struct{ io.Reader }

func TestBodies(t *testing.T) {
	tests := []struct {
		name   string
		method string
		body   func() io.Reader
		header string
		opts   []client.Option
		calls  int64
	}{
		{"replayable PUT is retried with the same body", "PUT", func() io.Reader { return strings.NewReader("payload") }, "", nil, 2},
		{"PUT whose body cannot be replayed is not retried", "PUT", func() io.Reader { return onceOnly{strings.NewReader("payload")} }, "", nil, 1},
		{"POST is not retried", "POST", func() io.Reader { return strings.NewReader("payload") }, "", nil, 1},
		{"POST with an Idempotency-Key is retried", "POST", func() io.Reader { return strings.NewReader("payload") }, "Idempotency-Key", nil, 2},
		{"POST is retried when the caller opts in", "POST", func() io.Reader { return strings.NewReader("payload") }, "", []client.Option{client.WithRetryNonIdempotent()}, 2},
		{"opting in never replays a body that cannot be", "POST", func() io.Reader { return onceOnly{strings.NewReader("payload")} }, "", []client.Option{client.WithRetryNonIdempotent()}, 1},
		{"PATCH is not retried", "PATCH", func() io.Reader { return strings.NewReader("payload") }, "", nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &always{status: http.StatusTooManyRequests, fields: map[string]string{"Retry-After": "0"}}
			req := request(t, context.Background(), tt.method, serve(t, srv), tt.body())
			if tt.header != "" {
				req.Header.Set(tt.header, "k1")
			}
			resp := do(t, newClient(t, append(tt.opts, client.WithMaxRetries(1))...), req)
			assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
			assert.Equal(t, tt.calls, srv.calls.Load())
			for _, b := range srv.bodies {
				assert.Equal(t, "payload", b)
			}
		})
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	var calls atomic.Int64
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			// Date and Retry-After one second apart, whatever the
			// sub-second part of now.
			at := time.Now().UTC().Truncate(time.Second)
			w.Header().Set("Date", at.Format(http.TimeFormat))
			w.Header().Set("Retry-After", at.Add(time.Second).Format(http.TimeFormat))
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	start := time.Now()
	resp := do(t, newClient(t, client.WithJitter(0)), request(t, context.Background(), "GET", url, nil))
	elapsed := time.Since(start)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, int64(2), calls.Load())
	assert.GreaterOrEqual(t, elapsed, time.Second)
	assert.Less(t, elapsed, 3*time.Second)
}

// quotaServer allows limit requests per period, counted from the first
// request of a period, answers 429 to the rest, and writes the fields of
// one dialect.
type quotaServer struct {
	limit   int
	period  time.Duration
	dialect func(h http.Header, remaining int, reset int64)
	mu      sync.Mutex
	start   time.Time
	used    int
	denied  int
}

func (s *quotaServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.start.IsZero() || now.Sub(s.start) >= s.period {
		s.start, s.used = now, 0
	}
	reset := int64((s.period - now.Sub(s.start) + time.Second - 1) / time.Second)
	if s.used >= s.limit {
		s.denied++
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	s.used++
	s.dialect(w.Header(), s.limit-s.used, reset)
}

func TestPacingReadsEveryDialect(t *testing.T) {
	dialects := map[string]func(h http.Header, remaining int, reset int64){
		"draft-8": func(h http.Header, r int, t int64) {
			h.Set("RateLimit-Policy", `"p";q=2;w=1`)
			h.Set("RateLimit", `"p";r=`+itoa(int64(r))+`;t=`+itoa(t))
		},
		"draft-7": func(h http.Header, r int, t int64) {
			h.Set("RateLimit-Policy", "2;w=1")
			h.Set("RateLimit", "limit=2, remaining="+itoa(int64(r))+", reset="+itoa(t))
		},
		"draft-6": func(h http.Header, r int, t int64) {
			h.Set("RateLimit-Limit", "2")
			h.Set("RateLimit-Remaining", itoa(int64(r)))
			h.Set("RateLimit-Reset", itoa(t))
		},
		"legacy": func(h http.Header, r int, t int64) {
			h.Set("X-RateLimit-Limit", "2")
			h.Set("X-RateLimit-Remaining", itoa(int64(r)))
			h.Set("X-RateLimit-Reset", itoa(time.Now().Unix()+t+1))
		},
	}
	for name, dialect := range dialects {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := &quotaServer{limit: 2, period: time.Second, dialect: dialect}
			c := newClient(t, client.WithMaxRetries(0))
			url := serve(t, srv)
			for range 5 {
				resp := do(t, c, request(t, context.Background(), "GET", url, nil))
				require.Equal(t, http.StatusOK, resp.StatusCode)
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			assert.Zero(t, srv.denied, "the client waited for the reset instead of sending into a 429")
		})
	}
}

func TestRetryAfterHoldsBackTheKey(t *testing.T) {
	var blocked atomic.Bool
	blocked.Store(true)
	var calls atomic.Int64
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if blocked.Swap(false) {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	// The first request is told to wait a second and gives up (no
	// retries); the next one, on the same host, waits that second
	// before it is sent.
	c := newClient(t, client.WithMaxRetries(0), client.WithJitter(0))
	resp := do(t, c, request(t, context.Background(), "GET", url, nil))
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	start := time.Now()
	resp = do(t, c, request(t, context.Background(), "GET", url, nil))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.GreaterOrEqual(t, time.Since(start), 900*time.Millisecond)
	assert.Equal(t, int64(2), calls.Load())

	// A different key is not held back.
	blocked.Store(true)
	keyed := newClient(t, client.WithMaxRetries(0), client.WithKey(func(r *http.Request) string { return r.Header.Get("X-Token") }))
	a := request(t, context.Background(), "GET", url, nil)
	a.Header.Set("X-Token", "a")
	assert.Equal(t, http.StatusTooManyRequests, do(t, keyed, a).StatusCode)
	b := request(t, context.Background(), "GET", url, nil)
	b.Header.Set("X-Token", "b")
	start = time.Now()
	assert.Equal(t, http.StatusOK, do(t, keyed, b).StatusCode)
	assert.Less(t, time.Since(start), 500*time.Millisecond)
}

func TestConcurrentUse(t *testing.T) {
	srv := &quotaServer{limit: 20, period: time.Second, dialect: func(h http.Header, r int, t int64) {
		h.Set("RateLimit", `"p";r=`+itoa(int64(r))+`;t=`+itoa(t))
	}}
	c := newClient(t)
	url := serve(t, srv)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				req, _ := http.NewRequest("GET", url, nil)
				resp, err := c.Do(req)
				if err != nil || resp.StatusCode != http.StatusOK {
					failed.Add(1)
				}
				if err == nil {
					resp.Body.Close()
				}
			}
		}()
	}
	wg.Wait()
	assert.Zero(t, failed.Load(), "40 requests over a 20-per-second quota all get through")
}
