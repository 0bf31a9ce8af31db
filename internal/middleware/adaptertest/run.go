package adaptertest

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// clientTimeout bounds every request, so a middleware that hangs fails
// the test instead of blocking it.
const clientTimeout = 10 * time.Second

// tracked are the response fields a step compares exactly: a field listed
// here and absent from Step.Want must be absent from the response.
var tracked = []string{
	headerfmt.FieldPolicy, headerfmt.FieldRateLimit,
	headerfmt.FieldLimit, headerfmt.FieldRemaining, headerfmt.FieldReset,
	headerfmt.FieldLegacyLimit, headerfmt.FieldLegacyRemaining, headerfmt.FieldLegacyReset,
	headerfmt.FieldRetryAfter,
}

func runScenario(t *testing.T, a Adapter, client *http.Client, sc Scenario) {
	env := newEnv(t, a, sc)
	var opts []ratewindow.Option
	if sc.Options != nil {
		opts = sc.Options(env)
	}
	base, err := a.Mount(t, env.Limiter, opts)
	require.NoError(t, err)
	closeIdleFirst(t, client)
	for i, st := range sc.Steps {
		env.Clock.Advance(st.Advance)
		for n := range max(st.Repeat, 1) {
			if st.Do != nil {
				st.Do(t, env)
				continue
			}
			got := do(t, client, base, st)
			where := a.Name + ": step " + strconv.Itoa(i) + " request " + strconv.Itoa(n) + " " + st.path()
			assert.Equal(t, st.Status, got.status, where)
			if st.Want != nil {
				assert.Equal(t, st.Want, got.fields, where)
			}
			if st.Body != "" {
				assert.Equal(t, st.Body, got.body, where)
			}
			if st.EmptyBody {
				assert.Empty(t, got.body, where)
			}
			if st.ContentType != "" {
				assert.Equal(t, st.ContentType, got.contentType, where)
			}
		}
	}
	if sc.Check != nil {
		sc.Check(t, env)
	}
}

type response struct {
	status      int
	fields      map[string]string
	body        string
	contentType string
}

func do(t *testing.T, client *http.Client, base string, st Step) response {
	t.Helper()
	r, err := roundTrip(client, base, st)
	require.NoError(t, err)
	return r
}

// roundTrip sends the step's request; safe to call from any goroutine.
func roundTrip(client *http.Client, base string, st Step) (response, error) {
	req, err := http.NewRequest(http.MethodGet, base+st.path(), nil)
	if err != nil {
		return response{}, err
	}
	if st.AbsoluteHost != "" {
		// An opaque "//host/path" is written as "http://host/path" on
		// the request line; the connection still goes to base.
		req.URL.Opaque = "//" + st.AbsoluteHost + st.path()
		req.Host = st.AbsoluteHost
	}
	for k, v := range st.Header {
		if k == "Host" {
			req.Host = v // what net/http's client sends as the Host field
			continue
		}
		req.Header.Set(k, v)
	}
	for i := 0; i+1 < len(st.Lines); i += 2 {
		req.Header.Add(st.Lines[i], st.Lines[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	r := response{status: resp.StatusCode, fields: map[string]string{}, body: string(body), contentType: resp.Header.Get("Content-Type")}
	for _, name := range tracked {
		if vs := resp.Header.Values(name); len(vs) > 0 {
			if len(vs) > 1 {
				return r, fmt.Errorf("field %s written %d times", name, len(vs))
			}
			r.fields[name] = vs[0]
		}
	}
	return r, nil
}

func checkInvalidConfig(t *testing.T, a Adapter) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerSecond(1)})
	require.NoError(t, err)
	// Both names are written "tier-_" in the RateLimit fields.
	lookAlike, err := core.NewLimiter(memory.New(), []core.Policy{core.PerSecond(1).Named("tier-é"), core.PerMinute(5).Named("tier-ü")})
	require.NoError(t, err)
	var nilKey keyfuncs.KeyFunc // e.g. from a NewClientIP whose error was ignored
	for _, c := range []struct {
		name  string
		l     *core.Limiter
		opts  []ratewindow.Option
		field string
	}{
		{"nil limiter", nil, nil, "limiter is nil"},
		{"negative timeout", l, []ratewindow.Option{ratewindow.WithTimeout(-time.Second)}, "WithTimeout"},
		// Meant as 50ms; with Redis every call would time out and pass.
		{"timeout in nanoseconds", l, []ratewindow.Option{ratewindow.WithTimeout(50)}, "WithTimeout: 50ns is shorter than a store call"},
		{"unknown header mode", l, []ratewindow.Option{ratewindow.WithHeaders(headers.Writer{Mode: headers.None + 1})}, "WithHeaders"},
		{"nil key func", l, []ratewindow.Option{ratewindow.WithKeyFunc(nilKey)}, "WithKeyFunc(nil)"},
		{"nil cost func", l, []ratewindow.Option{ratewindow.WithCost(nil)}, "WithCost(nil)"},
		{"nil limiter func", l, []ratewindow.Option{ratewindow.WithLimiterFunc(nil)}, "WithLimiterFunc(nil)"},
		{"nil skip", l, []ratewindow.Option{ratewindow.WithSkip(nil)}, "WithSkip(nil)"},
		{"nil observe-only func", l, []ratewindow.Option{ratewindow.WithObserveOnlyFunc(nil)}, "WithObserveOnlyFunc(nil)"},
		{"nil deny handler", l, []ratewindow.Option{ratewindow.WithDenyHandler(nil)}, "WithDenyHandler(nil)"},
		{"nil error handler", l, []ratewindow.Option{ratewindow.WithErrorHandler(nil)}, "WithErrorHandler(nil)"},
		{"nil unclassified handler", l, []ratewindow.Option{ratewindow.WithUnclassifiedHandler(nil)}, "WithUnclassifiedHandler(nil)"},
		{"nil hook", l, []ratewindow.Option{ratewindow.WithOnDecision(nil)}, "WithOnDecision(nil)"},
		{"policy names written alike", lookAlike, nil, "tier-_"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := a.Mount(t, c.l, c.opts)
			if err == nil {
				t.Fatalf("%s: Mount accepted an invalid configuration (%s); want an error wrapping core.ErrInvalidConfig naming %q", a.Name, c.name, c.field)
			}
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), c.field)
		})
	}
}

// checkConcurrency sends many requests at once from several clients, on a
// clock that does not move: exactly the limit is admitted, for the two
// algorithms that promise it.
func checkConcurrency(t *testing.T, a Adapter, client *http.Client) {
	const limit, workers, each = 20, 8, 10
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			clock := clocktest.New(T0)
			l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(limit).Using(alg)}, core.WithClock(clock))
			require.NoError(t, err)
			base, err := a.Mount(t, l, []ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header("X-Client", nil))})
			require.NoError(t, err)
			closeIdleFirst(t, client)
			var (
				mu     sync.Mutex
				counts = map[int]int{}
				errs   []error
				wg     sync.WaitGroup
			)
			for range workers {
				wg.Go(func() {
					for range each {
						got, err := roundTrip(client, base, Step{Header: map[string]string{"X-Client": "shared"}})
						mu.Lock()
						if err != nil {
							errs = append(errs, err)
						}
						counts[got.status]++
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			require.Empty(t, errs)
			assert.Equal(t, map[int]int{http.StatusOK: limit, http.StatusTooManyRequests: workers*each - limit}, counts)
		})
	}
}

// closeIdleFirst closes the client's idle connections before the server
// (mounted just before) shuts down: cleanups run last-registered first.
// Some servers (Fiber) wait on a connection that was opened but never used
// until the client closes it.
func closeIdleFirst(t *testing.T, client *http.Client) {
	t.Cleanup(client.CloseIdleConnections)
}

// checkLimit runs the one-line form: default options (the peer IP, IETF
// fields), and with a nil limiter a 503 on every limited route instead of
// a panic.
func checkLimit(t *testing.T, a Adapter, client *http.Client) {
	require.NotNil(t, a.MountLimit, "Adapter.MountLimit")
	clock := clocktest.New(T0)
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.FixedWindow).Named("minute")}, core.WithClock(clock))
	require.NoError(t, err)
	base := a.MountLimit(t, l)
	closeIdleFirst(t, client)
	got := do(t, client, base, Step{})
	assert.Equal(t, http.StatusOK, got.status)
	assert.Equal(t, ietf("minute", 1, 60, 0, 60), got.fields)
	got = do(t, client, base, Step{Path: "/items/1"})
	assert.Equal(t, http.StatusTooManyRequests, got.status, "one key, the peer IP, for every route")
	assert.Equal(t, denyBody(60), got.body)

	base = a.MountLimit(t, nil)
	closeIdleFirst(t, client)
	for _, path := range []string{"/", "/items/1"} {
		got = do(t, client, base, Step{Path: path})
		assert.Equal(t, http.StatusServiceUnavailable, got.status)
		assert.Equal(t, unavailableBody, got.body)
	}
	assert.Equal(t, http.StatusOK, do(t, client, base, Step{Path: "/healthz"}).status)
}
