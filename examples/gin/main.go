// Command gin shows ratewindow on Gin: /login limited by client IP on an
// exact sliding log (5 per 5 minutes), the /api group limited by API key if
// the service issued it, else by client IP, on a sliding counter (10 per
// second and 1000 per hour), /healthz not limited.
package main

import (
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/ginmw"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

func main() {
	r, err := newRouter()
	if err != nil {
		log.Fatal(err)
	}
	// Not r.Run, which, like http.ListenAndServe, sets no timeouts.
	log.Fatal(newServer("127.0.0.1:8080", r).ListenAndServe())
}

// newServer serves h on addr with every connection bounded.
// http.ListenAndServe would wait for a slow or silent client for good, a
// connection and a goroutine each: a few hundred of them, sending a byte
// now and then, hold the service without ever meeting the rate limit,
// which runs only once a request has arrived.
func newServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,  // the request line and headers
		ReadTimeout:       10 * time.Second, // the headers and the body
		IdleTimeout:       60 * time.Second, // a kept-alive connection between requests
	}
}

func newRouter() (*gin.Engine, error) {
	// The memory store counts in this process only: run several instances
	// and a client gets the limit once per instance. Share core/redisstore
	// between them instead.
	store := memory.New()
	login, err := core.NewLimiter(store, []core.Policy{core.Per(5, 5*time.Minute).Using(core.SlidingLog).Named("login")})
	if err != nil {
		return nil, err
	}
	api, err := core.NewLimiter(store, []core.Policy{core.PerSecond(10).Named("api-burst"), core.PerHour(1000).Named("api-hourly")})
	if err != nil {
		return nil, err
	}

	// RemoteIP is the peer address: behind a reverse proxy, the proxy's,
	// shared by every client. There, key by keyfuncs.NewClientIP instead.
	limitLogin, err := ginmw.New(login, ratewindow.WithKeyFunc(keyfuncs.RemoteIP))
	if err != nil {
		return nil, err
	}
	limitAPI, err := ginmw.New(api, ratewindow.WithKeyFunc(byAPIKey()))
	if err != nil {
		return nil, err
	}

	r := gin.New()
	r.POST("/login", limitLogin, func(c *gin.Context) { c.String(http.StatusOK, "welcome\n") })
	apiGroup := r.Group("/api", limitAPI)
	apiGroup.GET("/items", func(c *gin.Context) { c.String(http.StatusOK, "data\n") })
	r.GET("/healthz", func(c *gin.Context) { c.String(http.StatusOK, "ok\n") })
	return r, nil
}

// apiKeys stands for the service's record of the API keys it issued.
var apiKeys = map[string]bool{"key-1": true, "key-2": true}

// byAPIKey keys a request by its X-API-Key if that key was issued, else by
// the client's address. Keyed by the header as sent, a client that makes up
// a new key for every request would never meet a limit. Where an
// authentication middleware runs before the limiter, key by the identity it
// found instead (keyfuncs.FromContext).
func byAPIKey() keyfuncs.KeyFunc {
	byKey := keyfuncs.Header("X-API-Key", nil)
	return func(r keyfuncs.Request) (string, error) {
		if apiKeys[strings.TrimSpace(r.Header("X-API-Key"))] {
			return byKey(r)
		}
		return keyfuncs.RemoteIP(r)
	}
}
