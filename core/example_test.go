package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

func ExampleLimiter() {
	clock := clocktest.New(time.UnixMilli(1_800_000_000_000))
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{
		core.PerSecond(2).Named("burst"),
		core.PerMinute(100).Named("steady").Using(core.SlidingLog),
	}, core.WithClock(clock))
	if err != nil {
		panic(err)
	}
	for i := 0; i < 3; i++ {
		d, _ := limiter.Allow(context.Background(), "user-42")
		fmt.Println(d.Allowed, d.Policy().Name, d.Remaining, d.RetryAfter)
	}
	// The sliding window counter lets the third request in once the two
	// early ones, weighted into the next bucket, have half decayed: 1.5s.

	// Output:
	// true burst 1 0s
	// true burst 0 0s
	// false burst 0 1.5s
}

// Two routes' limiters on one store. Their policies have the same Window,
// so unnamed they would both be "1m" and a client's searches would spend
// its uploads; named, each route counts on its own.
func ExampleNewLimiter_sharedStore() {
	store := memory.New()
	search, err := core.NewLimiter(store, []core.Policy{core.PerMinute(2).Named("search")})
	if err != nil {
		panic(err)
	}
	upload, err := core.NewLimiter(store, []core.Policy{core.PerMinute(2).Named("upload")})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for range 3 {
		d, _ := search.Allow(ctx, "ip:192.0.2.1")
		fmt.Print(d.Allowed, " ")
	}
	d, _ := upload.Allow(ctx, "ip:192.0.2.1")
	fmt.Println(d.Allowed)
	// Output: true true false true
}
