package ratewindow_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// Three requests per minute per API key, on net/http. The same options
// work with ginmw, echomw and fibermw.
func Example() {
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(3).Using(core.SlidingLog).Named("per-minute")})
	if err != nil {
		panic(err)
	}
	limit, err := nethttp.New(limiter,
		ratewindow.WithKeyFunc(keyfuncs.Header("X-API-Key", keyfuncs.RemoteIP)),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) {
			fmt.Printf("%s: %s, %d left\n", ev.Key, ev.Outcome, ev.Decision.Remaining)
		}),
	)
	if err != nil {
		panic(err)
	}
	srv := httptest.NewServer(limit(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})))
	defer srv.Close()

	for range 4 {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("X-API-Key", "k1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	// Output:
	// hdr:x-api-key:k1: allowed, 2 left
	// 200
	// hdr:x-api-key:k1: allowed, 1 left
	// 200
	// hdr:x-api-key:k1: allowed, 0 left
	// 200
	// hdr:x-api-key:k1: denied, 0 left
	// 429
}

// Tiers: free API keys get 2 requests a minute, paying ones 4. The function
// reads the API key from the request: its key argument is the rate-limit key
// ("hdr:x-api-key:pro-1"), not the header's value. The sliding log only makes
// the output independent of when the example runs.
func ExampleWithLimiterFunc() {
	store := memory.New()
	free, err := core.NewLimiter(store, []core.Policy{core.PerMinute(2).Named("per-minute").Using(core.SlidingLog)})
	if err != nil {
		panic(err)
	}
	pro, err := core.NewLimiter(store, []core.Policy{core.PerMinute(4).Named("per-minute").Using(core.SlidingLog)})
	if err != nil {
		panic(err)
	}
	paying := map[string]bool{"pro-1": true}
	limit, err := nethttp.New(free, // the default limiter
		ratewindow.WithKeyFunc(keyfuncs.Header("X-API-Key", keyfuncs.RemoteIP)),
		ratewindow.WithLimiterFunc(func(r keyfuncs.Request, key string) (*core.Limiter, error) {
			if paying[r.Header("X-API-Key")] {
				return pro, nil
			}
			return nil, nil // the default limiter: free
		}),
	)
	if err != nil {
		panic(err)
	}
	handler := limit(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	}))
	for _, apiKey := range []string{"free-1", "pro-1"} {
		fmt.Print(apiKey, ":")
		for range 5 {
			req := httptest.NewRequest(http.MethodGet, "/items", nil)
			req.Header.Set("X-API-Key", apiKey)
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, req)
			fmt.Print(" ", rec.Code)
		}
		fmt.Println()
	}
	// Output:
	// free-1: 200 200 429 429 429
	// pro-1: 200 200 200 200 429
}
