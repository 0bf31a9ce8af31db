package config_test

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/keytest"
	"github.com/ratewindow/ratewindow/internal/middleware"
	"github.com/ratewindow/ratewindow/nethttp"
)

// searchLimits is a file whose one route, "search", is keyed by key,
// allows limit requests an hour and has mode mode.
func searchLimits(key string, limit int, mode string) string {
	return `{"routes": [{"name": "search", "match": ["/search"], "key": "` + key + `", "mode": "` + mode + `",
  "policies": [{"name": "hourly", "limit": ` + strconv.Itoa(limit) + `, "window": "1h"}]}]}`
}

// A reload that lands during a request's store call, raising the route's
// limit and turning it from observe to enforce, does not mix the two
// files: the request was charged on the old limit, over which the old
// file only observes, so it passes; the next request has the new file
// whole.
func TestReloadDuringStoreCallKeepsOneConfiguration(t *testing.T) {
	path := file(t, searchLimits("header:X-Client", 1, "observe"))
	store := &midCall{Store: memory.New()}
	s, err := config.Load(path, config.WithStore(store), quiet())
	require.NoError(t, err)
	var events []ratewindow.Event
	h := serverWith(t, s, ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }))
	require.Equal(t, 200, get(h, "/search", "c1", ""), "the first of one")

	reload := func() {
		write(t, path, searchLimits("header:X-Client", 1000, "enforce"))
		require.NoError(t, s.Reload())
	}
	store.next.Store(&reload)
	assert.Equal(t, 200, get(h, "/search", "c1", ""), "over the old limit, which the old file observes")
	require.Nil(t, store.next.Load(), "the reload ran during the store call")
	require.Len(t, events, 2)
	assert.Equal(t, ratewindow.WouldDeny, events[1].Outcome)
	assert.True(t, events[1].ObserveOnly)
	assert.Equal(t, int64(1), events[1].Decision.Limit)

	assert.Equal(t, 200, get(h, "/search", "c1", ""), "under the new limit")
	require.Len(t, events, 3)
	assert.Equal(t, ratewindow.Allowed, events[2].Outcome)
	assert.False(t, events[2].ObserveOnly)
	assert.Equal(t, int64(1000), events[2].Decision.Limit)
}

// onRead is a request whose read of one header runs a function, once: a
// reload that lands while the request's key is being made.
type onRead struct {
	keytest.Request
	header string
	next   atomic.Pointer[func()]
	status int
}

func (r *onRead) Header(name string) string {
	if name == r.header {
		if f := r.next.Swap(nil); f != nil {
			(*f)()
		}
	}
	return r.Request.Header(name)
}

func (r *onRead) SetHeader(string, string)  {}
func (r *onRead) Send(status int, _ []byte) { r.status = status }

// A reload that lands while a request's key is made, changing the
// route's key strategy, limit and mode, does not mix the two files: the
// request is keyed, limited and enforced by the file it started under.
func TestReloadDuringKeyKeepsOneConfiguration(t *testing.T) {
	path := file(t, searchLimits("header:X-Client", 1, "enforce"))
	s, err := config.Load(path, quiet())
	require.NoError(t, err)
	var events []ratewindow.Event
	f, err := middleware.FromOptions(nil, append(s.Options(),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) })))
	require.NoError(t, err)
	request := func() *onRead {
		return &onRead{Request: keytest.Request{
			MethodValue: http.MethodGet, PathValue: "/search", RouteValue: "/search", RemoteAddrValue: "192.0.2.1:1234",
			Headers: map[string][]string{"X-Client": {"c1"}},
		}, header: "X-Client"}
	}
	require.True(t, f.Handle(request()), "the first of one")

	r := request()
	reload := func() {
		write(t, path, searchLimits("ip", 1000, "observe"))
		require.NoError(t, s.Reload())
	}
	r.next.Store(&reload)
	assert.False(t, f.Handle(r), "the second of one, enforced")
	require.Nil(t, r.next.Load(), "the reload ran while the key was made")
	assert.Equal(t, http.StatusTooManyRequests, r.status)
	require.Len(t, events, 2)
	assert.Equal(t, ratewindow.Denied, events[1].Outcome)
	assert.Equal(t, "search:hdr:x-client:c1", events[1].Key)
	assert.Equal(t, int64(1), events[1].Decision.Limit)
	assert.False(t, events[1].ObserveOnly)

	require.True(t, f.Handle(request()), "the new file, whole")
	require.Len(t, events, 3)
	assert.Equal(t, "search:ip:192.0.2.1", events[2].Key)
	assert.Equal(t, int64(1000), events[2].Decision.Limit)
	assert.True(t, events[2].ObserveOnly)
}

// serverWith is server with options of the caller's after the set's.
func serverWith(t testing.TB, s *config.Set, opts ...ratewindow.Option) http.Handler {
	t.Helper()
	return serveWith(t, append(s.Options(), opts...))
}

// serveWith serves GET /search and GET /other behind middleware built
// with opts on net/http.
func serveWith(t testing.TB, opts []ratewindow.Option) http.Handler {
	t.Helper()
	mw, err := nethttp.New(nil, opts...)
	require.NoError(t, err)
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	mux := http.NewServeMux()
	mux.Handle("GET /search", mw(ok))
	mux.Handle("GET /other", mw(ok))
	return mux
}
