package headers_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/headers"
)

// A decision from a limiter with two policies, written in the default draft-8
// mode, then with one item per policy. t is the time until the quota is
// whole again: for a sliding log, one window after the oldest request it
// holds, so here, after one request, exactly the window. (Under the default
// sliding window counter a request weighs on the estimate for up to two
// windows, so t is then between one and two windows.)
func ExampleWriter_Write() {
	lim, err := core.NewLimiter(memory.New(), []core.Policy{
		core.PerSecond(10).Named("burst").Using(core.SlidingLog),
		core.PerMinute(600).Named("steady").Using(core.SlidingLog),
	})
	if err != nil {
		panic(err)
	}
	d, _ := lim.Allow(context.Background(), "client")

	h := http.Header{}
	headers.Writer{}.Write(h.Set, &d, time.Now())
	fmt.Println(h.Get("RateLimit-Policy"))
	fmt.Println(h.Get("RateLimit"))

	headers.Writer{AllPolicies: true}.Write(h.Set, &d, time.Now())
	fmt.Println(h.Get("RateLimit"))
	// Output:
	// "burst";q=10;w=1, "steady";q=600;w=60
	// "burst";r=9;t=1
	// "burst";r=9;t=1, "steady";r=599;t=60
}

// The older header sets, for clients that read them.
func ExampleWriter_legacy() {
	p := core.PerHour(5000).Named("api")
	d := &core.Decision{Allowed: false, Policies: []core.Policy{p}, Limit: 5000, RetryAfter: 90 * time.Second}
	d.States()[0] = core.PolicyState{Allowed: false, RetryAfter: 90 * time.Second, ResetAfter: time.Hour}
	now := time.Unix(1_700_000_000, 0)

	print := func(name, value string) { fmt.Printf("%s: %s\n", name, value) }
	headers.Writer{Mode: headers.Draft7}.Write(print, d, now)
	headers.Writer{Mode: headers.Draft6}.Write(print, d, now)
	headers.Writer{Mode: headers.Legacy, LegacyEpoch: true}.Write(print, d, now)
	// The middleware adds Retry-After on a denial; without it:
	print("Retry-After", strconv.FormatInt(int64((d.RetryAfter+time.Second-1)/time.Second), 10))
	// Output:
	// RateLimit-Policy: 5000;w=3600
	// RateLimit: limit=5000, remaining=0, reset=90
	// RateLimit-Policy: 5000;w=3600
	// RateLimit-Limit: 5000
	// RateLimit-Remaining: 0
	// RateLimit-Reset: 90
	// X-RateLimit-Limit: 5000
	// X-RateLimit-Remaining: 0
	// X-RateLimit-Reset: 1700000090
	// Retry-After: 90
}
