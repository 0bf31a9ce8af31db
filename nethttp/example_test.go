package nethttp_test

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

// Two requests per minute per issued API key, per client IP for
// any other request: keyed by the header as sent, a client that made up a
// new key for every request would never meet the limit. The made-up keys
// below share the client's one quota.
//
// Each response carries a RateLimit field such as "1m";r=1;t=97: the
// policy, the requests left (r) and the seconds until the quota is whole
// again (t); a denial adds Retry-After. The seconds depend on when in the
// minute the requests run, so the example prints the rest.
func ExampleNew() {
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)})
	if err != nil {
		panic(err)
	}
	issued := map[string]bool{"k-123": true} // the API keys the service issued
	byKey := keyfuncs.Header("X-API-Key", nil)
	limit, err := nethttp.New(limiter, ratewindow.WithKeyFunc(func(r keyfuncs.Request) (string, error) {
		if issued[strings.TrimSpace(r.Header("X-API-Key"))] {
			return byKey(r)
		}
		return keyfuncs.RemoteIP(r) // a made-up key is no quota of its own
	}))
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /api/", limit(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})))

	for _, apiKey := range []string{"k-123", "k-123", "k-123", "made-up-1", "made-up-2", "made-up-3"} {
		req := httptest.NewRequest(http.MethodGet, "/api/items", nil)
		req.Header.Set("X-API-Key", apiKey)
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		quota, _, _ := strings.Cut(rec.Header().Get("RateLimit"), ";t=")
		fmt.Println(rec.Code, quota, "Retry-After:", rec.Header().Get("Retry-After") != "")
	}
	// Output:
	// 200 "1m";r=1 Retry-After: false
	// 200 "1m";r=0 Retry-After: false
	// 429 "1m";r=0 Retry-After: true
	// 200 "1m";r=1 Retry-After: false
	// 200 "1m";r=0 Retry-After: false
	// 429 "1m";r=0 Retry-After: true
}

// Limit is New with the default options, keyed by the peer's IP (behind
// a reverse proxy, the proxy's: see keyfuncs.NewClientIP).
func ExampleLimit() {
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)})
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

// IPv6 clients are keyed by /64, the block one home or one server usually
// gets. A client that holds a bigger block (a /48, which tunnel brokers
// hand out for free) has a key per /64 it uses, 65,536 of them. A second
// limiter keyed by /48, with a limit for the whole block, bounds it. Its
// policy has a name of its own, so an IPv4 client's two counts, under
// one key, stay apart on the shared store.
func ExampleNew_ipv6Block() {
	store := memory.New()
	perClient, err := core.NewLimiter(store, []core.Policy{core.PerMinute(2).Named("client").Using(core.SlidingLog)})
	if err != nil {
		panic(err)
	}
	perBlock, err := core.NewLimiter(store, []core.Policy{core.PerMinute(5).Named("block").Using(core.SlidingLog)})
	if err != nil {
		panic(err)
	}
	by48, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{IPv6Prefix: 48})
	if err != nil {
		panic(err)
	}
	limitClient, err := nethttp.New(perClient) // keyfuncs.RemoteIP: IPv6 by /64
	if err != nil {
		panic(err)
	}
	limitBlock, err := nethttp.New(perBlock, ratewindow.WithKeyFunc(by48))
	if err != nil {
		panic(err)
	}
	handler := limitBlock(limitClient(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})))

	admitted := 0
	for i := range 20 { // one request from each of 20 /64s of one /48
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = fmt.Sprintf("[2001:db8:1:%x::1]:4000", i)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK {
			admitted++
		}
	}
	fmt.Println("admitted", admitted, "of 20")
	// Output: admitted 5 of 20
}
