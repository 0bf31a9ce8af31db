package main

import (
	"crypto/rand"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/logging"
	"github.com/ratewindow/ratewindow/metrics"
	"github.com/ratewindow/ratewindow/topkeys"
)

// storeTimeout bounds every store call, so a Redis that does not answer
// turns into the fail policy instead of a hung request.
const storeTimeout = 2 * time.Second

// topCapacity is the number of (route, policy, key) items the
// /debug/ratewindow/top summary tracks.
const topCapacity = 1000

// server is what build makes of a config.
type server struct {
	public  app      // the rate-limited app, in cfg.framework
	admin   *httpApp // /metrics and the top keys; nil when -admin-addr is ""
	release func()   // stops the -config watch and closes the store
}

// build makes the store, the limiter, the middleware, the app and the
// admin server of cfg.
func build(cfg *config) (*server, error) {
	var (
		store   core.Store = memory.New()
		release            = func() {}
	)
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if cfg.store == "redis" {
		warn := func(msg string, err error) { logger.Warn(msg, "error", err.Error()) }
		s, closeFn, err := newRedisStore(cfg.redis, warn)
		if err != nil {
			return nil, err
		}
		store, release = s, closeFn
	}
	l, err := core.NewLimiter(store, cfg.policies)
	if err != nil {
		release()
		return nil, err
	}
	opts := []ratewindow.Option{
		ratewindow.WithKeyFunc(cfg.key),
		ratewindow.WithObserveOnly(cfg.observe),
		ratewindow.WithHeaders(headers.Writer{Mode: cfg.headers}),
		ratewindow.WithTimeout(storeTimeout),
	}
	if cfg.failClosed {
		opts = append(opts, ratewindow.WithFailClosed())
	}
	// Every decision feeds the Prometheus collector served on /metrics;
	// store errors and, with -observe, would-deny decisions are logged as
	// JSON on stderr (stdout carries only the address lines).
	collector, err := metrics.New()
	if err != nil {
		release()
		return nil, err
	}
	// The Go runtime collector beside it: go_goroutines and
	// go_memstats_heap_inuse_bytes show a leak over a long run.
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector, collectors.NewGoCollector())
	if cfg.limitsFile != "" {
		// The file alone gives each request its key, limits and mode
		// (observe or enforce): parseFlags refuses -limits, -algorithm,
		// -key, -trusted-proxies and -observe beside -config, so the
		// options above hold no choice of theirs (cfg.observe is false).
		rules, stopWatch, err := loadLimits(cfg.limitsFile, store, logger, reg)
		if err != nil {
			release()
			return nil, err
		}
		closeStore := release
		release = func() { stopWatch(); closeStore() }
		l, opts = nil, append(opts, rules.Options()...)
	}
	// One secret hashes the keys in the logs and on the top-keys report,
	// so a key_hash of the one can be looked up in the other. Random, so
	// it holds within this process; instances that must agree (to join
	// their logs) would share one from a secret store instead.
	secret := []byte(rand.Text())
	top, err := topkeys.New(topCapacity, topkeys.WithKeySecret(secret))
	if err != nil {
		release()
		return nil, err
	}
	opts = append(opts, ratewindow.WithOnDecision(
		collector.Observe, top.Observe, logging.Hook(logger, logging.WithKeySecret(secret))))
	a, err := newApp(cfg.framework, l, opts, cfg.timeouts)
	if err != nil {
		release()
		return nil, err
	}
	srv := &server{public: a, release: release}
	if cfg.adminAddr != "" {
		srv.admin = newAdmin(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), top.Handler(), cfg.timeouts)
	}
	return srv, nil
}
