package ratewindow_test

// The README's Go snippets are cut from these examples, so they compile
// and check their errors (TestReadmeSnippetsAreCompiled keeps the two in
// step). They have no Output comment: they are compiled, not run, because
// they serve HTTP, reach Redis or read a file.

import (
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/client"
	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/logging"
	"github.com/ratewindow/ratewindow/metrics"
	"github.com/ratewindow/ratewindow/nethttp"
	"github.com/ratewindow/ratewindow/topkeys"
)

func hello(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello\n") }

// issuedAPIKeys stands for the service's record of the API keys it issued.
var issuedAPIKeys = map[string]bool{"key-1": true}

// issuedKey keys a request by its X-API-Key if that key was issued, else
// by fallback (the client's address). Keyed by the header as sent, a
// client that makes up a new key for every request would never meet a
// limit.
func issuedKey(fallback keyfuncs.KeyFunc) keyfuncs.KeyFunc {
	byKey := keyfuncs.Header("X-API-Key", nil)
	return func(r keyfuncs.Request) (string, error) {
		if issuedAPIKeys[strings.TrimSpace(r.Header("X-API-Key"))] {
			return byKey(r)
		}
		return fallback(r)
	}
}

// Ten requests a second and 600 a minute per client address, on net/http.
func Example_netHTTP() {
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerSecond(10), core.PerMinute(600)})
	if err != nil {
		log.Fatal(err) // configuration errors surface here, never on a request
	}
	limit, err := nethttp.New(limiter) // keyed by peer IP (behind a proxy: NewClientIP)
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe(":8080", limit(http.HandlerFunc(hello))))
}

// Per-route limits and keys: /login by client IP on an exact sliding log,
// /api/ by API key on a sliding counter, /healthz not limited.
func Example_perRouteKeys() {
	store := memory.New()
	login, err := core.NewLimiter(store, []core.Policy{core.Per(5, 5*time.Minute).Named("login").Using(core.SlidingLog)})
	if err != nil {
		log.Fatal(err)
	}
	api, err := core.NewLimiter(store, []core.Policy{core.PerSecond(10).Named("burst"), core.PerHour(1000).Named("hourly")})
	if err != nil {
		log.Fatal(err)
	}
	clientIP, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/8"}})
	if err != nil {
		log.Fatal(err) // a bad CIDR
	}
	byIP, err := nethttp.New(login, ratewindow.WithKeyFunc(clientIP))
	if err != nil {
		log.Fatal(err)
	}
	byKey, err := nethttp.New(api, ratewindow.WithKeyFunc(issuedKey(clientIP)))
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /login", byIP(http.HandlerFunc(hello)))
	mux.Handle("/api/", byKey(http.HandlerFunc(hello)))
	mux.Handle("GET /healthz", http.HandlerFunc(hello)) // no middleware: never limited
	log.Fatal(http.ListenAndServe(":8080", mux))
}

// The Redis store: one line instead of memory.New(), a client that fails
// fast, and a startup check.
func Example_redis() {
	ctx := context.Background()
	policies := []core.Policy{core.PerSecond(10), core.PerMinute(600)}
	client := redis.NewUniversalClient(redisstore.ClientOptions("127.0.0.1:6379")) // several addresses: a Cluster
	store, err := redisstore.New(client)                                           // instead of memory.New()
	if err != nil {
		log.Fatal(err)
	}
	if err := store.Check(ctx); errors.Is(err, redisstore.ErrMisconfigured) {
		log.Fatal(err) // e.g. one node of a Cluster
	} else if err != nil {
		log.Print(err) // down or mistyped: requests pass unlimited meanwhile
	}
	limiter, err := core.NewLimiter(store, policies)
	if err != nil {
		log.Fatal(err)
	}
	_ = limiter
}

// Limits and their rollout in a file, reloaded while the service runs.
func Example_configFile() {
	ctx := context.Background()
	store := memory.New()
	rules, err := config.Load("limits.json", config.WithStore(store))
	if err != nil {
		log.Fatal(err)
	}
	go rules.Watch(ctx, time.Second)                   // a broken edit keeps the running limits and is logged
	limit, err := nethttp.New(nil, rules.Options()...) // the same options work with ginmw, echomw, fibermw
	if err != nil {
		log.Fatal(err)
	}
	_ = limit
}

// Metrics, logs and the top limited keys, fed by one hook.
func Example_operations() {
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(600)})
	if err != nil {
		log.Fatal(err)
	}
	collector, err := metrics.New()
	if err != nil {
		log.Fatal(err)
	}
	prometheus.MustRegister(collector)
	top, err := topkeys.New(1000) // the 1000 keys most often denied, in fixed memory
	if err != nil {
		log.Fatal(err)
	}
	limit, err := nethttp.New(limiter, ratewindow.WithOnDecision(
		collector.Observe, top.Observe, logging.Hook(slog.Default())))
	if err != nil {
		log.Fatal(err)
	}
	admin := http.NewServeMux() // serve it to operators, not to the internet
	admin.Handle("GET /debug/ratewindow/top", top.Handler())
	_ = limit
}

// A Go client of a rate-limited API that paces itself and retries after
// Retry-After.
func Example_client() {
	t, err := client.New(nil) // wraps http.DefaultTransport
	if err != nil {
		log.Fatal(err)
	}
	api := &http.Client{Transport: t, Timeout: 30 * time.Second}
	resp, err := api.Get("https://api.example/items")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
}
