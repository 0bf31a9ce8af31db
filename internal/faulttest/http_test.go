package faulttest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// clientHeader carries the rate-limit key of a test request.
const clientHeader = "X-Client"

// clientKey is the rate-limit key of the client named name.
func clientKey(name string) string { return "hdr:x-client:" + name }

// app is a real HTTP server on loopback: the nethttp middleware in front of
// a handler that answers 200.
type app struct {
	srv    *httptest.Server
	client *http.Client
}

// newApp starts an app limited by l, keyed by the X-Client header. opts
// come after the key option, so they may replace it.
func newApp(t testing.TB, l *core.Limiter, opts ...ratewindow.Option) *app {
	t.Helper()
	opts = append([]ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header(clientHeader, nil))}, opts...)
	mw, err := nethttp.New(l, opts...)
	require.NoError(t, err)
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	srv := httptest.NewServer(mw(ok))
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	a := &app{srv: srv, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	return a
}

// get sends one request for key and returns the status and how long the
// answer took. A transport error fails the test.
func (a *app) get(t testing.TB, key string) (int, time.Duration) {
	t.Helper()
	status, d, err := a.try(key)
	require.NoError(t, err)
	return status, d
}

// try is get for background goroutines: it returns the error.
func (a *app) try(key string) (int, time.Duration, error) {
	resp, d, err := a.do(key)
	if err != nil {
		return 0, 0, err
	}
	return resp.StatusCode, d, nil
}

// getResp is get that returns the response (its body read and closed),
// for its header.
func (a *app) getResp(t testing.TB, key string) (*http.Response, time.Duration) {
	t.Helper()
	resp, d, err := a.do(key)
	require.NoError(t, err)
	return resp, d
}

// do sends one request for key, reads and closes the body, and returns
// the response and how long it took.
func (a *app) do(key string) (*http.Response, time.Duration, error) {
	req, err := http.NewRequest(http.MethodGet, a.srv.URL+"/", nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set(clientHeader, key)
	start := time.Now()
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp, time.Since(start), nil
}

// count sends n requests for key and counts the answers by status.
func (a *app) count(t testing.TB, key string, n int) map[int]int {
	t.Helper()
	got := map[int]int{}
	for range n {
		s, _ := a.get(t, key)
		got[s]++
	}
	return got
}

// load sends requests from several goroutines until stopped, and keeps the
// statuses and the slowest answer, less the time this process stalled
// while it was under way (see stallWatch).
type load struct {
	mu      sync.Mutex
	status  map[int]int
	slowest time.Duration
	errs    []error
	stop    chan struct{}
	wg      sync.WaitGroup
}

func startLoad(apps []*app, workers int, watch *stallWatch, keys func(worker, i int) string) *load {
	l := &load{status: map[int]int{}, stop: make(chan struct{})}
	for w := range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := 0; ; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				a := apps[i%len(apps)]
				from := time.Now()
				s, d, err := a.try(keys(w, i))
				l.mu.Lock()
				if err != nil {
					l.errs = append(l.errs, err)
				} else {
					l.status[s]++
					l.slowest = max(l.slowest, d-watch.stalled(from, from.Add(d)))
				}
				l.mu.Unlock()
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	return l
}

// finish stops the load and returns what it saw.
func (l *load) finish() (status map[int]int, slowest time.Duration, errs []error) {
	close(l.stop)
	l.wg.Wait()
	return l.status, l.slowest, l.errs
}
