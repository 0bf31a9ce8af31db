package echomw_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/echomw"
)

// A middleware that answers and then calls next runs the limiter on a
// committed response: it can no longer refuse the request, and its 429
// body must not be appended to the answer, as it would be on Echo.
func TestCommittedResponseLeftIntact(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1)})
	require.NoError(t, err)
	limit, err := echomw.New(l)
	require.NoError(t, err)
	early := func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := c.String(http.StatusOK, "early\n"); err != nil {
				return err
			}
			return next(c)
		}
	}
	e := echo.New()
	e.Logger.SetOutput(io.Discard)
	e.GET("/", func(echo.Context) error { return nil }, early, limit)
	srv := httptest.NewServer(e)
	defer srv.Close()
	for range 2 {
		resp, err := srv.Client().Get(srv.URL)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "early\n", string(b), "the answer, and nothing after it")
	}
}
