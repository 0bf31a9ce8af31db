package keyfuncs

import (
	"fmt"
	"strings"
)

// errNilKeyFunc is what a combinator given a nil KeyFunc returns on every
// request, instead of panicking there.
var errNilKeyFunc = fmt.Errorf("%w: nil KeyFunc", ErrNoKey)

// failing returns a KeyFunc that always fails with err.
func failing(err error) KeyFunc {
	return func(Request) (string, error) { return "", err }
}

// Compose joins the keys of parts with sep, e.g. Compose(":", org, Route)
// gives "123:GET /v1/search". The first error from a part (ErrSkip, ErrNoKey
// or another) is returned as is. With no parts, Compose gives ErrNoKey.
func Compose(sep string, parts ...KeyFunc) KeyFunc {
	parts = append([]KeyFunc(nil), parts...)
	for _, f := range parts {
		if f == nil {
			return failing(errNilKeyFunc)
		}
	}
	return func(r Request) (string, error) {
		if len(parts) == 0 {
			return "", ErrNoKey
		}
		if len(parts) == 1 {
			return parts[0](r)
		}
		var b strings.Builder
		for i, f := range parts {
			k, err := f(r)
			if err != nil {
				return "", err
			}
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(k)
		}
		return boundKey(b.String(), DefaultMaxKeyLen), nil
	}
}

// Prefix puts prefix in front of the keys of f, e.g. Prefix("org:", f)
// gives "org:123". Errors from f pass through; a nil f gives an error
// wrapping ErrNoKey on every request.
func Prefix(prefix string, f KeyFunc) KeyFunc {
	return mapKey(f, func(k string) string { return boundKey(prefix+k, DefaultMaxKeyLen) })
}

// Hashed replaces every key of f by its fixed-length hash ("h:" and 32 hex
// digits), for keys that are secrets (API keys) or personal data. Errors
// from f pass through.
func Hashed(f KeyFunc) KeyFunc { return mapKey(f, hashKey) }

// mapKey returns a KeyFunc giving fn of each key of f. Errors from f pass
// through; a nil f gives an error wrapping ErrNoKey on every request.
func mapKey(f KeyFunc, fn func(string) string) KeyFunc {
	if f == nil {
		return failing(errNilKeyFunc)
	}
	return func(r Request) (string, error) {
		k, err := f(r)
		if err != nil {
			return "", err
		}
		return fn(k), nil
	}
}
