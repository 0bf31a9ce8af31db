package ginmw_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/ginmw"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Two requests per minute per API key (per client IP without one) on a
// route group. The fake clock only makes the output repeatable; leave
// WithClock out in production.
func ExampleNew() {
	gin.SetMode(gin.ReleaseMode)
	clock := clocktest.New(time.UnixMilli(1_800_000_000_000))
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)}, core.WithClock(clock))
	if err != nil {
		panic(err)
	}
	limit, err := ginmw.New(limiter,
		ratewindow.WithKeyFunc(keyfuncs.Header("X-API-Key", keyfuncs.RemoteIP)),
	)
	if err != nil {
		panic(err)
	}
	r := gin.New()
	api := r.Group("/api", limit)
	api.GET("/items", func(c *gin.Context) { c.String(http.StatusOK, "ok\n") })

	for range 3 {
		req := httptest.NewRequest(http.MethodGet, "/api/items", nil)
		req.Header.Set("X-API-Key", "k-123")
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		fmt.Printf("%d RateLimit: %s Retry-After: %q\n",
			rec.Code, rec.Header().Get("RateLimit"), rec.Header().Get("Retry-After"))
	}
	// Output:
	// 200 RateLimit: "1m";r=1;t=120 Retry-After: ""
	// 200 RateLimit: "1m";r=0;t=120 Retry-After: ""
	// 429 RateLimit: "1m";r=0;t=90 Retry-After: "90"
}
