// Command echo shows ratewindow on Echo: /login limited by client IP on an
// exact sliding log (5 per 5 minutes), the /api group limited by API key if
// the service issued it, else by client IP, on a sliding counter (10 per
// second and 1000 per hour), /healthz not limited.
package main

import (
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/echomw"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

func main() {
	e, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(e.Start("127.0.0.1:8080"))
}

func newServer() (*echo.Echo, error) {
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
	limitLogin, err := echomw.New(login, ratewindow.WithKeyFunc(keyfuncs.RemoteIP))
	if err != nil {
		return nil, err
	}
	limitAPI, err := echomw.New(api, ratewindow.WithKeyFunc(byAPIKey()))
	if err != nil {
		return nil, err
	}

	e := echo.New()
	// e.Start serves e.Server: bound every connection. Without these, a
	// slow or silent client holds a connection and a goroutine for good,
	// a few hundred of them the service, without ever meeting the rate
	// limit, which runs only once a request has arrived.
	e.Server.ReadHeaderTimeout = 5 * time.Second // the request line and headers
	e.Server.ReadTimeout = 10 * time.Second      // the headers and the body
	e.Server.IdleTimeout = 60 * time.Second      // a kept-alive connection between requests
	e.POST("/login", func(c echo.Context) error { return c.String(http.StatusOK, "welcome\n") }, limitLogin)
	apiGroup := e.Group("/api", limitAPI)
	apiGroup.GET("/items", func(c echo.Context) error { return c.String(http.StatusOK, "data\n") })
	e.GET("/healthz", func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") })
	return e, nil
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
