package httpbench

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/go-chi/httprate"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/limiter"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/nethttp"
)

// Limit and Window configure every limiter of the HTTP comparison: so high
// that a load generator is never denied.
const (
	Limit  = 1_000_000_000
	Window = time.Hour
)

// Server is one HTTP server of the comparison.
type Server struct {
	// Name identifies the row ("nethttp-ratewindow").
	Name string
	// Floor names the bare server of the same framework, the floor this
	// one is compared with; empty for the floors themselves.
	Floor string
	// Start listens on ln and serves until the returned stop is called.
	Start func(ln net.Listener) (stop func() error, err error)
}

// Servers returns the six servers, each floor before its limited variants.
func Servers() []Server {
	return []Server{
		{Name: "nethttp-bare", Start: serveNetHTTP(bare)},
		{Name: "nethttp-ratewindow", Floor: "nethttp-bare", Start: serveNetHTTP(withRatewindow)},
		{Name: "nethttp-httprate", Floor: "nethttp-bare", Start: serveNetHTTP(withHttprate)},
		{Name: "fiber-bare", Start: serveFiber(nil)},
		{Name: "fiber-ratewindow", Floor: "fiber-bare", Start: serveFiber(fiberRatewindow)},
		{Name: "fiber-limiter", Floor: "fiber-bare", Start: serveFiber(fiberLimiter)},
	}
}

var okBody = []byte("ok\n")

func bare() (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(okBody) }), nil
}

func newLimiter() (*core.Limiter, error) {
	return core.NewLimiter(memory.New(), []core.Policy{core.Per(Limit, Window)})
}

func withRatewindow() (http.Handler, error) {
	l, err := newLimiter()
	if err != nil {
		return nil, err
	}
	mw, err := nethttp.New(l)
	if err != nil {
		return nil, err
	}
	h, _ := bare()
	return mw(h), nil
}

// withHttprate keys httprate by the peer IP, as its documentation
// recommends for a server facing clients directly.
func withHttprate() (http.Handler, error) {
	key := func(r *http.Request) (string, error) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			return "", err
		}
		return httprate.CanonicalizeIP(host), nil
	}
	h, _ := bare()
	return httprate.LimitBy(Limit, Window, key)(h), nil
}

func serveNetHTTP(handler func() (http.Handler, error)) func(net.Listener) (func() error, error) {
	return func(ln net.Listener) (func() error, error) {
		h, err := handler()
		if err != nil {
			return nil, err
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ln) }()
		return func() error {
			cerr := srv.Close()
			if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
				return fmt.Errorf("httpbench: serve: %w", serr)
			}
			return cerr
		}, nil
	}
}

func fiberRatewindow() (fiber.Handler, error) {
	l, err := newLimiter()
	if err != nil {
		return nil, err
	}
	return fibermw.New(l)
}

func fiberLimiter() (fiber.Handler, error) {
	return limiter.New(limiter.Config{Max: Limit, Expiration: Window}), nil
}

func serveFiber(middleware func() (fiber.Handler, error)) func(net.Listener) (func() error, error) {
	return func(ln net.Listener) (func() error, error) {
		app := fiber.New(fiber.Config{DisableStartupMessage: true})
		if middleware != nil {
			mw, err := middleware()
			if err != nil {
				return nil, err
			}
			app.Use(mw)
		}
		app.Get("/", func(c *fiber.Ctx) error { return c.Send(okBody) })
		done := make(chan error, 1)
		go func() { done <- app.Listener(ln) }()
		return func() error {
			serr := app.ShutdownWithTimeout(5 * time.Second)
			if lerr := <-done; lerr != nil {
				return fmt.Errorf("httpbench: fiber listener: %w", lerr)
			}
			return serr
		}, nil
	}
}

// NamedHandler is one net/http handler of the comparison, for in-process
// benchmarks.
type NamedHandler struct {
	Name string
	New  func() (http.Handler, error)
}

// NetHTTPHandlers returns the net/http handlers the servers use: the bare
// floor, ratewindow's middleware and httprate, named as the report expects
// (a "bare" prefix marks a floor, "ratewindow-" marks ours).
func NetHTTPHandlers() []NamedHandler {
	return []NamedHandler{
		{Name: "bare-nethttp", New: bare},
		{Name: "ratewindow-nethttp", New: withRatewindow},
		{Name: "httprate", New: withHttprate},
	}
}
