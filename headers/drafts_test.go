package headers_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
)

// The examples below are the drafts' own (draft-ietf-httpapi-ratelimit-
// headers-06, -07 and -08), rebuilt as decisions: each mode must write
// exactly what its draft shows.
func TestWriterMatchesDraftExamples(t *testing.T) {
	// one builds a decision with one state per policy; bind is the
	// binding policy.
	one := func(bind int, ps []core.Policy, states ...core.PolicyState) *core.Decision {
		d := &core.Decision{Allowed: states[bind].Allowed, Policies: ps, Index: bind}
		copy(d.States(), states)
		d.Limit, d.Remaining = ps[bind].Limit, states[bind].Remaining
		d.ResetAfter, d.RetryAfter = states[bind].ResetAfter, states[bind].RetryAfter
		return d
	}
	ok := func(remaining int64, reset time.Duration) core.PolicyState {
		return core.PolicyState{Allowed: true, Remaining: remaining, ResetAfter: reset}
	}
	perMin100 := []core.Policy{core.PerMinute(100).Named("basic")}
	hourDay := []core.Policy{core.PerHour(1000).Named("hour"), core.Per(5000, 24*time.Hour).Named("day")}
	throttled := one(0, perMin100, core.PolicyState{Allowed: false, ResetAfter: 5 * time.Second, RetryAfter: 5 * time.Second})

	tests := []struct {
		name string
		mode headers.Mode
		d    *core.Decision
		want map[string]string
	}{
		{"draft-06 §A: a 60 s window", headers.Draft6, one(0, perMin100, ok(99, 50*time.Second)), map[string]string{
			"RateLimit-Limit": "100", "RateLimit-Policy": "100;w=60", "RateLimit-Remaining": "99", "RateLimit-Reset": "50",
		}},
		{"draft-06 §A: multiple windows, the daily one expiring", headers.Draft6, one(1, hourDay, ok(900, 10*time.Minute), ok(100, 10*time.Hour)), map[string]string{
			"RateLimit-Limit": "5000", "RateLimit-Policy": "1000;w=3600, 5000;w=86400", "RateLimit-Remaining": "100", "RateLimit-Reset": "36000",
		}},
		{"draft-06 §A: throttled", headers.Draft6, throttled, map[string]string{
			"RateLimit-Limit": "100", "RateLimit-Policy": "100;w=60", "RateLimit-Remaining": "0", "RateLimit-Reset": "5",
		}},
		{"draft-07 §A: a 60 s window", headers.Draft7, one(0, perMin100, ok(99, 50*time.Second)), map[string]string{
			"RateLimit": "limit=100, remaining=99, reset=50", "RateLimit-Policy": "100;w=60",
		}},
		{"draft-07 §A: throttled", headers.Draft7, throttled, map[string]string{
			"RateLimit": "limit=100, remaining=0, reset=5", "RateLimit-Policy": "100;w=60",
		}},
		{"draft-07 §A: remaining 60 of 100", headers.Draft7, one(0, perMin100, ok(60, 58*time.Second)), map[string]string{
			"RateLimit": "limit=100, remaining=60, reset=58", "RateLimit-Policy": "100;w=60",
		}},
		{"draft-08 §A: basic policy", headers.Draft8, one(0, perMin100, ok(60, 58*time.Second)), map[string]string{
			"RateLimit-Policy": `"basic";q=100;w=60`, "RateLimit": `"basic";r=60;t=58`,
		}},
		{"draft-08 §A: throttled", headers.Draft8, throttled, map[string]string{
			"RateLimit-Policy": `"basic";q=100;w=60`, "RateLimit": `"basic";r=0;t=5`,
		}},
		// The draft writes the list without the space after the comma;
		// RFC 9651 serialises it with one, and parsers accept both.
		{"draft-08 §3: two policies", headers.Draft8, one(1, []core.Policy{core.PerMinute(50).Named("permin"), core.PerHour(1000).Named("perhr")}, ok(10, time.Minute), ok(300, time.Hour)), map[string]string{
			"RateLimit-Policy": `"permin";q=50;w=60, "perhr";q=1000;w=3600`, "RateLimit": `"perhr";r=300;t=3600`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, set := capture()
			headers.Writer{Mode: tt.mode}.Write(set, tt.d, t0)
			got := map[string]string{}
			for k, v := range h {
				got[k] = v[0]
			}
			assert.Equal(t, tt.want, got)
		})
	}
	// The throttled examples pair the fields with Retry-After: 5.
	h, set := capture()
	headerfmt.WriteRetryAfter(set, throttled)
	assert.Equal(t, "5", get(h, "Retry-After"))
}
