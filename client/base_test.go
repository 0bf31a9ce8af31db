package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/client"
)

// An error of the base RoundTripper is returned as it is.
func TestBaseErrorIsReturned(t *testing.T) {
	boom := errors.New("boom")
	tr, err := client.New(roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, boom }))
	require.NoError(t, err)
	_, err = tr.RoundTrip(request(t, context.Background(), "GET", "http://127.0.0.1:1/", nil))
	assert.ErrorIs(t, err, boom)
}

// A retry that fails in the base transport returns that error: the error
// of the retried round trip must not be lost (it used to be, and the next
// step read the nil response's header).
func TestRetryErrorIsReturned(t *testing.T) {
	boom := errors.New("boom")
	var calls atomic.Int32
	tr, err := client.New(roundTripFunc(func(*http.Request) (*http.Response, error) {
		if calls.Add(1) == 1 {
			h := http.Header{}
			h.Set("Retry-After", "0")
			return &http.Response{StatusCode: http.StatusTooManyRequests, Header: h, Body: io.NopCloser(strings.NewReader(""))}, nil
		}
		return nil, boom
	}))
	require.NoError(t, err)
	resp, err := tr.RoundTrip(request(t, context.Background(), "GET", "http://127.0.0.1:1/", nil))
	assert.Nil(t, resp)
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, int32(2), calls.Load())
}

// A base RoundTripper may answer with a nil Body (net/http's Client reads
// it as an empty one, as test fakes rely on): a 429 so answered is
// retried, not a panic.
func TestNilBodyIsRetried(t *testing.T) {
	var calls atomic.Int32
	tr, err := client.New(roundTripFunc(func(*http.Request) (*http.Response, error) {
		h := http.Header{}
		if calls.Add(1) == 1 {
			h.Set("Retry-After", "0")
			return &http.Response{StatusCode: http.StatusTooManyRequests, Header: h}, nil
		}
		return &http.Response{StatusCode: http.StatusOK, Header: h}, nil
	}))
	require.NoError(t, err)
	resp, err := (&http.Client{Transport: tr}).Do(request(t, context.Background(), "GET", "http://127.0.0.1:1/", nil))
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, int32(2), calls.Load())
}

// A base RoundTripper that breaks its contract, answering neither a
// response nor an error, gets the caller an error naming it, as
// http.Client gives, not a panic; and the key's next request is sent.
func TestNilResponseIsAnError(t *testing.T) {
	var calls atomic.Int32
	tr, err := client.New(roundTripFunc(func(*http.Request) (*http.Response, error) {
		switch calls.Add(1) {
		case 1:
			h := http.Header{}
			h.Set("RateLimit", `"default";r=0;t=0`)
			return &http.Response{StatusCode: http.StatusOK, Header: h, Body: http.NoBody}, nil
		case 2:
			return nil, nil
		}
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody}, nil
	}))
	require.NoError(t, err)
	send := func() (*http.Response, error) {
		return tr.RoundTrip(request(t, context.Background(), "GET", "http://127.0.0.1:1/", nil))
	}
	_, err = send()
	require.NoError(t, err)
	resp, err := send() // the probe after the used-up quota's reset
	assert.Nil(t, resp)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nil response")
	resp, err = send()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, int32(3), calls.Load())
}

// A request without a URL, which http.Client refuses before any round
// tripper sees it, is refused by this one too when called directly (as a
// reverse proxy does), not a panic of the key; its body is closed.
func TestRequestWithoutURLIsAnError(t *testing.T) {
	var calls atomic.Int32
	tr, err := client.New(roundTripFunc(func(*http.Request) (*http.Response, error) {
		calls.Add(1)
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody}, nil
	}))
	require.NoError(t, err)
	body := &closeCounter{Reader: strings.NewReader("payload")}
	resp, err := tr.RoundTrip(&http.Request{Method: "PUT", Header: http.Header{}, Body: body})
	assert.Nil(t, resp)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "URL")
	assert.Equal(t, int32(1), body.closes.Load(), "the body is closed, as RoundTrip must")
	assert.Zero(t, calls.Load())
}

// closeCounter counts the calls to Close of a request body.
type closeCounter struct {
	io.Reader
	closes atomic.Int32
}

func (c *closeCounter) Close() error {
	c.closes.Add(1)
	return nil
}
