package adaptertest

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// byClient keys requests by the X-Client header (every test request comes
// from 127.0.0.1).
var byClient = ratewindow.WithKeyFunc(keyfuncs.Header("X-Client", keyfuncs.RemoteIP))

// basicSteps: three allowed, then denied until the window ends.
var basicSteps = []Step{
	{Status: 200, Want: minute(2, 60), Body: okBody},
	{Status: 200, Want: minute(1, 60)},
	{Status: 200, Want: minute(0, 60)},
	{Status: 429, Want: denied(minute(0, 60), 60), Body: denyBody(60), ContentType: jsonType},
	{Path: "/healthz", Repeat: 3, Status: 200, Want: none, Body: okBody},
	{Advance: 30 * time.Second, Status: 429, Want: denied(minute(0, 30), 30), Body: denyBody(30)},
	{Advance: 30 * time.Second, Status: 200, Want: minute(2, 60), Body: okBody},
}

// Scenarios returns the table. Every adapter must pass every row.
func Scenarios() []Scenario {
	return slices.Concat(baseScenarios(), modeScenarios(), handlerScenarios(), fieldScenarios())
}

// baseScenarios hold the rows of the request flow itself: limits and
// keys, stores up and down, modes, costs, skips and deny handlers.
func baseScenarios() []Scenario {
	return []Scenario{
		{Name: "allows up to the limit, then 429 with Retry-After and a JSON body", Steps: basicSteps},
		{Name: "the same answers on Redis", Store: liveRedis, Steps: basicSteps},
		{Name: "the same answers on Redis Cluster", Store: liveCluster, Steps: basicSteps},
		{
			Name:  "Redis down (nothing listening) fails open",
			Store: deadRedis,
			Options: func(env *Env) []ratewindow.Option {
				return []ratewindow.Option{env.Hook()}
			},
			Steps: []Step{{Status: 200, Want: none, Body: okBody}},
			Check: func(t *testing.T, env *Env) {
				evs := env.Events()
				require.Len(t, evs, 1)
				assert.Equal(t, ratewindow.StoreErrorPassed, evs[0].Outcome)
				assert.Error(t, evs[0].Err)
			},
		},
		{
			Name:  "Redis down (nothing listening) fails closed",
			Store: deadRedis,
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithFailClosed()}
			},
			Steps: []Step{
				{Status: 503, Want: none, Body: unavailableBody, ContentType: jsonType},
				{Path: "/healthz", Status: 200, Want: none},
			},
		},
		{
			Name:    "every key has its own quota",
			Options: func(*Env) []ratewindow.Option { return []ratewindow.Option{byClient} },
			Steps: []Step{
				{Header: client("a"), Repeat: 3, Status: 200},
				{Header: client("a"), Status: 429, Want: denied(minute(0, 60), 60)},
				{Header: client("b"), Status: 200, Want: minute(2, 60)},
			},
		},
		{
			Name: "the hook sees key, route, method, path and the decision",
			Options: func(env *Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Route), env.Hook()}
			},
			Steps: []Step{
				{Path: "/items/1", Status: 200, Want: minute(2, 60)},
				{Path: "/items/2", Status: 200, Want: minute(1, 60)},
				{Path: "/", Status: 200, Want: minute(2, 60)},
				{Path: "/items/3", Status: 200, Want: minute(0, 60)},
				{Path: "/items/4", Status: 429, Want: denied(minute(0, 60), 60)},
			},
			Check: func(t *testing.T, env *Env) {
				evs := env.Events()
				require.Len(t, evs, 5)
				first := evs[0]
				assert.Equal(t, ratewindow.Allowed, first.Outcome)
				assert.Equal(t, "route:GET "+env.Adapter.ItemsRoute, first.Key)
				assert.Equal(t, env.Adapter.ItemsRoute, first.Route)
				assert.Equal(t, http.MethodGet, first.Method)
				assert.Equal(t, "/items/1", first.Path)
				assert.Equal(t, int64(1), first.Cost)
				assert.True(t, first.Decision.Allowed)
				assert.Equal(t, "minute", first.Decision.Policy().Name)
				assert.Equal(t, int64(2), first.Decision.Remaining)
				assert.Equal(t, int64(2), first.Decision.States()[0].Remaining)
				assert.False(t, first.WouldDeny)
				assert.NoError(t, first.Err)
				last := evs[4]
				assert.Equal(t, ratewindow.Denied, last.Outcome)
				assert.True(t, last.WouldDeny)
				assert.False(t, last.Decision.Allowed)
				assert.Equal(t, time.Minute, last.Decision.RetryAfter)
				assert.Equal(t, "/items/4", last.Path)
			},
		},
		{
			Name: "observe-only never blocks, writes headers and reports would-deny",
			Options: func(env *Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithObserveOnly(true), env.Hook()}
			},
			Steps: []Step{
				{Status: 200, Want: minute(2, 60)},
				{Status: 200, Want: minute(1, 60)},
				{Status: 200, Want: minute(0, 60)},
				{Status: 200, Want: minute(0, 60), Body: okBody},
				{Advance: 20 * time.Second, Status: 200, Want: minute(0, 40), Body: okBody},
			},
			Check: func(t *testing.T, env *Env) {
				want := []ratewindow.Outcome{ratewindow.Allowed, ratewindow.Allowed, ratewindow.Allowed, ratewindow.WouldDeny, ratewindow.WouldDeny}
				assert.Equal(t, want, env.Outcomes())
				ev := env.Events()[3]
				assert.True(t, ev.ObserveOnly)
				assert.True(t, ev.WouldDeny)
				assert.False(t, ev.Decision.Allowed)
			},
		},
		{
			Name: "observe-only per tenant: enforced for migrated tenants only",
			Options: func(env *Env) []ratewindow.Option {
				return []ratewindow.Option{byClient, ratewindow.WithObserveOnlyFunc(func(r keyfuncs.Request) bool {
					return r.Header("X-Tenant") != "migrated"
				})}
			},
			Steps: []Step{
				{Header: map[string]string{"X-Client": "m", "X-Tenant": "migrated"}, Repeat: 3, Status: 200},
				{Header: map[string]string{"X-Client": "m", "X-Tenant": "migrated"}, Status: 429, Want: denied(minute(0, 60), 60)},
				{Header: map[string]string{"X-Client": "o", "X-Tenant": "old"}, Repeat: 3, Status: 200},
				{Header: map[string]string{"X-Client": "o", "X-Tenant": "old"}, Status: 200, Want: minute(0, 60)},
			},
		},
		{
			Name: "tiers: a limiter func picks the plan's limiter",
			Options: func(env *Env) []ratewindow.Option {
				pro := env.NewLimiter(env.Store, core.PerMinute(10).Using(core.FixedWindow).Named("minute"))
				return []ratewindow.Option{byClient, ratewindow.WithLimiterFunc(func(r keyfuncs.Request, key string) (*core.Limiter, error) {
					switch r.Header("X-Plan") {
					case "pro":
						return pro, nil
					case "banned":
						return nil, keyfuncs.ErrNoKey
					}
					return nil, nil // the default limiter
				})}
			},
			Steps: []Step{
				{Header: map[string]string{"X-Client": "p", "X-Plan": "pro"}, Status: 200, Want: ietf("minute", 10, 60, 9, 60)},
				{Header: client("f"), Status: 200, Want: minute(2, 60)},
				{Header: map[string]string{"X-Client": "p", "X-Plan": "pro"}, Repeat: 9, Status: 200},
				{Header: map[string]string{"X-Client": "p", "X-Plan": "pro"}, Status: 429, Want: denied(ietf("minute", 10, 60, 0, 60), 60)},
				{Header: map[string]string{"X-Client": "b", "X-Plan": "banned"}, Status: 400, Want: none, Body: noKeyBody},
			},
		},
		{
			Name: "runtime SetPolicies keeps the counts of unchanged policies",
			Steps: []Step{
				{Repeat: 2, Status: 200},
				{Do: func(t *testing.T, env *Env) {
					require.NoError(t, env.Limiter.SetPolicies(core.PerMinute(5).Using(core.FixedWindow).Named("minute")))
				}},
				{Status: 200, Want: ietf("minute", 5, 60, 2, 60)},
				{Do: func(t *testing.T, env *Env) {
					require.NoError(t, env.Limiter.SetPolicies(core.PerMinute(5).Using(core.FixedWindow).Named("renamed")))
				}},
				{Status: 200, Want: ietf("renamed", 5, 60, 4, 60)},
			},
		},
		{
			Name: "weighted requests; a cost above the limit or below 1 is answered 400, not passed",
			Options: func(env *Env) []ratewindow.Option {
				return []ratewindow.Option{env.Hook(), ratewindow.WithCost(func(r keyfuncs.Request) int64 {
					n, err := strconv.ParseInt(r.Header("X-Cost"), 10, 64)
					if err != nil {
						return 1
					}
					return n
				})}
			},
			Steps: []Step{
				{Header: map[string]string{"X-Cost": "2"}, Status: 200, Want: minute(1, 60)},
				{Header: map[string]string{"X-Cost": "2"}, Status: 429, Want: denied(minute(0, 60), 60)},
				{Status: 200, Want: minute(0, 60)},
				{Header: map[string]string{"X-Cost": "10000"}, Repeat: 5, Status: 400, Want: none, Body: invalidCostBody, ContentType: jsonType},
				{Header: map[string]string{"X-Cost": "0"}, Status: 400, Want: none, Body: invalidCostBody},
				{Header: map[string]string{"X-Cost": "-3"}, Status: 400, Want: none, Body: invalidCostBody},
			},
			Check: func(t *testing.T, env *Env) {
				evs := env.Events()
				require.Len(t, evs, 10)
				assert.Equal(t, int64(2), evs[1].Cost)
				for _, ev := range evs[3:] {
					assert.Equal(t, ratewindow.UnclassifiedRejected, ev.Outcome)
					assert.ErrorIs(t, ev.Err, core.ErrInvalidCost)
					assert.False(t, ev.FailedOpen)
				}
			},
		},
		{
			Name: "WithPassUnclassified lets an unclassified request pass, uncounted and reported",
			Options: func(env *Env) []ratewindow.Option {
				return []ratewindow.Option{env.Hook(), ratewindow.WithPassUnclassified(), ratewindow.WithCost(func(r keyfuncs.Request) int64 {
					if r.Header("X-Cost") != "" {
						return 1000
					}
					return 1
				})}
			},
			Steps: []Step{
				{Header: map[string]string{"X-Cost": "big"}, Repeat: 4, Status: 200, Want: none, Body: okBody},
				{Status: 200, Want: minute(2, 60)},
			},
			Check: func(t *testing.T, env *Env) {
				u := ratewindow.UnclassifiedPassed
				assert.Equal(t, []ratewindow.Outcome{u, u, u, u, ratewindow.Allowed}, env.Outcomes())
			},
		},
		{
			Name: "a key func broken by a nil part answers 400 instead of passing everything",
			Options: func(env *Env) []ratewindow.Option {
				var clientIP keyfuncs.KeyFunc // a NewClientIP whose error was ignored
				return []ratewindow.Option{env.Hook(), ratewindow.WithKeyFunc(keyfuncs.Prefix("login", clientIP))}
			},
			Steps: []Step{{Repeat: 4, Status: 400, Want: none, Body: noKeyBody, ContentType: jsonType}},
			Check: func(t *testing.T, env *Env) {
				r := ratewindow.UnclassifiedRejected
				assert.Equal(t, []ratewindow.Outcome{r, r, r, r}, env.Outcomes())
				assert.ErrorIs(t, env.Events()[0].Err, core.ErrInvalidConfig, "the hook can tell a mistake from a client")
			},
		},
		{
			Name: "an unclassified observe-only request passes",
			Options: func(env *Env) []ratewindow.Option {
				return []ratewindow.Option{env.Hook(), ratewindow.WithObserveOnly(true),
					ratewindow.WithKeyFunc(keyfuncs.Header("X-API-Key", nil))}
			},
			Steps: []Step{{Status: 200, Want: none, Body: okBody}},
			Check: func(t *testing.T, env *Env) {
				evs := env.Events()
				require.Len(t, evs, 1)
				assert.Equal(t, ratewindow.UnclassifiedPassed, evs[0].Outcome)
				assert.True(t, evs[0].ObserveOnly)
				assert.ErrorIs(t, evs[0].Err, keyfuncs.ErrNoKey)
			},
		},
		{
			Name:    "store error fails open by default",
			Store:   func(*testing.T) core.Store { return FailingStore{} },
			Options: func(env *Env) []ratewindow.Option { return []ratewindow.Option{env.Hook()} },
			Steps:   []Step{{Repeat: 2, Status: 200, Want: none, Body: okBody}},
			Check: func(t *testing.T, env *Env) {
				evs := env.Events()
				require.Len(t, evs, 2)
				assert.Equal(t, ratewindow.StoreErrorPassed, evs[0].Outcome)
				assert.True(t, evs[0].FailedOpen)
				assert.ErrorIs(t, evs[0].Err, ErrStoreDown)
				assert.Equal(t, "ip:127.0.0.1", evs[0].Key)
			},
		},
		{
			Name:  "store error fails closed with 503 and a JSON body",
			Store: func(*testing.T) core.Store { return FailingStore{} },
			Options: func(env *Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithFailClosed(), env.Hook()}
			},
			Steps: []Step{
				{Status: 503, Want: none, Body: unavailableBody, ContentType: jsonType},
				{Path: "/healthz", Status: 200, Want: none},
			},
			Check: func(t *testing.T, env *Env) {
				assert.Equal(t, []ratewindow.Outcome{ratewindow.StoreErrorRejected}, env.Outcomes())
				assert.False(t, env.Events()[0].FailedOpen)
			},
		},
		{
			Name:  "fail-closed never blocks an observe-only request",
			Store: func(*testing.T) core.Store { return FailingStore{} },
			Options: func(env *Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithFailClosed(), ratewindow.WithObserveOnly(true)}
			},
			Steps: []Step{{Status: 200, Want: none, Body: okBody}},
		},
		{
			Name:  "a store that hangs is cut off by the timeout",
			Store: func(*testing.T) core.Store { return HangingStore{} },
			Options: func(env *Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithTimeout(50 * time.Millisecond), ratewindow.WithFailClosed(), env.Hook()}
			},
			Steps: []Step{{Status: 503, Want: none, Body: unavailableBody}},
			Check: func(t *testing.T, env *Env) {
				evs := env.Events()
				require.Len(t, evs, 1)
				assert.ErrorIs(t, evs[0].Err, context.DeadlineExceeded)
				assert.GreaterOrEqual(t, evs[0].Latency, 50*time.Millisecond)
			},
		},
		{
			Name: "a skip func exempts requests, uncounted",
			Options: func(env *Env) []ratewindow.Option {
				return []ratewindow.Option{env.Hook(), ratewindow.WithSkip(func(r keyfuncs.Request) bool { return r.Header("X-Internal") == "yes" })}
			},
			Steps: []Step{
				{Header: map[string]string{"X-Internal": "yes"}, Repeat: 5, Status: 200, Want: none, Body: okBody},
				{Status: 200, Want: minute(2, 60)},
			},
			Check: func(t *testing.T, env *Env) {
				s := ratewindow.Skipped
				assert.Equal(t, []ratewindow.Outcome{s, s, s, s, s, ratewindow.Allowed}, env.Outcomes())
			},
		},
		{
			Name: "a key func's ErrSkip exempts; ErrNoKey is answered 400 even under fail-open",
			Options: func(env *Env) []ratewindow.Option {
				key := func(r keyfuncs.Request) (string, error) {
					switch r.Header("X-Who") {
					case "robot":
						return "", keyfuncs.ErrSkip
					case "":
						return "", keyfuncs.ErrNoKey
					}
					return r.Header("X-Who"), nil
				}
				return []ratewindow.Option{ratewindow.WithKeyFunc(key), env.Hook()}
			},
			Steps: []Step{
				{Header: map[string]string{"X-Who": "robot"}, Repeat: 4, Status: 200, Want: none},
				{Repeat: 3, Status: 400, Want: none, Body: noKeyBody, ContentType: jsonType},
				{Header: map[string]string{"X-Who": "ann"}, Status: 200, Want: minute(2, 60)},
			},
			Check: func(t *testing.T, env *Env) {
				s, r := ratewindow.Skipped, ratewindow.UnclassifiedRejected
				assert.Equal(t, []ratewindow.Outcome{s, s, s, s, r, r, r, ratewindow.Allowed}, env.Outcomes())
			},
		},
		{
			Name: "a custom deny handler writes the body; Retry-After is already set",
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithDenyHandler(func(w ratewindow.Response, r keyfuncs.Request, ev ratewindow.Event) {
					w.SetHeader("Content-Type", "text/plain; charset=utf-8")
					w.Send(http.StatusTooManyRequests, []byte("slow down, "+ev.Decision.Policy().Name+"\n"))
				})}
			},
			Steps: []Step{
				{Repeat: 3, Status: 200},
				{Status: 429, Want: denied(minute(0, 60), 60), Body: "slow down, minute\n", ContentType: "text/plain; charset=utf-8"},
			},
		},
		{
			Name:     "sliding log: exact interval, honest Retry-After",
			Policies: []core.Policy{core.Per(2, 5*time.Minute).Using(core.SlidingLog).Named("login")},
			Steps: []Step{
				{Status: 200, Want: ietf("login", 2, 300, 1, 300)},
				{Advance: time.Minute, Status: 200, Want: ietf("login", 2, 300, 0, 300)},
				{Status: 429, Want: denied(ietf("login", 2, 300, 0, 240), 240)},
				{Advance: 4 * time.Minute, Status: 200, Want: ietf("login", 2, 300, 0, 300)},
			},
		},
	}
}
