package ginmw_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/ginmw"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Two requests per minute per API key (per client IP without one) on a
// route group.
//
// Each response carries a RateLimit field such as "1m";r=1;t=97: the
// policy, the requests left (r) and the seconds until the quota is whole
// again (t); a denial adds Retry-After. The seconds depend on when in the
// minute the requests run, so the example prints the rest.
func ExampleNew() {
	gin.SetMode(gin.ReleaseMode)
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)})
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
		quota, _, _ := strings.Cut(rec.Header().Get("RateLimit"), ";t=")
		fmt.Println(rec.Code, quota, "Retry-After:", rec.Header().Get("Retry-After") != "")
	}
	// Output:
	// 200 "1m";r=1 Retry-After: false
	// 200 "1m";r=0 Retry-After: false
	// 429 "1m";r=0 Retry-After: true
}
