// Package reqheader reads the header fields of a net/http request as a
// client sent them, for the request views of the net/http, Gin and Echo
// adapters and of keyfuncs.HTTPRequest.
//
// net/http moves the Host field out of Request.Header into Request.Host
// (where HTTP/2's :authority lands too); fasthttp, under Fiber, keeps it
// among the others. Read through Get and Values, Host is a field like any
// other on every framework, so a key func keyed by it (one quota per
// tenant domain) works the same everywhere.
//
// The Host field is always Request.Host, the host net/http serves and
// routes the request by: over HTTP/2 a host field sent beside :authority
// stays in Request.Header, unchecked against it, and read from there a
// client would ask for one host with a made-up field, and a fresh key,
// on every request.
package reqheader

import (
	"net/http"
	"strings"
)

// Get returns the first value of the named field, matched in any case,
// "" if absent. The Host field's is Request.Host.
func Get(r *http.Request, name string) string {
	if isHost(name) {
		return r.Host
	}
	return r.Header.Get(name)
}

// Values returns every value of the named field, in the order received.
// Callers must not modify the slice. The Host field's is Request.Host
// alone, nil when that is empty.
func Values(r *http.Request, name string) []string {
	if !isHost(name) {
		return r.Header.Values(name)
	}
	if r.Host == "" {
		return nil
	}
	return []string{r.Host}
}

func isHost(name string) bool { return len(name) == 4 && strings.EqualFold(name, "Host") }
