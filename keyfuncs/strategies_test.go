package keyfuncs_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/keytest"
	"github.com/ratewindow/ratewindow/keyfuncs"
	one "github.com/ratewindow/ratewindow/keyfuncs/internal/ctxkeys/one/auth"
	two "github.com/ratewindow/ratewindow/keyfuncs/internal/ctxkeys/two/auth"
)

var errBoom = errors.New("boom")

func constKey(k string) keyfuncs.KeyFunc {
	return func(keyfuncs.Request) (string, error) { return k, nil }
}

func failing(err error) keyfuncs.KeyFunc {
	return func(keyfuncs.Request) (string, error) { return "", err }
}

func TestHeader(t *testing.T) {
	tests := []struct {
		name     string
		kv       []string
		fallback keyfuncs.KeyFunc
		want     string
		err      error
	}{
		{"present", []string{"X-API-Key", "abc123"}, nil, "hdr:x-api-key:abc123", nil},
		{"case-insensitive name", []string{"x-api-key", "abc123"}, nil, "hdr:x-api-key:abc123", nil},
		{"trimmed", []string{"X-API-Key", "  abc123\t"}, nil, "hdr:x-api-key:abc123", nil},
		{"first of repeated", []string{"X-API-Key", "one", "X-API-Key", "two"}, nil, "hdr:x-api-key:one", nil},
		{"absent, no fallback", nil, nil, "", keyfuncs.ErrNoKey},
		{"empty, no fallback", []string{"X-API-Key", "  "}, nil, "", keyfuncs.ErrNoKey},
		{"absent, fallback", nil, keyfuncs.RemoteIP, "ip:192.0.2.1", nil},
		{"empty, fallback", []string{"X-API-Key", ""}, keyfuncs.RemoteIP, "ip:192.0.2.1", nil},
		{"fallback skip propagates", nil, failing(keyfuncs.ErrSkip), "", keyfuncs.ErrSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := keyfuncs.Header("X-API-Key", tt.fallback)(req("192.0.2.1:5", tt.kv...))
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestHeaderIsBounded(t *testing.T) {
	huge := strings.Repeat("A", 8192)
	got, err := keyfuncs.Header("X-API-Key", nil)(req("192.0.2.1:5", "X-API-Key", huge))
	require.NoError(t, err)
	assert.Len(t, got, 34)
	assert.True(t, strings.HasPrefix(got, "h:"))

	other, err := keyfuncs.Header("X-API-Key", nil)(req("192.0.2.1:5", "X-API-Key", huge+"B"))
	require.NoError(t, err)
	assert.NotEqual(t, got, other, "different long keys get different quotas")
}

func TestBearerToken(t *testing.T) {
	tok := keyfuncs.BearerToken(nil)
	a, err := tok(req("", "Authorization", "Bearer secret-token-1"))
	require.NoError(t, err)
	assert.Len(t, a, 34)
	assert.NotContains(t, a, "secret")

	tests := []struct {
		name  string
		value string
		same  bool
	}{
		{"scheme is case-insensitive", "bearer secret-token-1", true},
		{"extra spaces", "  BEARER    secret-token-1  ", true},
		{"tab separator", "Bearer\tsecret-token-1", true},
		{"other token", "Bearer secret-token-2", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tok(req("", "Authorization", tt.value))
			require.NoError(t, err)
			assert.Equal(t, tt.same, a == b)
		})
	}

	for _, v := range []string{"", "Bearer", "Bearer   ", "Basic dXNlcjpwYXNz", "Bearersecret", "Token abc"} {
		t.Run("no token: "+v, func(t *testing.T) {
			_, err := tok(req("", "Authorization", v))
			assert.ErrorIs(t, err, keyfuncs.ErrNoKey)
			got, err := keyfuncs.BearerToken(keyfuncs.RemoteIP)(req("192.0.2.1:5", "Authorization", v))
			require.NoError(t, err)
			assert.Equal(t, "ip:192.0.2.1", got)
		})
	}
}

type ctxKey struct{}

// ctxNS is the namespace of FromContext(ctxKey{}, ...): the type named by
// its package's import path.
const ctxNS = "ctx:github.com/ratewindow/ratewindow/keyfuncs_test.ctxKey:"

type orgID int

func (o orgID) String() string { return "org-" + strings.Repeat("x", int(o)) }

func TestFromContext(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string
		err   error
	}{
		{"string", "user-42", "user-42", nil},
		{"stringer", orgID(2), "org-xx", nil},
		{"int", 42, "42", nil},
		{"int64", int64(-7), "-7", nil},
		{"uint32", uint32(9), "9", nil},
		{"int8", int8(-8), "-8", nil},
		{"int16", int16(16), "16", nil},
		{"int32", int32(-32), "-32", nil},
		{"uint", uint(1), "1", nil},
		{"uint8", uint8(8), "8", nil},
		{"uint16", uint16(16), "16", nil},
		{"uint64", uint64(1 << 63), "9223372036854775808", nil},
		{"missing", nil, "", keyfuncs.ErrNoKey},
		{"empty string", "", "", keyfuncs.ErrNoKey},
		{"unsupported type", 3.5, "", keyfuncs.ErrNoKey},
		{"long value bounded", strings.Repeat("u", 500), "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req("192.0.2.1:5")
			r.Ctx = context.WithValue(context.Background(), ctxKey{}, tt.value)
			got, err := keyfuncs.FromContext(ctxKey{}, nil)(r)
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
				fb, err := keyfuncs.FromContext(ctxKey{}, keyfuncs.RemoteIP)(r)
				require.NoError(t, err)
				assert.Equal(t, "ip:192.0.2.1", fb)
				return
			}
			require.NoError(t, err)
			if tt.want == "" {
				assert.Len(t, got, 34)
				return
			}
			assert.Equal(t, ctxNS+tt.want, got)
		})
	}
}

func TestRouteAndPath(t *testing.T) {
	tests := []struct {
		name, method, path, route, want string
	}{
		{"pattern shared by ids", "GET", "/users/1", "/users/{id}", "route:GET /users/{id}"},
		{"other id same key", "GET", "/users/2", "/users/{id}", "route:GET /users/{id}"},
		{"method matters", "POST", "/users/1", "/users/:id", "route:POST /users/:id"},
		{"no pattern: path", "GET", "/health", "", "route:GET /health"},
		{"invented method", "X-ANYTHING", "/users/1", "/users/{id}", "route:OTHER /users/{id}"},
		{"lower-case method", "get", "/users/1", "/users/{id}", "route:OTHER /users/{id}"},
		{"extension method", "PROPFIND", "/dav/a", "/dav/", "route:OTHER /dav/"},
		{"HEAD as GET", "HEAD", "/users/1", "/users/{id}", "route:GET /users/{id}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &keytest.Request{MethodValue: tt.method, PathValue: tt.path, RouteValue: tt.route}
			got, err := keyfuncs.Route(r)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			p, err := keyfuncs.Path(r)
			require.NoError(t, err)
			assert.Equal(t, "path:"+tt.path, p)
		})
	}
	long, err := keyfuncs.Route(&keytest.Request{MethodValue: "GET", PathValue: "/" + strings.Repeat("a", 9000)})
	require.NoError(t, err)
	assert.Len(t, long, 34)
}

// unmatchedRequest is a request its adapter knows no route matches.
type unmatchedRequest struct {
	*keytest.Request
	unmatched bool
}

func (r unmatchedRequest) RouteMatch() (string, bool) { return r.Route(), r.unmatched }

// Requests no route matches share one key per method, which no pattern and
// no path spells; a request whose adapter cannot tell keeps the path.
func TestRouteUnmatched(t *testing.T) {
	tests := []struct {
		name, method, path, route string
		unmatched                 bool
		want                      string
	}{
		{"unmatched", "GET", "/nope/1", "", true, "route:GET (unmatched)"},
		{"another unmatched path", "GET", "/nope/2", "", true, "route:GET (unmatched)"},
		{"unmatched HEAD as GET", "HEAD", "/nope", "", true, "route:GET (unmatched)"},
		{"unmatched, by method", "DELETE", "/nope", "", true, "route:DELETE (unmatched)"},
		{"unmatched, invented method", "BREW", "/nope", "", true, "route:OTHER (unmatched)"},
		{"cannot tell: path", "GET", "/nope/1", "", false, "route:GET /nope/1"},
		{"a pattern wins", "GET", "/users/1", "/users/{id}", true, "route:GET /users/{id}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := unmatchedRequest{&keytest.Request{MethodValue: tt.method, PathValue: tt.path, RouteValue: tt.route}, tt.unmatched}
			got, err := keyfuncs.Route(r)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// lookupCounter counts the route lookups of its adapter, whichever method
// makes them.
type lookupCounter struct {
	*keytest.Request
	lookups int
}

func (r *lookupCounter) Route() string              { r.lookups++; return "" }
func (r *lookupCounter) Unmatched() bool            { r.lookups++; return true }
func (r *lookupCounter) RouteMatch() (string, bool) { r.lookups++; return "", true }

// Route asks the adapter once for the route and whether one matches: the
// lookup can be a scan of the app's routes (Fiber under app.Use), and a
// flood of unknown paths must not pay it twice.
func TestRouteLooksUpOnce(t *testing.T) {
	r := &lookupCounter{Request: &keytest.Request{MethodValue: "GET", PathValue: "/nope"}}
	got, err := keyfuncs.Route(r)
	require.NoError(t, err)
	assert.Equal(t, "route:GET (unmatched)", got)
	assert.Equal(t, 1, r.lookups)
}

func TestCompose(t *testing.T) {
	r := &keytest.Request{MethodValue: "GET", PathValue: "/v1/search", RouteValue: "/v1/search",
		Ctx: context.WithValue(context.Background(), ctxKey{}, "123")}
	tests := []struct {
		name string
		f    keyfuncs.KeyFunc
		want string
		err  error
	}{
		{"org and path", keyfuncs.Prefix("org:", keyfuncs.Compose(":", keyfuncs.FromContext(ctxKey{}, nil), keyfuncs.Path)), "org:cmp:ctx%3Agithub.com/ratewindow/ratewindow/keyfuncs_test.ctxKey%3A123:path%3A/v1/search", nil},
		{"org and route", keyfuncs.Compose("|", keyfuncs.Constant("org"), keyfuncs.FromContext(ctxKey{}, nil), keyfuncs.Route), "cmp:const:org|" + ctxNS + "123|route:GET /v1/search", nil},
		{"one part", keyfuncs.Compose(":", constKey("a")), "a", nil},
		{"empty separator", keyfuncs.Compose("", constKey("a"), constKey("b")), "", keyfuncs.ErrNoKey},
		{"percent separator", keyfuncs.Compose("%", constKey("a"), constKey("b")), "", keyfuncs.ErrNoKey},
		{"separator escaped in parts", keyfuncs.Compose(":", constKey("a"), constKey("b:c%")), "cmp:a:b%3Ac%25", nil},
		{"no parts", keyfuncs.Compose(":"), "", keyfuncs.ErrNoKey},
		{"skip propagates", keyfuncs.Compose(":", constKey("a"), failing(keyfuncs.ErrSkip), constKey("c")), "", keyfuncs.ErrSkip},
		{"no key propagates", keyfuncs.Compose(":", keyfuncs.Header("X-Missing", nil), constKey("c")), "", keyfuncs.ErrNoKey},
		{"other errors propagate", keyfuncs.Compose(":", constKey("a"), failing(errBoom)), "", errBoom},
		{"prefix error propagates", keyfuncs.Prefix("p:", failing(keyfuncs.ErrSkip)), "", keyfuncs.ErrSkip},
		{"long result bounded", keyfuncs.Compose(":", constKey(strings.Repeat("a", 100)), constKey(strings.Repeat("b", 100))), "h:", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.f(r)
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
				assert.Empty(t, got)
				return
			}
			require.NoError(t, err)
			if tt.want == "h:" {
				assert.Len(t, got, 34)
				assert.True(t, strings.HasPrefix(got, "h:"))
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestComposeCopiesParts(t *testing.T) {
	parts := []keyfuncs.KeyFunc{constKey("a"), constKey("b")}
	f := keyfuncs.Compose("-", parts...)
	parts[1] = constKey("z")
	got, err := f(req(""))
	require.NoError(t, err)
	assert.Equal(t, "cmp:a-b", got)
}

func TestBounded(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		key    string
		hashed bool
	}{
		{"short kept", 128, "192.0.2.1", false},
		{"exactly max kept", 40, strings.Repeat("k", 40), false},
		{"one over max hashed", 40, strings.Repeat("k", 41), true},
		{"8 KB hashed", 128, strings.Repeat("x", 8192), true},
		{"tiny max raised to hash length", 1, strings.Repeat("k", 34), false},
		{"tiny max still bounds", 1, strings.Repeat("k", 35), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := keyfuncs.Bounded(tt.max, constKey(tt.key))(req(""))
			require.NoError(t, err)
			if !tt.hashed {
				assert.Equal(t, tt.key, got)
				return
			}
			assert.Len(t, got, 34)
			assert.Regexp(t, `^h:[0-9a-f]{32}$`, got)
			again, _ := keyfuncs.Bounded(tt.max, constKey(tt.key))(req(""))
			assert.Equal(t, got, again, "hashing is deterministic")
		})
	}
	_, err := keyfuncs.Bounded(10, failing(keyfuncs.ErrSkip))(req(""))
	assert.ErrorIs(t, err, keyfuncs.ErrSkip)
}

func TestHashedAndConstant(t *testing.T) {
	a, err := keyfuncs.Hashed(constKey("key-a"))(req(""))
	require.NoError(t, err)
	b, err := keyfuncs.Hashed(constKey("key-b"))(req(""))
	require.NoError(t, err)
	assert.Regexp(t, `^h:[0-9a-f]{32}$`, a)
	assert.NotEqual(t, a, b)
	_, err = keyfuncs.Hashed(failing(errBoom))(req(""))
	assert.ErrorIs(t, err, errBoom)

	c, err := keyfuncs.Constant("global")(req(""))
	require.NoError(t, err)
	assert.Equal(t, "const:global", c)
	_, err = keyfuncs.Constant("")(req(""))
	assert.ErrorIs(t, err, keyfuncs.ErrNoKey)
}

func TestHTTPRequest(t *testing.T) {
	hr := httptest.NewRequest(http.MethodPost, "/users/42?x=1", nil)
	hr.RemoteAddr = "192.0.2.1:5"
	hr.Header.Add("x-custom", "a")
	hr.Header.Add("X-Custom", "b")
	hr = hr.WithContext(context.WithValue(hr.Context(), ctxKey{}, "v"))
	r := keyfuncs.HTTPRequest(hr, "/users/{id}")
	assert.Equal(t, http.MethodPost, r.Method())
	assert.Equal(t, "/users/42", r.Path())
	assert.Equal(t, "/users/{id}", r.Route())
	assert.Equal(t, "192.0.2.1:5", r.RemoteAddr())
	assert.Equal(t, "a", r.Header("X-CUSTOM"))
	assert.Equal(t, []string{"a", "b"}, r.HeaderValues("x-custom"))
	assert.Empty(t, r.Header("X-Absent"))
	assert.Nil(t, r.HeaderValues("X-Absent"))
	assert.Equal(t, "v", r.Context().Value(ctxKey{}))

	k, err := keyfuncs.Route(r)
	require.NoError(t, err)
	assert.Equal(t, "route:POST /users/{id}", k)
}

type user struct{ id string }

func (u *user) String() string { return u.id }

func TestFromContextTypedNil(t *testing.T) {
	r := req("192.0.2.1:5")
	r.Ctx = context.WithValue(context.Background(), ctxKey{}, (*user)(nil))
	got, err := keyfuncs.FromContext(ctxKey{}, keyfuncs.RemoteIP)(r)
	require.NoError(t, err, "a typed nil must fall back, not panic")
	assert.Equal(t, "ip:192.0.2.1", got)

	r.Ctx = context.WithValue(context.Background(), ctxKey{}, &user{id: "u-9"})
	got, err = keyfuncs.FromContext(ctxKey{}, nil)(r)
	require.NoError(t, err)
	assert.Equal(t, ctxNS+"u-9", got)
}

// BearerToken keys by the hash of "bearer:" and the token. A Prefix
// "bearer" builds the same text ("bearer:" and the key of its part), so its
// long keys (hashed to bound them), or its keys under Hashed, would land in
// the quota of the client whose token that text ends with. "bearer" is a
// built-in namespace like the others.
func TestPrefixCannotPoseAsBearerToken(t *testing.T) {
	token := strings.Repeat("t", 200)
	r := req("192.0.2.1:1", "Authorization", "Bearer "+token)
	bearer, err := keyfuncs.BearerToken(nil)(r)
	require.NoError(t, err)
	for _, ns := range []string{"bearer", "bearer:"} {
		for name, f := range map[string]keyfuncs.KeyFunc{
			"long key":  keyfuncs.Prefix(ns, constKey(token)),
			"hashed":    keyfuncs.Hashed(keyfuncs.Prefix(ns, constKey("abc"))),
			"short key": keyfuncs.Prefix(ns, constKey("abc")),
		} {
			got, err := f(r)
			assert.NotEqual(t, bearer, got, "%s %q", name, ns)
			if name != "hashed" {
				assert.ErrorIs(t, err, keyfuncs.ErrNoKey, "%s %q", name, ns)
			}
		}
	}
	short, err := keyfuncs.BearerToken(nil)(req("192.0.2.1:1", "Authorization", "Bearer abc"))
	require.NoError(t, err)
	got, _ := keyfuncs.Hashed(keyfuncs.Prefix("bearer", constKey("abc")))(r)
	assert.NotEqual(t, short, got)
}

// Two packages of one name (two "auth" libraries) with context key types
// of one name give two namespaces: user 42 of one is not id 42 of the
// other.
func TestFromContextKeysOfSameNamedTypesInTwoPackages(t *testing.T) {
	for name, keys := range map[string][2]any{
		"named type":              {one.Key{}, two.Key{}},
		"pointer to a named type": {one.UserKey, two.UserKey},
	} {
		t.Run(name, func(t *testing.T) {
			var got [2]string
			for i, k := range keys {
				r := req("192.0.2.1:5")
				r.Ctx = context.WithValue(context.Background(), k, "42")
				var err error
				got[i], err = keyfuncs.FromContext(k, nil)(r)
				require.NoError(t, err)
			}
			assert.NotEqual(t, got[0], got[1])
		})
	}
}

type strKey string

// A context key's name is its type, by import path, and its value when
// that is a scalar; the same in every process.
func TestFromContextNames(t *testing.T) {
	const auth = "github.com/ratewindow/ratewindow/keyfuncs/internal/ctxkeys/one/auth"
	for _, tt := range []struct {
		key  any
		want string
	}{
		{"user", "ctx:string(user):42"},
		{7, "ctx:int(7):42"},
		{"a:b%", "ctx:string(a%3Ab%25):42"},
		{strKey("user"), "ctx:github.com/ratewindow/ratewindow/keyfuncs_test.strKey(user):42"},
		{one.Key{}, "ctx:" + auth + ".Key:42"},
		{one.UserKey, "ctx:*" + auth + ".contextKey:42"},
		{new([]*one.Key), "ctx:*[]*" + auth + ".Key:42"},
		{[2]one.Key{}, "ctx:[2]" + auth + ".Key:42"},
		{new(map[string]one.Key), "ctx:*map[string]" + auth + ".Key:42"},
		{make(<-chan one.Key), "ctx:<-chan " + auth + ".Key:42"},
		{struct{}{}, "ctx:struct {}:42"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			r := req("192.0.2.1:5")
			r.Ctx = context.WithValue(context.Background(), tt.key, "42")
			got, err := keyfuncs.FromContext(tt.key, nil)(r)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

type userID int64

type userName string

// A value of a named integer or string type is an integer or a string, as
// FromContext documents: it is the key, not a reason to fall back.
func TestFromContextNamedValueTypes(t *testing.T) {
	for _, tt := range []struct {
		value any
		want  string
	}{
		{userID(42), "42"},
		{userID(-1), "-1"},
		{userName("ann"), "ann"},
		{uintptr(7), "7"},
		{time.Duration(5), "5ns"}, // a Stringer: String wins
	} {
		t.Run(tt.want, func(t *testing.T) {
			r := req("192.0.2.1:5")
			r.Ctx = context.WithValue(context.Background(), ctxKey{}, tt.value)
			got, err := keyfuncs.FromContext(ctxKey{}, keyfuncs.RemoteIP)(r)
			require.NoError(t, err)
			assert.Equal(t, ctxNS+tt.want, got)
		})
	}
}
