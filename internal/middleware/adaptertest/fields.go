package adaptertest

import (
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// fieldScenarios hold request fields every framework must show the key
// funcs alike.
func fieldScenarios() []Scenario {
	host := func(h string) map[string]string { return map[string]string{"Host": h} }
	return []Scenario{
		{
			// net/http moves the Host field out of the header map into
			// Request.Host; fasthttp keeps it. Read from the header map
			// alone, a key by the Host field (one quota per tenant
			// domain) works on Fiber and answers every request 400 on
			// the others. A host is matched in any case, with or
			// without a port.
			Name: "the Host field is a header like any other",
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header("Host", nil))}
			},
			Steps: []Step{
				{Header: host("a.example"), Repeat: 3, Status: 200, Body: okBody},
				{Header: host("a.example"), Status: 429, Want: denied(minute(0, 60), 60)},
				// One host however it is spelt: no new quota for a
				// name in other case, or with a port.
				{Header: host("A.Example"), Status: 429, Want: denied(minute(0, 60), 60)},
				{Header: host("a.example:80"), Status: 429, Want: denied(minute(0, 60), 60)},
				{Header: host("b.example"), Status: 200, Want: minute(2, 60)},
			},
		},
		{
			// A request-target in absolute form names the host the
			// request is for: net/http (Gin, Echo) sets Request.Host
			// from it and fasthttp's URI (Fiber's c.Hostname) takes it
			// too, whatever the Host field says. Keyed by the Host
			// field as sent, a client asks for a.example with a new
			// made-up Host field each time and gets a fresh quota on
			// every request.
			Name: "the Host field is the host an absolute request-target names",
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header("Host", nil))}
			},
			Steps: []Step{
				{AbsoluteHost: "a.example", Header: host("x1.example"), Status: 200, Want: minute(2, 60), Body: okBody},
				{AbsoluteHost: "a.example", Header: host("x2.example"), Status: 200, Want: minute(1, 60)},
				{AbsoluteHost: "A.Example:8080", Header: host("x3.example"), Status: 200, Want: minute(0, 60)},
				{AbsoluteHost: "a.example", Header: host("x4.example"), Status: 429, Want: denied(minute(0, 60), 60)},
				{Header: host("a.example"), Status: 429, Want: denied(minute(0, 60), 60)},
				// The made-up Host fields were never charged.
				{Header: host("x1.example"), Status: 200, Want: minute(2, 60)},
			},
		},
		{
			// A field sent on two lines: Header keys by the first on
			// every framework, as their own lookups read it, so what
			// a client adds on a later line changes nothing.
			Name: "a header sent on two lines is keyed by the first",
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header("X-API-Key", nil))}
			},
			Steps: []Step{
				{Lines: []string{"X-API-Key", "k1", "X-API-Key", "x1"}, Status: 200, Want: minute(2, 60)},
				{Lines: []string{"X-API-Key", "k1", "X-API-Key", "x2"}, Status: 200, Want: minute(1, 60)},
				{Lines: []string{"X-API-Key", "k1"}, Status: 200, Want: minute(0, 60)},
				{Lines: []string{"X-API-Key", "k1", "X-API-Key", "x3"}, Status: 429, Want: denied(minute(0, 60), 60)},
				{Lines: []string{"X-API-Key", "x1"}, Status: 200, Want: minute(2, 60)},
			},
		},
		{
			// X-Forwarded-For on several lines is one list, joined in
			// order, on every framework: from a trusted peer the key
			// is the rightmost entry that is not trusted, whatever a
			// client writes to its left or on an earlier line.
			Name: "X-Forwarded-For lines are one list",
			Options: func(env *Env) []ratewindow.Option {
				ip, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: []string{"127.0.0.1", "10.0.0.0/8"}})
				require.NoError(env.t, err)
				return []ratewindow.Option{ratewindow.WithKeyFunc(ip)}
			},
			Steps: []Step{
				{Lines: []string{"X-Forwarded-For", "198.51.100.1", "X-Forwarded-For", "203.0.113.9, 10.0.0.2"}, Status: 200, Want: minute(2, 60)},
				{Lines: []string{"X-Forwarded-For", "198.51.100.2, 203.0.113.9", "X-Forwarded-For", "10.0.0.2"}, Status: 200, Want: minute(1, 60)},
				{Lines: []string{"X-Forwarded-For", "203.0.113.9"}, Status: 200, Want: minute(0, 60)},
				{Lines: []string{"X-Forwarded-For", "::ffff:203.0.113.9", "X-Forwarded-For", "10.0.0.3"}, Status: 429, Want: denied(minute(0, 60), 60)},
				{Lines: []string{"X-Forwarded-For", "203.0.113.9", "X-Forwarded-For", "198.51.100.1"}, Status: 200, Want: minute(2, 60)},
			},
		},
	}
}
