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

// Two requests per minute per issued API key on a route group, per client
// IP for any other request: keyed by the header as sent, a client that
// made up a new key for every request would never meet the limit. The
// made-up keys below share the client's one quota.
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
	issued := map[string]bool{"k-123": true} // the API keys the service issued
	byKey := keyfuncs.Header("X-API-Key", nil)
	limit, err := ginmw.New(limiter, ratewindow.WithKeyFunc(func(r keyfuncs.Request) (string, error) {
		if issued[strings.TrimSpace(r.Header("X-API-Key"))] {
			return byKey(r)
		}
		return keyfuncs.RemoteIP(r) // a made-up key is no quota of its own
	}))
	if err != nil {
		panic(err)
	}
	r := gin.New()
	api := r.Group("/api", limit)
	api.GET("/items", func(c *gin.Context) { c.String(http.StatusOK, "ok\n") })

	for _, apiKey := range []string{"k-123", "k-123", "k-123", "made-up-1", "made-up-2", "made-up-3"} {
		req := httptest.NewRequest(http.MethodGet, "/api/items", nil)
		req.Header.Set("X-API-Key", apiKey)
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		quota, _, _ := strings.Cut(rec.Header().Get("RateLimit"), ";t=")
		fmt.Println(rec.Code, quota, "Retry-After:", rec.Header().Get("Retry-After") != "")
	}
	// Output:
	// 200 "1m";r=1 Retry-After: false
	// 200 "1m";r=0 Retry-After: false
	// 429 "1m";r=0 Retry-After: true
	// 200 "1m";r=1 Retry-After: false
	// 200 "1m";r=0 Retry-After: false
	// 429 "1m";r=0 Retry-After: true
}
