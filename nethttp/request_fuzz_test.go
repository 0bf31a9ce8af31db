package nethttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/keybound"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// fuzzMaxKey is the longest key any built-in key strategy may produce.
const fuzzMaxKey = keybound.MaxLen

// fuzzRequest builds a request the way a hostile or broken client might
// send it, bypassing net/http's parser: any method and path, header lines
// "Name: value" separated by '\n' (a line without ':' is a name with an
// empty value), X-Forwarded-For entries separated by '|' as repeated
// header lines, and, when huge > 0, an X-API-Key and a bearer token of
// about 3·huge bytes that are not valid UTF-8.
func fuzzRequest(method, path, rawHeaders, xff, remote string, huge uint16) *http.Request {
	h := http.Header{}
	for _, line := range strings.Split(rawHeaders, "\n") {
		name, value, _ := strings.Cut(line, ":")
		h[name] = append(h[name], strings.TrimSpace(value))
	}
	for _, hop := range strings.Split(xff, "|") {
		h.Add("X-Forwarded-For", hop)
	}
	if huge > 0 {
		blob := strings.Repeat("\xff\xfe€a", int(huge))
		h.Set("X-Api-Key", blob)
		h.Set("Authorization", "Bearer "+blob)
	}
	r := &http.Request{
		Method:     method,
		URL:        &url.URL{Path: path, RawPath: path},
		Header:     h,
		RemoteAddr: remote,
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}
	return r.WithContext(context.Background())
}

// fuzzSetup is one middleware configuration under fuzz.
type fuzzSetup struct {
	name string
	h    http.Handler
}

// fuzzSetups builds middleware over one small limit, with every kind of
// key strategy, both fail policies and every header mode. seen receives
// each key the middleware used.
func fuzzSetups(tb testing.TB, seen func(key string)) []fuzzSetup {
	clock := clocktest.New(time.UnixMilli(1_800_000_000_000))
	l, err := core.NewLimiter(memory.New(memory.WithMaxKeys(10_000)),
		[]core.Policy{core.Per(3, time.Minute).Named("burst"), core.PerHour(50)}, core.WithClock(clock))
	require.NoError(tb, err)
	proxied, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{
		TrustedProxies: []string{"10.0.0.0/8", "fd00::/8", "127.0.0.1"},
		Headers:        []string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"},
	})
	require.NoError(tb, err)
	hops, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedHops: 3})
	require.NoError(tb, err)
	keys := []struct {
		name string
		f    keyfuncs.KeyFunc
	}{
		{"remote", keyfuncs.RemoteIP},
		{"proxied", proxied},
		{"hops", hops},
		{"apikey", keyfuncs.Header("X-Api-Key", proxied)},
		{"bearer", keyfuncs.BearerToken(nil)},
		{"route", keyfuncs.Compose(":", keyfuncs.Route, keyfuncs.Prefix("ip=", proxied))},
		{"path", func(r keyfuncs.Request) (string, error) { return "path:" + r.Path(), nil }},
	}
	modes := []headers.Writer{
		{},
		{AllPolicies: true, PartitionKey: true},
		{Mode: headers.Draft7},
		{Mode: headers.Legacy, LegacyEpoch: true},
		{Mode: headers.None},
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	var out []fuzzSetup
	for i, k := range keys {
		opts := []ratewindow.Option{
			ratewindow.WithKeyFunc(k.f),
			ratewindow.WithHeaders(modes[i%len(modes)]),
			ratewindow.WithOnDecision(func(ev ratewindow.Event) { seen(ev.Key) }),
		}
		if i%2 == 1 {
			opts = append(opts, ratewindow.WithFailClosed())
		}
		mw, err := nethttp.New(l, opts...)
		require.NoError(tb, err)
		out = append(out, fuzzSetup{name: k.name, h: mw(ok)})
	}
	return out
}

// checkResponse asserts that w is a response a client can use: a known
// status, header values free of control characters, and on a denial a
// Retry-After of whole positive seconds.
func checkResponse(t *testing.T, setup string, w *httptest.ResponseRecorder) {
	switch w.Code {
	case http.StatusOK, http.StatusTooManyRequests, http.StatusServiceUnavailable:
	case http.StatusBadRequest: // no key: never told to come back later
		if ra := w.Header().Get("Retry-After"); ra != "" {
			t.Fatalf("%s: 400 with Retry-After %q", setup, ra)
		}
	default:
		t.Fatalf("%s: status %d", setup, w.Code)
	}
	for name, values := range w.Header() {
		for _, v := range values {
			for i := 0; i < len(v); i++ {
				if c := v[i]; c < 0x20 || c > 0x7e {
					t.Fatalf("%s: header %s holds byte 0x%02x: %q", setup, name, c, v)
				}
			}
		}
	}
	if w.Code == http.StatusTooManyRequests {
		secs, err := strconv.Atoi(w.Header().Get("Retry-After"))
		if err != nil || secs < 1 {
			t.Fatalf("%s: 429 with Retry-After %q", setup, w.Header().Get("Retry-After"))
		}
	}
}

// FuzzNetHTTPRequestPath drives arbitrary requests through the whole
// net/http middleware (key strategies, limiter, header writer, deny and
// error responses): it must never panic, never use a key longer than the
// bound, and always answer with a valid response. The seed corpus runs
// with the ordinary tests.
func FuzzNetHTTPRequestPath(f *testing.F) {
	f.Add("GET", "/", "", "", "192.0.2.1:1234", uint16(0))
	f.Add("POST", "/items/1", "X-Api-Key: abc\nAuthorization: Bearer t0k3n", "203.0.113.9, 10.0.0.2", "10.0.0.1:80", uint16(0))
	f.Add("DELETE", "/a/../b//c", "Forwarded: for=\"[2001:db8:cafe::17]:4711\", for=10.1.1.1", "", "127.0.0.1:9", uint16(0))
	f.Add("", "", "X-Real-Ip: 999.0.0.1\n:\n\x00: \x01", "unknown|, ,|::ffff:10.0.0.3", "[fd00::1]:443", uint16(0))
	f.Add("G\x00T", "/\xff\xfe/%zz", "X-Api-Key: \xc3\x28\nauthorization: bearer \t", "1.1.1.1|2.2.2.2|3.3.3.3|4.4.4.4", "@", uint16(0))
	f.Add("PATCH", "/"+strings.Repeat("x", 5000), "X-Forwarded-For: "+strings.Repeat("10.0.0.9, ", 500), "", "10.0.0.1:1", uint16(4000))
	f.Add("OPTIONS", "*", "Authorization: Basic Zm9vOmJhcg==", "[2001:db8::1]:80|garbage", "[::1]:80", uint16(1))
	f.Add("GET", "/", "", "", "", uint16(20000))

	var mu sync.Mutex
	var longest string
	seen := func(key string) {
		mu.Lock()
		if len(key) > len(longest) {
			longest = key
		}
		mu.Unlock()
	}
	setups := fuzzSetups(f, seen)

	f.Fuzz(func(t *testing.T, method, path, rawHeaders, xff, remote string, huge uint16) {
		huge %= 20001
		for _, s := range setups {
			for range 2 { // twice, so small limits also deny
				w := httptest.NewRecorder()
				s.h.ServeHTTP(w, fuzzRequest(method, path, rawHeaders, xff, remote, huge))
				checkResponse(t, s.name, w)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if len(longest) > fuzzMaxKey {
			t.Fatalf("a key of %d bytes was used (bound %d): %q", len(longest), fuzzMaxKey, longest[:min(len(longest), 64)])
		}
	})
}
