package headers_test

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
)

// An allowed decision whose ResetAfter is negative, down to the most
// negative Duration (a hand-made decision, or a store's arithmetic gone
// wrong), has no wait to report: every mode writes a reset of 0 (the
// Legacy epoch form, now), the same as for -1s. Forgiving the stores'
// millisecond must not wrap the most negative waits round to 292 years.
func TestAllowedNegativeResetIsZeroInEveryMode(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	modes := []struct {
		w     headers.Writer
		field string
		want  string
	}{
		{headers.Writer{Mode: headers.Draft8}, "RateLimit", `"p";r=3;t=0`},
		{headers.Writer{Mode: headers.Draft8, AllPolicies: true}, "RateLimit", `"p";r=3;t=0`},
		{headers.Writer{Mode: headers.Draft7}, "RateLimit", "limit=5, remaining=3, reset=0"},
		{headers.Writer{Mode: headers.Draft6}, "RateLimit-Reset", "0"},
		{headers.Writer{Mode: headers.Legacy}, "X-RateLimit-Reset", "0"},
		{headers.Writer{Mode: headers.Legacy, LegacyEpoch: true}, "X-RateLimit-Reset", "1700000000"},
	}
	for _, after := range []time.Duration{math.MinInt64, math.MinInt64 + 1, math.MinInt64 + time.Millisecond - 1, -time.Second, -1, 0} {
		d := &core.Decision{Allowed: true, Remaining: 3, ResetAfter: after, Limit: 5,
			Policies: []core.Policy{{Name: "p", Limit: 5, Window: time.Minute}}}
		d.States()[0] = core.PolicyState{Allowed: true, Remaining: 3, ResetAfter: after}
		hand := &core.Decision{Allowed: true, Remaining: 3, ResetAfter: after, Limit: 5}
		for _, m := range modes {
			for name, dec := range map[string]*core.Decision{"limiter's": d, "hand-made": hand} {
				h := http.Header{}
				m.w.Write(func(k, v string) { h.Set(k, v) }, dec, now)
				got := h.Get(m.field)
				if name == "hand-made" && m.w.Mode == headers.Draft8 {
					// A hand-made decision's policy has no name.
					assert.Contains(t, got, ";r=3;t=0", "%s decision, %v, ResetAfter %d", name, m.w.Mode, int64(after))
					continue
				}
				assert.Equal(t, m.want, got, "%s decision, %v, ResetAfter %d", name, m.w.Mode, int64(after))
			}
		}
	}
}
