package nethttp_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// Two requests per minute per API key (per client IP without one). The
// fake clock only makes the output repeatable; leave WithClock out in
// production.
func ExampleNew() {
	clock := clocktest.New(time.UnixMilli(1_800_000_000_000))
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)}, core.WithClock(clock))
	if err != nil {
		panic(err)
	}
	limit, err := nethttp.New(limiter,
		ratewindow.WithKeyFunc(keyfuncs.Header("X-API-Key", keyfuncs.RemoteIP)),
	)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api/", limit(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})))

	for range 3 {
		req := httptest.NewRequest(http.MethodGet, "/api/items", nil)
		req.Header.Set("X-API-Key", "k-123")
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		fmt.Printf("%d RateLimit: %s Retry-After: %q\n",
			rec.Code, rec.Header().Get("RateLimit"), rec.Header().Get("Retry-After"))
	}
	// The default sliding window admits the next request in 90s, once the
	// two counted ones have half decayed, and is empty again in 120s (t).

	// Output:
	// 200 RateLimit: "1m";r=1;t=120 Retry-After: ""
	// 200 RateLimit: "1m";r=0;t=120 Retry-After: ""
	// 429 RateLimit: "1m";r=0;t=90 Retry-After: "90"
}

// Limit is New with the default options, keyed by the peer's IP (behind
// a reverse proxy, the proxy's: see keyfuncs.NewClientIP).
func ExampleLimit() {
	clock := clocktest.New(time.UnixMilli(1_800_000_000_000))
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)}, core.WithClock(clock))
	if err != nil {
		panic(err)
	}
	handler := nethttp.Limit(limiter)(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	}))

	for range 3 {
		req := httptest.NewRequest(http.MethodGet, "/", nil) // RemoteAddr 192.0.2.1:1234
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		fmt.Println(rec.Code)
	}
	// Output:
	// 200
	// 200
	// 429
}
