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
