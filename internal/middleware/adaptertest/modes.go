package adaptertest

import (
	"time"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
)

// modeScenarios hold the rate-limit fields each header mode writes, and
// every policy's with AllPolicies.
func modeScenarios() []Scenario {
	return []Scenario{
		{
			Name: "draft-6 fields",
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithHeaders(headers.Writer{Mode: headers.Draft6})}
			},
			Steps: []Step{
				{Status: 200, Want: map[string]string{headerfmt.FieldPolicy: "3;w=60", headerfmt.FieldLimit: "3", headerfmt.FieldRemaining: "2", headerfmt.FieldReset: "60"}},
				{Advance: 15 * time.Second, Repeat: 2, Status: 200},
				{Status: 429, Want: map[string]string{headerfmt.FieldPolicy: "3;w=60", headerfmt.FieldLimit: "3", headerfmt.FieldRemaining: "0", headerfmt.FieldReset: "45", headerfmt.FieldRetryAfter: "45"}},
			},
		},
		{
			Name: "draft-7 fields",
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithHeaders(headers.Writer{Mode: headers.Draft7})}
			},
			Steps: []Step{
				{Status: 200, Want: map[string]string{headerfmt.FieldPolicy: "3;w=60", headerfmt.FieldRateLimit: "limit=3, remaining=2, reset=60"}},
				{Advance: 15 * time.Second, Repeat: 2, Status: 200},
				{Status: 429, Want: map[string]string{headerfmt.FieldPolicy: "3;w=60", headerfmt.FieldRateLimit: "limit=3, remaining=0, reset=45", headerfmt.FieldRetryAfter: "45"}},
			},
		},
		{
			Name: "legacy fields with an epoch reset read the limiter's clock",
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithHeaders(headers.Writer{Mode: headers.Legacy, LegacyEpoch: true})}
			},
			Steps: []Step{
				{Advance: 10 * time.Second, Status: 200, Want: map[string]string{
					headerfmt.FieldLegacyLimit: "3", headerfmt.FieldLegacyRemaining: "2", headerfmt.FieldLegacyReset: itoa(T0.Unix() + 60),
				}},
			},
		},
		{
			Name: "no fields in mode none, but Retry-After on a denial",
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithHeaders(headers.Writer{Mode: headers.None})}
			},
			Steps: []Step{
				{Repeat: 3, Status: 200, Want: none},
				{Status: 429, Want: map[string]string{headerfmt.FieldRetryAfter: "60"}, Body: denyBody(60)},
			},
		},
		{
			Name: "several policies: the binding one is reported, all with AllPolicies",
			Policies: []core.Policy{
				core.PerSecond(2).Using(core.FixedWindow).Named("burst"),
				core.PerMinute(3).Using(core.FixedWindow).Named("minute"),
			},
			Options: func(*Env) []ratewindow.Option {
				return []ratewindow.Option{ratewindow.WithHeaders(headers.Writer{AllPolicies: true})}
			},
			Steps: []Step{
				{Status: 200, Want: map[string]string{
					headerfmt.FieldPolicy:    `"burst";q=2;w=1, "minute";q=3;w=60`,
					headerfmt.FieldRateLimit: `"burst";r=1;t=1, "minute";r=2;t=60`,
				}},
				{Status: 200},
				{Status: 429, Want: map[string]string{
					headerfmt.FieldPolicy:     `"burst";q=2;w=1, "minute";q=3;w=60`,
					headerfmt.FieldRateLimit:  `"burst";r=0;t=1, "minute";r=1;t=60`,
					headerfmt.FieldRetryAfter: "1",
				}},
				{Advance: time.Second, Status: 200},
				{Status: 429, Want: map[string]string{
					headerfmt.FieldPolicy:     `"burst";q=2;w=1, "minute";q=3;w=60`,
					headerfmt.FieldRateLimit:  `"burst";r=1;t=1, "minute";r=0;t=59`,
					headerfmt.FieldRetryAfter: "59",
				}},
			},
		},
	}
}
