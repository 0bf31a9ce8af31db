package keyfuncs_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/keytest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// keyInput is one request seen through one key strategy. kind picks the
// strategy; a and b fill in the request.
type keyInput struct {
	kind uint8
	a, b string
}

// strategies are the keyed strategies the collision fuzz target mixes.
// Each returns the key and an identity: what the strategy is meant to tell
// apart. Two inputs of different identity must never share a key. Raw keys
// from a user's own KeyFunc (kind "raw") are only compared with each other.
var strategies = []struct {
	name string
	f    keyfuncs.KeyFunc
	req  func(a, b string) *keytest.Request
	id   func(a, b, key string) string
}{
	{"header or ip", keyfuncs.Header("X-API-Key", keyfuncs.RemoteIP),
		func(a, b string) *keytest.Request { return req(b, "X-API-Key", a) },
		func(a, _, key string) string {
			if v := strings.TrimSpace(a); v != "" {
				return "hdr|" + v
			}
			return "ip|" + key // the address as RemoteIP normalises it
		}},
	{"compose", keyfuncs.Compose(":", keyfuncs.Header("X-User", nil), keyfuncs.Header("X-Tenant", nil)),
		func(a, b string) *keytest.Request { return req("", "X-User", a, "X-Tenant", b) },
		func(a, b, _ string) string {
			return "cmp|" + strconv.Quote(strings.TrimSpace(a)) + strconv.Quote(strings.TrimSpace(b))
		}},
	{"prefix", nil, // built per input: the prefix is a
		func(_, b string) *keytest.Request { return req("", "X-User", b) },
		func(a, b, _ string) string {
			return "pfx|" + strconv.Quote(strings.TrimSuffix(a, ":")) + strconv.Quote(strings.TrimSpace(b))
		}},
	{"route", keyfuncs.Route,
		func(a, b string) *keytest.Request {
			return &keytest.Request{MethodValue: a, PathValue: b}
		},
		func(a, b, _ string) string { return "route|" + strconv.Quote(routeMethod(a)) + strconv.Quote(b) }},
	{"path", keyfuncs.Path,
		func(_, b string) *keytest.Request { return &keytest.Request{PathValue: b} },
		func(_, b, _ string) string { return "path|" + b }},
	{"bearer or ip", keyfuncs.BearerToken(keyfuncs.RemoteIP),
		func(a, b string) *keytest.Request { return req(b, "Authorization", a) },
		func(a, _, key string) string {
			v := strings.TrimSpace(a)
			if len(v) > 7 && strings.EqualFold(v[:6], "bearer") && (v[6] == ' ' || v[6] == '\t') {
				if tok := strings.TrimSpace(v[6:]); tok != "" {
					return "bearer|" + tok
				}
			}
			return "ip|" + key
		}},
	{"context", keyfuncs.FromContext(ctxKey{}, nil),
		func(a, _ string) *keytest.Request {
			r := req("")
			r.Ctx = context.WithValue(context.Background(), ctxKey{}, a)
			return r
		},
		func(a, _, _ string) string { return "ctx|" + a }},
	{"raw", nil, // Bounded over a user's own key a
		func(string, string) *keytest.Request { return req("") },
		func(a, _, _ string) string { return "raw|" + a }},
	{"compose, hex separator", keyfuncs.Compose("3A", keyfuncs.Header("X-User", nil), keyfuncs.Header("X-Tenant", nil)),
		func(a, b string) *keytest.Request { return req("", "X-User", a, "X-Tenant", b) },
		func(a, b, _ string) string {
			return "cmp3A|" + strconv.Quote(strings.TrimSpace(a)) + strconv.Quote(strings.TrimSpace(b))
		}},
}

// keyOf runs one input through its strategy; ok is false when it gives no
// key or the input is not one a framework would hand over.
func keyOf(in keyInput) (key, id string, raw, ok bool) {
	s := strategies[int(in.kind)%len(strategies)]
	f := s.f
	switch s.name {
	case "prefix":
		f = keyfuncs.Prefix(in.a, keyfuncs.Header("X-User", nil))
	case "raw":
		f = keyfuncs.Bounded(40, constKey(in.a))
	case "route":
		if !isToken(in.a) {
			return "", "", false, false // methods are tokens in every framework
		}
	}
	k, err := f(s.req(in.a, in.b))
	if err != nil {
		return "", "", false, false
	}
	return k, s.id(in.a, in.b, k), s.name == "raw", true
}

// routeMethod is what Route tells apart in a method: those HTTP defines
// (HEAD as GET), and everything else as one.
func routeMethod(m string) string {
	switch m {
	case "HEAD":
		return "GET"
	case "GET", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE":
		return m
	}
	return "OTHER"
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// FuzzKeysDoNotCollide fails when two requests that the strategies are
// meant to tell apart get one key.
func FuzzKeysDoNotCollide(f *testing.F) {
	long := strings.Repeat("L", 100)
	hashed, err := keyfuncs.Bounded(40, constKey(long))(req(""))
	require.NoError(f, err)
	longHeader, err := keyfuncs.Header("X-API-Key", nil)(req("", "X-API-Key", long))
	require.NoError(f, err)

	// An API key that spells an address, against the anonymous client there.
	f.Add(uint8(0), "198.51.100.7", "192.0.2.1:1", uint8(0), "", "198.51.100.7:2")
	// Parts that contain the separator.
	f.Add(uint8(1), "a", "b:c", uint8(1), "a:b", "c")
	f.Add(uint8(1), "a%3A", "b", uint8(1), "a:", "b")
	// Prefixes that contain the separator.
	f.Add(uint8(2), "a", "b:c", uint8(2), "a:b", "c")
	f.Add(uint8(2), "org:", ":x", uint8(2), "org::", "x")
	// The hashed form of a long key, sent as a key of its own.
	f.Add(uint8(7), long, "", uint8(7), hashed, "")
	f.Add(uint8(0), long, "", uint8(0), longHeader, "")
	// One strategy posing as another.
	f.Add(uint8(0), "x", "", uint8(4), "", "hdr:x-api-key:x")
	f.Add(uint8(3), "GET", "/a b", uint8(3), "GET /a", "b")
	f.Add(uint8(3), "X1", "/a", uint8(3), "OTHER", "/a")
	f.Add(uint8(6), "42", "", uint8(1), "42", "")
	f.Add(uint8(5), "Bearer tok", "", uint8(0), "tok", "")
	// A prefix spelling the tag BearerToken hashes with, over a key just
	// short enough to be kept, so that the prefixed key is hashed.
	user := strings.Repeat("u", 117)
	f.Add(uint8(2), "bearer", user, uint8(5), "Bearer hdr:x-user:"+user, "")
	// A separator made of hex digits, next to escapes.
	f.Add(uint8(8), "a3", "Ab", uint8(8), "a", "3Ab")
	f.Add(uint8(8), "a:", "b", uint8(8), "a%3A", "b")

	f.Fuzz(func(t *testing.T, k1 uint8, a1, b1 string, k2 uint8, a2, b2 string) {
		key1, id1, raw1, ok1 := keyOf(keyInput{k1, a1, b1})
		key2, id2, raw2, ok2 := keyOf(keyInput{k2, a2, b2})
		if !ok1 || !ok2 || raw1 != raw2 {
			return
		}
		if id1 != id2 {
			require.NotEqual(t, key1, key2, "%q and %q share a key", id1, id2)
		}
	})
}
