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

// A base whose nil value is a working RoundTripper, a map or a slice
// (its methods read a nil one as empty), is no unset transport, nor is a
// struct's zero value: New accepts them and the requests go through
// them, as before New refused nil pointers and funcs.
func TestNewAcceptsNilMapAndSliceBases(t *testing.T) {
	for name, base := range map[string]http.RoundTripper{
		"nil map":     hostRoutes(nil),
		"nil slice":   decorators(nil),
		"zero struct": plainBase{},
	} {
		tr, err := client.New(base)
		require.NoError(t, err, name)
		a := &always{status: http.StatusOK}
		url := serve(t, a)
		c := &http.Client{Transport: tr, Timeout: 20 * time.Second}
		resp := do(t, c, request(t, context.Background(), http.MethodGet, url, nil))
		assert.Equal(t, http.StatusOK, resp.StatusCode, name)
		assert.Equal(t, int64(1), a.calls.Load(), name)
	}
}

// hostRoutes sends each host's requests through its own transport, and
// those of any other host through http.DefaultTransport.
type hostRoutes map[string]http.RoundTripper

func (r hostRoutes) RoundTrip(req *http.Request) (*http.Response, error) {
	if rt, ok := r[req.URL.Host]; ok {
		return rt.RoundTrip(req)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// decorators edits each request in turn, then sends it through
// http.DefaultTransport.
type decorators []func(*http.Request)

func (d decorators) RoundTrip(req *http.Request) (*http.Response, error) {
	for _, f := range d {
		f(req)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// plainBase sends every request through http.DefaultTransport.
type plainBase struct{}

func (plainBase) RoundTrip(req *http.Request) (*http.Response, error) {
	return http.DefaultTransport.RoundTrip(req)
}
