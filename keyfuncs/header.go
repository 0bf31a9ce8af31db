package keyfuncs

import (
	"strings"

	"github.com/ratewindow/ratewindow/internal/httptoken"
	"github.com/ratewindow/ratewindow/internal/keybound"
)

// Header keys requests by the value of the named header, e.g. "X-API-Key",
// in a namespace of that header: "hdr:x-api-key:abc123". A client that
// sends "X-API-Key: 192.0.2.1" therefore never shares the quota of the
// client at 192.0.2.1 that the fallback keys by address. Surrounding white
// space is trimmed. Of a header sent on several lines the first value is
// used, as http.Header.Get and the frameworks' own lookups read it: an
// authentication that reads another line would let a client choose its
// key. When the header is absent or empty the key comes from fallback; a
// nil fallback gives ErrNoKey. A name that is not a valid header name is a
// mistake: every request then fails with an error wrapping ErrNoKey.
//
// The value is used as is (bounded to 128 bytes, see the package doc),
// but for the Host field's: a host name in any case, with or without a
// port or the root's trailing dot, is one host, which the server serves
// however it is spelt, so it is one key ("hdr:host:a.example" for
// "A.Example:8080"); used as sent, a client could multiply its quota by
// spelling its host anew. If the value is a secret you would rather not
// see in your store or logs, wrap the result in Hashed.
//
// The client writes the value: keyed by it as sent, a client that makes up
// a new value for every request gets a fresh quota each time, and never
// meets a limit. Key by a header only where its value is checked before it
// counts: one a gateway you run sets, or an API key the key func checks
// against those you issued (falling back to the client's address for any
// other). Where authentication runs before the middleware, key by the
// identity it found (FromContext) instead.
func Header(name string, fallback KeyFunc) KeyFunc {
	if !httptoken.Valid(name) {
		return failing(misconfigured("Header: %q is not a valid header name", name))
	}
	ns := tagHeader + strings.ToLower(name) + ":"
	host := strings.EqualFold(name, "Host")
	return func(r Request) (string, error) {
		v := strings.TrimSpace(r.Header(name))
		if host {
			v = hostName(v)
		}
		if v == "" {
			return orFallback(r, fallback)
		}
		return boundTagged(ns, v), nil
	}
}

// hostName is the host of a Host field's value h, in lower case, without
// its port or the root's trailing dot. The port is cut first, so a long
// port costs no copy; a value already so costs no allocation.
func hostName(h string) string {
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i >= 0 {
			h = h[:i+1] // an IPv6 literal, its port dropped
		}
		return strings.ToLower(h)
	}
	if i := strings.IndexByte(h, ':'); i >= 0 && strings.IndexByte(h[i+1:], ':') < 0 {
		h = h[:i] // a port; a bare IPv6 address (no port can follow it) is kept whole
	}
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

// BearerToken keys requests by the token of an "Authorization: Bearer
// <token>" header. The token is a credential, so the key is always its hash
// ("h:" and 32 hex digits): a store dump or a log line never shows it. When
// the header is absent, empty or of another scheme, the key comes from
// fallback; a nil fallback gives ErrNoKey.
//
// The token is the client's to send, as any header is (see Header): keyed
// by it before it is verified, a client that makes up a token for every
// request gets a fresh quota each time, which a limit meant to slow the
// guessing of tokens must not allow. Use it where the token was checked
// first, or key by the identity the verified token names (FromContext).
func BearerToken(fallback KeyFunc) KeyFunc {
	return func(r Request) (string, error) {
		tok, ok := bearer(r.Header("Authorization"))
		if !ok {
			return orFallback(r, fallback)
		}
		return keybound.HashTagged(tagBearer, tok), nil
	}
}

// bearer extracts the token from an Authorization value of scheme Bearer
// (matched case-insensitively, as RFC 9110 says auth schemes are).
func bearer(v string) (string, bool) {
	v = strings.TrimSpace(v)
	const scheme = "bearer"
	if len(v) <= len(scheme) || !strings.EqualFold(v[:len(scheme)], scheme) || (v[len(scheme)] != ' ' && v[len(scheme)] != '\t') {
		return "", false
	}
	tok := strings.TrimSpace(v[len(scheme):])
	return tok, tok != ""
}

// orFallback runs fallback, or reports ErrNoKey when there is none.
func orFallback(r Request, fallback KeyFunc) (string, error) {
	if fallback == nil {
		return "", ErrNoKey
	}
	return fallback(r)
}
