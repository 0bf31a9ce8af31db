package main

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/exampletest"
)

func TestRoutes(t *testing.T) {
	app, err := newApp()
	require.NoError(t, err)
	exampletest.CheckRoutes(t, func(method, path, apiKey string) *http.Response {
		req := httptest.NewRequest(method, path, nil)
		if apiKey != "" {
			req.Header.Set("X-API-Key", apiKey)
		}
		resp, err := app.Test(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	})
}
