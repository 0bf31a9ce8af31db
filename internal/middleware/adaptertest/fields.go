package adaptertest

import (
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
	}
}
