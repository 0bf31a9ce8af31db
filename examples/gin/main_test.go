package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func init() { gin.SetMode(gin.TestMode) }

func TestRoutes(t *testing.T) {
	h, err := newRouter()
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	do := func(method, path, apiKey string) *http.Response {
		req, err := http.NewRequest(method, srv.URL+path, nil)
		require.NoError(t, err)
		if apiKey != "" {
			req.Header.Set("X-API-Key", apiKey)
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	for i := range 5 {
		assert.Equal(t, http.StatusOK, do(http.MethodPost, "/login", "").StatusCode, "login %d", i)
	}
	denied := do(http.MethodPost, "/login", "")
	assert.Equal(t, http.StatusTooManyRequests, denied.StatusCode)
	assert.NotEmpty(t, denied.Header.Get("Retry-After"))

	api := do(http.MethodGet, "/api/items", "key-1")
	assert.Equal(t, http.StatusOK, api.StatusCode)
	assert.True(t, strings.HasPrefix(api.Header.Get("RateLimit"), `"api-`), api.Header.Get("RateLimit"))
	assert.Contains(t, api.Header.Get("RateLimit-Policy"), `"api-hourly";q=1000;w=3600`)

	for range 10 {
		resp := do(http.MethodGet, "/healthz", "")
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Empty(t, resp.Header.Get("RateLimit"))
	}
}
