package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/gofiber/fiber/v2"
	fiberrecover "github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/labstack/echo/v4"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/echomw"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/ginmw"
	"github.com/ratewindow/ratewindow/nethttp"
)

// app is a server of one framework, or the admin server.
type app interface {
	serve(ln net.Listener) error
	shutdown(ctx context.Context) error
}

const okBody = "ok\n"

// topPath serves the top limited keys (package topkeys) on the admin
// listener.
const topPath = "/debug/ratewindow/top"

// newApp returns the public app: GET / rate-limited, GET /healthz not.
// Nothing for operators is served there.
func newApp(framework string, l *core.Limiter, opts []ratewindow.Option, to connTimeouts) (app, error) {
	switch framework {
	case "gin":
		return newGin(l, opts, to)
	case "echo":
		return newEcho(l, opts, to)
	case "fiber":
		return newFiber(l, opts, to)
	}
	return newNetHTTP(l, opts, to)
}

// newAdmin returns the admin server: GET /metrics and GET topPath, for
// operators and Prometheus, never for the internet (the top keys name the
// clients being limited). It is plain net/http whatever the framework.
func newAdmin(metrics, top http.Handler, to connTimeouts) *httpApp {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	mux.Handle("GET "+topPath, top)
	return newHTTPApp(mux, to)
}

// httpApp serves any http.Handler.
type httpApp struct{ srv *http.Server }

func newHTTPApp(h http.Handler, to connTimeouts) *httpApp {
	return &httpApp{srv: &http.Server{
		Handler:           h,
		ReadHeaderTimeout: to.read,
		// Without these two, net/http waits for a body that never comes,
		// and for the next request on a kept-alive connection, for good.
		ReadTimeout: to.read,
		IdleTimeout: to.idle,
	}}
}

func (a *httpApp) serve(ln net.Listener) error {
	if err := a.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (a *httpApp) shutdown(ctx context.Context) error { return a.srv.Shutdown(ctx) }

func newNetHTTP(l *core.Limiter, opts []ratewindow.Option, to connTimeouts) (app, error) {
	limit, err := nethttp.New(l, opts...)
	if err != nil {
		return nil, err
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, okBody) })
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", limit(ok))
	mux.Handle("GET /healthz", ok)
	return newHTTPApp(mux, to), nil
}

func newGin(l *core.Limiter, opts []ratewindow.Option, to connTimeouts) (app, error) {
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
	return newHTTPApp(r, to), nil
}

func newEcho(l *core.Limiter, opts []ratewindow.Option, to connTimeouts) (app, error) {
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
	return newHTTPApp(e, to), nil
}

// bodyLimit is the largest request body the Fiber app accepts. Fiber reads
// a body in full, up to its BodyLimit (4 MiB by default), before the
// limiter runs, so that is what a denied upload costs the server. The
// demo's routes take no body; an API's would be the largest body its
// routes take. (net/http, Gin and Echo read a body only when a handler
// does.)
const bodyLimit = 64 << 10

// fiberApp serves a Fiber app.
type fiberApp struct{ app *fiber.App }

func newFiber(l *core.Limiter, opts []ratewindow.Option, to connTimeouts) (app, error) {
	limit, err := fibermw.New(l, opts...)
	if err != nil {
		return nil, err
	}
	ok := func(c *fiber.Ctx) error { return c.SendString(okBody) }
	a := fiber.New(fiber.Config{
		DisableStartupMessage: true,
		// Bound slow and idle connections, which a graceful shutdown
		// otherwise waits for.
		ReadTimeout: to.read,
		IdleTimeout: to.idle,
		// And what a denied client may upload.
		BodyLimit: bodyLimit,
	})
	// fasthttp does not recover a handler's panic, as net/http does: one
	// would end the process. This answers 500 and logs the stack on stderr.
	a.Use(fiberrecover.New(fiberrecover.Config{EnableStackTrace: true}))
	a.Get("/", limit, ok)
	a.Get("/healthz", ok)
	return &fiberApp{app: a}, nil
}

func (a *fiberApp) serve(ln net.Listener) error        { return a.app.Listener(closedOK{ln}) }
func (a *fiberApp) shutdown(ctx context.Context) error { return a.app.ShutdownWithContext(ctx) }

// closedOK is a listener whose Close of a listener already closed is not
// an error. fasthttp's shutdown starts by closing its listeners and
// returns at the first error, before it waits for the requests in
// flight: after its listener had stopped on its own (closed under it),
// the shutdown would fail and cut those requests short.
type closedOK struct{ net.Listener }

// Close closes the listener; one already closed is no error.
func (l closedOK) Close() error {
	if err := l.Listener.Close(); !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}
