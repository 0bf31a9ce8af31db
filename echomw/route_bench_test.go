package echomw

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// BenchmarkRouteLookup measures keyfuncs.Route on a request Echo has not
// routed (c.Path() is "", as under e.Pre and for a 404), so the adapter
// asks Echo's router: for a path no route matches, and for one a route
// matches.
func BenchmarkRouteLookup(b *testing.B) {
	e := echo.New()
	e.GET("/items/:id", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	for _, c := range []struct{ name, path string }{{"404", "/nope/42"}, {"matched", "/items/42"}} {
		b.Run(c.name, func(b *testing.B) {
			x := getExchange(e.NewContext(httptest.NewRequest(http.MethodGet, c.path, nil), nil))
			defer putExchange(x)
			b.ReportAllocs()
			for b.Loop() {
				x.found, x.looked = "", false // a fresh request
				if _, err := keyfuncs.Route(x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
