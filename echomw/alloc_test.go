package echomw

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Routing a request Echo has not routed (a 404, or any request under
// e.Pre) borrows a context from Echo's pool: the route key of a 404 costs
// the key alone, however many such requests a client sends.
func TestAllocsRouteLookup(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	e := echo.New()
	e.GET("/items/:id", func(c echo.Context) error { return c.NoContent(http.StatusOK) })
	x := getExchange(e.NewContext(httptest.NewRequest(http.MethodGet, "/nope/42", nil), nil))
	defer putExchange(x)
	var key string
	allocs := testing.AllocsPerRun(100, func() {
		x.found, x.looked = "", false // a fresh request
		var err error
		key, err = keyfuncs.Route(x)
		require.NoError(t, err)
	})
	assert.Equal(t, "route:GET (unmatched)", key)
	assert.LessOrEqual(t, allocs, 1.0, "the key, nothing more")
}
