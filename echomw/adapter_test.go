package echomw_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/echomw"
	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
)

func mount(t *testing.T, l *core.Limiter, opts []ratewindow.Option) (string, error) {
	limit, err := echomw.New(l, opts...)
	if err != nil {
		return "", err
	}
	ok := func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") }
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.GET("/", ok, limit)
	e.GET("/items/:id", ok, limit)
	e.GET("/healthz", ok)
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return srv.URL, nil
}

func TestAdapter(t *testing.T) {
	adaptertest.Run(t, adaptertest.Adapter{Name: "echo", Mount: mount, ItemsRoute: "/items/:id"})
}
