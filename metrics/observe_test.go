package metrics_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/metrics"
)

var testPolicy = core.PerMinute(100).Named("per-minute")

// allowedEvent is an allowed request on route leaving remaining of
// testPolicy's 100.
func allowedEvent(route string, remaining int64) ratewindow.Event {
	ps := []core.Policy{testPolicy}
	ev := ratewindow.Event{Outcome: ratewindow.Allowed, Key: "k", Route: route, Cost: 1, Latency: time.Millisecond}
	ev.Decision = core.Decision{Allowed: true, Limit: 100, Remaining: remaining, Policies: ps}
	ev.Decision.States()[0] = core.PolicyState{Allowed: true, Remaining: remaining}
	return ev
}

// requests returns requests_total{route, policy, outcome}.
func requests(t *testing.T, c *metrics.Collector, route, policy, outcome string) float64 {
	t.Helper()
	for _, m := range gather(t, c)["ratewindow_requests_total"].GetMetric() {
		l := labelsOf(m)
		if l["route"] == route && l["policy"] == policy && l["outcome"] == outcome {
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

func TestRouteCap(t *testing.T) {
	c, err := metrics.New(metrics.WithMaxRoutes(2))
	require.NoError(t, err)
	for _, r := range []string{"/a", "/b", "/c", "/d", "", "/a", metrics.OtherRoute} {
		c.Observe(allowedEvent(r, 50))
	}
	// A route seen before the cap keeps its label for a new policy too.
	ev := allowedEvent("/b", 50)
	ev.Decision.Policies = []core.Policy{core.PerSecond(5).Named("per-second")}
	c.Observe(ev)

	routes := map[string]float64{}
	for _, m := range gather(t, c)["ratewindow_requests_total"].GetMetric() {
		routes[labelsOf(m)["route"]] += m.GetCounter().GetValue()
	}
	assert.Equal(t, map[string]float64{"/a": 2, "/b": 2, metrics.OtherRoute: 3, metrics.UnmatchedRoute: 1}, routes)
	assert.Equal(t, 1.0, requests(t, c, "/b", "per-second", "allowed"))
}

func TestNearLimitThreshold(t *testing.T) {
	tests := []struct {
		name      string
		opts      []metrics.Option
		remaining []int64
		want      float64
	}{
		{"default 10% counts 10 and under", nil, []int64{11, 10, 9, 0}, 3},
		{"zero counts only exhaustion", []metrics.Option{metrics.WithNearLimit(0)}, []int64{1, 0}, 1},
		{"half", []metrics.Option{metrics.WithNearLimit(0.5)}, []int64{51, 50, 49}, 2},
		{"one counts everything", []metrics.Option{metrics.WithNearLimit(1)}, []int64{99, 100}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := metrics.New(tt.opts...)
			require.NoError(t, err)
			for _, r := range tt.remaining {
				c.Observe(allowedEvent("/x", r))
			}
			want := `
# HELP ratewindow_near_limit_total Allowed requests that left a policy with at most the near-limit fraction of its limit.
# TYPE ratewindow_near_limit_total counter
ratewindow_near_limit_total{policy="per-minute",route="/x"} ` + strconv.FormatFloat(tt.want, 'g', -1, 64) + "\n"
			require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want), "ratewindow_near_limit_total"))
		})
	}
}

func TestNearLimitNotCountedUnlessAllowed(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	for _, o := range []ratewindow.Outcome{ratewindow.Denied, ratewindow.WouldDeny} {
		ev := allowedEvent("/x", 0)
		ev.Outcome, ev.Decision.Allowed = o, false
		c.Observe(ev)
	}
	mf := gather(t, c)["ratewindow_near_limit_total"]
	require.NotNil(t, mf)
	for _, m := range mf.GetMetric() {
		assert.Zero(t, m.GetCounter().GetValue())
	}
	assert.Equal(t, 1.0, requests(t, c, "/x", "per-minute", "denied"))
	assert.Equal(t, 1.0, requests(t, c, "/x", "per-minute", "would_deny"))
}

func TestHandMadeEvents(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	// Allowed without a decision: no policy to name, still counted.
	c.Observe(ratewindow.Event{Outcome: ratewindow.Allowed, Route: "/h"})
	// An unnamed policy.
	ev := allowedEvent("/h", 50)
	ev.Decision.Policies[0].Name = ""
	c.Observe(ev)
	// An outcome past the known ones is ignored.
	c.Observe(ratewindow.Event{Outcome: ratewindow.Outcome(200), Route: "/h"})

	assert.Equal(t, 1.0, requests(t, c, "/h", metrics.NoPolicy, "allowed"))
	assert.Equal(t, 1.0, requests(t, c, "/h", "unnamed", "allowed"))
	total := 0.0
	for _, m := range gather(t, c)["ratewindow_requests_total"].GetMetric() {
		total += m.GetCounter().GetValue()
	}
	assert.Equal(t, 2.0, total)
	// Neither made a store call as far as the Event tells: one had no
	// decision and no latency.
	assert.Equal(t, uint64(1), histogramCounts(t, c)["/h"])
}

func TestUnclassifiedOutcomes(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	c.Observe(ratewindow.Event{Outcome: ratewindow.UnclassifiedRejected, Route: "/x", Cost: 10000})
	c.Observe(ratewindow.Event{Outcome: ratewindow.UnclassifiedRejected, Route: "/x"})
	c.Observe(ratewindow.Event{Outcome: ratewindow.UnclassifiedPassed, Route: "/x"})
	assert.Equal(t, 2.0, requests(t, c, "/x", metrics.NoPolicy, "unclassified_rejected"))
	assert.Equal(t, 1.0, requests(t, c, "/x", metrics.NoPolicy, "unclassified_passed"))
	assert.Equal(t, 0.0, requests(t, c, "/x", metrics.NoPolicy, "store_error_passed"))
}

func TestObserveDoesNotAllocate(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	near := allowedEvent("/items/{id}", 1)
	far := allowedEvent("/items/{id}", 90)
	denied := allowedEvent("/items/{id}", 0)
	denied.Outcome, denied.Decision.Allowed = ratewindow.Denied, false
	failed := ratewindow.Event{Outcome: ratewindow.StoreErrorPassed, Route: "/items/{id}", Err: errStoreDown, FailedOpen: true, Latency: time.Millisecond}
	overflow := allowedEvent("/beyond-the-cap", 90)
	small, err := metrics.New(metrics.WithMaxRoutes(1))
	require.NoError(t, err)
	small.Observe(far)
	small.Observe(overflow) // resolves "other"
	tenants, err := metrics.New(metrics.WithMaxPolicies(1))
	require.NoError(t, err)
	tenantB := allowedEvent("/t", 90)
	tenantB.Decision.Policies = []core.Policy{core.PerMinute(100).Named("tenant-b")}
	tenants.Observe(allowedEvent("/t", 90))
	tenants.Observe(tenantB) // resolves "other"

	events := []ratewindow.Event{near, far, denied, failed}
	for _, ev := range events {
		c.Observe(ev) // first sight resolves the series
	}
	allocs := testing.AllocsPerRun(200, func() {
		for _, ev := range events {
			c.Observe(ev)
		}
		small.Observe(overflow)
		tenants.Observe(tenantB)
	})
	assert.Zero(t, allocs)
}

// Routes and policies first seen on several goroutines at once: every
// request is counted once and the cap holds.
func TestObserveConcurrently(t *testing.T) {
	const workers, routes, rounds, maxRoutes = 4, 40, 5, 10
	c, err := metrics.New(metrics.WithMaxRoutes(maxRoutes))
	require.NoError(t, err)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range routes * rounds {
				ev := allowedEvent("/r"+strconv.Itoa((i+w)%routes), 50)
				if i%3 == 0 {
					ev.Decision.Policies = []core.Policy{core.PerSecond(5).Named("per-second")}
				}
				c.Observe(ev)
			}
		})
	}
	wg.Wait()

	total, labels := 0.0, map[string]bool{}
	for _, m := range gather(t, c)["ratewindow_requests_total"].GetMetric() {
		total += m.GetCounter().GetValue()
		labels[labelsOf(m)["route"]] = true
	}
	assert.Equal(t, float64(workers*routes*rounds), total)
	assert.Len(t, labels, maxRoutes+1)
	assert.True(t, labels[metrics.OtherRoute])
	var samples uint64
	for _, n := range histogramCounts(t, c) {
		samples += n
	}
	assert.Equal(t, uint64(workers*routes*rounds), samples)
}

// A policy may be named like the no-decision label; it must not break the
// near-limit counter of a series first made for a failure.
func TestPolicyNamedNone(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	c.Observe(ratewindow.Event{Outcome: ratewindow.StoreErrorPassed, Route: "/n", Latency: time.Millisecond})
	ev := allowedEvent("/n", 0)
	ev.Decision.Policies[0].Name = metrics.NoPolicy
	c.Observe(ev)
	assert.Equal(t, 1.0, requests(t, c, "/n", metrics.NoPolicy, "allowed"))
	assert.Equal(t, 1.0, requests(t, c, "/n", metrics.NoPolicy, "store_error_passed"))
	near := gather(t, c)["ratewindow_near_limit_total"]
	require.NotNil(t, near)
	require.Len(t, near.GetMetric(), 1)
	assert.Equal(t, 1.0, near.GetMetric()[0].GetCounter().GetValue())
}

func TestPolicyCap(t *testing.T) {
	c, err := metrics.New(metrics.WithMaxPolicies(2))
	require.NoError(t, err)
	named := func(route, name string, remaining int64) ratewindow.Event {
		ev := allowedEvent(route, remaining)
		ev.Decision.Policies[0].Name = name
		return ev
	}
	for _, name := range []string{"tenant-1", "tenant-2", "tenant-3", "tenant-4", "tenant-1"} {
		c.Observe(named("/a", name, 0))
	}
	// Failures do not count towards the cap, and the cap is per route.
	c.Observe(ratewindow.Event{Outcome: ratewindow.StoreErrorPassed, Route: "/a", Latency: time.Millisecond})
	c.Observe(named("/b", "tenant-3", 50))

	assert.Equal(t, 2.0, requests(t, c, "/a", "tenant-1", "allowed"))
	assert.Equal(t, 1.0, requests(t, c, "/a", "tenant-2", "allowed"))
	assert.Equal(t, 2.0, requests(t, c, "/a", metrics.OtherPolicy, "allowed"))
	assert.Equal(t, 1.0, requests(t, c, "/a", metrics.NoPolicy, "store_error_passed"))
	assert.Equal(t, 1.0, requests(t, c, "/b", "tenant-3", "allowed"))
	near := map[string]float64{}
	for _, m := range gather(t, c)["ratewindow_near_limit_total"].GetMetric() {
		l := labelsOf(m)
		near[l["route"]+" "+l["policy"]] = m.GetCounter().GetValue()
	}
	assert.Equal(t, map[string]float64{"/a tenant-1": 2, "/a tenant-2": 1, "/a other": 2, "/b tenant-3": 0}, near)
}

func TestFallbackDecisionsCounted(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	c.Observe(allowedEvent("/x", 50))
	for range 3 {
		ev := allowedEvent("/x", 50)
		ev.Decision.Fallback = true
		c.Observe(ev)
	}
	denied := allowedEvent("/y", 0)
	denied.Outcome, denied.Decision.Allowed, denied.Decision.Fallback = ratewindow.Denied, false, true
	c.Observe(denied)
	c.Observe(allowedEvent("/z", 50))

	want := `
# HELP ratewindow_fallback_decisions_total Decisions made by core/resilient's local fallback while the store failed, by route pattern and outcome.
# TYPE ratewindow_fallback_decisions_total counter
ratewindow_fallback_decisions_total{outcome="allowed",route="/x"} 3
ratewindow_fallback_decisions_total{outcome="denied",route="/x"} 0
ratewindow_fallback_decisions_total{outcome="would_deny",route="/x"} 0
ratewindow_fallback_decisions_total{outcome="allowed",route="/y"} 0
ratewindow_fallback_decisions_total{outcome="denied",route="/y"} 1
ratewindow_fallback_decisions_total{outcome="would_deny",route="/y"} 0
ratewindow_fallback_decisions_total{outcome="allowed",route="/z"} 0
ratewindow_fallback_decisions_total{outcome="denied",route="/z"} 0
ratewindow_fallback_decisions_total{outcome="would_deny",route="/z"} 0
`
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want), "ratewindow_fallback_decisions_total"))
	assert.Equal(t, 4.0, requests(t, c, "/x", "per-minute", "allowed"), "fallback decisions are requests too")
}
