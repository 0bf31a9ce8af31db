package ginmw_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/ginmw"
)

// Gin runs a route's handlers in the order given, so the middleware given
// after the handler (r.GET(path, handler, limit), Echo's order) runs once
// the response is written. It can no longer refuse the request; its 429
// body must not be appended to the handler's answer, which would corrupt
// it (a JSON response no client can parse).
func TestMiddlewareAfterTheHandlerLeavesTheAnswerIntact(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1)})
	require.NoError(t, err)
	limit, err := ginmw.New(l)
	require.NoError(t, err)
	r := gin.New()
	r.GET("/", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"ok": true}) }, limit)
	srv := httptest.NewServer(r)
	defer srv.Close()
	for range 2 {
		resp, err := srv.Client().Get(srv.URL)
		require.NoError(t, err)
		var body map[string]any
		assert.NoError(t, decodeJSON(resp, &body), "the handler's answer, and nothing after it")
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, map[string]any{"ok": true}, body)
	}
}

// decodeJSON decodes the whole body of resp into v, and closes it: a body
// with anything after the JSON value is an error.
func decodeJSON(resp *http.Response, v any) error {
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("body %q: %w", b, err)
	}
	return nil
}
