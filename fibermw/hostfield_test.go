package fibermw_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// A request-target in origin form names no host: the request is for the
// Host field's (as net/http, Gin and Echo, and any proxy, read it). But
// fasthttp reads a target that begins "//" and holds "://" anywhere
// ("//x1.example/?next=http://") as if it were absolute, and Fiber then
// serves it by the rest of the path ("/") as for the host x1.example.
// Keyed by that host, a client behind a proxy that sets the Host field
// makes up a new host, and gets a fresh quota, on every request. Keyed by
// the Host field, a client that sends "//a.example/?://" is served as
// a.example by an app that reads c.Hostname() and keyed by a Host field
// it makes up. The two readings disagree: such a request has no host, and
// a key by host comes from its fallback.
func TestHostOfAnAmbiguousTarget(t *testing.T) {
	keyOf := hostKeyed(t, fiber.Config{})
	for _, c := range []struct{ target, host, key string }{
		{"/", "A.Example:8080", "hdr:host:a.example"},
		{"//x1.example/?next=http://", "a.example", "const:fallback"},
		{"//x2.example/p?next=http://", "a.example", "const:fallback"},
		{"//a.example/?next=http://", "x3.example", "const:fallback"},
		{"//a.example/x://", "x4.example", "const:fallback"},
		// A path that merely begins "//" is read as a path by fasthttp too.
		{"//x5.example/p", "a.example", "hdr:host:a.example"},
		{"/p?next=http://x6.example/", "a.example", "hdr:host:a.example"},
		// With no Host field, net/http gives no host; fasthttp x7.example.
		{"//x7.example/p", "", "const:fallback"},
		// An absolute target names the host, whatever the field says.
		{"http://a.example/", "x8.example", "hdr:host:a.example"},
	} {
		r := httptest.NewRequest(http.MethodGet, c.target, nil)
		r.Host = c.host
		assert.Equal(t, c.key, keyOf(r), "%s with Host %s", c.target, c.host)
	}
}

// A CONNECT request's target in authority form ("CONNECT a.example:443")
// names the host it is for, as net/http reads it (Request.Host, whatever
// the Host field says); fasthttp, and Fiber's c.Hostname, read the Host
// field. Keyed by the field, a client that asks an app serving CONNECT for
// a.example:443 with a made-up Host field got a fresh quota each time.
// When the two readings disagree, the request has no host; when they
// agree, as a client that follows HTTP sends them, it is keyed by it.
func TestHostOfAConnect(t *testing.T) {
	keyOf := hostKeyed(t, fiber.Config{})
	for _, c := range []struct{ target, host, key string }{
		{"a.example:443", "x1.example", "const:fallback"},
		{"a.example:443", "x2.example:443", "const:fallback"},
		{"a.example:443", "a.example:443", "hdr:host:a.example"},
		{"A.Example:443", "a.example:443", "hdr:host:a.example"},
		// In origin form the target names no host: the field does.
		{"/p", "a.example", "hdr:host:a.example"},
	} {
		r := httptest.NewRequest(http.MethodConnect, c.target, nil)
		r.Host = c.host
		assert.Equal(t, c.key, keyOf(r), "CONNECT %s with Host %s", c.target, c.host)
	}
}

// Fiber's c.Hostname reads X-Forwarded-Host over the Host field from a
// trusted peer, and every peer is trusted unless EnableTrustedProxyCheck
// is set. Keyed by the Host field, a client that an app serves by
// c.Hostname() as a.example (X-Forwarded-Host: a.example) made up a new
// Host field, and got a fresh quota, on every request. When the two
// disagree the request has no host; from a peer Fiber does not trust,
// c.Hostname() is the Host field's, and so is the key.
func TestHostWhereHostnameReadsForwardedHost(t *testing.T) {
	for _, c := range []struct {
		name           string
		check          bool
		host, fwd, key string
	}{
		{"made-up Host field", false, "x1.example", "a.example", "const:fallback"},
		{"another made-up Host field", false, "x2.example", "a.example", "const:fallback"},
		{"fields agree", false, "a.example", "A.Example, x3.example", "hdr:host:a.example"},
		{"no X-Forwarded-Host", false, "a.example", "", "hdr:host:a.example"},
		{"untrusted peer", true, "x4.example", "a.example", "hdr:host:x4.example"},
	} {
		t.Run(c.name, func(t *testing.T) {
			keyOf := hostKeyed(t, fiber.Config{EnableTrustedProxyCheck: c.check})
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Host = c.host
			if c.fwd != "" {
				r.Header.Set("X-Forwarded-Host", c.fwd)
			}
			assert.Equal(t, c.key, keyOf(r))
		})
	}
}

// hostKeyed returns a func that sends a request to an app of cfg whose
// every route, for any method, is behind a middleware keyed by the Host
// field (by "fallback" when the request has no host) and serves
// c.Hostname(), and returns the one key the request was charged under.
func hostKeyed(t *testing.T, cfg fiber.Config) func(r *http.Request) string {
	t.Helper()
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(100)})
	require.NoError(t, err)
	var keys []string
	limit, err := fibermw.New(l,
		ratewindow.WithKeyFunc(keyfuncs.Header("Host", keyfuncs.Constant("fallback"))),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { keys = append(keys, ev.Key) }))
	require.NoError(t, err)
	cfg.DisableStartupMessage = true
	app := fiber.New(cfg)
	app.Use(limit)
	app.All("/*", func(c *fiber.Ctx) error { return c.SendString(c.Hostname()) })
	return func(r *http.Request) string {
		keys = keys[:0]
		resp, err := app.Test(r)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, r.URL.String())
		require.Len(t, keys, 1, "one decision for %s", r.URL.String())
		return keys[0]
	}
}
