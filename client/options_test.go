package client_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/client"
	"github.com/ratewindow/ratewindow/core"
)

func TestNewRejectsBadOptions(t *testing.T) {
	for name, o := range map[string]client.Option{
		"negative retries": client.WithMaxRetries(-1),
		"zero max wait":    client.WithMaxWait(0),
		"jitter above 1":   client.WithJitter(1.5),
		"negative jitter":  client.WithJitter(-0.1),
		"nil key":          client.WithKey(nil),
	} {
		_, err := client.New(nil, o)
		assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
	}
}

// A nil Option is skipped, as the module's other constructors skip one:
// New neither panics on it nor drops the options after it.
func TestNewSkipsNilOptions(t *testing.T) {
	tr, err := client.New(nil, nil, client.WithMaxRetries(0))
	require.NoError(t, err)
	a := &always{status: http.StatusTooManyRequests}
	url := serve(t, a)
	c := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	resp := do(t, c, request(t, context.Background(), http.MethodGet, url, nil))
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, int64(1), a.calls.Load(), "WithMaxRetries(0), given after the nil option, applies")
}

// A base that is a nil pointer or a nil func, such as a *http.Transport
// variable never set, is refused by New: it is no RoundTripper, and the
// first request through it would panic. Only an untyped nil base means
// http.DefaultTransport.
func TestNewRejectsNilBase(t *testing.T) {
	for name, base := range map[string]http.RoundTripper{
		"nil *http.Transport": (*http.Transport)(nil),
		"nil func":            roundTripFunc(nil),
	} {
		tr, err := client.New(base)
		require.ErrorIs(t, err, core.ErrInvalidConfig, name)
		assert.Nil(t, tr, name)
	}
}
