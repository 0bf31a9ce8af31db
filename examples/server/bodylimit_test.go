package main

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFiberBodyLimit: Fiber reads a request's whole body before the
// limiter runs, up to its BodyLimit (4 MiB unless set), so a client the
// limiter denies has uploaded that much. The demo's routes take no body:
// a body over bodyLimit is refused (413) before it is read, one within it
// is served.
func TestFiberBodyLimit(t *testing.T) {
	p := start(t, "-framework", "fiber")
	send := func(n int) int {
		req, err := http.NewRequest(http.MethodGet, p.url+"/", bytes.NewReader(make([]byte, n)))
		require.NoError(t, err)
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusRequestEntityTooLarge, send(bodyLimit+1))
	assert.Equal(t, http.StatusRequestEntityTooLarge, send(1<<20))
	assert.Equal(t, http.StatusOK, send(bodyLimit))
}
