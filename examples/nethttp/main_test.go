package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/exampletest"
)

func TestRoutes(t *testing.T) {
	h, err := newHandler()
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	exampletest.CheckRoutes(t, func(method, path, apiKey string) *http.Response {
		req, err := http.NewRequest(method, srv.URL+path, nil)
		require.NoError(t, err)
		if apiKey != "" {
			req.Header.Set("X-API-Key", apiKey)
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	})
}
