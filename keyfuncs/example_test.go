package keyfuncs_test

import (
	"context"
	"fmt"

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
	r := &keyfuncs.StaticRequest{
		RemoteAddrValue: "10.0.0.7:43122",
		Headers: map[string][]string{
			"X-Forwarded-For": {"6.6.6.6, 203.0.113.9, 10.0.3.4"},
		},
	}
	key, _ := clientIP(r)
	fmt.Println(key)
	// Output: ip:203.0.113.9
}

// IPv6 clients are grouped by /64: both addresses share one quota.
func ExampleRemoteIP() {
	a, _ := keyfuncs.RemoteIP(&keyfuncs.StaticRequest{RemoteAddrValue: "[2001:db8:aa:bb::1]:5000"})
	b, _ := keyfuncs.RemoteIP(&keyfuncs.StaticRequest{RemoteAddrValue: "[2001:db8:aa:bb:dead:beef::2]:5001"})
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
	r := &keyfuncs.StaticRequest{
		MethodValue: "GET",
		RouteValue:  "/v1/search",
		Ctx:         context.WithValue(context.Background(), orgKey{}, "123"),
	}
	k, _ := key(r)
	fmt.Println(k)
	// Output: org:cmp:ctx:keyfuncs_test.orgKey:123|route:GET /v1/search
}

// An API key when there is one, the client address otherwise.
func ExampleHeader() {
	key := keyfuncs.Header("X-API-Key", keyfuncs.RemoteIP)
	withKey, _ := key(&keyfuncs.StaticRequest{Headers: map[string][]string{"X-Api-Key": {"k-123"}}})
	without, _ := key(&keyfuncs.StaticRequest{RemoteAddrValue: "192.0.2.10:3000"})
	fmt.Println(withKey, without)
	// Output: hdr:x-api-key:k-123 ip:192.0.2.10
}

// Route keys by pattern, so every user id shares one quota per route.
func ExampleRoute() {
	k, _ := keyfuncs.Route(&keyfuncs.StaticRequest{MethodValue: "GET", PathValue: "/users/42", RouteValue: "/users/{id}"})
	fmt.Println(k)
	// Output: route:GET /users/{id}
}
