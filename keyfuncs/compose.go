package keyfuncs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/keybound"
)

// errNilKeyFunc is what a combinator given a nil KeyFunc returns on every
// request, instead of panicking there.
var errNilKeyFunc = misconfigured("nil KeyFunc")

// misconfigured is the error of a strategy built from a wrong argument. It
// wraps ErrNoKey, so the middleware answers instead of passing the request,
// and core.ErrInvalidConfig, so a hook can tell a mistake from a client
// that sent no key.
func misconfigured(format string, args ...any) error {
	return fmt.Errorf("%w: %w: keyfuncs: "+format, append([]any{ErrNoKey, core.ErrInvalidConfig}, args...)...)
}

// errEmptyPart is what a combinator returns when the key func it wraps
// returned "" and no error: that func found no key, and the middleware
// answers a request with none as unclassified. Prefixed, hashed or joined,
// the empty key would become one real key that every keyless client shares.
var errEmptyPart = fmt.Errorf("%w: keyfuncs: a wrapped key func returned an empty key (%w)", ErrNoKey, core.ErrEmptyKey)

// failing returns a KeyFunc that always fails with err.
func failing(err error) KeyFunc {
	return func(Request) (string, error) { return "", err }
}

// Compose joins the keys of parts with sep, in the namespace "cmp:", e.g.
// Compose("|", RemoteIP, Route) gives "cmp:ip:192.0.2.1|route:GET /v1/search".
// Inside each part, every byte of sep and every '%' is written as %XX, so
// two different lists of parts never give one key: user "a" with tenant
// "b|c" and user "a|b" with tenant "c" stay apart. Pick a separator the
// parts rarely contain to keep keys readable. The first error from a part
// (ErrSkip, ErrNoKey or another) is returned as is; a part that returns
// "" has found no key, and Compose returns an error wrapping ErrNoKey. With
// one part the key is that part's own key. With no parts, a nil part, an
// empty sep or one containing '%', Compose gives an error wrapping
// ErrNoKey and core.ErrInvalidConfig on every request.
func Compose(sep string, parts ...KeyFunc) KeyFunc {
	parts = append([]KeyFunc(nil), parts...)
	if sep == "" || strings.Contains(sep, "%") {
		return failing(misconfigured("Compose: separator %q must be non-empty and free of '%%'", sep))
	}
	if len(parts) == 0 {
		return failing(misconfigured("Compose: no parts"))
	}
	for _, f := range parts {
		if f == nil {
			return failing(errNilKeyFunc)
		}
	}
	return func(r Request) (string, error) {
		if len(parts) == 1 {
			return parts[0](r)
		}
		var b strings.Builder
		b.WriteString(tagCompose)
		for i, f := range parts {
			k, err := f(r)
			if err != nil {
				return "", err
			}
			if k == "" {
				return "", errEmptyPart
			}
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(escapeBytes(k, sep))
		}
		return boundKey(b.String(), maxKeyLen), nil
	}
}

// Prefix puts the keys of f in a namespace of their own, e.g.
// Prefix("login", RemoteIP) gives "login:ip:192.0.2.1". One trailing ':' of
// prefix is dropped, so Prefix("login:", f) is the same namespace. Any
// other ':' and any '%' in prefix are written as %XX, so two different
// prefixes never share a key. The names of the built-in namespaces ("ip",
// "hdr", "ctx", "route", "path", "const", "cmp", "h", and "bearer", which
// BearerToken hashes with the token) are taken: such a
// prefix gives an error wrapping ErrNoKey on every request, as does a nil
// f. Errors from f pass through; an empty key from f gives an error
// wrapping ErrNoKey.
func Prefix(prefix string, f KeyFunc) KeyFunc {
	ns := escapeBytes(strings.TrimSuffix(prefix, ":"), ":")
	if slices.Contains(reservedTags, ns) {
		return failing(misconfigured("Prefix: %q is the namespace of a built-in strategy", prefix))
	}
	ns += ":"
	return mapKey(f, func(k string) string { return boundTagged(ns, k) })
}

// Hashed replaces every key of f by its fixed-length hash ("h:" and 32 hex
// digits), for keys that are secrets (API keys) or personal data. Errors
// from f pass through; an empty key from f gives an error wrapping
// ErrNoKey, never the hash of "" shared by every keyless client.
func Hashed(f KeyFunc) KeyFunc { return mapKey(f, keybound.Hash) }

// mapKey returns a KeyFunc giving fn of each key of f. Errors from f pass
// through; an empty key from f, and a nil f on every request, give an error
// wrapping ErrNoKey.
func mapKey(f KeyFunc, fn func(string) string) KeyFunc {
	if f == nil {
		return failing(errNilKeyFunc)
	}
	return func(r Request) (string, error) {
		k, err := f(r)
		if err != nil {
			return "", err
		}
		if k == "" {
			return "", errEmptyPart
		}
		return fn(k), nil
	}
}
