package client_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ratewindow/ratewindow/client"
)

// The transport's cost per request over loopback, next to the bare
// http.Transport it wraps: the server answers 200 with draft-8 fields and
// plenty of quota, so nothing ever waits.
func BenchmarkLoopback(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("RateLimit-Policy", `"default";q=1000000;w=60`)
		w.Header().Set("RateLimit", `"default";r=999999;t=60`)
		_, _ = io.WriteString(w, "ok\n")
	}))
	defer srv.Close()
	bare := &http.Transport{MaxIdleConnsPerHost: 4}
	defer bare.CloseIdleConnections()
	paced, err := client.New(&http.Transport{MaxIdleConnsPerHost: 4})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		rt   http.RoundTripper
	}{{"bare", bare}, {"client", paced}} {
		b.Run(bc.name, func(b *testing.B) {
			c := &http.Client{Transport: bc.rt}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := c.Get(srv.URL)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// The transport's own work per request, without the network: a base that
// returns a canned response.
func BenchmarkOverhead(b *testing.B) {
	for _, field := range []struct{ name, key, value string }{
		{"draft-8", "RateLimit", `"default";r=999999;t=60`},
		{"draft-7", "RateLimit", "limit=1000000, remaining=999999, reset=60"},
		{"draft-6", "RateLimit-Remaining", "999999"},
	} {
		h := http.Header{}
		h.Set(field.key, field.value)
		h.Set("RateLimit-Reset", "60")
		base := roundTripFunc(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: h, Body: http.NoBody}, nil
		})
		tr, err := client.New(base)
		if err != nil {
			b.Fatal(err)
		}
		req, _ := http.NewRequest("GET", "http://api.example/items", strings.NewReader(""))
		req.Body = http.NoBody
		b.Run(field.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tr.RoundTrip(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
