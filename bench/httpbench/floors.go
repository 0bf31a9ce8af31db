package httpbench

import (
	"net/http"
	"net/textproto"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
)

// FieldFloors returns bare servers whose handler sets, as constants, the
// two draft-8 fields ratewindow's middleware writes for the comparison's
// policy on the first request (RateLimit-Policy and RateLimit, the same
// names and value lengths): "nethttp-bare-fields" (with the Content-Type
// handler) and "fiber-bare-fields" (set by a middleware in front of the
// route, as fibermw is mounted). They do no limiting and no formatting, so
// their distance to the bare floors is what the fields alone cost the
// framework, and the middleware's distance to them is its own work. Each
// is compared with its bare floor ("nethttp-bare", "fiber-bare").
func FieldFloors() []Server {
	policy, rateLimit := draft8Fields()
	policyName := textproto.CanonicalMIMEHeaderKey("RateLimit-Policy")
	rateLimitName := textproto.CanonicalMIMEHeaderKey("RateLimit")
	netHTTP := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h[policyName] = policy
		h[rateLimitName] = rateLimit
		contentTypeHandler(w, r)
	})
	policyKey := fasthttp.AppendNormalizedHeaderKey(nil, "RateLimit-Policy")
	rateLimitKey := fasthttp.AppendNormalizedHeaderKey(nil, "RateLimit")
	policyValue, rateLimitValue := []byte(policy[0]), []byte(rateLimit[0])
	fiberFields := func() (fiber.Handler, error) {
		return func(c *fiber.Ctx) error {
			c.Response().Header.SetCanonical(policyKey, policyValue)
			c.Response().Header.SetCanonical(rateLimitKey, rateLimitValue)
			return c.Next()
		}, nil
	}
	return []Server{
		{Name: "nethttp-bare-fields", Floor: "nethttp-bare", Start: serveNetHTTP(bareNetHTTP(netHTTP))},
		{Name: "fiber-bare-fields", Floor: "fiber-bare", Start: serveFiber(fiberFields)},
	}
}

// draft8Fields are the RateLimit-Policy and RateLimit values ratewindow
// writes for the comparison's policy after one request, each as a
// one-element header value. net/http handlers must not modify them.
func draft8Fields() (policy, rateLimit []string) {
	p := core.Per(Limit, Window)
	d := core.Decision{Allowed: true, Policies: []core.Policy{p}}
	d.States()[0] = core.PolicyState{Allowed: true, Remaining: Limit - 1, ResetAfter: Window}
	headers.Writer{}.Write(func(name, value string) {
		switch name {
		case "RateLimit-Policy":
			policy = []string{value}
		case "RateLimit":
			rateLimit = []string{value}
		}
	}, &d, time.Time{})
	return policy, rateLimit
}

// Control returns "nethttp-bare-again": the bare net/http server with the
// Content-Type handler, compared with its identical twin "nethttp-bare"
// like any other row. Nothing tells the two apart but the moment they run,
// so its distance from 1.00× and the range of its rounds are what the
// machine alone does to a ratio: the resolution of every ratio beside it.
func Control() Server {
	return Server{Name: "nethttp-bare-again", Floor: "nethttp-bare", Start: serveNetHTTP(bareNetHTTP(contentTypeHandler))}
}
