package fibermw

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// exchange is a *fiber.Ctx seen as the flow's request view and response
// surface. Converting the pointer costs nothing. Every string it returns
// is owned (copied out of Fiber's reused buffers) or constant.
type exchange fiber.Ctx

func (x *exchange) ctx() *fiber.Ctx { return (*fiber.Ctx)(x) }

// Method maps the method onto a constant, so the common ones need no copy.
func (x *exchange) Method() string {
	switch m := x.ctx().Method(); m {
	case http.MethodGet:
		return http.MethodGet
	case http.MethodPost:
		return http.MethodPost
	case http.MethodPut:
		return http.MethodPut
	case http.MethodPatch:
		return http.MethodPatch
	case http.MethodDelete:
		return http.MethodDelete
	case http.MethodHead:
		return http.MethodHead
	case http.MethodOptions:
		return http.MethodOptions
	default:
		return strings.Clone(m)
	}
}

// Path is the path Fiber routes the request by, c.Path(): as received
// (decoded only under Config.UnescapePath), or as an earlier handler set
// it. Not fasthttp's URI().Path(), which decodes the path and then
// resolves its dot segments: "/items/..%2Fhealthz", which Fiber serves by
// "/items/:id", reads "/healthz" there, and a WithSkip or key func by path
// would take it for a health check.
func (x *exchange) Path() string { return strings.Clone(x.ctx().Path()) }

func (x *exchange) Route() string { return matchedRoute(x.ctx()) }

// RouteMatch is Route, and whether no route matches the request, from one
// scan of the routes. Fiber always has a route for the middleware (its
// own, or the mount's), so "" only comes from a scan that found no route
// for the request.
func (x *exchange) RouteMatch() (string, bool) {
	p := matchedRoute(x.ctx())
	return p, p == ""
}

func (x *exchange) Header(name string) string {
	c := x.ctx()
	if isHost(name) {
		return string(hostOf(c))
	}
	if !normalising(c.App()) {
		if vs := foldedValues(&c.Request().Header, name, true); len(vs) > 0 {
			return vs[0]
		}
		return ""
	}
	return string(c.Request().Header.Peek(name))
}

func (x *exchange) HeaderValues(name string) []string {
	c := x.ctx()
	if isHost(name) {
		if h := hostOf(c); len(h) > 0 {
			return []string{string(h)}
		}
		return nil
	}
	if !normalising(c.App()) {
		return foldedValues(&c.Request().Header, name, false)
	}
	raw := c.Request().Header.PeekAll(name)
	if len(raw) == 0 {
		return nil
	}
	vs := make([]string, len(raw))
	for i, v := range raw {
		vs[i] = string(v)
	}
	return vs
}

// isHost reports whether name is the Host field's. The key funcs read it
// as the host the request is for, which fasthttp (and Fiber's c.Hostname)
// takes from a request-target in absolute form ("GET http://a.example/")
// over the Host field, as net/http does for Request.Host: read from the
// header, a client would name a.example in the target and make up a new
// Host field, and a new key, for every request.
func isHost(name string) bool { return len(name) == 4 && strings.EqualFold(name, "Host") }

// hostOf is the host c's request is for: fasthttp's URI host, the host
// of an absolute request-target or else the Host field's, in lower case.
// But for an origin-form target that begins "//" fasthttp takes the first
// segment for a host when the Host field is empty or the target holds
// "://" anywhere ("//x.example/?next=http://"), and Fiber serves the rest
// of the path, where net/http, and a proxy that set the Host field, take
// the request to be for the Host field's host. The two readings disagree,
// and either one lets a client choose its key (a new made-up host on every
// request behind such a proxy; a made-up Host field for the host Fiber's
// c.Hostname reads). Such a request has no host: nil. So too a CONNECT
// whose target, in authority form ("a.example:443"), is not its Host
// field: net/http takes the request to be for the target, fasthttp for
// the field. And so too a request whose c.Hostname() is not its host:
// from a peer Fiber trusts (every peer, unless EnableTrustedProxyCheck is
// set) it reads X-Forwarded-Host's first entry, and an app that serves
// tenants by it would serve a client as a.example while the client made
// up a new Host field, and key, for every request.
func hostOf(c *fiber.Ctx) []byte {
	req := c.Request()
	t := req.Header.RequestURI()
	if len(t) > 1 && t[0] == '/' && t[1] == '/' && (len(req.Header.Host()) == 0 || bytes.Contains(t, schemeSep)) {
		return nil
	}
	if req.Header.IsConnect() && (len(t) == 0 || t[0] != '/') && !bytes.EqualFold(t, req.Header.Host()) {
		return nil
	}
	h := req.URI().Host()
	if f := req.Header.Peek(fiber.HeaderXForwardedHost); len(f) > 0 && c.IsProxyTrusted() {
		if i := bytes.IndexByte(f, ','); i >= 0 {
			f = f[:i] // the first entry, as c.Hostname takes it
		}
		if !bytes.EqualFold(f, h) {
			return nil
		}
	}
	return h
}

// schemeSep ends the scheme of an absolute URI.
var schemeSep = []byte("://")

// foldedValues returns the values of every line of the named header, in
// the order received, matching the name in any case (the first only, when
// first is set). An app with DisableHeaderNormalizing keeps names as sent
// and fasthttp then looks them up as given: a proxy's "x-forwarded-for"
// would go unseen next to a client's "X-Forwarded-For".
func foldedValues(h *fasthttp.RequestHeader, name string, first bool) []string {
	var vs []string
	h.VisitAll(func(k, v []byte) {
		if (!first || len(vs) == 0) && len(k) == len(name) && strings.EqualFold(string(k), name) {
			vs = append(vs, string(v))
		}
	})
	return vs
}

func (x *exchange) RemoteAddr() string       { return x.ctx().Context().RemoteAddr().String() }
func (x *exchange) Context() context.Context { return x.ctx().UserContext() }

func (x *exchange) SetHeader(name, value string) {
	c := x.ctx()
	setHeader(c, normalising(c.App()), name, value)
}

// SetHeaderBytes is SetHeader for a value valid only during the call:
// fasthttp copies it.
func (x *exchange) SetHeaderBytes(name string, value []byte) {
	c := x.ctx()
	setHeaderBytes(c, normalising(c.App()), name, value)
}

// PeerAddr gives the key funcs the peer's IP without formatting it as
// "ip:port" text for them to parse back.
func (x *exchange) PeerAddr() (netip.Addr, bool) {
	if a, ok := x.ctx().Context().RemoteAddr().(*net.TCPAddr); ok {
		return netip.AddrFromSlice(a.IP)
	}
	return netip.Addr{}, false
}

func (x *exchange) Send(status int, body []byte) {
	c := x.ctx()
	c.Status(status)
	c.Response().SetBody(body)
}
