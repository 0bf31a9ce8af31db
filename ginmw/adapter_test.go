package ginmw_test

import (
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/ginmw"
	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
)

func init() { gin.SetMode(gin.ReleaseMode) }

func mount(t *testing.T, l *core.Limiter, opts []ratewindow.Option) (string, error) {
	limit, err := ginmw.New(l, opts...)
	if err != nil {
		return "", err
	}
	return serve(t, limit), nil
}

func mountLimit(t *testing.T, l *core.Limiter) string { return serve(t, ginmw.Limit(l)) }

// mountAll mounts the middleware with r.Use.
func mountAll(t *testing.T, l *core.Limiter, opts []ratewindow.Option) (string, error) {
	limit, err := ginmw.New(l, opts...)
	if err != nil {
		return "", err
	}
	ok := func(c *gin.Context) { c.String(200, "ok\n") }
	r := gin.New()
	r.Use(limit)
	r.GET("/", ok)
	r.GET("/items/:id", ok)
	r.GET("/healthz", ok)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv.URL, nil
}

func serve(t *testing.T, limit gin.HandlerFunc) string {
	ok := func(c *gin.Context) { c.String(200, "ok\n") }
	r := gin.New()
	r.GET("/", limit, ok)
	r.GET("/items/:id", limit, ok)
	r.GET("/healthz", ok)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestAdapter(t *testing.T) {
	adaptertest.Run(t, adaptertest.Adapter{Name: "gin", Mount: mount, MountLimit: mountLimit, MountAll: mountAll, ItemsRoute: "/items/:id"})
}
