// Package reqheader reads the header fields of a net/http request as a
// client sent them, for the request views of the net/http, Gin and Echo
// adapters and of keyfuncs.HTTPRequest.
//
// net/http moves the Host field out of Request.Header into Request.Host
// (where HTTP/2's :authority lands too); fasthttp, under Fiber, keeps it
// among the others. Read through Get and Values, Host is a field like any
// other on every framework, so a key func keyed by it (one quota per
// tenant domain) works the same everywhere.
package reqheader

import (
	"net/http"
	"strings"
)

// Get returns the first value of the named field, matched in any case,
// "" if absent.
func Get(r *http.Request, name string) string {
	if v := r.Header.Get(name); v != "" || !isHost(name) {
		return v
	}
	return r.Host
}

// Values returns every value of the named field, in the order received.
// Callers must not modify the slice.
func Values(r *http.Request, name string) []string {
	if vs := r.Header.Values(name); len(vs) > 0 || !isHost(name) || r.Host == "" {
		return vs
	}
	return []string{r.Host}
}

func isHost(name string) bool { return len(name) == 4 && strings.EqualFold(name, "Host") }
