package ratewindow_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// Three requests per minute per issued API key, per client IP for any
// other request (a made-up key is no quota of its own), on net/http. The
// same options work with ginmw, echomw and fibermw.
func Example() {
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(3).Using(core.SlidingLog).Named("per-minute")})
	if err != nil {
		panic(err)
	}
	issued := map[string]bool{"k1": true} // the API keys the service issued
	byKey := keyfuncs.Header("X-API-Key", nil)
	limit, err := nethttp.New(limiter,
		ratewindow.WithKeyFunc(func(r keyfuncs.Request) (string, error) {
			if issued[strings.TrimSpace(r.Header("X-API-Key"))] {
				return byKey(r)
			}
			return keyfuncs.RemoteIP(r)
		}),
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

	for _, apiKey := range []string{"k1", "k1", "k1", "k1", "made-up"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("X-API-Key", apiKey)
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
	// ip:127.0.0.1: allowed, 2 left
	// 200
}

// Tiers: free API keys get 2 requests a minute, paying ones 4, and a key
// the service never issued is keyed by the client IP. The function
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
	issued := map[string]bool{"free-1": true, "pro-1": true}
	paying := map[string]bool{"pro-1": true}
	byKey := keyfuncs.Header("X-API-Key", nil)
	limit, err := nethttp.New(free, // the default limiter
		ratewindow.WithKeyFunc(func(r keyfuncs.Request) (string, error) {
			if issued[strings.TrimSpace(r.Header("X-API-Key"))] {
				return byKey(r)
			}
			return keyfuncs.RemoteIP(r)
		}),
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
