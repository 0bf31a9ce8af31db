package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/echomw"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/ginmw"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/logging"
	"github.com/ratewindow/ratewindow/metrics"
	"github.com/ratewindow/ratewindow/nethttp"
	"github.com/ratewindow/ratewindow/topkeys"
)

// storeTimeout bounds every store call, so a Redis that does not answer
// turns into the fail policy instead of a hung request.
const storeTimeout = 2 * time.Second

// topCapacity is the number of (route, policy, key) items the
// /debug/ratewindow/top summary tracks.
const topCapacity = 1000

// app is a server of one framework.
type app interface {
	serve(ln net.Listener) error
	shutdown(ctx context.Context) error
}

// build makes the store, the limiter, the middleware and the server of
// cfg. The returned func releases the store.
func build(cfg *config) (app, func(), error) {
	var (
		store   core.Store = memory.New()
		release            = func() {}
	)
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if cfg.store == "redis" {
		warn := func(msg string, err error) { logger.Warn(msg, "error", err.Error()) }
		s, closeFn, err := newRedisStore(cfg.redisAddrs, warn)
		if err != nil {
			return nil, nil, err
		}
		store, release = s, closeFn
	}
	l, err := core.NewLimiter(store, cfg.policies)
	if err != nil {
		release()
		return nil, nil, err
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
	// JSON on stderr (stdout carries only the "listening on" line).
	collector, err := metrics.New()
	if err != nil {
		release()
		return nil, nil, err
	}
	// The Go runtime collector beside it: go_goroutines and
	// go_memstats_heap_inuse_bytes show a leak over a long run.
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector, collectors.NewGoCollector())
	if cfg.limitsFile != "" {
		// The file's key, limiter and observe choices override the flags'.
		rules, stopWatch, err := loadLimits(cfg.limitsFile, store, logger, reg)
		if err != nil {
			release()
			return nil, nil, err
		}
		closeStore := release
		release = func() { stopWatch(); closeStore() }
		l, opts = nil, append(opts, rules.Options()...)
	}
	top, err := topkeys.New(topCapacity)
	if err != nil {
		release()
		return nil, nil, err
	}
	opts = append(opts, ratewindow.WithOnDecision(
		collector.Observe, top.Observe, logging.Hook(logger)))
	metricsHandler := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	a, err := newApp(cfg.framework, l, opts, metricsHandler, top.Handler())
	if err != nil {
		release()
		return nil, nil, err
	}
	return a, release, nil
}

const okBody = "ok\n"

// topPath serves the top limited keys (package topkeys).
const topPath = "/debug/ratewindow/top"

func newApp(framework string, l *core.Limiter, opts []ratewindow.Option, metrics, top http.Handler) (app, error) {
	switch framework {
	case "gin":
		return newGin(l, opts, metrics, top)
	case "echo":
		return newEcho(l, opts, metrics, top)
	case "fiber":
		return newFiber(l, opts, metrics, top)
	}
	return newNetHTTP(l, opts, metrics, top)
}

// httpApp serves any http.Handler.
type httpApp struct{ srv *http.Server }

func newHTTPApp(h http.Handler) *httpApp {
	return &httpApp{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
}

func (a *httpApp) serve(ln net.Listener) error {
	if err := a.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (a *httpApp) shutdown(ctx context.Context) error { return a.srv.Shutdown(ctx) }

func newNetHTTP(l *core.Limiter, opts []ratewindow.Option, metrics, top http.Handler) (app, error) {
	limit, err := nethttp.New(l, opts...)
	if err != nil {
		return nil, err
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, okBody) })
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", limit(ok))
	mux.Handle("GET /healthz", ok)
	mux.Handle("GET /metrics", metrics)
	mux.Handle("GET "+topPath, top)
	return newHTTPApp(mux), nil
}

func newGin(l *core.Limiter, opts []ratewindow.Option, metrics, top http.Handler) (app, error) {
	// Release mode and discarded writers: Gin prints nothing to stdout.
	gin.SetMode(gin.ReleaseMode)
	gin.DefaultWriter, gin.DefaultErrorWriter = io.Discard, io.Discard
	limit, err := ginmw.New(l, opts...)
	if err != nil {
		return nil, err
	}
	ok := func(c *gin.Context) { c.String(http.StatusOK, okBody) }
	r := gin.New()
	r.GET("/", limit, ok)
	r.GET("/healthz", ok)
	r.GET("/metrics", gin.WrapH(metrics))
	r.GET(topPath, gin.WrapH(top))
	return newHTTPApp(r), nil
}

func newEcho(l *core.Limiter, opts []ratewindow.Option, metrics, top http.Handler) (app, error) {
	limit, err := echomw.New(l, opts...)
	if err != nil {
		return nil, err
	}
	ok := func(c echo.Context) error { return c.String(http.StatusOK, okBody) }
	e := echo.New()
	// Served through net/http, so Echo's banner and port line never print.
	e.HideBanner, e.HidePort = true, true
	e.GET("/", ok, limit)
	e.GET("/healthz", ok)
	e.GET("/metrics", echo.WrapHandler(metrics))
	e.GET(topPath, echo.WrapHandler(top))
	return newHTTPApp(e), nil
}

// fiberApp serves a Fiber app.
type fiberApp struct{ app *fiber.App }

func newFiber(l *core.Limiter, opts []ratewindow.Option, metrics, top http.Handler) (app, error) {
	limit, err := fibermw.New(l, opts...)
	if err != nil {
		return nil, err
	}
	ok := func(c *fiber.Ctx) error { return c.SendString(okBody) }
	a := fiber.New(fiber.Config{
		DisableStartupMessage: true,
		// Bound idle and never-used connections, which a graceful
		// shutdown otherwise waits for.
		ReadTimeout: 10 * time.Second,
		IdleTimeout: 30 * time.Second,
	})
	a.Get("/", limit, ok)
	a.Get("/healthz", ok)
	a.Get("/metrics", adaptor.HTTPHandler(metrics))
	a.Get(topPath, adaptor.HTTPHandler(top))
	return &fiberApp{app: a}, nil
}

func (a *fiberApp) serve(ln net.Listener) error        { return a.app.Listener(ln) }
func (a *fiberApp) shutdown(ctx context.Context) error { return a.app.ShutdownWithContext(ctx) }
