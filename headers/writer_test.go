package headers_test

import (
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
)

var (
	burst  = core.PerSecond(10).Named("burst")
	steady = core.PerMinute(600).Named("steady")
	t0     = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

// decision builds a two-policy decision by hand; bind is the binding index.
func decision(allowed bool, bind int, states ...core.PolicyState) *core.Decision {
	d := &core.Decision{Allowed: allowed, Policies: []core.Policy{burst, steady}, Index: bind}
	copy(d.States(), states)
	d.Limit = d.Policies[bind].Limit
	d.Remaining = states[bind].Remaining
	d.ResetAfter = states[bind].ResetAfter
	if !allowed {
		d.RetryAfter = states[bind].RetryAfter
	}
	return d
}

// capture collects what a writer sets.
func capture() (http.Header, func(name, value string)) {
	h := http.Header{}
	return h, func(name, value string) {
		if _, dup := h[name]; dup {
			panic("field set twice: " + name)
		}
		h[name] = []string{value}
	}
}

var (
	allowedDecision = decision(true, 0,
		core.PolicyState{Allowed: true, Remaining: 3, ResetAfter: 700 * time.Millisecond},
		core.PolicyState{Allowed: true, Remaining: 590, ResetAfter: 59*time.Second + 2*time.Millisecond})
	deniedDecision = decision(false, 1,
		core.PolicyState{Allowed: true, Remaining: 4, ResetAfter: 300 * time.Millisecond},
		core.PolicyState{Allowed: false, Remaining: 0, ResetAfter: 60 * time.Second, RetryAfter: 12*time.Second + 1})
)

func TestWriterModes(t *testing.T) {
	tests := []struct {
		name string
		w    headers.Writer
		d    *core.Decision
		want map[string]string
	}{
		{"ietf allowed, binding only", headers.Writer{}, allowedDecision, map[string]string{
			"RateLimit-Policy": `"burst";q=10;w=1, "steady";q=600;w=60`,
			"RateLimit":        `"burst";r=3;t=1`,
		}},
		{"ietf allowed, all policies", headers.Writer{AllPolicies: true}, allowedDecision, map[string]string{
			"RateLimit-Policy": `"burst";q=10;w=1, "steady";q=600;w=60`,
			"RateLimit":        `"burst";r=3;t=1, "steady";r=590;t=60`,
		}},
		{"ietf denied: r=0, t is RetryAfter rounded up", headers.Writer{Mode: headers.Draft8}, deniedDecision, map[string]string{
			"RateLimit-Policy": `"burst";q=10;w=1, "steady";q=600;w=60`,
			"RateLimit":        `"steady";r=0;t=13`,
		}},
		{"ietf denied, all policies", headers.Writer{AllPolicies: true}, deniedDecision, map[string]string{
			"RateLimit-Policy": `"burst";q=10;w=1, "steady";q=600;w=60`,
			"RateLimit":        `"burst";r=4;t=1, "steady";r=0;t=13`,
		}},
		{"draft-7 allowed", headers.Writer{Mode: headers.Draft7}, allowedDecision, map[string]string{
			"RateLimit-Policy": "10;w=1, 600;w=60",
			"RateLimit":        "limit=10, remaining=3, reset=1",
		}},
		{"draft-7 denied", headers.Writer{Mode: headers.Draft7}, deniedDecision, map[string]string{
			"RateLimit-Policy": "10;w=1, 600;w=60",
			"RateLimit":        "limit=600, remaining=0, reset=13",
		}},
		{"draft-6 allowed", headers.Writer{Mode: headers.Draft6}, allowedDecision, map[string]string{
			"RateLimit-Policy": "10;w=1, 600;w=60",
			"RateLimit-Limit":  "10", "RateLimit-Remaining": "3", "RateLimit-Reset": "1",
		}},
		{"draft-6 denied", headers.Writer{Mode: headers.Draft6}, deniedDecision, map[string]string{
			"RateLimit-Policy": "10;w=1, 600;w=60",
			"RateLimit-Limit":  "600", "RateLimit-Remaining": "0", "RateLimit-Reset": "13",
		}},
		{"legacy delta", headers.Writer{Mode: headers.Legacy}, deniedDecision, map[string]string{
			"X-RateLimit-Limit": "600", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "13",
		}},
		{"legacy epoch", headers.Writer{Mode: headers.Legacy, LegacyEpoch: true}, deniedDecision, map[string]string{
			"X-RateLimit-Limit": "600", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1767323058", // t0 + 13 s
		}},
		{"epoch ignored outside legacy", headers.Writer{Mode: headers.Draft6, LegacyEpoch: true}, allowedDecision, map[string]string{
			"RateLimit-Policy": "10;w=1, 600;w=60",
			"RateLimit-Limit":  "10", "RateLimit-Remaining": "3", "RateLimit-Reset": "1",
		}},
		{"none", headers.Writer{Mode: headers.None}, deniedDecision, map[string]string{}},
		{"nil decision", headers.Writer{}, nil, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, set := capture()
			tt.w.Write(set, tt.d, t0)
			got := map[string]string{}
			for k, v := range h {
				got[k] = v[0]
			}
			assert.Equal(t, tt.want, got)
			if _, ok := h["Retry-After"]; ok {
				t.Fatal("Write must never set Retry-After")
			}
		})
	}
}

func TestWriterEpochRoundsUp(t *testing.T) {
	// t0 is Unix 1767323045.
	tests := []struct {
		name  string
		now   time.Duration // after t0
		reset time.Duration
		want  string
	}{
		{"whole", 0, 2 * time.Second, "1767323047"},
		{"crossing a second", 400 * time.Millisecond, 700 * time.Millisecond, "1767323047"},
		{"within the second", 400 * time.Millisecond, 500 * time.Millisecond, "1767323046"},
		{"nothing to wait", 400 * time.Millisecond, 0, "1767323046"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decision(true, 0, core.PolicyState{Allowed: true, Remaining: 1, ResetAfter: tt.reset}, core.PolicyState{Allowed: true, Remaining: 9})
			h, set := capture()
			headers.Writer{Mode: headers.Legacy, LegacyEpoch: true}.Write(set, d, t0.Add(tt.now))
			assert.Equal(t, tt.want, get(h, "X-RateLimit-Reset"))
		})
	}
}

func TestWriterParsesAsStructuredFields(t *testing.T) {
	for _, d := range []*core.Decision{allowedDecision, deniedDecision} {
		h, set := capture()
		headers.Writer{AllPolicies: true}.Write(set, d, t0)
		pol, err := parseSFList(get(h, "RateLimit-Policy"))
		require.NoError(t, err)
		require.Len(t, pol, 2)
		lim, err := parseSFList(get(h, "RateLimit"))
		require.NoError(t, err)
		require.Len(t, lim, 2)
		for i, p := range d.Policies {
			assert.Equal(t, p.Name, pol[i].Value)
			assert.Equal(t, p.Name, lim[i].Value)
			q, _ := pol[i].Param("q")
			assert.Equal(t, p.Limit, q)
		}
	}
}

func TestWriterWindowRounding(t *testing.T) {
	tests := []struct {
		window time.Duration
		w      string
	}{
		{0, "1"}, // not a valid policy, but never w=0
		{time.Millisecond, "1"},
		{500 * time.Millisecond, "1"},
		{time.Second, "1"},
		{1001 * time.Millisecond, "2"},
		{1500 * time.Millisecond, "2"},
		{time.Hour, "3600"},
		{24 * time.Hour, "86400"},
	}
	for _, tt := range tests {
		t.Run(tt.window.String(), func(t *testing.T) {
			p := core.Per(5, tt.window).Named("p")
			d := &core.Decision{Allowed: true, Policies: []core.Policy{p}, Limit: 5}
			d.States()[0] = core.PolicyState{Allowed: true, Remaining: 5}
			h, set := capture()
			headers.Writer{}.Write(set, d, t0)
			assert.Equal(t, `"p";q=5;w=`+tt.w, get(h, "RateLimit-Policy"))
			assert.Equal(t, `"p";r=5;t=0`, get(h, "RateLimit"))
		})
	}
}

func TestWriterNames(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{`plain`, `"plain"`},
		{`with space`, `"with space"`},
		{`quote"inside`, `"quote\"inside"`},
		{`back\slash`, `"back\\slash"`},
		{"tab\there", `"tab_here"`},
		{"newline\r\nattack: x", `"newline__attack: x"`},
		{"café", `"caf_"`},
		{"日本", `"__"`},
		{"bad\xffutf8", `"bad_utf8"`},
		{"del\x7f", `"del_"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := core.PerSecond(1).Named(tt.name)
			d := &core.Decision{Allowed: true, Policies: []core.Policy{p}, Limit: 1}
			d.States()[0] = core.PolicyState{Allowed: true, Remaining: 1}
			h, set := capture()
			headers.Writer{}.Write(set, d, t0)
			assert.Equal(t, tt.want+";q=1;w=1", get(h, "RateLimit-Policy"))
			items, err := parseSFList(get(h, "RateLimit"))
			require.NoError(t, err)
			require.Len(t, items, 1)
		})
	}
}

func TestWriterEmptyNameUsesDefault(t *testing.T) {
	p := core.PerMinute(100)
	d := &core.Decision{Allowed: true, Policies: []core.Policy{p}, Limit: 100}
	d.States()[0] = core.PolicyState{Allowed: true, Remaining: 99, ResetAfter: time.Second}
	h, set := capture()
	headers.Writer{}.Write(set, d, t0)
	assert.Equal(t, `"1m";q=100;w=60`, get(h, "RateLimit-Policy"))
}

func TestWriterDecisionWithoutPolicies(t *testing.T) {
	// A hand-made decision with only the binding fields still writes. It
	// names no policy and no window: the field uses the default name of a
	// zero window and the shortest window a field can state, one second.
	d := &core.Decision{Allowed: false, Limit: 7, Remaining: 2, RetryAfter: 2500 * time.Millisecond}
	h, set := capture()
	headers.Writer{}.Write(set, d, t0)
	assert.Equal(t, `"0ms";q=7;w=1`, get(h, "RateLimit-Policy"))
	assert.Equal(t, `"0ms";r=0;t=3`, get(h, "RateLimit"))
	assert.Equal(t, int64(3), headerfmt.RetryAfterSeconds(d))

	// With its one policy in Policies and its state in States, the name
	// and window are its own.
	d.Policies = []core.Policy{core.Per(7, 10*time.Second).Named("solo")}
	d.States()[0] = core.PolicyState{Remaining: 2, RetryAfter: d.RetryAfter}
	h, set = capture()
	headers.Writer{}.Write(set, d, t0)
	assert.Equal(t, `"solo";q=7;w=10`, get(h, "RateLimit-Policy"))
	assert.Equal(t, `"solo";r=0;t=3`, get(h, "RateLimit"))
}

func TestWriterClampsValues(t *testing.T) {
	p := core.Policy{Name: "odd", Limit: 1 << 62, Window: time.Duration(math.MaxInt64)}
	d := &core.Decision{Allowed: true, Policies: []core.Policy{p}}
	d.States()[0] = core.PolicyState{Allowed: true, Remaining: -5, ResetAfter: -time.Second}
	h, set := capture()
	headers.Writer{AllPolicies: true}.Write(set, d, t0)
	assert.Equal(t, `"odd";q=999999999999999;w=9223372037`, get(h, "RateLimit-Policy"))
	assert.Equal(t, `"odd";r=0;t=0`, get(h, "RateLimit"))
	_, err := parseSFList(get(h, "RateLimit-Policy"))
	require.NoError(t, err)
}

func TestRetryAfter(t *testing.T) {
	tests := []struct {
		name  string
		d     *core.Decision
		want  int64
		field string
	}{
		{"allowed: none", allowedDecision, 0, ""},
		{"nil: none", nil, 0, ""},
		{"rounded up", deniedDecision, 13, "13"},
		{"whole seconds stay", decision(false, 0, core.PolicyState{RetryAfter: 2 * time.Second}, core.PolicyState{Allowed: true}), 2, "2"},
		{"at least one", decision(false, 0, core.PolicyState{RetryAfter: time.Millisecond}, core.PolicyState{Allowed: true}), 1, "1"},
		{"never earlier than the binding policy's t", func() *core.Decision {
			d := decision(false, 0, core.PolicyState{RetryAfter: 5 * time.Second}, core.PolicyState{Allowed: true})
			d.RetryAfter = time.Second
			return d
		}(), 5, "5"},
		{"zero becomes one", decision(false, 0, core.PolicyState{}, core.PolicyState{Allowed: true}), 1, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, headerfmt.RetryAfterSeconds(tt.d))
			h, set := capture()
			headerfmt.WriteRetryAfter(set, tt.d)
			assert.Equal(t, tt.field, get(h, "Retry-After"))
			if tt.field == "" {
				assert.Empty(t, h)
			}
		})
	}
}

func TestValidatePolicyName(t *testing.T) {
	for _, ok := range []string{"burst", "per user", `a"b\c`, "~!@#$%^&*()", ""} {
		assert.NoError(t, headerfmt.ValidatePolicyName(ok), ok)
	}
	for _, bad := range []string{"café", "tab\t", "nl\n", "del\x7f", "\xff"} {
		assert.ErrorIs(t, headerfmt.ValidatePolicyName(bad), core.ErrInvalidConfig, bad)
	}
}

// get returns a captured field by its exact name (http.Header.Get would
// canonicalise "RateLimit-Policy" to "Ratelimit-Policy").
func get(h http.Header, name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func TestWriterEpochWithoutNow(t *testing.T) {
	before := time.Now().Unix()
	h, set := capture()
	headers.Writer{Mode: headers.Legacy, LegacyEpoch: true}.Write(set, deniedDecision, time.Time{})
	after := time.Now().Unix()
	got, err := strconv.ParseInt(get(h, "X-RateLimit-Reset"), 10, 64)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, got, before+13, "a zero now means the system clock, never the year 1")
	assert.LessOrEqual(t, got, after+14)
}

// A sliding log that has just admitted a request reports a ResetAfter of
// its window plus up to a millisecond (the admission is recorded at its
// instant rounded up). On an allowed response t forgives that millisecond,
// so a 1 s window reads t=1, not 2; on a denial it never rounds down.
func TestResetForgivesTheStoresMillisecond(t *testing.T) {
	one := core.PerSecond(5).Named("log")
	for _, c := range []struct {
		name    string
		allowed bool
		after   time.Duration
		want    string
	}{
		{"allowed, window plus a millisecond", true, time.Second + time.Millisecond, `"log";r=0;t=1`},
		{"allowed, window plus two milliseconds", true, time.Second + 2*time.Millisecond, `"log";r=0;t=2`},
		{"denied, window plus a millisecond", false, time.Second + time.Millisecond, `"log";r=0;t=2`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := core.PolicyState{Allowed: c.allowed, ResetAfter: c.after}
			if !c.allowed {
				ps.RetryAfter = c.after
			}
			d := &core.Decision{Allowed: c.allowed, Policies: []core.Policy{one}, Limit: 5, ResetAfter: c.after, RetryAfter: ps.RetryAfter}
			d.States()[0] = ps
			h, set := capture()
			headers.Writer{}.Write(set, d, t0)
			//lint:ignore SA1008 capture keeps the names as the writer spells them
			assert.Equal(t, []string{c.want}, h["RateLimit"])
		})
	}
}
