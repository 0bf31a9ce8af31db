package keyfuncs_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Behind two load balancers in 10.0.0.0/8, the client is the rightmost
// X-Forwarded-For entry that is not one of them. What the client wrote on
// the left is never read.
func ExampleNewClientIP() {
	clientIP, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{
		TrustedProxies: []string{"10.0.0.0/8"},
	})
	if err != nil {
		panic(err)
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.7:43122"
	r.Header.Set("X-Forwarded-For", "6.6.6.6, 203.0.113.9, 10.0.3.4")
	key, _ := clientIP(keyfuncs.HTTPRequest(r, ""))
	fmt.Println(key)
	// Output: ip:203.0.113.9
}

// IPv6 clients are grouped by /64: both addresses share one quota.
func ExampleRemoteIP() {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "[2001:db8:aa:bb::1]:5000"
	a, _ := keyfuncs.RemoteIP(keyfuncs.HTTPRequest(r, ""))
	r.RemoteAddr = "[2001:db8:aa:bb:dead:beef::2]:5001"
	b, _ := keyfuncs.RemoteIP(keyfuncs.HTTPRequest(r, ""))
	fmt.Println(a, a == b)
	// Output: ip:2001:db8:aa:bb::/64 true
}

type orgKey struct{}

// A per-organisation, per-route quota, with the client IP for requests
// that carry no organisation. Each part keeps its own namespace, so no
// organisation id can pose as an address or a path.
func ExampleCompose() {
	key := keyfuncs.Prefix("org", keyfuncs.Compose("|",
		keyfuncs.FromContext(orgKey{}, keyfuncs.RemoteIP),
		keyfuncs.Route,
	))
	r := httptest.NewRequest("GET", "/v1/search?q=go", nil)
	r = r.WithContext(context.WithValue(r.Context(), orgKey{}, "123"))
	k, _ := key(keyfuncs.HTTPRequest(r, "/v1/search"))
	fmt.Println(k)
	// Output: org:cmp:ctx:github.com/ratewindow/ratewindow/keyfuncs_test.orgKey:123|route:GET /v1/search
}

// An API key when there is one, the client address otherwise. The value is
// the client's to write: key by it only once it is checked (a header your
// gateway sets, or a key the service issued, see Header), or a client
// that makes up a new one per request never meets a limit.
func ExampleHeader() {
	key := keyfuncs.Header("X-API-Key", keyfuncs.RemoteIP)
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "192.0.2.10:3000"
	without, _ := key(keyfuncs.HTTPRequest(r, ""))
	r.Header.Set("X-API-Key", "k-123")
	withKey, _ := key(keyfuncs.HTTPRequest(r, ""))
	fmt.Println(withKey, without)
	// Output: hdr:x-api-key:k-123 ip:192.0.2.10
}

// Route keys by pattern, so every user id shares one quota per route.
func ExampleRoute() {
	r := httptest.NewRequest("GET", "/users/42", nil)
	k, _ := keyfuncs.Route(keyfuncs.HTTPRequest(r, "/users/{id}"))
	fmt.Println(k)
	// Output: route:GET /users/{id}
}
