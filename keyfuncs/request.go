package keyfuncs

import (
	"context"
	"errors"
)

// Request is the framework-neutral view of an HTTP request that adapters
// fill in. Implementations must be cheap: a KeyFunc may call any method
// several times.
type Request interface {
	// Method is the HTTP method, e.g. "GET".
	Method() string
	// Path is the URL path the framework routes the request by, e.g.
	// "/users/42": decoded on net/http and Gin (URL.Path), as sent on
	// Echo (when it holds an escape) and Fiber (c.Path()). A path that
	// names another once decoded or cleaned ("/items/..%2Fhealthz") is
	// never given as that other, so a WithSkip or key func by path sees
	// the route the request reaches.
	Path() string
	// Route is the route pattern if the framework knows it (e.g.
	// "/users/{id}" or "/users/:id"), else "". The module's adapters
	// also tell the key funcs when no route matches the request at all
	// (see the key func [Route]).
	Route() string
	// Header returns the first value of the named header, "" if absent.
	// The module's adapters and HTTPRequest give the Host field too,
	// which net/http keeps in Request.Host rather than among the others,
	// as the host the request is for: a request-target in absolute form
	// ("GET http://a.example/ HTTP/1.1") names it, whatever the field
	// says, as net/http and fasthttp both read it, and so does HTTP/2's
	// :authority, whatever a host field sent beside it says.
	Header(name string) string
	// HeaderValues returns every value of a repeated header, in the order
	// received. Callers must not modify the slice.
	HeaderValues(name string) []string
	// RemoteAddr is the peer address, "host:port" or a bare host.
	RemoteAddr() string
	// Context is the request's context.
	Context() context.Context
}

// KeyFunc derives a rate-limit key from a request. It returns ErrSkip to
// leave the request unlimited and ErrNoKey (possibly wrapped) when no key
// could be derived.
type KeyFunc func(r Request) (string, error)

var (
	// ErrSkip is returned by a KeyFunc to say: do not rate-limit this
	// request.
	ErrSkip = errors.New("keyfuncs: skip this request")

	// ErrNoKey is returned when no key could be derived, e.g. the header
	// is absent and there is no fallback.
	ErrNoKey = errors.New("keyfuncs: no key")
)
