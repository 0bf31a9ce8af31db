package echomw_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/echomw"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/keyfuncs"
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
	limit, err := echomw.New(limiter,
		ratewindow.WithKeyFunc(keyfuncs.Header("X-API-Key", keyfuncs.RemoteIP)),
	)
	if err != nil {
		panic(err)
	}
	e := echo.New()
	e.Use(limit)
	e.GET("/api/items", func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") })

	for range 3 {
		req := httptest.NewRequest(http.MethodGet, "/api/items", nil)
		req.Header.Set("X-API-Key", "k-123")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		fmt.Printf("%d RateLimit: %s Retry-After: %q\n",
			rec.Code, rec.Header().Get("RateLimit"), rec.Header().Get("Retry-After"))
	}
	// Output:
	// 200 RateLimit: "1m";r=1;t=120 Retry-After: ""
	// 200 RateLimit: "1m";r=0;t=120 Retry-After: ""
	// 429 RateLimit: "1m";r=0;t=90 Retry-After: "90"
}

// ratewindow.WithSkip plays the part of Echo's usual Skipper: here health
// checks are never limited nor counted.
func ExampleNew_skip() {
	clock := clocktest.New(time.UnixMilli(1_800_000_000_000))
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)}, core.WithClock(clock))
	if err != nil {
		panic(err)
	}
	limit, err := echomw.New(limiter, ratewindow.WithSkip(func(r keyfuncs.Request) bool { return r.Route() == "/healthz" }))
	if err != nil {
		panic(err)
	}
	e := echo.New()
	e.Use(limit)
	e.GET("/healthz", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })

	for range 3 {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		fmt.Println(rec.Code, rec.Header().Get("RateLimit") == "")
	}
	// Output:
	// 204 true
	// 204 true
	// 204 true
}
