package client_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/client"
)

// trackedBody records whether a response body was closed.
type trackedBody struct {
	io.ReadCloser
	closed atomic.Bool
}

func (b *trackedBody) Close() error {
	b.closed.Store(true)
	return b.ReadCloser.Close()
}

// Every refusal the transport retries past is closed (read to its end
// first when small), over HTTP/1.1 and HTTP/2; the caller gets the last
// response itself, open and readable; and every attempt carries the
// caller's headers and body.
func TestDiscardedResponsesAreClosed(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		for _, size := range []int{0, 100, 200 << 10} {
			t.Run(fmt.Sprintf("h2=%v/refusal of %d bytes", h2, size), func(t *testing.T) {
				var calls atomic.Int64
				srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					b, _ := io.ReadAll(r.Body)
					if r.Header.Get("X-Caller") != "mine" || string(b) != "payload" {
						http.Error(w, "lost the caller's header or body", http.StatusBadRequest)
						return
					}
					if calls.Add(1) <= 2 {
						w.Header().Set("Retry-After", "0")
						w.WriteHeader(http.StatusTooManyRequests)
						_, _ = io.WriteString(w, strings.Repeat("x", size))
						return
					}
					_, _ = io.WriteString(w, "the answer")
				}))
				if h2 {
					srv.EnableHTTP2 = true
					srv.StartTLS()
				} else {
					srv.Start()
				}
				defer srv.Close()
				inner := srv.Client().Transport.(*http.Transport).Clone()
				defer inner.CloseIdleConnections()
				var mu sync.Mutex
				var bodies []*trackedBody
				base := roundTripFunc(func(req *http.Request) (*http.Response, error) {
					resp, err := inner.RoundTrip(req)
					if err == nil {
						b := &trackedBody{ReadCloser: resp.Body}
						resp.Body = b
						mu.Lock()
						bodies = append(bodies, b)
						mu.Unlock()
					}
					return resp, err
				})
				tr, err := client.New(base)
				require.NoError(t, err)
				req := request(t, context.Background(), "PUT", srv.URL, strings.NewReader("payload"))
				req.Header.Set("X-Caller", "mine")
				resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
				require.NoError(t, err)
				defer resp.Body.Close()

				require.Equal(t, http.StatusOK, resp.StatusCode)
				mu.Lock()
				defer mu.Unlock()
				require.Len(t, bodies, 3)
				for i, b := range bodies[:2] {
					assert.True(t, b.closed.Load(), "refusal %d is closed", i)
				}
				assert.False(t, bodies[2].closed.Load(), "the response returned is left to the caller")
				got, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				assert.Equal(t, "the answer", string(got))
			})
		}
	}
}
