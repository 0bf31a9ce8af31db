package httpbench

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServers starts every server on loopback and checks that it answers
// 200 "ok" and that the limited ones really run their limiter (it writes
// its rate-limit header).
func TestServers(t *testing.T) {
	header := map[string]string{
		"nethttp-ratewindow": "RateLimit-Policy",
		"nethttp-httprate":   "X-RateLimit-Limit",
		"fiber-ratewindow":   "RateLimit-Policy",
		"fiber-limiter":      "X-RateLimit-Limit",
	}
	client := &http.Client{Timeout: 5 * time.Second}
	for _, s := range Servers() {
		t.Run(s.Name, func(t *testing.T) {
			if s.Floor != "" {
				assert.Contains(t, []string{"nethttp-bare", "fiber-bare"}, s.Floor)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			stop, err := s.Start(ln)
			require.NoError(t, err)
			for range 3 {
				resp, err := client.Get("http://" + ln.Addr().String() + "/")
				require.NoError(t, err)
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				require.NoError(t, resp.Body.Close())
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Equal(t, "ok\n", string(body))
				if h, limited := header[s.Name]; limited {
					assert.NotEmpty(t, resp.Header.Get(h), "header %s", h)
				} else {
					assert.Empty(t, resp.Header.Get("RateLimit-Policy"))
				}
			}
			require.NoError(t, stop())
		})
	}
}
