package echomw_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/echomw"
	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

func mount(t *testing.T, l *core.Limiter, opts []ratewindow.Option) (string, error) {
	limit, err := echomw.New(l, opts...)
	if err != nil {
		return "", err
	}
	return serve(t, limit), nil
}

func mountLimit(t *testing.T, l *core.Limiter) string { return serve(t, echomw.Limit(l)) }

// mountAll mounts the middleware with e.Use.
func mountAll(t *testing.T, l *core.Limiter, opts []ratewindow.Option) (string, error) {
	limit, err := echomw.New(l, opts...)
	if err != nil {
		return "", err
	}
	ok := func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") }
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Use(limit)
	e.GET("/", ok)
	e.GET("/items/:id", ok)
	e.GET("/healthz", ok)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv.URL, nil
}

func serve(t *testing.T, limit echo.MiddlewareFunc) string {
	ok := func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") }
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/", ok, limit)
	e.GET("/items/:id", ok, limit)
	e.GET("/healthz", ok)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestAdapter(t *testing.T) {
	adaptertest.Run(t, adaptertest.Adapter{Name: "echo", Mount: mount, MountLimit: mountLimit, MountAll: mountAll, ItemsRoute: "/items/:id"})
}

// Echo's Skipper convention, served by ratewindow.WithSkip: a skipped
// request is not counted.
func TestSkip(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.SlidingLog)})
	require.NoError(t, err)
	limit, err := echomw.New(l, ratewindow.WithSkip(func(r keyfuncs.Request) bool { return r.Header("X-Internal") == "yes" }))
	require.NoError(t, err)
	e := echo.New()
	e.GET("/", func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") }, limit)
	srv := httptest.NewServer(e)
	defer srv.Close()
	status := func(internal bool) int {
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		require.NoError(t, err)
		if internal {
			req.Header.Set("X-Internal", "yes")
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, internal, resp.Header.Get("RateLimit") == "", "skipped requests get no fields")
		return resp.StatusCode
	}
	assert.Equal(t, []int{200, 200, 200, 200, 429}, []int{status(true), status(true), status(true), status(false), status(false)})
}
